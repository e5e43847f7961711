/*
 * rcu_domain.c - the default RCU domain: one heavy barrier, one phase flip,
 * one scan of the registered threads (the engine, gp_engine.c, runs them).
 *
 * Readers (include/quiesce/rcu.h) copy the global phase word into their own
 * counter on the outermost rcu_read_lock(), behind only a compiler barrier,
 * and store 0 with release semantics on the outermost rcu_read_unlock().
 * A grace period, after its caller has unlinked an object:
 *
 *   1. quiesce_gp_barrier() (barrier_first): every reader thread executes the equivalent of
 *      a full fence at some point P in its program order during the call.
 *   2. start(): flips the phase word to a new value NEW.
 *   3. blocking(): scans the registry until no reader is inside a critical section that
 *      it entered with an older phase.
 *
 * Why that suffices, for a reader R and an object unlinked before step 1:
 *
 *  - R's counter store came before P in program order.  Then it is
 *    visible by the end of step 1, so the scan sees R inside (unless R has
 *    already left, see below) and waits for it, unless R stored NEW.  R can
 *    only have loaded NEW after step 2, which follows P, so that load is
 *    after P in program order, and so are the section's loads: they see the
 *    unlink.
 *  - R's counter store came after P.  Then so do the section's loads (they
 *    follow the store in program order, and P is a full fence), and they
 *    see the unlink, whatever the scan saw.
 *  - The scan sees R leave (counter 0 or NEW) through an acquire load that
 *    reads R's release store in rcu_read_unlock(): every load R made in the
 *    section happened before the grace period ends, and so before the
 *    caller frees the object.  No second barrier is needed after the scan;
 *    liburcu's memb flavor issues one there, we do not.
 *
 * The phase only ensures progress: a reader that leaves and re-enters picks
 * up NEW and no longer holds the grace period.
 *
 * No reader, no barrier.  When no thread but the caller is registered, a
 * grace period skips all three steps: the caller is outside any section
 * (checked), and an unregistered thread cannot be inside one, since its
 * first rcu_read_lock() registers it.  The look at the registry count
 * comes after the sequence number shows the grace period started, so it
 * follows every unlink that a cookie it satisfies covers: the updater
 * unlinked, fenced and then read the count still even
 * (quiesce_gp_snapshot()); the grace period stored it odd and then read the registry count, both
 * sequentially consistent.  A thread that registers meanwhile stores the
 * count, fences (quiesce_rcu_register_thread()), then makes its section's
 * loads: the store-buffer pattern, twice.  Either the grace period sees
 * the newcomer and waits for it, or the newcomer's fence follows the grace
 * period's accesses, which follow the updater's fence, and its section
 * sees the unlink.  A thread that unregistered stored the count with
 * release after its last section, so that section happens before the
 * grace period that reads the count.
 *
 */

#include "rcu/cb_domain.h"
#include "common/diag.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_engine.h"
#include "rcu/registry.h"
#include "rcu/stall.h"

QUIESCE_CACHELINE_ALIGNED struct quiesce_rcu_gp_word quiesce_rcu_gp_word = {
	.ctr = 1,	/* phase 0, nesting depth 1 */
};

static bool reader_blocks(unsigned long ctr, unsigned long phase)
{
	return (ctr & QUIESCE_RCU_NEST_MASK) && ((ctr ^ phase) & ~QUIESCE_RCU_NEST_MASK);
}

/*
 * Counts the readers still inside a section entered before the current
 * phase; describes up to cap of them for a stall report.
 */
static unsigned rcu_blocking(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			     char names[][16], unsigned cap)
{
	unsigned long phase = quiesce_rcu_gp_word.ctr;	/* written by start() under gp_lock */
	unsigned blocking = 0;

	(void)d;
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		/* Acquire: pairs with the release store in rcu_read_unlock(). */
		if (!reader_blocks(QUIESCE_LOAD_ACQUIRE(&e->reader->ctr), phase))
			continue;
		if (blocking < cap)
			quiesce_stall_describe_thread(&stalled[blocking], names[blocking], e->tid,
						      e->thread);
		blocking++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return blocking;
}

/* After the barrier: see the argument at the top of this file. */
static void rcu_start(struct quiesce_gp_domain *d)
{
	(void)d;
	QUIESCE_STORE(&quiesce_rcu_gp_word.ctr, quiesce_rcu_gp_word.ctr + QUIESCE_RCU_PHASE_ONE);
}

/*
 * Whether no thread but the caller is registered (see "No reader, no
 * barrier" at the top of this file).
 */
static bool rcu_no_reader(struct quiesce_gp_domain *d)
{
	/*
	 * Sequentially consistent, after the store that started the grace
	 * period: pairs with the fence in quiesce_gp_snapshot() and with the
	 * one after a newcomer's count store in registration.  Its acquire
	 * also pairs with the release of the count store of a thread that
	 * unregistered: that thread's last section happens before this grace
	 * period ends.
	 */
	unsigned long n = __atomic_load_n(&quiesce_registry_count, __ATOMIC_SEQ_CST);

	(void)d;
	return n == 0 || (n == 1 && quiesce_rcu_reader_self.ctr != QUIESCE_RCU_UNREGISTERED);
}

static bool rcu_caller_holds(struct quiesce_gp_domain *d)
{
	(void)d;
	return quiesce_rcu_read_ongoing();
}

static const struct quiesce_gp_domain_ops rcu_ops = {
	.kind = "RCU",
	.barrier_first = true,
	.no_reader = rcu_no_reader,
	.caller_holds = rcu_caller_holds,
	.start = rcu_start,
	.blocking = rcu_blocking,
};

struct quiesce_gp_domain quiesce_rcu_domain =
	QUIESCE_GP_DOMAIN_INIT(&rcu_ops, &quiesce_rcu_gp_word.writer_sleeping);

void quiesce_rcu_wake_grace_period(void)
{
	quiesce_gp_wake(&quiesce_rcu_gp_word.writer_sleeping);
}

void quiesce_synchronize_rcu(void)
{
	quiesce_gp_forbid_inside_reader(&quiesce_rcu_domain, "synchronize_rcu");
	quiesce_gp_synchronize(&quiesce_rcu_domain, false);
}

void quiesce_synchronize_rcu_expedited(void)
{
	quiesce_gp_forbid_inside_reader(&quiesce_rcu_domain, "synchronize_rcu_expedited");
	quiesce_gp_synchronize(&quiesce_rcu_domain, true);
}

unsigned long quiesce_get_state_synchronize_rcu(void)
{
	return quiesce_gp_snapshot(&quiesce_rcu_domain);
}

bool quiesce_poll_state_synchronize_rcu(unsigned long cookie)
{
	return quiesce_gp_poll(&quiesce_rcu_domain, cookie);
}

void quiesce_cond_synchronize_rcu(unsigned long cookie)
{
	if (!quiesce_poll_state_synchronize_rcu(cookie))
		quiesce_synchronize_rcu();
}

void quiesce_rcu_get_stats(struct quiesce_rcu_stats *out)
{
	struct quiesce_gp_domain *d = &quiesce_rcu_domain;

	out->gp_normal = __atomic_load_n(&d->gp_normal, __ATOMIC_RELAXED);
	out->gp_expedited = __atomic_load_n(&d->gp_expedited, __ATOMIC_RELAXED);
	out->gp_skipped = __atomic_load_n(&d->gp_skipped, __ATOMIC_RELAXED);
	out->sync_calls = __atomic_load_n(&d->sync_calls, __ATOMIC_RELAXED);
	out->rseq_barriers = quiesce_rseq_barrier_count();
	out->stall_warnings = quiesce_stall_warnings();
	out->registered_threads = QUIESCE_LOAD(&quiesce_registry_count);
	quiesce_call_rcu_get_stats(out);
}
