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
 *  - Leaving.  The gate returns to IDLE only in a callback that runs a full
 *    grace period after the last updater left.  A reader that sees IDLE
 *    therefore runs a section that began after that grace period's
 *    barrier, and sees everything the updaters did: the fast path needs no
 *    fence to pair with them.  An updater that comes and goes while the
 *    callback's grace period runs (REPLAY) may not be covered by it, so the
 *    callback waits one more before reopening.
 *
 * The state only moves forward under lock, except EXIT/REPLAY -> PASSED
 * when an updater returns before the gate reopened.  Waiters sleep on the
 * state word itself (futex), and every transition that someone may wait
 * for wakes them while the lock is held, so the wake never touches a
 * destroyed gate.
 */
#include <quiesce/rcu_sync.h>

#include <stddef.h>

#include "diag.h"
#include "futex.h"
#include "rcu_sync.h"

bool quiesce_test_busted_rcu_sync;

void quiesce_rcu_sync_init(struct quiesce_rcu_sync *rss)
{
	rss->gp_state = QUIESCE_RCU_SYNC_IDLE;
	rss->gp_count = 0;
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
	quiesce_futex_wake_all(&rss->gp_state);
}

static void rcu_sync_func(struct quiesce_rcu_head *head)
{
	struct quiesce_rcu_sync *rss =
		(struct quiesce_rcu_sync *)((char *)head - offsetof(struct quiesce_rcu_sync, cb_head));

	pthread_mutex_lock(&rss->lock);
	if (rss->gp_count) {
		/*
		 * EXIT or REPLAY -> PASSED: an updater came back before the
		 * gate reopened.  Readers have been slow for a grace period
		 * already; it keeps them so.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_PASSED);
	} else if (rss->gp_state == QUIESCE_RCU_SYNC_REPLAY) {
		/*
		 * REPLAY -> EXIT: an updater left after this grace period
		 * began; wait for one that covers it.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_EXIT);
		quiesce_call_rcu(&rss->cb_head, rcu_sync_func);
	} else {
		/*
		 * EXIT -> IDLE: a grace period has passed since the last
		 * updater left; every reader from now on sees its work.
		 */
		set_state(rss, QUIESCE_RCU_SYNC_IDLE);
	}
	pthread_mutex_unlock(&rss->lock);
}

void quiesce_rcu_sync_enter(struct quiesce_rcu_sync *rss)
{
	bool first;

	pthread_mutex_lock(&rss->lock);
	first = rss->gp_count++ == 0 && rss->gp_state == QUIESCE_RCU_SYNC_IDLE;
	if (first) {
		/* IDLE -> ENTER: readers that load the state from now on go slow. */
		set_state(rss, QUIESCE_RCU_SYNC_ENTER);
	}
	pthread_mutex_unlock(&rss->lock);

	if (first) {
		/* Waits for the readers that saw IDLE (argument at the top). */
		if (!QUIESCE_LOAD(&quiesce_test_busted_rcu_sync))
			quiesce_synchronize_rcu_expedited();
		pthread_mutex_lock(&rss->lock);
		/* ENTER -> PASSED: no reader is left on the fast path. */
		set_state(rss, QUIESCE_RCU_SYNC_PASSED);
		pthread_mutex_unlock(&rss->lock);
		return;
	}
	/*
	 * Another updater runs the grace period (ENTER); EXIT and REPLAY are
	 * past it already.  Woken by its ENTER -> PASSED transition.  Acquire:
	 * pairs with set_state(), so the grace period happens before we go on.
	 */
	while (QUIESCE_LOAD_ACQUIRE(&rss->gp_state) == QUIESCE_RCU_SYNC_ENTER)
		quiesce_futex_wait(&rss->gp_state, QUIESCE_RCU_SYNC_ENTER, 0);
}

void quiesce_rcu_sync_exit(struct quiesce_rcu_sync *rss)
{
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
				quiesce_call_rcu(&rss->cb_head, rcu_sync_func);
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

	pthread_mutex_lock(&rss->lock);
	if (rss->gp_count)
		quiesce_die("rcu_sync_dtor() with %d updater(s) between rcu_sync_enter() "
			    "and rcu_sync_exit()", rss->gp_count);
	/* REPLAY -> EXIT: no reader will look again; one grace period will do. */
	if (rss->gp_state == QUIESCE_RCU_SYNC_REPLAY)
		set_state(rss, QUIESCE_RCU_SYNC_EXIT);
	/*
	 * The pending callback still owns cb_head.  Woken by its transition to
	 * IDLE, made and announced under the lock, so once we hold the lock
	 * and see IDLE the callback is done with the gate.
	 */
	while ((state = rss->gp_state) != QUIESCE_RCU_SYNC_IDLE) {
		pthread_mutex_unlock(&rss->lock);
		quiesce_futex_wait(&rss->gp_state, state, 0);
		pthread_mutex_lock(&rss->lock);
	}
	pthread_mutex_unlock(&rss->lock);
	pthread_mutex_destroy(&rss->lock);
}
