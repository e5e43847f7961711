/*
 * cb_domain.c - a domain's callback thread: harvests, waits for grace
 * periods, runs callbacks; barriers, polled grace periods and backpressure.
 * One thread per domain that has callbacks (cb_domain.h).  The callers'
 * path and their count of the backlog are in cb_call.c; starting and
 * stopping the thread, and what exit() and fork() do to it, in
 * cb_lifecycle.c.
 *
 * The loop
 *   1. Runs the batches whose grace period has passed, oldest first.
 *   2. Harvests every queue (a numbered harvest) into a fresh batch and tags
 *      it with a grace-period cookie taken after the harvest: the grace
 *      period that starts after every callback in it was queued.  A batch
 *      whose cookie equals the newest batch's joins it: one grace period
 *      serves every callback queued before it started, and callbacks queued
 *      while it runs wait for the next (the kernel's segmented list).
 *   3. Waits for the oldest batch's grace period, sharing it with any
 *      synchronize caller of the domain, and goes back to 1.  With no batch,
 *      it runs the grace periods that start_poll asked for; with nothing to
 *      wait for, it sleeps until woken.
 * While it waits, callers keep queueing, so the next harvest takes all of
 * them at once: batches grow with the load by themselves.  Past
 * QUIESCE_CB_EXPEDITE_BACKLOG pending callbacks, or when a caller is
 * throttled, the wait is for an expedited grace period.
 *
 * Gathering.  A grace period costs microseconds, so without a pause the
 * thread would run one per handful of callbacks, each interrupting every
 * CPU that runs a thread of the process.  Before a normal grace period it
 * lets callbacks gather for GATHER_NS (the kernel's grace period, which
 * takes milliseconds, batches the same way; liburcu's callback thread
 * sleeps 10 ms between batches).  That bounds the grace periods it runs to
 * one per GATHER_NS, and a burst of rcu_sync_exit() calls shares one
 * reopening.  A barrier, a throttled caller, a backlog past the expedite
 * mark and shutdown cut the pause short (quiesce_cb_hurry_worker()).
 *
 * At most three batches are pending at step 2.  After step 1 every pending
 * cookie c is unexpired: c > s for the sequence s read there, and c <=
 * snap(s), which leaves two values; the fresh cookie adds one.
 *
 * Sleeping and waking (the store-buffer pattern, all sequentially
 * consistent): the worker stores SLEEPING, then rechecks every queue and
 * request; a caller appends (or stores its request), then loads the state.
 * Either the recheck sees the callback or the caller sees SLEEPING and
 * wakes it.  A caller appending to a queue that was not empty need not
 * look: whoever made it non-empty did.
 *
 * Barriers: harvests are numbered.  A barrier that reads harvest number h
 * asks for harvest h + 1 and waits until every batch holding callbacks of
 * harvests up to h + 1 has run (invoked_through).  Its own earlier calls
 * precede, in the same total order, its read of h, which precedes harvest
 * h + 1's store of its number and so that harvest's look at every queue.
 *
 * Pending: pending() sees every callback queued before it that has not run,
 * whichever thread queued it, with no count on the callers' path.  A
 * callback is in a queue, in the worker's hands (taken by a harvest, in a
 * batch, running), or has run.  The worker stores held (its batch count
 * plus one) before a harvest takes from the queues, and lowers it to the
 * batch count only after a batch has run.  A harvest that finds every
 * queue empty takes nothing and stores no held, so pending() never counts
 * an empty harvest: right after a barrier, with nothing queued since, it
 * answers false, as destroy() and SRCU's cleanup need.  pending() looks at
 * the queues, then loads held, all sequentially consistent (the
 * store-buffer pattern again): a callback it does not find in a queue was
 * taken by an exchange that follows the store of held in the total order,
 * so the load sees held count its batch until that batch has run.  The
 * lowering store is a release, paired with that load: a caller that sees
 * nothing pending sees what the callbacks did.
 */
#include "rcu/cb_domain_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/futex.h"
#include "rcu/cb_debug.h"

/* How long callbacks gather before a normal grace period (see the top). */
#define GATHER_NS 1000000u
/* The busted controls' share of callbacks dropped, or run twice. */
#define CB_BUSTED_EVERY 64

bool quiesce_test_busted_call_rcu;
bool quiesce_test_busted_cb_pending;
bool quiesce_test_busted_cb_lost;
bool quiesce_test_busted_cb_twice;
bool quiesce_test_busted_barrier;
bool quiesce_test_slow_harvest;

/* The domain whose callback thread this is, if any. */
static __thread struct quiesce_cb_domain *on_worker __attribute__((tls_model("initial-exec")));
/* In the child of a fork() that a callback called: the callback's domain. */
static __thread struct quiesce_cb_domain *forked_in_callback
	__attribute__((tls_model("initial-exec")));

bool quiesce_cb_on_worker(void)
{
	return on_worker == &quiesce_rcu_cb;
}

bool quiesce_cb_domain_on_worker(const struct quiesce_cb_domain *cbd)
{
	return on_worker == cbd;
}

bool quiesce_cb_on_some_worker(void)
{
	return on_worker != NULL;
}

bool quiesce_cb_gone(void)
{
	return QUIESCE_LOAD(&quiesce_rcu_cb.state) == QUIESCE_CB_WORKER_GONE;
}

void quiesce_cb_domain_init(struct quiesce_cb_domain *cbd, struct quiesce_gp_domain *gp,
			    const char *thread_name)
{
	memset(cbd, 0, sizeof(*cbd));
	cbd->gp = gp;
	cbd->thread_name = thread_name;
	cbd->cpu = -1;
	quiesce_cb_queue_init(&cbd->shared);
	cbd->state = QUIESCE_CB_WORKER_ABSENT;
	pthread_mutex_init(&cbd->lock, NULL);
	pthread_mutex_init(&cbd->start_lock, NULL);
}

static void free_rcu_object(struct quiesce_rcu_head *head, uintptr_t offset_plus_one)
{
	free((char *)head - (offset_plus_one - 1));
}

static QUIESCE_COLD QUIESCE_NORETURN void callback_forked(void (*func)(struct quiesce_rcu_head *))
{
	quiesce_die("fork() called from an %s callback (%p): the child, a copy of the callback "
		    "thread, cannot go on running callbacks (exec or _exit in the child)",
		    forked_in_callback->gp->ops->kind, (void *)(uintptr_t)func);
}

/* Whether the caller holds the domain's grace periods: it must not wait for one. */
bool quiesce_cb_caller_holds_gp(struct quiesce_cb_domain *cbd)
{
	return cbd->gp->ops->caller_holds && cbd->gp->ops->caller_holds(cbd->gp);
}

/*
 * Runs a callback (not free_rcu()'s) under the busted controls: one in
 * CB_BUSTED_EVERY is dropped (lost) or runs twice in a row.
 */
static void run_busted(struct quiesce_rcu_head *cb, void (*func)(struct quiesce_rcu_head *),
		       bool lost)
{
	static unsigned tick;
	bool picked = __atomic_add_fetch(&tick, 1, __ATOMIC_RELAXED) % CB_BUSTED_EVERY == 0;

	if (picked && lost)
		return;
	func(cb);
	if (picked)
		func(cb);
}

/* Runs a batch's callbacks in order; returns how many. */
static uint64_t invoke(struct quiesce_cb_domain *cbd, struct quiesce_cb_list *list)
{
	struct quiesce_rcu_head *cb = list->first, *next;
	bool busted_lost = QUIESCE_LOAD(&quiesce_test_busted_cb_lost);
	bool busted = busted_lost || QUIESCE_LOAD(&quiesce_test_busted_cb_twice);
	uint64_t n = 0;

	do {
		void (*func)(struct quiesce_rcu_head *) = cb->func;

		/* Read before the callback frees cb. */
		next = cb == list->last ? NULL : quiesce_cb_queue_next(cb);
		/* Before: the callback may queue cb again. */
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_cb_debug_on)))
			quiesce_cb_debug_run(cb);
		if ((uintptr_t)func < QUIESCE_FREE_RCU_OFFSET_LIMIT)
			free_rcu_object(cb, (uintptr_t)func);
		else if (QUIESCE_LIKELY(!busted))
			func(cb);
		else
			run_busted(cb, func, busted_lost);
		/* Before anything else: the child's batches are gone (cb_lifecycle.c). */
		if (QUIESCE_UNLIKELY(forked_in_callback))
			callback_forked(func);
		if (QUIESCE_UNLIKELY(quiesce_rcu_read_ongoing()))
			quiesce_die("RCU callback %p returned inside a read-side critical section",
				    (void *)(uintptr_t)func);
		/*
		 * This thread waits for the domain's grace periods next: for
		 * itself, if it holds them.  Not where a section may have been
		 * handed to another thread, which ends it (SRCU): a section
		 * left open by mistake there shows in the stall reports.
		 */
		if (QUIESCE_UNLIKELY(!cbd->gp->ops->sections_handed_off && quiesce_cb_caller_holds_gp(cbd)))
			quiesce_die("%s callback %p returned holding its domain's grace periods (inside "
				    "a read-side critical section; QSBR: registered and online): its "
				    "callback thread would wait for itself forever",
				    cbd->gp->ops->kind, (void *)(uintptr_t)func);
		n++;
		cb = next;
	} while (cb);
	return n;
}

/* Everything harvested up to `harvest` has run: wake whoever waits for it. */
static void publish_progress(struct quiesce_cb_domain *cbd, unsigned long harvest)
{
	pthread_mutex_lock(&cbd->lock);
	QUIESCE_STORE(&cbd->invoked_through, harvest);
	if (cbd->waiters)
		pthread_cond_broadcast(&cbd->progress);
	pthread_mutex_unlock(&cbd->lock);
}

static bool grace_period_passed(struct quiesce_cb_domain *cbd, unsigned long cookie)
{
	return quiesce_gp_poll(cbd->gp, cookie);
}

static void run_ready_batches(struct quiesce_cb_domain *cbd)
{
	while (cbd->batch_count && !QUIESCE_LOAD(&cbd->stop_requested) &&
	       (grace_period_passed(cbd, cbd->batches[0].cookie) ||
		QUIESCE_LOAD(&quiesce_test_busted_call_rcu))) {
		uint64_t n = invoke(cbd, &cbd->batches[0].list);
		unsigned long harvest = cbd->batches[0].harvest;

		__atomic_fetch_sub(&cbd->backlog, (long)n, __ATOMIC_RELAXED);
		/*
		 * Release: pairs with the acquire load in
		 * quiesce_call_rcu_get_stats(), which then sees the queued
		 * count of every callback counted here.
		 */
		__atomic_fetch_add(&cbd->stats.invoked, n, __ATOMIC_RELEASE);
		__atomic_fetch_add(&cbd->stats.batches, 1, __ATOMIC_RELAXED);
		cbd->batch_count--;
		/* Release: pairs with the load in pending() (see "Pending" at the top). */
		__atomic_store_n(&cbd->held, cbd->batch_count, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < cbd->batch_count; i++)
			cbd->batches[i] = cbd->batches[i + 1];
		publish_progress(cbd, harvest);
	}
}

static void harvest(struct quiesce_cb_domain *cbd, struct quiesce_cb_list *list)
{
	struct quiesce_rcu_head *first, *last;

	if (cbd->source) {
		cbd->source->harvest(cbd, list);
		return;
	}
	first = quiesce_cb_queue_take(&cbd->shared, &last);
	if (first)
		quiesce_cb_list_append(list, first, last);
}

static bool queued_anywhere(struct quiesce_cb_domain *cbd)
{
	if (cbd->source)
		return cbd->source->queued_anywhere(cbd);
	return !quiesce_cb_queue_empty(&cbd->shared);
}

/*
 * Files harvest `number`'s callbacks (fresh) in a batch, and sets held to
 * the batch count: relaxed, as it lowers it only when nothing was taken.
 */
static void file_harvest(struct quiesce_cb_domain *cbd, unsigned long number,
			 struct quiesce_cb_list fresh)
{
	unsigned long cookie;
	struct quiesce_cb_batch *newest =
		cbd->batch_count ? &cbd->batches[cbd->batch_count - 1] : NULL;

	if (!fresh.first) {
		/*
		 * Before the progress below, whose lock orders it before the
		 * pending() of a barrier's caller it wakes.
		 */
		QUIESCE_STORE(&cbd->held, cbd->batch_count);
		if (newest)
			newest->harvest = number;
		else
			publish_progress(cbd, number);
		return;
	}
	/* After the harvest: the cookie's grace period follows every call. */
	cookie = quiesce_gp_snapshot(cbd->gp);
	if (newest && newest->cookie == cookie) {
		QUIESCE_STORE(&newest->list.last->next, fresh.first);
		newest->list.last = fresh.last;
		newest->harvest = number;
		QUIESCE_STORE(&cbd->held, cbd->batch_count);
		return;
	}
	if (cbd->batch_count == QUIESCE_CB_MAX_BATCHES)
		quiesce_die("internal error: more than %d callback batches pending",
			    QUIESCE_CB_MAX_BATCHES);
	cbd->batches[cbd->batch_count++] = (struct quiesce_cb_batch){ fresh, cookie, number };
	QUIESCE_STORE(&cbd->held, cbd->batch_count);
}

static void harvest_into_batches(struct quiesce_cb_domain *cbd)
{
	struct quiesce_cb_list fresh = { NULL, NULL };
	unsigned long number = cbd->harvests + 1;

	/*
	 * Sequentially consistent, before the harvest looks at the queues:
	 * see "Barriers" and "Pending" at the top of this file.  A harvest
	 * that finds every queue empty leaves held alone (see "Pending").
	 */
	__atomic_store_n(&cbd->harvests, number, __ATOMIC_SEQ_CST);
	if (queued_anywhere(cbd)) {
		__atomic_store_n(&cbd->held, cbd->batch_count + 1, __ATOMIC_SEQ_CST);
		if (QUIESCE_LOAD(&quiesce_test_slow_harvest))
			nanosleep(&(struct timespec){ 0, 200000 }, NULL);
		harvest(cbd, &fresh);
	}
	file_harvest(cbd, number, fresh);
}

/*
 * The throttled callers are read sequentially consistent, for
 * gather_callbacks()'s store-buffer pattern (a relaxed load may pass the
 * store of gathering on arm64); the backlog relaxed (see there).
 */
static bool should_expedite(struct quiesce_cb_domain *cbd)
{
	return QUIESCE_LOAD(&cbd->backlog) > QUIESCE_CB_EXPEDITE_BACKLOG ||
	       __atomic_load_n(&cbd->throttled_waiters, __ATOMIC_SEQ_CST);
}

static bool harvest_asked(struct quiesce_cb_domain *cbd)
{
	return (long)(__atomic_load_n(&cbd->harvest_wanted, __ATOMIC_SEQ_CST) - cbd->harvests) > 0;
}

/* Whether anyone waits for the callbacks: then the worker must not pause. */
static bool hurried(struct quiesce_cb_domain *cbd)
{
	return should_expedite(cbd) || __atomic_load_n(&cbd->stop_requested, __ATOMIC_SEQ_CST) ||
	       harvest_asked(cbd);
}

/*
 * Lets callbacks gather before a normal grace period.  The store-buffer
 * pattern, sequentially consistent: we store gathering, then look at what
 * hurries us; whoever hurries us stores its request, then takes gathering
 * in quiesce_cb_hurry_worker().  Either we see the request or it wakes us.
 * (The backlog is counted with relaxed atomics: past the expedite mark it
 * hurries us at best effort, and the deadline bounds a missed look.)
 */
static void gather_callbacks(struct quiesce_cb_domain *cbd)
{
	uint64_t deadline = quiesce_now_ns() + GATHER_NS, now;

	for (;;) {
		__atomic_store_n(&cbd->gathering, 1, __ATOMIC_SEQ_CST);
		if (hurried(cbd) || (now = quiesce_now_ns()) >= deadline)
			break;
		/* Woken by quiesce_cb_hurry_worker(), or at the deadline. */
		quiesce_futex_wait(&cbd->gathering, 1, deadline - now);
	}
	__atomic_store_n(&cbd->gathering, 0, __ATOMIC_RELAXED);
}

void quiesce_cb_hurry_worker(struct quiesce_cb_domain *cbd)
{
	if (__atomic_exchange_n(&cbd->gathering, 0, __ATOMIC_SEQ_CST))
		quiesce_futex_wake_all(&cbd->gathering);
}

/* The cookie start_poll asked for, when its grace period has not passed. */
static bool poll_pending(struct quiesce_cb_domain *cbd, unsigned long *target)
{
	/* Sequentially consistent: see "Sleeping and waking" above. */
	*target = __atomic_load_n(&cbd->poll_target, __ATOMIC_SEQ_CST);
	return !grace_period_passed(cbd, *target);
}

/* Whether callbacks are queued or a request waits (the batches aside). */
bool quiesce_cb_work_waiting(struct quiesce_cb_domain *cbd)
{
	unsigned long target;

	/*
	 * Sequentially consistent: see "Sleeping and waking" at the top, and
	 * "Starting and stopping" in cb_lifecycle.c.
	 */
	return harvest_asked(cbd) || poll_pending(cbd, &target) || queued_anywhere(cbd);
}

static bool work_pending(struct quiesce_cb_domain *cbd)
{
	/* Sequentially consistent: see "Sleeping and waking" above. */
	return __atomic_load_n(&cbd->stop_requested, __ATOMIC_SEQ_CST) || quiesce_cb_work_waiting(cbd);
}

static void sleep_until_work(struct quiesce_cb_domain *cbd)
{
	int running = QUIESCE_CB_WORKER_RUNNING;

	/* Fails only when a stop made the state STOPPING or GONE: the loop then stops. */
	if (!__atomic_compare_exchange_n(&cbd->state, &running, QUIESCE_CB_WORKER_SLEEPING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	if (!work_pending(cbd)) {
		/* Woken by quiesce_cb_wake_worker(), which stores RUNNING. */
		while (__atomic_load_n(&cbd->state, __ATOMIC_SEQ_CST) == QUIESCE_CB_WORKER_SLEEPING)
			quiesce_futex_wait(&cbd->state, QUIESCE_CB_WORKER_SLEEPING, 0);
	}
	running = QUIESCE_CB_WORKER_SLEEPING;
	__atomic_compare_exchange_n(&cbd->state, &running, QUIESCE_CB_WORKER_RUNNING, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

void *quiesce_cb_worker_main(void *arg)
{
	struct quiesce_cb_domain *cbd = arg;
	unsigned long target;

	on_worker = cbd;
	while (!QUIESCE_LOAD(&cbd->stop_requested)) {
		run_ready_batches(cbd);
		harvest_into_batches(cbd);
		if (!cbd->batch_count) {
			if (poll_pending(cbd, &target))
				quiesce_gp_wait_for(cbd->gp, target, false);
			else
				sleep_until_work(cbd);
			continue;
		}
		if (QUIESCE_LOAD(&quiesce_test_busted_call_rcu))
			continue;
		if (!should_expedite(cbd))
			gather_callbacks(cbd);
		if (should_expedite(cbd))
			__atomic_fetch_add(&cbd->stats.expedited, 1, __ATOMIC_RELAXED);
		quiesce_gp_wait_for(cbd->gp, cbd->batches[0].cookie, should_expedite(cbd));
	}
	return NULL;
}

/*
 * For a caller that has just stored what it waits for: the worker runs its
 * next harvest now, whether it was asleep, absent or letting callbacks
 * gather.
 */
static void wake_or_hurry_worker(struct quiesce_cb_domain *cbd)
{
	if (__atomic_load_n(&cbd->state, __ATOMIC_SEQ_CST) != QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker(cbd);
	else
		quiesce_cb_hurry_worker(cbd);
}

void quiesce_cb_forbid(struct quiesce_cb_domain *cbd, const char *call)
{
	if (quiesce_rcu_read_ongoing())
		quiesce_die("%s() called inside an RCU read-side critical section: "
			    "it would wait for itself forever", call);
	if (on_worker == cbd)
		quiesce_die("%s() called from an %s callback: it would wait for itself forever",
			    call, cbd->gp->ops->kind);
}

/*
 * Asks for a harvest that starts after this call and waits until it has run
 * (or until deadline_ns, when not 0).  Returns whether it has.
 */
bool quiesce_cb_wait_for_harvest(struct quiesce_cb_domain *cbd, uint64_t deadline_ns)
{
	int cancel = quiesce_cancel_off();	/* between waiters++ and -- (cancel.h) */
	unsigned long target;
	bool done;

	quiesce_cb_ensure_listed(cbd);	/* its progress condition is made */
	pthread_mutex_lock(&cbd->lock);
	/* Sequentially consistent: see "Barriers" at the top of this file. */
	target = __atomic_load_n(&cbd->harvests, __ATOMIC_SEQ_CST) + 1;
	if ((long)(target - cbd->harvest_wanted) > 0)
		__atomic_store_n(&cbd->harvest_wanted, target, __ATOMIC_SEQ_CST);
	cbd->waiters++;
	pthread_mutex_unlock(&cbd->lock);

	wake_or_hurry_worker(cbd);

	pthread_mutex_lock(&cbd->lock);
	/* Woken by publish_progress(), or by the deadline. */
	while (!(done = (long)(cbd->invoked_through - target) >= 0) &&
	       QUIESCE_LOAD(&cbd->state) != QUIESCE_CB_WORKER_GONE) {
		struct timespec ts;

		if (!deadline_ns) {
			pthread_cond_wait(&cbd->progress, &cbd->lock);
			continue;
		}
		if (quiesce_now_ns() >= deadline_ns)
			break;
		ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
		ts.tv_nsec = (long)(deadline_ns % 1000000000u);
		pthread_cond_timedwait(&cbd->progress, &cbd->lock, &ts);
	}
	cbd->waiters--;
	pthread_mutex_unlock(&cbd->lock);
	quiesce_cancel_restore(cancel);
	return done;
}

void quiesce_cb_domain_barrier(struct quiesce_cb_domain *cbd, const char *call)
{
	quiesce_cb_forbid(cbd, call);
	if (!QUIESCE_LOAD(&cbd->ever_used))
		return;
	/*
	 * Without a deadline it gives up only once exit() has stopped the
	 * thread (GONE): what is still queued then never runs, so the
	 * barrier cannot keep its promise, and says so.
	 */
	if (!quiesce_cb_wait_for_harvest(cbd, 0) && quiesce_cb_domain_pending(cbd))
		quiesce_warn("%s() after exit() stopped the %s callback thread: the callbacks "
			     "queued since will not run", call, cbd->gp->ops->kind);
}

unsigned long quiesce_cb_domain_start_poll(struct quiesce_cb_domain *cbd)
{
	unsigned long cookie = quiesce_gp_snapshot(cbd->gp);

	quiesce_cb_ensure_listed(cbd);
	pthread_mutex_lock(&cbd->lock);
	/* Sequentially consistent: see "Sleeping and waking" above. */
	if ((long)(cookie - cbd->poll_target) > 0)
		__atomic_store_n(&cbd->poll_target, cookie, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cbd->lock);
	if (__atomic_load_n(&cbd->state, __ATOMIC_SEQ_CST) != QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker(cbd);
	return cookie;
}

bool quiesce_cb_domain_poll(struct quiesce_cb_domain *cbd, unsigned long cookie)
{
	unsigned long target;

	if (quiesce_gp_poll(cbd->gp, cookie))
		return true;
	/*
	 * ABSENT with a request pending: a child of fork() whose parent asked
	 * (start_poll wakes or starts the thread itself, and a stop restarts
	 * it for a request left over).  The child's first poll starts it, as
	 * its first call would (cb_lifecycle.c: "Exit and fork").
	 */
	if (QUIESCE_LOAD(&cbd->state) == QUIESCE_CB_WORKER_ABSENT && poll_pending(cbd, &target))
		quiesce_cb_wake_worker(cbd);
	return false;
}

bool quiesce_cb_domain_pending(struct quiesce_cb_domain *cbd)
{
	/*
	 * The queues, then held, sequentially consistent: see "Pending" at the
	 * top of this file (the load pairs with the worker's stores of held).
	 */
	return queued_anywhere(cbd) || (__atomic_load_n(&cbd->held, __ATOMIC_SEQ_CST) &&
					!QUIESCE_LOAD(&quiesce_test_busted_cb_pending));
}

/*
 * A throttled caller waits until the backlog has fallen to half the mark,
 * not until everything queued before it has run: it resumes queueing while
 * the callback thread works through the rest, so the two overlap.
 */
void quiesce_cb_throttle(struct quiesce_cb_domain *cbd)
{
	uint64_t deadline_ns = quiesce_now_ns() + QUIESCE_CB_THROTTLE_MAX_WAIT_NS;
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u),
			       (long)(deadline_ns % 1000000000u) };
	int cancel;

	if (on_worker || quiesce_rcu_read_ongoing() || quiesce_cb_caller_holds_gp(cbd) ||
	    QUIESCE_LOAD(&cbd->state) == QUIESCE_CB_WORKER_GONE)
		return;
	__atomic_fetch_add(&cbd->stats.throttled, 1, __ATOMIC_RELAXED);
	cancel = quiesce_cancel_off();	/* between waiters++ and -- (cancel.h) */
	quiesce_cb_ensure_listed(cbd);	/* its progress condition is made */
	pthread_mutex_lock(&cbd->lock);
	cbd->waiters++;
	/*
	 * Atomic: should_expedite() reads it without the lock.  Sequentially
	 * consistent, before the hurry: see gather_callbacks().
	 */
	__atomic_fetch_add(&cbd->throttled_waiters, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cbd->lock);
	wake_or_hurry_worker(cbd);

	pthread_mutex_lock(&cbd->lock);
	/*
	 * Woken by publish_progress() after each batch, which takes the lock
	 * after lowering the backlog; or by the deadline.
	 */
	while (QUIESCE_LOAD(&cbd->backlog) > QUIESCE_CB_THROTTLE_BACKLOG / 2 &&
	       QUIESCE_LOAD(&cbd->state) != QUIESCE_CB_WORKER_GONE &&
	       quiesce_now_ns() < deadline_ns)
		pthread_cond_timedwait(&cbd->progress, &cbd->lock, &ts);
	cbd->waiters--;
	__atomic_fetch_sub(&cbd->throttled_waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cbd->lock);
	quiesce_cancel_restore(cancel);
}

void quiesce_cb_worker_child_after_fork(void)
{
	/* invoke() dies when the callback returns. */
	forked_in_callback = on_worker;
}
