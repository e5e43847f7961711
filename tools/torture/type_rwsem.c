/*
 * type_rwsem.c - the rwsem torture type: every way in (down_*, the
 * trylocks, the timed acquires with short random timeouts) and out
 * (up_*, downgrade_write), under the lock check.  Busted, a writer in the
 * slow path ignores readers and takes the lock while they hold it; busted
 * "writers", it ignores the writer that holds it; busted "unshared", the
 * type's own read side serializes its holders, which the sharing check
 * must catch.
 */
#include <pthread.h>

#include <quiesce/rwsem.h>

#include "lock_check.h"
#include "locks/rwsem_internal.h"
#include "torture.h"

#define TIMEOUT_NS_MAX 200000u

enum { WAY_PLAIN, WAY_TRYLOCK, WAY_TIMEOUT, WAYS };

static void read_lock(struct torture_thread *t, void *lock)
{
	struct rw_semaphore *sem = lock;

	switch (torture_random(t) % WAYS) {
	case WAY_TRYLOCK:
		if (down_read_trylock(sem))
			return;
		lock_check_note(t, LOCK_TRYLOCK_FAILED);
		break;
	case WAY_TIMEOUT:
		if (!down_read_timeout(sem, torture_random(t) % TIMEOUT_NS_MAX))
			return;
		lock_check_note(t, LOCK_TIMED_OUT);
		break;
	}
	down_read(sem);
}

/* The unshared control: every read hold also holds this. */
static bool unshared;
static pthread_mutex_t unshared_lock = PTHREAD_MUTEX_INITIALIZER;

static void read_lock_maybe_unshared(struct torture_thread *t, void *lock)
{
	read_lock(t, lock);
	if (QUIESCE_LOAD(&unshared))
		pthread_mutex_lock(&unshared_lock);
}

static void read_unlock(struct torture_thread *t, void *lock)
{
	if (QUIESCE_LOAD(&unshared))
		pthread_mutex_unlock(&unshared_lock);
	up_read(lock);
}

static void write_lock(struct torture_thread *t, void *lock)
{
	struct rw_semaphore *sem = lock;

	switch (torture_random(t) % WAYS) {
	case WAY_TRYLOCK:
		if (down_write_trylock(sem))
			return;
		lock_check_note(t, LOCK_TRYLOCK_FAILED);
		break;
	case WAY_TIMEOUT:
		if (!down_write_timeout(sem, torture_random(t) % TIMEOUT_NS_MAX))
			return;
		lock_check_note(t, LOCK_TIMED_OUT);
		break;
	}
	down_write(sem);
}

static void write_unlock(struct torture_thread *t, void *lock)
{
	up_write(lock);
}

static void downgrade(struct torture_thread *t, void *lock)
{
	/* Free while this thread writes: readers take it only holding the lock. */
	if (QUIESCE_LOAD(&unshared))
		pthread_mutex_lock(&unshared_lock);
	downgrade_write(lock);
}

static const struct lock_ops rwsem_ops = {
	.read_lock = read_lock_maybe_unshared,
	.read_unlock = read_unlock,
	.write_lock = write_lock,
	.write_unlock = write_unlock,
	.downgrade = downgrade,
};

static const struct torture_control controls[] = {
	{ .name = "", .doc = "a writer is kept out by other writers only, not by readers",
	  .flag = &quiesce_rwsem_test_busted_writer },
	{ .name = "writers", .doc = "a writer is kept out by readers only, not by other writers",
	  .flag = &quiesce_rwsem_test_busted_writers_share },
	{ .name = "unshared", .doc = "every read hold takes a mutex as well: readers never share",
	  .flag = &unshared },
	{ .name = NULL },
};

static void setup(struct torture_run *run)
{
	init_rwsem(lock_check_setup(run, &rwsem_ops, sizeof(struct rw_semaphore)));
}

const struct torture_type torture_type_rwsem = {
	.name = "rwsem",
	.doc = "reader-writer semaphore: exclusion, sharing, trylocks, timeouts, downgrade",
	.faults = TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN |
		  TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE,
	.controls = controls,
	.setup = setup,
	.read = lock_check_read,
	.write = lock_check_write,
	.finish = lock_check_finish,
	.report = lock_check_report,
};
