/*
 * percpu_read.h - the read side of the per-CPU semaphore and the freezer,
 * as the library inlines it, and a copy widened for the busted types.
 *
 * With rseq readers, a reader's look at the gate and its count update are
 * one restartable sequence a few instructions long, which a signal aborts
 * rather than stops: a gate closed without aborting the sequences in
 * flight (the busted rcu_sync) would almost never be caught.  The widened
 * copy spins inside the sequence between the two
 * (QUIESCE_TEST_RSEQ_WINDOW_SPINS), so it is.
 */
#ifndef QUIESCE_TORTURE_PERCPU_READ_H
#define QUIESCE_TORTURE_PERCPU_READ_H

#include <stdbool.h>

#include <quiesce/freeze.h>
#include <quiesce/percpu_rwsem.h>

struct torture_percpu_read {
	void (*down_read)(struct percpu_rw_semaphore *sem);
	bool (*down_read_trylock)(struct percpu_rw_semaphore *sem);
	void (*up_read)(struct percpu_rw_semaphore *sem);
	void (*start)(struct freezer *f, int level);
	bool (*trystart)(struct freezer *f, int level);
	void (*end)(struct freezer *f, int level);
};

extern const struct torture_percpu_read torture_percpu_read_plain;	/* percpu_read.c */
extern const struct torture_percpu_read torture_percpu_read_widened;	/* percpu_read_widened.c */

/* What the percpu-rwsem and freeze types call: widened when busted. */
extern const struct torture_percpu_read *torture_percpu_read;

#endif
