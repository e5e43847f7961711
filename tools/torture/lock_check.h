/*
 * lock_check.h - the locktorture check, shared by the lock torture types
 * (rwsem, and later percpu-rwsem and freeze).
 *
 * Holders count themselves in and out of two counters and work on a block
 * of words that a writer fills with one value of its own.  A reader that
 * finds a writer counted in, or the words changing under it, and a writer
 * that finds anybody else counted in, or its words overwritten, have caught
 * a broken exclusion.  Readers must also share: with two or more readers
 * the run must see two holding the lock at once.
 */
#ifndef QUIESCE_TORTURE_LOCK_CHECK_H
#define QUIESCE_TORTURE_LOCK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct torture_run;
struct torture_thread;

/* How a type takes and releases its lock; each picks its own variants. */
struct lock_ops {
	void (*read_lock)(struct torture_thread *t, void *lock);
	void (*read_unlock)(struct torture_thread *t, void *lock);
	void (*write_lock)(struct torture_thread *t, void *lock);
	void (*write_unlock)(struct torture_thread *t, void *lock);
	/* Optional: turns the caller's write hold into a read hold. */
	void (*downgrade)(struct torture_thread *t, void *lock);
	/* Optional: releases what the lock allocated, before it is freed. */
	void (*destroy)(void *lock);
	/*
	 * Writers of a read-mostly lock rest up to this long between holds,
	 * so that readers see it idle and take their fast path.
	 */
	uint64_t write_gap_ns;
	/* Writers sleep up to this long inside their holds (0: they do not). */
	uint64_t write_hold_ns;
};

/* What the lock operations report about themselves. */
enum lock_event {
	LOCK_TRYLOCK_FAILED,	/* a trylock failed; the caller then waited */
	LOCK_TIMED_OUT,		/* a timed acquire timed out; likewise */
	LOCK_BUSY,		/* freeze: found frozen by another writer, retried */
	LOCK_EVENTS
};

/* Allocates the shared state and a zeroed lock of lock_size; returns it. */
void *lock_check_setup(struct torture_run *run, const struct lock_ops *ops, size_t lock_size);
void lock_check_note(struct torture_thread *t, enum lock_event event);

/* The struct torture_type operations the lock types share. */
uint64_t lock_check_grace_periods(struct torture_run *run);
void lock_check_read(struct torture_thread *t);
void lock_check_write(struct torture_thread *t);
void lock_check_finish(struct torture_run *run);
void lock_check_report(struct torture_run *run, FILE *out, bool json);

#endif
