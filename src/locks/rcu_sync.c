/*
 * rcu_sync.c - the gate's state machine (see include/quiesce/rcu_sync.h).
 *
 * Why one grace period suffices at each end:
 *
 *  - Entering.  The first updater stores ENTER, then waits for a grace
 *    period.  A reader that loaded IDLE did so inside a read-side critical
 *    section; either that section began before the grace period's barrier
 *    and the grace period waits for it to end (with release/acquire, so
 *    everything the reader did on its fast path, counter updates included,
 *    is visible to the updater afterwards), or it began after, and then its
 *    load follows the barrier and sees ENTER.  So once the updater returns,
 *    no reader is still on a fast path it chose before, and every later
 *    reader takes the slow path.
 *  - Entering, rseq readers (rseq_readers: the per-CPU semaphore's fast
 *    path on x86-64, include/quiesce/percpu_count.h).  The reader loads
 *    the state and commits its counter update in one restartable sequence.
 *    The first updater stores ENTER, then calls membarrier(PRIVATE_
 *    EXPEDITED_RSEQ), which starts with a full barrier (so ENTER is visible
 *    before any CPU is interrupted) and interrupts every CPU running one of
 *    our threads.  A sequence that had committed by then is followed by a
 *    full barrier in its thread, so its update is visible to the updater
 *    once the call returns; one that had not is aborted, or was already
 *    aborted when its thread was preempted, and starts over with a load
 *    that sees ENTER.  Same outcome as above, for the price of one
 *    expedited barrier and no wait for readers.
 *  - Leaving.  The gate returns to IDLE only in a callback that runs a full
 *    grace period after the last updater left.  A reader that sees IDLE
 *    therefore runs a section that began after that grace period's
 *    barrier, and sees everything the updaters did: the fast path needs no
 *    fence to pair with them.  (An rseq reader's load of the state is an
 *    x86 load, an acquire, which pairs with the release that reopens.)  An updater that comes and goes while the
 *    callback's grace period runs (REPLAY) may not be covered by it, so the
 *    callback waits one more before reopening.
 *
 * The state only moves forward under lock, except EXIT/REPLAY -> PASSED
 * when an updater returns before the gate reopened.  Waiters count
 * themselves in under the lock and sleep on the state word itself (futex);
 * a transition wakes them, while the lock is held, only when there are
 * any, so the common case makes no system call and the wake never touches
 * a destroyed gate.
 */
#include <quiesce/rcu_sync.h>

#include <stddef.h>

#include "rcu/cb_domain.h"
#include "common/diag.h"
#include "common/futex.h"
#include "rcu/fork_handlers.h"
#include "rcu/gp_barrier.h"
#include "locks/rcu_sync.h"

bool quiesce_test_busted_rcu_sync;
void (*quiesce_test_rcu_sync_hook)(struct quiesce_rcu_sync *rss);

/*
 * Gates whose reopening callback is pending.  A fork() child gets none of
 * the parent's callbacks (call_rcu.c), so it queues these again; otherwise
 * they would stay closed in the child.  Lock order: callback_lock, then a
 * gate's lock, then reopening_lock.
 *
 * callback_lock is held by rcu_sync_func() throughout, and across fork():
 * the callback thread must not hold a gate's lock when the process forks.
 * The child has no callback thread to release it: the gate would stay
 * locked there, and the next writer of a semaphore that the forking
 * thread may go on using (percpu_rwsem.h, fork()) would wait for ever.
 */
static pthread_mutex_t callback_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t reopening_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quiesce_rcu_sync_link reopening = { &reopening, &reopening };
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void rcu_sync_func(struct quiesce_rcu_head *head);

static struct quiesce_rcu_sync *gate_of_link(struct quiesce_rcu_sync_link *link)
{
	return (struct quiesce_rcu_sync *)((char *)link -
					   offsetof(struct quiesce_rcu_sync, reopening));
}

/* Waits for a reopening callback under way (callback_lock, above). */
static void reopening_prepare_fork(void)
{
	pthread_mutex_lock(&callback_lock);
	pthread_mutex_lock(&reopening_lock);
}

static void reopening_parent_after_fork(void)
{
	pthread_mutex_unlock(&reopening_lock);
	pthread_mutex_unlock(&callback_lock);
}

/*
 * Runs after call_rcu's own child handler (registered earlier, by its
 * constructor or by register_fork_handlers(), init_order.h: child handlers
 * run in registration order), which has emptied the child's queues, and
 * after the registries', which expect no thread but the forking one.  A
 * gate whose lock another thread of the parent held at fork() stays
 * locked in the child, where that thread does not exist: its callback
 * would block the child's callback thread, and every callback behind it,
 * for good.  Such a gate is unusable in the child anyway; its callback is
 * left out.  That thread was a user's, inside a call on the gate: not the
 * forking thread (rcu_sync never forks while it holds a gate's lock), and
 * not the callback thread (callback_lock).
 */
static void reopening_child_after_fork(void)
{
	struct quiesce_rcu_sync_link *l = reopening.next, *next;

	for (; l != &reopening; l = next) {
		struct quiesce_rcu_sync *rss = gate_of_link(l);

		next = l->next;
		if (pthread_mutex_trylock(&rss->lock)) {
			l->prev->next = l->next;
			l->next->prev = l->prev;
			l->next = l->prev = NULL;
			continue;
		}
		pthread_mutex_unlock(&rss->lock);
		quiesce_call_rcu(&rss->cb_head, rcu_sync_func);
	}
	pthread_mutex_unlock(&reopening_lock);
	pthread_mutex_unlock(&callback_lock);
}

static void register_fork_handlers(void)
{
	/* After the library's others, even when a program's constructor gets here first. */
	quiesce_fork_handlers_in_order();
	pthread_atfork(reopening_prepare_fork, reopening_parent_after_fork,
		       reopening_child_after_fork);
}

/* Called with rss->lock held: queues the callback that reopens the gate. */
static void queue_reopening(struct quiesce_rcu_sync *rss)
{
	pthread_once(&fork_handlers_once, register_fork_handlers);
	pthread_mutex_lock(&reopening_lock);
	if (!rss->reopening.next) {
		rss->reopening.next = &reopening;
		rss->reopening.prev = reopening.prev;
		reopening.prev->next = &rss->reopening;
		reopening.prev = &rss->reopening;
	}
	pthread_mutex_unlock(&reopening_lock);
	quiesce_call_rcu(&rss->cb_head, rcu_sync_func);
}

/* Called with rss->lock held, by the callback that will not queue again. */
static void reopening_done(struct quiesce_rcu_sync *rss)
{
	pthread_mutex_lock(&reopening_lock);
	rss->reopening.prev->next = rss->reopening.next;
	rss->reopening.next->prev = rss->reopening.prev;
	rss->reopening.next = rss->reopening.prev = NULL;
	pthread_mutex_unlock(&reopening_lock);
}

/* rcu_sync_dtor() destroyed the lock: checked before it is taken. */
static void check_live(struct quiesce_rcu_sync *rss, const char *call)
{
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&rss->gp_state) == QUIESCE_RCU_SYNC_DEAD))
		quiesce_die("%s() on a gate after rcu_sync_dtor()", call);
}

void quiesce_rcu_sync_init(struct quiesce_rcu_sync *rss)
{
	rss->gp_state = QUIESCE_RCU_SYNC_IDLE;
	rss->rseq_readers = false;
	rss->gp_count = 0;
	rss->waiters = 0;
	rss->reopening.next = rss->reopening.prev = NULL;
	pthread_mutex_init(&rss->lock, NULL);
}

/* Called with rss->lock held. */
static void set_state(struct quiesce_rcu_sync *rss, int state)
{
	/*
	 * Release: pairs with the acquire in rcu_sync_enter()'s wait (and,
	 * under ThreadSanitizer, in rcu_sync_is_idle()).
	 */
	QUIESCE_STORE_RELEASE(&rss->gp_state, state);
	if (rss->waiters)
		quiesce_futex_wake_all(&rss->gp_state);
}

/*
 * Called with rss->lock held, returns with it held: sleeps until the state
 * leaves `from`, woken by set_state().  Acquire: pairs with its release.
 */
static void wait_while(struct quiesce_rcu_sync *rss, int from)
{
	rss->waiters++;
	while (QUIESCE_LOAD_ACQUIRE(&rss->gp_state) == from) {
		pthread_mutex_unlock(&rss->lock);
		quiesce_futex_wait(&rss->gp_state, from, 0);
		pthread_mutex_lock(&rss->lock);
	}
	rss->waiters--;
}

static void rcu_sync_func(struct quiesce_rcu_head *head)
{
	struct quiesce_rcu_sync *rss =
		(struct quiesce_rcu_sync *)((char *)head - offsetof(struct quiesce_rcu_sync, cb_head));

	pthread_mutex_lock(&callback_lock);
	pthread_mutex_lock(&rss->lock);
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_rcu_sync_hook)))
		quiesce_test_rcu_sync_hook(rss);
	if (rss->gp_count) {
		/*
		 * EXIT or REPLAY -> PASSED: an updater came back before the
		 * gate reopened.  Readers have been slow for a grace period
		 * already; it keeps them so.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_PASSED);
		reopening_done(rss);
	} else if (rss->gp_state == QUIESCE_RCU_SYNC_REPLAY) {
		/*
		 * REPLAY -> EXIT: an updater left after this grace period
		 * began; wait for one that covers it.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_EXIT);
		queue_reopening(rss);
	} else {
		/*
		 * EXIT -> IDLE: a grace period has passed since the last
		 * updater left; every reader from now on sees its work.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_IDLE);
		reopening_done(rss);
	}
	pthread_mutex_unlock(&rss->lock);
	pthread_mutex_unlock(&callback_lock);
}

/* Waits for the readers that saw IDLE (argument at the top). */
static void wait_for_fast_readers(struct quiesce_rcu_sync *rss)
{
	if (rss->rseq_readers)
		quiesce_rseq_barrier();
	else
		quiesce_synchronize_rcu_expedited();
}

void quiesce_rcu_sync_enter_from(struct quiesce_rcu_sync *rss, const char *call)
{
	bool first;

	/*
	 * The first updater waits for a grace period, which would wait for
	 * this section; a later one waits for the first, whose grace period
	 * may have begun after this section did.  With rseq readers neither
	 * waits for a grace period, but the rule is the same for both kinds,
	 * so that a program that breaks it fails everywhere, not only where
	 * its semaphores get RCU readers.
	 */
	if (quiesce_rcu_read_ongoing())
		quiesce_die("%s() called inside an RCU read-side critical section: it may wait "
			    "for a grace period, which would wait for itself", call);
	check_live(rss, call);
	pthread_mutex_lock(&rss->lock);
	first = rss->gp_count++ == 0 && rss->gp_state == QUIESCE_RCU_SYNC_IDLE;
	if (first) {
		/* IDLE -> ENTER: readers that load the state from now on go slow. */
		set_state(rss, QUIESCE_RCU_SYNC_ENTER);
		pthread_mutex_unlock(&rss->lock);
		if (!QUIESCE_LOAD(&quiesce_test_busted_rcu_sync))
			wait_for_fast_readers(rss);
		pthread_mutex_lock(&rss->lock);
		/* ENTER -> PASSED: no reader is left on the fast path. */
		set_state(rss, QUIESCE_RCU_SYNC_PASSED);
	} else {
		/*
		 * Another updater runs the grace period (ENTER); EXIT and
		 * REPLAY are past it already.
		 */
		wait_while(rss, QUIESCE_RCU_SYNC_ENTER);
	}
	pthread_mutex_unlock(&rss->lock);
}

void quiesce_rcu_sync_enter(struct quiesce_rcu_sync *rss)
{
	quiesce_rcu_sync_enter_from(rss, "rcu_sync_enter");
}

void quiesce_rcu_sync_exit(struct quiesce_rcu_sync *rss)
{
	check_live(rss, "rcu_sync_exit");
	pthread_mutex_lock(&rss->lock);
	if (rss->gp_count <= 0)
		quiesce_die("rcu_sync_exit() without a matching rcu_sync_enter()");
	if (--rss->gp_count == 0) {
		if (rss->gp_state == QUIESCE_RCU_SYNC_PASSED) {
			if (QUIESCE_LOAD(&quiesce_test_busted_rcu_sync)) {
				set_state(rss, QUIESCE_RCU_SYNC_IDLE);
			} else {
				/* PASSED -> EXIT: reopen a grace period from now. */
				set_state(rss, QUIESCE_RCU_SYNC_EXIT);
				queue_reopening(rss);
			}
		} else if (rss->gp_state == QUIESCE_RCU_SYNC_EXIT) {
			/*
			 * EXIT -> REPLAY: the pending callback's grace period
			 * may have begun before this updater's work ended.
			 */
			set_state(rss, QUIESCE_RCU_SYNC_REPLAY);
		}
	}
	pthread_mutex_unlock(&rss->lock);
}

void quiesce_rcu_sync_dtor(struct quiesce_rcu_sync *rss)
{
	int state;

	check_live(rss, "rcu_sync_dtor");
	pthread_mutex_lock(&rss->lock);
	if (rss->gp_count)
		quiesce_die("rcu_sync_dtor() with %d updater(s) between rcu_sync_enter() "
			    "and rcu_sync_exit()", rss->gp_count);
	/* REPLAY -> EXIT: no reader will look again; one grace period will do. */
	if (rss->gp_state == QUIESCE_RCU_SYNC_REPLAY)
		set_state(rss, QUIESCE_RCU_SYNC_EXIT);
	if (rss->gp_state != QUIESCE_RCU_SYNC_IDLE) {
		if (quiesce_rcu_read_ongoing() || quiesce_cb_on_worker())
			quiesce_die("rcu_sync_dtor() (or percpu_free_rwsem(), freezer_destroy()) "
				    "called %s while the gate still closes: it would wait for "
				    "itself", quiesce_cb_on_worker() ? "from an RCU callback"
				    : "inside an RCU read-side critical section");
		if (quiesce_cb_gone()) {
			/*
			 * exit() has stopped the callback thread: the pending
			 * callback will never run.  The grace period it waited
			 * for is waited for here instead.
			 */
			pthread_mutex_unlock(&rss->lock);
			quiesce_synchronize_rcu();
			pthread_mutex_lock(&rss->lock);
			set_state(rss, QUIESCE_RCU_SYNC_IDLE);
			reopening_done(rss);
		}
	}
	/*
	 * The pending callback still owns cb_head.  It moves the state to IDLE
	 * under the lock, so once we hold the lock and see IDLE the callback
	 * is done with the gate.
	 */
	while ((state = rss->gp_state) != QUIESCE_RCU_SYNC_IDLE)
		wait_while(rss, state);
	pthread_mutex_unlock(&rss->lock);
	pthread_mutex_destroy(&rss->lock);
	/*
	 * No waiter or callback is left to read it.  Atomic: readers of a
	 * gate used after this (misuse) load it with rcu_sync_is_idle().
	 */
	QUIESCE_STORE(&rss->gp_state, QUIESCE_RCU_SYNC_DEAD);
}
