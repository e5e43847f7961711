/*
 * rcu_domain.c - the default RCU domain: one phase flip, one scan of the
 * registered threads, and one heavy barrier unless every reader was seen
 * past the flip (the engine, gp_engine.c, runs them).
 *
 * Readers (include/quiesce/rcu.h) copy the global phase word (with acquire)
 * into their own counter on the outermost rcu_read_lock(), behind only a
 * compiler barrier, and store 0 with release semantics on the outermost
 * rcu_read_unlock().  A grace period, after its caller has unlinked an
 * object, with the barrier first:
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
 * Flipped first, and no barrier for readers seen past the flip
 * (rcu_unseen_past_flip(); gp_engine.c says when the engine tries it).
 * start() stores NEW with release, after the unlink; a reader loads the
 * phase with acquire.  The grace period polls the registry and notes each
 * thread other than the caller that it sees, with an acquire load, inside
 * a section entered with NEW.  Once every one was seen, it ends, with no
 * barrier.  Why that suffices, for a reader R seen so:
 *
 *  - R's earlier sections each ended with a release store of 0 that
 *    precedes the store seen in R's program order.  A thread's later
 *    stores to its counter continue the release sequence of its earlier
 *    release store, so the acquire load that saw NEW synchronizes with
 *    each of those exits: every load of those sections happens before the
 *    grace period ends.  That is the rule of C11 and C17, the language we
 *    build in; C++20 dropped a thread's later relaxed stores from its
 *    release sequences.  The machines give the order either way: on
 *    x86-64 every store is a release, and on arm64 a store is ordered
 *    after an earlier store to the same address in program order (a local
 *    write successor), as that release store is after its section's loads.
 *  - The section seen, and each later one, loaded the phase with acquire
 *    and read NEW or a later flip (R read NEW once; coherence forbids an
 *    older value after it).  That load synchronizes with start()'s
 *    release store, or with a later flip's, which follows it: the
 *    section's loads see the unlink.
 *  - A thread that registers after the poll's last look takes the
 *    registry lock after the poll let it go, so its first section loads a
 *    phase after the flip.  A thread that left the registry did so under
 *    that lock after its last section.  The caller is outside any section
 *    (checked), and its later sections follow the grace period in its own
 *    program order.
 *  - The unlink may be another thread's, one that shares this grace
 *    period: that thread fenced after its unlink (quiesce_gp_snapshot(),
 *    sequentially consistent) and then read the sequence number still
 *    even, and the owner made it odd, sequentially consistent (a
 *    compare-exchange), before start().  On the machines we build for
 *    (x86-64 and arm64, whose stores become visible to all other CPUs at
 *    once), the unlink reached every CPU before the odd count did, and so
 *    before the flip.
 *
 * A reader that the poll does not see past the flip in time (idle, or in
 * a long section) gets the barrier, issued then, after the flip: steps 1
 * and 2 above swapped.  The first case of the argument above changes only
 * where the scan sees R's counter holding NEW: R then loaded NEW with
 * acquire, before P or after, and its section sees the unlink by the
 * second point of the list above.  The other cases do not depend on the
 * order of the flip and the barrier.
 *
 * Callers that wait.  A registered thread that waits for a grace period
 * (synchronize_rcu(), or any other wait of the engine's in this domain)
 * holds QUIESCE_RCU_WAITING in its counter for the length of the wait
 * (registry.h), stored with release.  On its way out it stores a second
 * mark, QUIESCE_RCU_LEAVING_WAIT, fences, and only then stores 0.  The
 * poll fences before each scan and counts a thread it sees waiting (the
 * first mark only) as seen past the flip, so that a grace period needs no
 * barrier for the threads asleep in a wait, woken or not.  Why that
 * suffices, for a thread W seen waiting:
 *
 *  - W's sections before the wait ended with release stores, and the mark
 *    followed them with release: the acquire load that reads the mark
 *    synchronizes with it, so those sections happen before the grace
 *    period ends.
 *  - W's later sections follow its fence on the way out, and the scan read
 *    the mark, not the second mark stored before that fence.  Three sequentially
 *    consistent fences then stand in order: the unlinker's (after its
 *    unlink, before its load of the count still even), the owner's (after
 *    its compare-exchange made the count odd, before the scan), and W's.
 *    Each comes before the next because a load after it misses a store
 *    before the next (the count's, then W's counter's), and so W's loads
 *    after its fence see the unlink.  The unlinker may be the owner
 *    itself, whose unlink precedes its own fence.
 *  - A signal handler that enters a section while W waits, or on its way
 *    out before its fence, finds one of the marks (depth 0, not 0) and
 *    takes rcu_read_lock()'s slow path: it stores the phase, then fences,
 *    before the section's loads (registry.c).  The same three fences, with
 *    the handler's last, show that the section sees the unlink.  When it
 *    ends the counter is 0, and the rest of the wait goes unmarked, which
 *    costs a barrier, never safety.  Hence the second mark: were W to
 *    store 0 and then fence, a handler that ran between the two would find
 *    0, take the fast path, and read with no fence of its own after the
 *    store the scan missed; x86-64's return to user space drains the store
 *    buffer, but arm64's does not.  After W's fence, a handler's section
 *    is ordered by that fence, whichever path it takes.
 *
 * No reader, no barrier.  When no thread but the caller is registered, a
 * grace period skips all three steps: the caller is outside any section
 * (checked), and an unregistered thread cannot be inside one, since its
 * first rcu_read_lock() registers it.  The look at the registry count
 * comes after the sequence number shows the grace period started, so it
 * follows every unlink that a cookie it satisfies covers: the updater
 * unlinked, fenced and then read the count still even
 * (quiesce_gp_snapshot()); the grace period made it odd (a compare-exchange)
 * and then read the registry count, both sequentially consistent.  (An
 * updater that found no grace period running made the count odd itself,
 * with that compare-exchange after its unlink and no fence before it:
 * quiesce_gp_synchronize().)  A thread that registers meanwhile stores the
 * count, fences (quiesce_rcu_register_thread()), then makes its section's
 * loads: the store-buffer pattern, twice.  Either the grace period sees
 * the newcomer and waits for it, or the newcomer's fence follows the grace
 * period's accesses, which follow the updater's unlink, and its section
 * sees the unlink.  A thread that unregistered stored the count with
 * release after its last section, so that section happens before the
 * grace period that reads the count.  A signal handler's sections count
 * as the thread's: registering blocks signals until after the fence, and
 * leaving until the counter says unregistered (registry.c).
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

/*
 * Counts the readers still inside a section entered before the current
 * phase; describes up to cap of them for a stall report.
 */
static unsigned rcu_blocking(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			     char names[][16], unsigned cap)
{
	unsigned long phase = quiesce_rcu_gp_word.ctr;	/* start() wrote it, in this grace period */
	unsigned blocking = 0;

	(void)d;
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		/* Acquire: pairs with the release store in rcu_read_unlock(). */
		if (!quiesce_rcu_ctr_blocks(QUIESCE_LOAD_ACQUIRE(&e->reader->ctr), phase))
			continue;
		if (blocking < cap)
			quiesce_stall_describe_thread(&stalled[blocking], names[blocking], e->tid,
						      e->thread);
		blocking++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return blocking;
}

/* See the argument at the top of this file. */
static void rcu_start(struct quiesce_gp_domain *d)
{
	(void)d;
	/*
	 * Release: pairs with the acquire load of the phase in
	 * rcu_read_lock(); the unlink precedes it (the argument at the top).
	 */
	QUIESCE_STORE_RELEASE(&quiesce_rcu_gp_word.ctr,
			      quiesce_rcu_gp_word.ctr + QUIESCE_RCU_PHASE_ONE);
}

/*
 * Counts the registered threads other than the caller not yet seen inside
 * a section entered with the current phase, and notes those seen now.
 */
static unsigned rcu_unseen_past_flip(struct quiesce_gp_domain *d)
{
	unsigned long phase = quiesce_rcu_gp_word.ctr;	/* start() wrote it, in this grace period */
	unsigned unseen = 0;

	(void)d;
	/*
	 * Pairs with the fence of a thread on its way out of a wait, and with
	 * that of a signal handler's section entered during one ("Callers that
	 * wait" at the top of this file).
	 */
	quiesce_fence_store_load();
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		unsigned long ctr;

		if (e->seen_past_phase == phase || e->reader == &quiesce_rcu_reader_self)
			continue;
		/*
		 * Acquire: pairs with the reader's release store of 0 on its
		 * last exit, whose release sequence the later store seen here
		 * continues (the argument at the top of this file).
		 */
		ctr = QUIESCE_LOAD_ACQUIRE(&e->reader->ctr);
		if ((ctr & QUIESCE_RCU_NEST_MASK) && !((ctr ^ phase) & ~QUIESCE_RCU_NEST_MASK))
			e->seen_past_phase = phase;
		else if (ctr == QUIESCE_RCU_WAITING)
			e->seen_past_phase = phase;
		else
			unseen++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return unseen;
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

/* See "Callers that wait" at the top of this file. */
static bool rcu_wait_begins(struct quiesce_gp_domain *d)
{
	(void)d;
	/* Not registered, inside a section, noted already, or in a handler. */
	if (quiesce_rcu_reader_self.ctr != 0)
		return false;
	/*
	 * Release: this thread's sections happen before a grace period that
	 * reads the mark (the acquire load in rcu_unseen_past_flip()).
	 */
	QUIESCE_STORE_RELEASE(&quiesce_rcu_reader_self.ctr, QUIESCE_RCU_WAITING);
	return true;
}

static void rcu_wait_ends(struct quiesce_gp_domain *d)
{
	(void)d;
	/*
	 * Over the mark, or over the 0 of a signal handler's section; a scan
	 * that reads it counts this thread as not seen, and a handler that
	 * finds it still takes the slow path ("Callers that wait").
	 */
	QUIESCE_STORE(&quiesce_rcu_reader_self.ctr, QUIESCE_RCU_LEAVING_WAIT);
	/*
	 * Before this thread's next section, and before the 0 that lets a
	 * handler's section take the fast path: pairs with the fence before a
	 * poll's scan that saw the first mark ("Callers that wait").
	 */
	quiesce_fence_store_load();
	QUIESCE_STORE(&quiesce_rcu_reader_self.ctr, 0UL);
}

static const struct quiesce_gp_domain_ops rcu_ops = {
	.kind = "RCU",
	.barrier_first = true,
	.no_reader = rcu_no_reader,
	.unseen_past_flip = rcu_unseen_past_flip,
	.caller_holds = rcu_caller_holds,
	.start = rcu_start,
	.blocking = rcu_blocking,
	.wait_begins = rcu_wait_begins,
	.wait_ends = rcu_wait_ends,
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
	return quiesce_cb_domain_poll(&quiesce_rcu_cb, cookie);
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
	out->sync_calls = quiesce_gp_sync_calls(d);
	out->rseq_barriers = quiesce_rseq_barrier_count();
	out->stall_warnings = quiesce_stall_warnings();
	out->registered_threads = QUIESCE_LOAD(&quiesce_registry_count);
	quiesce_call_rcu_get_stats(out);
}
