/*
 * type_percpu_rwsem.c - the percpu-rwsem torture type: readers on the
 * per-CPU fast path (and the trylock) against writers that close the
 * rcu_sync gate, under the lock check.  Busted, rcu_sync closes the gate
 * without waiting for a grace period or aborting rseq readers, and readers
 * take the widened fast path (percpu_read.h), so fast-path readers overlap
 * writers.
 */
#include <quiesce/percpu_rwsem.h>

#include "lock_check.h"
#include "percpu_read.h"
#include "locks/rcu_sync.h"
#include "torture.h"
#include "type_table.h"

/*
 * Writers are rare, so readers mostly find the gate open, and hold long
 * enough to still be inside when a reader stopped on its fast path (the
 * signals fault) comes back.
 */
#define WRITE_GAP_NS 2000000u
#define WRITE_HOLD_NS 300000u

static void read_lock(struct torture_thread *t, void *lock)
{
	if (torture_one_in(t, 4)) {
		if (torture_percpu_read->down_read_trylock(lock))
			return;
		lock_check_note(t, LOCK_TRYLOCK_FAILED);
	}
	torture_percpu_read->down_read(lock);
}

static void read_unlock(struct torture_thread *t, void *lock)
{
	torture_percpu_read->up_read(lock);
}

static void write_lock(struct torture_thread *t, void *lock)
{
	percpu_down_write(lock);
}

static void write_unlock(struct torture_thread *t, void *lock)
{
	percpu_up_write(lock);
}

static void destroy(void *lock)
{
	percpu_free_rwsem(lock);
}

static const struct lock_ops percpu_rwsem_ops = {
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.write_lock = write_lock,
	.write_unlock = write_unlock,
	.destroy = destroy,
	.write_gap_ns = WRITE_GAP_NS,
	.write_hold_ns = WRITE_HOLD_NS,
};

/* Busted, readers also take the widened fast path (percpu_read.h). */
static void set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_rcu_sync, on);
	torture_percpu_read = on ? &torture_percpu_read_widened : &torture_percpu_read_plain;
}

const struct torture_control torture_rcu_sync_controls[] = {
	{ .name = "", .doc = "rcu_sync_enter() closes the gate with no grace period",
	  .set = set_busted },
	{ .name = NULL },
};

static void setup(struct torture_run *run)
{
	percpu_init_rwsem(lock_check_setup(run, &percpu_rwsem_ops,
					   sizeof(struct percpu_rw_semaphore)));
}

const struct torture_type torture_type_percpu_rwsem = {
	.name = "percpu-rwsem",
	.doc = "per-CPU reader-writer semaphore: fast-path readers against writers",
	.faults = TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN |
		  TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE,
	.controls = torture_rcu_sync_controls,
	.setup = setup,
	.read = lock_check_read,
	.write = lock_check_write,
	.grace_periods = lock_check_grace_periods,
	.finish = lock_check_finish,
	.report = lock_check_report,
};
