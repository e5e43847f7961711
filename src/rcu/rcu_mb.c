/*
 * rcu_mb.c - the mb domain: RCU whose readers fence, so that its grace
 * periods need no heavy barrier (include/quiesce/rcu_mb.h).  The engine
 * (gp_engine.c) runs its grace periods; this file says how one starts,
 * which readers hold it, and why that is safe.
 *
 * State.  Each thread that used the domain has a counter in its TLS
 * (quiesce_rcu_mb_reader_self, laid out as the default domain's: phase in
 * the high bits, nesting depth in the low ones, 0 outside); its registry
 * entry points at it (registry.c).  The domain has a phase word.  A grace
 * period, after its caller has unlinked an object and taken a snapshot
 * (quiesce_gp_snapshot(): a full fence F_U after the unlink):
 *
 *   1. The engine makes the sequence number odd, sequentially consistent.
 *   2. start(): the phase word goes from OLD to NEW, with release.
 *   3. blocking(): scans the registry, loading each mb counter
 *      sequentially consistent, until no reader is inside a section
 *      entered at a phase other than NEW.  No heavy barrier first
 *      (barrier_first = false): the readers fence for themselves.
 *
 * The ordering points, each with its pair:
 *
 *  a. The outermost read_lock: a load of the phase, a store of it into
 *     the counter, then a full fence F_R, then the section's loads.  The
 *     store-buffer pattern against the updater, which unlinks, executes
 *     F_U, and then (itself, or the thread that runs the grace period its
 *     snapshot names, after the sequentially consistent compare-exchange
 *     to an odd sequence number that the snapshot did not see) loads the
 *     counter in the scan.  Either the scan sees the counter store, or F_R
 *     follows F_U in the total order and the section sees the unlink.  When the
 *     scan sees the counter at an old phase it waits; at NEW, the reader
 *     read start()'s release store, and F_R, an acquire fence too, makes
 *     what preceded start() (the unlink, as above) visible to the section.
 *     This fence is what replaces the default domain's membarrier().
 *  b. The outermost read_unlock: a release store of 0.  It pairs with the
 *     scan's load (at least acquire): a section the scan sees ended has
 *     its loads happen before the grace period ends, and so before the
 *     caller frees.  No fence after the scan.
 *  c. Sleeping.  After (b) the reader executes a full fence F_X, then
 *     loads writer_sleeping and the phase, and wakes the grace period
 *     (quiesce_gp_wake()) if the flag is set and its phase is old.  The
 *     engine stores writer_sleeping, executes a full fence (readers_fence:
 *     it issues no heavy barrier there), then rescans.  The store-buffer
 *     pattern again: either the rescan sees the 0 of (b), or F_X follows
 *     the engine's fence, and the reader sees the flag and the phase that
 *     start() stored before it, and wakes it.  So a sleep never waits for
 *     a timer.
 *  d. Registration and leaving: under the registry lock, which every scan
 *     takes.  A scan before a thread's entry is linked happens before
 *     that thread's first section (the lock), which sees the unlink; a
 *     scan after it reads the counter, which the entry points at from its
 *     link on.  The counter says QUIESCE_RCU_UNREGISTERED, depth 0, until
 *     the thread's first mb section stores 0 there without the lock
 *     (registry.c): to a scan both are outside any section, and (a) orders
 *     the section that follows as any other.  (A lock there would wait
 *     for ever in a signal handler's first mb section that interrupted its
 *     own thread in a scan.)  A thread that
 *     leaves unlinks under the lock: its sections happen before every
 *     later scan (its signal handlers' too: it blocks signals until its
 *     counters say unregistered, registry.c); one that exits inside a
 *     section wakes a sleeping grace period after the unlink, and needs
 *     no fence for it: either the rescan's lock follows the unlink, or
 *     the engine's flag store happens before the wake-up's look at it.
 *
 * Under ThreadSanitizer, which does not model fences, (b) and the acquire
 * load that rcu_dereference() becomes there (rcu.h) give the
 * happens-before edges it checks; the fences only add what it cannot see.
 *
 * The phase only ensures progress: a reader that leaves and re-enters
 * picks up NEW and no longer holds the grace period.  It is a counter, not
 * liburcu's one bit, so one flip and one wait suffice where liburcu-mb
 * waits twice around its flip: a reader that loaded a phase before a flip
 * and stores it after the scan is safe for that grace period by (a), and
 * every later grace period, whose phase differs from the one it stored,
 * waits for it.
 */
#include "rcu/rcu_mb.h"

#include <quiesce/rcu_mb.h>

#include "common/diag.h"
#include "rcu/cb_domain.h"
#include "rcu/cb_worker.h"
#include "rcu/gp_engine.h"
#include "rcu/registry.h"
#include "rcu/stall.h"

__thread struct quiesce_rcu_mb_reader quiesce_rcu_mb_reader_self
	__attribute__((tls_model("initial-exec"))) = { .ctr = QUIESCE_RCU_UNREGISTERED };

QUIESCE_CACHELINE_ALIGNED struct quiesce_rcu_mb_gp_word quiesce_rcu_mb_gp_word = {
	.ctr = 1,	/* phase 0, nesting depth 1 */
};

bool quiesce_test_busted_rcu_mb;

/*
 * Counts the mb readers still inside a section entered before the current
 * phase; describes up to cap of them for a stall report.
 */
static unsigned mb_blocking(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			    char names[][16], unsigned cap)
{
	unsigned long phase = quiesce_rcu_mb_gp_word.ctr;	/* start() wrote it, in this grace period */
	unsigned blocking = 0;

	if (QUIESCE_LOAD(&quiesce_test_busted_rcu_mb))
		return 0;	/* The broken control: waits for no reader. */
	pthread_mutex_lock(&quiesce_registry_lock);
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_gp_hook)))
		quiesce_test_gp_hook(d, QUIESCE_GP_HOOK_SCANNING);
	quiesce_registry_for_each(e) {
		/*
		 * Sequentially consistent: the total order with the fences of
		 * (a) and (c), and acquire for the release store of (b).
		 */
		if (!quiesce_rcu_ctr_blocks(__atomic_load_n(&e->mb_reader->ctr, __ATOMIC_SEQ_CST),
					    phase))
			continue;
		if (blocking < cap)
			quiesce_stall_describe_thread(&stalled[blocking], names[blocking], e->tid,
						      e->thread);
		blocking++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return blocking;
}

static void mb_start(struct quiesce_gp_domain *d)
{
	(void)d;
	/* Release: pairs with the fence after the phase load in (a). */
	QUIESCE_STORE_RELEASE(&quiesce_rcu_mb_gp_word.ctr,
			      quiesce_rcu_mb_gp_word.ctr + QUIESCE_RCU_PHASE_ONE);
}

static bool mb_caller_holds(struct quiesce_gp_domain *d)
{
	(void)d;
	return quiesce_rcu_mb_read_ongoing();
}

static const struct quiesce_gp_domain_ops mb_ops = {
	.kind = "RCU-mb",
	.barrier_first = false,
	.readers_fence = true,
	.caller_holds = mb_caller_holds,
	.start = mb_start,
	.blocking = mb_blocking,
};

struct quiesce_gp_domain quiesce_rcu_mb_domain =
	QUIESCE_GP_DOMAIN_INIT(&mb_ops, &quiesce_rcu_mb_gp_word.writer_sleeping);

struct quiesce_cb_domain quiesce_rcu_mb_cb =
	QUIESCE_CB_DOMAIN_INIT(quiesce_rcu_mb_cb, &quiesce_rcu_mb_domain, NULL, "quiesce-mb-cb");

void quiesce_rcu_mb_wake_grace_period(void)
{
	quiesce_gp_wake(&quiesce_rcu_mb_gp_word.writer_sleeping);
}

void quiesce_rcu_mb_register_thread(void)
{
	if (quiesce_rcu_mb_reader_self.ctr == QUIESCE_RCU_UNREGISTERED)
		quiesce_registry_use_mb();
}

void quiesce_rcu_mb_unregister_thread(void)
{
	if (quiesce_rcu_mb_read_ongoing())
		quiesce_die("quiesce_rcu_mb_unregister_thread() called inside an RCU-mb "
			    "read-side critical section");
	quiesce_rcu_unregister_thread();
}

void quiesce_rcu_mb_read_lock_first_use(void)
{
	/* As the default domain's (registry.c). */
	if ((quiesce_rcu_mb_reader_self.ctr & QUIESCE_RCU_NEST_MASK) == QUIESCE_RCU_NEST_MASK)
		quiesce_die("quiesce_rcu_mb_read_lock() nested more than %lu deep: the section's "
			    "depth would overflow", QUIESCE_RCU_NEST_MASK);
	quiesce_registry_use_mb();
	quiesce_rcu_mb_read_lock();
}

void quiesce_rcu_mb_unbalanced_unlock(void)
{
	quiesce_die("quiesce_rcu_mb_read_unlock() without a matching quiesce_rcu_mb_read_lock()");
}

void quiesce_synchronize_rcu_mb(void)
{
	quiesce_gp_forbid_inside_reader(&quiesce_rcu_mb_domain, "quiesce_synchronize_rcu_mb");
	quiesce_gp_synchronize(&quiesce_rcu_mb_domain, false);
}

void quiesce_synchronize_rcu_mb_expedited(void)
{
	quiesce_gp_forbid_inside_reader(&quiesce_rcu_mb_domain, "quiesce_synchronize_rcu_mb_expedited");
	quiesce_gp_synchronize(&quiesce_rcu_mb_domain, true);
}

unsigned long quiesce_get_state_synchronize_rcu_mb(void)
{
	return quiesce_gp_snapshot(&quiesce_rcu_mb_domain);
}

unsigned long quiesce_start_poll_synchronize_rcu_mb(void)
{
	return quiesce_cb_domain_start_poll(&quiesce_rcu_mb_cb);
}

bool quiesce_poll_state_synchronize_rcu_mb(unsigned long cookie)
{
	return quiesce_cb_domain_poll(&quiesce_rcu_mb_cb, cookie);
}

void quiesce_cond_synchronize_rcu_mb(unsigned long cookie)
{
	if (!quiesce_poll_state_synchronize_rcu_mb(cookie))
		quiesce_synchronize_rcu_mb();
}

void quiesce_call_rcu_mb(struct quiesce_rcu_head *head,
			 void (*func)(struct quiesce_rcu_head *head))
{
	quiesce_cb_domain_call(&quiesce_rcu_mb_cb, head, func);
}

void quiesce_rcu_barrier_mb(void)
{
	quiesce_gp_forbid_inside_reader(&quiesce_rcu_mb_domain, "quiesce_rcu_barrier_mb");
	quiesce_cb_domain_barrier(&quiesce_rcu_mb_cb, "quiesce_rcu_barrier_mb");
	quiesce_cb_workers_barrier(QUIESCE_CB_RCU_MB, "quiesce_rcu_barrier_mb");
}
