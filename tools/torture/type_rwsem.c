/*
 * type_rwsem.c - the rwsem torture type: every way in (down_*, the
 * trylocks, the timed acquires with short random timeouts) and out
 * (up_*, downgrade_write), under the lock check.  Busted, a writer in the
 * slow path ignores readers and takes the lock while they hold it.
 */
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

static void read_unlock(struct torture_thread *t, void *lock)
{
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
	downgrade_write(lock);
}

static const struct lock_ops rwsem_ops = {
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.write_lock = write_lock,
	.write_unlock = write_unlock,
	.downgrade = downgrade,
};

static void set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_rwsem_test_busted_writer, on);
}

static void setup(struct torture_run *run)
{
	init_rwsem(lock_check_setup(run, &rwsem_ops, sizeof(struct rw_semaphore)));
}

const struct torture_type torture_type_rwsem = {
	.name = "rwsem",
	.doc = "reader-writer semaphore: exclusion, sharing, trylocks, timeouts, downgrade",
	.faults = TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN |
		  TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE,
	.set_busted = set_busted,
	.setup = setup,
	.read = lock_check_read,
	.write = lock_check_write,
	.finish = lock_check_finish,
	.report = lock_check_report,
};
