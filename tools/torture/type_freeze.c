/*
 * type_freeze.c - the freeze torture type: readers do "work" on a
 * three-level freezer, sometimes nested from a lower level into a higher
 * one (as the kernel's write, page-fault and internal levels nest), and
 * writers freeze and thaw it, under the lock check: no work may be in
 * flight at any level while it is frozen.  Busted, the rcu_sync under each
 * level closes without waiting for a grace period or aborting rseq
 * readers, and work starts through the widened fast path (percpu_read.h).
 */
#include <errno.h>
#include <sched.h>

#include <quiesce/freeze.h>

#include "lock_check.h"
#include "percpu_read.h"
#include "torture.h"
#include "type_table.h"

/*
 * Writers are rare, so readers mostly find the gate open, and hold long
 * enough to still be inside when a reader stopped on its fast path (the
 * signals fault) comes back.
 */
#define WRITE_GAP_NS 2000000u
#define WRITE_HOLD_NS 300000u

#define LEVELS 3

/* The levels this thread's current work started, lowest first. */
static __thread struct {
	int level[LEVELS];
	int n;
} held;

static void start_work(struct torture_thread *t, struct freezer *f)
{
	int level = (int)(torture_random(t) % LEVELS);

	if (torture_one_in(t, 4)) {
		if (torture_percpu_read->trystart(f, level)) {
			held.level[held.n++] = level;
			return;
		}
		lock_check_note(t, LOCK_TRYLOCK_FAILED);
	}
	torture_percpu_read->start(f, level);
	held.level[held.n++] = level;
}

static void read_lock(struct torture_thread *t, void *lock)
{
	struct freezer *f = lock;

	held.n = 0;
	start_work(t, f);
	/* Work may start more work at a higher level, never a lower one. */
	if (held.level[0] + 1 < LEVELS && torture_one_in(t, 2)) {
		unsigned above = (unsigned)(LEVELS - 1 - held.level[0]);
		int level = held.level[0] + 1 + (int)(torture_random(t) % above);

		torture_percpu_read->start(f, level);
		held.level[held.n++] = level;
	}
}

static void read_unlock(struct torture_thread *t, void *lock)
{
	while (held.n)
		torture_percpu_read->end(lock, held.level[--held.n]);
}

static void write_lock(struct torture_thread *t, void *lock)
{
	/* -EBUSY: another writer has it frozen; woken by nothing, so yield. */
	while (freezer_freeze(lock) == -EBUSY) {
		lock_check_note(t, LOCK_BUSY);
		sched_yield();
	}
}

static void write_unlock(struct torture_thread *t, void *lock)
{
	if (freezer_thaw(lock))
		torture_violation(t->run, TV_EXCLUSION, "%s could not thaw the freezer it froze",
				  t->name);
}

static void destroy(void *lock)
{
	freezer_destroy(lock);
}

static const struct lock_ops freeze_ops = {
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.write_lock = write_lock,
	.write_unlock = write_unlock,
	.destroy = destroy,
	.write_gap_ns = WRITE_GAP_NS,
	.write_hold_ns = WRITE_HOLD_NS,
};

static void setup(struct torture_run *run)
{
	freezer_init(lock_check_setup(run, &freeze_ops, sizeof(struct freezer)), LEVELS);
}

const struct torture_type torture_type_freeze = {
	.name = "freeze",
	.doc = "three-level freezer: nested work against freeze and thaw",
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
