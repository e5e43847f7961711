/*
 * cb_domain.c - a domain's callback thread: harvests, waits for grace
 * periods, runs callbacks; barriers, polled grace periods, backpressure and
 * its lifecycle.  One thread per domain that has callbacks (cb_domain.h).
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
 *
 * Counting: the backlog (throttling and expediting above) is the only count
 * on the callers' path, and it is approximate by design; nothing exact
 * depends on it.  The default domain's callers count per thread in
 * call_rcu.c.  The other domains' callers count in a cache of their own
 * thread, COUNT_SLOTS slots chosen by a hash of the domain's address, so a
 * thread holds counts for a few domains however many exist:
 *  - a call to the domain that holds its slot adds one to the slot, which
 *    only its thread writes; the QUIESCE_CB_BACKLOG_FLUSH-th adds them to
 *    the backlog and checks the marks;
 *  - a call to another domain takes the slot if it is free or holds no
 *    count (one compare-and-swap of the slot's domain); otherwise it adds
 *    itself directly to its domain's backlog, checking the marks whenever
 *    that add carries the backlog past a multiple of
 *    QUIESCE_CB_BACKLOG_FLUSH, so that a thread alternating between two
 *    domains of one slot is still throttled (and pays one shared add per
 *    call to the one without the slot);
 *  - the thread's exit adds what its slots hold.
 * So a thread writes a count into a domain other than the one it is
 * calling only at exit.  The hazard is memory: a slot may name a domain
 * that is then destroyed (its callbacks have run, its counts are still in
 * the slot), and the exit must not write into freed memory.  destroy()
 * frees the slots naming the domain (compare-and-swap to NULL, racing the
 * owner's own) in every thread's cache, each under that thread's lock,
 * and the exit adds what its slots hold under the same lock.  Elsewhere a
 * thread writes only into the domain it is calling, which its caller
 * guarantees exists.  Locks: counters_lock, then one thread's counter
 * lock; neither is held while taking a domain's.
 *
 * Starting and stopping: under start_lock, but for the join.  A waker that
 * finds the thread ABSENT starts it under the lock.  A stop stores
 * stop_requested, then the state: STOPPING for shutdown, GONE for good for
 * destroy() and exit(); then it lets go of the lock and joins the thread.
 * What the thread does last must not wait for that join: a callback that
 * queues while the stop goes on, the thread's exit handing its partial
 * defer_rcu() blocks to call_rcu() (under defer.c's registry lock, which a
 * fork() being prepared holds).  No waker wakes or starts a thread that is
 * STOPPING or GONE.
 * After the join, shutdown stores ABSENT, then looks at the batches, the
 * queues and the requests (a barrier's harvest, a poll's grace period),
 * and starts a thread if anything is left: the store-buffer pattern of
 * "Sleeping and waking", sequentially consistent.  A caller that queued or
 * asked and then saw STOPPING is seen by that look; one whose load comes
 * later sees ABSENT (or what followed it) and wakes or starts a thread
 * itself.  A stop or start that finds the state STOPPING waits (a futex on
 * the state) until the shutdown has ended its stop, then looks again.
 *
 * Exit and fork: every domain that was ever used is on a list.  At exit(),
 * after the program's own exit handlers (the library's constructor
 * registered ours first: init_order.h), the domains' pending callbacks get
 * to run, side by side and within one bound for them all, then their
 * threads stop, so that no callback runs while the rest of exit() tears
 * the process down (stdio; linked statically, the destructors); a thread whose
 * callbacks wait for a grace period held up past the bound is left to
 * stop on its own.  The list's lock is not held meanwhile (run_at_exit()).
 * Around fork() the list is held whole, but not the domains' own locks: a
 * program may have a domain per CPU, and ThreadSanitizer stops a thread
 * that holds more than 64 locks.  Nothing the child keeps needs them.  It
 * has no callback thread and drops the parent's batches (they run in the
 * parent), so it makes the rest anew, the two locks and the condition
 * included (another thread of the parent may have been inside them at
 * fork()): of a domain it keeps its place on the list, whether exit() or
 * destroy() made its thread GONE, and poll_target, each one word, stored
 * whole.  A grace period that start_poll asked for is still asked for: the
 * child's first poll of it starts a thread (quiesce_cb_domain_poll()).  So
 * that the remaking reaches every lock in use, a thread lists a domain
 * before it first takes either lock (ensure_listed()).  The forking thread
 * keeps its counting slots, emptied (the counts were of the parent's
 * callbacks).  A callback must not fork(): its child, a copy of the
 * callback thread without the batches it was running, dies with a message
 * as soon as the callback returns there (one that execs first is not
 * affected).
 */
#include "rcu/cb_domain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <quiesce/rculist.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/futex.h"
#include "common/lib_thread.h"
#include "common/thread_exit.h"
#include "rcu/cb_debug.h"
#include "rcu/stats_at_exit.h"

/* How long callbacks gather before a normal grace period (see the top). */
#define GATHER_NS 1000000u
/* The busted controls' share of callbacks dropped, or run twice. */
#define CB_BUSTED_EVERY 64

bool quiesce_test_busted_call_rcu;
bool quiesce_test_call_rcu_no_throttle;
bool quiesce_test_busted_cb_forget;
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

/* The domains ever used, for exit and fork: under domains_lock. */
static pthread_mutex_t domains_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quiesce_cb_domain *domains;
/* exit() is done with a domain (exit_stopping cleared): destroy() may unlink it. */
static pthread_cond_t exit_stopped = PTHREAD_COND_INITIALIZER;
static pthread_once_t exit_handler_once = PTHREAD_ONCE_INIT;

bool quiesce_cb_on_worker(void)
{
	return on_worker == &quiesce_rcu_cb;
}

bool quiesce_cb_domain_on_worker(const struct quiesce_cb_domain *cbd)
{
	return on_worker == cbd;
}

bool quiesce_cb_gone(void)
{
	return QUIESCE_LOAD(&quiesce_rcu_cb.state) == QUIESCE_CB_WORKER_GONE;
}

static void init_progress_cond(struct quiesce_cb_domain *cbd)
{
	pthread_condattr_t attr;

	/* Deadlines are quiesce_now_ns() values. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cbd->progress, &attr);
	pthread_condattr_destroy(&attr);
}

/*
 * Puts the domain on the list (once), making its progress condition: every
 * thread that takes either of its locks, or waits on or signals the
 * condition, calls this first (the domain's first user may be a waiter, and
 * the default domain's callers queue without it; fork() remakes the locks
 * of the listed domains).
 */
static void ensure_listed(struct quiesce_cb_domain *cbd)
{
	if (QUIESCE_LOAD_ACQUIRE(&cbd->listed))
		return;
	pthread_mutex_lock(&domains_lock);
	if (!cbd->listed) {
		init_progress_cond(cbd);
		cbd->next_listed = domains;
		domains = cbd;
		/* Release: pairs with the acquire above; the cond is made. */
		QUIESCE_STORE_RELEASE(&cbd->listed, true);
	}
	pthread_mutex_unlock(&domains_lock);
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
static bool caller_holds_gp(struct quiesce_cb_domain *cbd)
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
		/* Before anything else: the child's batches are gone (see the top). */
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
		if (QUIESCE_UNLIKELY(!cbd->gp->ops->sections_handed_off && caller_holds_gp(cbd)))
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
static bool work_waiting(struct quiesce_cb_domain *cbd)
{
	unsigned long target;

	/*
	 * Sequentially consistent: see "Sleeping and waking" and "Starting
	 * and stopping" at the top.
	 */
	return harvest_asked(cbd) || poll_pending(cbd, &target) || queued_anywhere(cbd);
}

static bool work_pending(struct quiesce_cb_domain *cbd)
{
	/* Sequentially consistent: see "Sleeping and waking" above. */
	return __atomic_load_n(&cbd->stop_requested, __ATOMIC_SEQ_CST) || work_waiting(cbd);
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

static void *worker_main(void *arg)
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

static void run_at_exit(void);

static void register_exit_handler(void)
{
	/* The stats' first, so that they are printed after this has run (init_order.h). */
	quiesce_stats_at_exit_init();
	/* Registered once: a child of fork() inherits it. */
	atexit(run_at_exit);
}

void quiesce_cb_exit_handler_init(void)
{
	pthread_once(&exit_handler_once, register_exit_handler);
}

/*
 * Under start_lock: the state once no shutdown is stopping the thread.
 * While one is (STOPPING), waits for it without the lock, until
 * deadline_ns when not 0 (the state may then still be STOPPING).
 */
static int state_after_stop(struct quiesce_cb_domain *cbd, uint64_t deadline_ns)
{
	int state;

	while ((state = QUIESCE_LOAD(&cbd->state)) == QUIESCE_CB_WORKER_STOPPING) {
		uint64_t now = quiesce_now_ns();

		if (deadline_ns && now >= deadline_ns)
			break;
		pthread_mutex_unlock(&cbd->start_lock);
		/* Woken by stop_worker() once the stop has ended, or at the deadline. */
		quiesce_futex_wait(&cbd->state, QUIESCE_CB_WORKER_STOPPING,
				   deadline_ns ? deadline_ns - now : 0);
		pthread_mutex_lock(&cbd->start_lock);
	}
	return state;
}

/* Under start_lock, with the state ABSENT. */
static void start_worker(struct quiesce_cb_domain *cbd)
{
	char what[64];

	/* Registered already, unless a program's constructor came first (init_order.h). */
	quiesce_cb_exit_handler_init();
	QUIESCE_STORE(&cbd->stop_requested, false);
	QUIESCE_STORE(&cbd->state, QUIESCE_CB_WORKER_RUNNING);
	snprintf(what, sizeof(what), "the %s callback thread", cbd->gp->ops->kind);
	cbd->worker = quiesce_lib_thread_start(worker_main, cbd, false, cbd->cpu, cbd->thread_name,
					       what);
}

void quiesce_cb_wake_worker(struct quiesce_cb_domain *cbd)
{
	int sleeping = QUIESCE_CB_WORKER_SLEEPING;

	/* Sequentially consistent: see "Sleeping and waking" above. */
	if (__atomic_compare_exchange_n(&cbd->state, &sleeping, QUIESCE_CB_WORKER_RUNNING, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		quiesce_futex_wake_all(&cbd->state);
		return;
	}
	/*
	 * Running, or stopping (the shutdown looks for work after its join:
	 * see "Starting and stopping" at the top), or gone.
	 */
	if (sleeping != QUIESCE_CB_WORKER_ABSENT)
		return;
	ensure_listed(cbd);
	pthread_mutex_lock(&cbd->start_lock);
	if (QUIESCE_LOAD(&cbd->state) == QUIESCE_CB_WORKER_ABSENT)
		start_worker(cbd);
	pthread_mutex_unlock(&cbd->start_lock);
}

pthread_t quiesce_cb_domain_thread(struct quiesce_cb_domain *cbd)
{
	pthread_t thread;
	int state;

	/* From one of its callbacks: a stop under way would wait for this one. */
	if (on_worker == cbd)
		return pthread_self();
	ensure_listed(cbd);
	pthread_mutex_lock(&cbd->start_lock);
	/*
	 * A caller that holds the domain's grace periods (a reader; online,
	 * for QSBR) must not wait for a stop under way: the stopping thread
	 * may be waiting for a grace period that this caller holds up.  It
	 * gets the thread being stopped, as if it had asked just before.
	 */
	if (quiesce_rcu_read_ongoing() || caller_holds_gp(cbd))
		state = QUIESCE_LOAD(&cbd->state);
	else
		state = state_after_stop(cbd, 0);
	if (state == QUIESCE_CB_WORKER_GONE)
		quiesce_die("the %s callback thread was asked for after exit() stopped it",
			    cbd->gp->ops->kind);
	if (state == QUIESCE_CB_WORKER_ABSENT)
		start_worker(cbd);
	thread = cbd->worker;
	pthread_mutex_unlock(&cbd->start_lock);
	return thread;
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

void quiesce_cb_null_func(struct quiesce_rcu_head *head)
{
	quiesce_die("call_rcu(%p, NULL): a callback function is required "
		    "(free_rcu() frees without one)", (void *)head);
}

/* Counting (see the top): a thread's slots, 1 << COUNT_SLOT_BITS of them. */
#define COUNT_SLOT_BITS 2
#define COUNT_SLOTS (1u << COUNT_SLOT_BITS)

struct count_slot {
	/*
	 * NULL: free.  Set by the owner, freed by the owner at exit or by
	 * destroy(), with compare-and-swap as they may race.
	 */
	struct quiesce_cb_domain *cbd;
	unsigned calls;			/* not yet added to cbd->backlog; the owner's */
};

/* One thread's slots (relaxed atomics where destroy() reads them). */
struct cb_counter {
	struct count_slot slots[COUNT_SLOTS];
	pthread_mutex_t lock;		/* exit against destroy(): see the top */
	struct list_head link;		/* in counters, under counters_lock */
	bool registered;
};

static __thread struct cb_counter counter_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t counters_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(counters);		/* registered threads' counters */
static pthread_key_t counter_key;
static pthread_once_t counter_key_once = PTHREAD_ONCE_INIT;

static struct count_slot *slot_of(struct cb_counter *self, struct quiesce_cb_domain *cbd)
{
	/* Fibonacci hashing: the product's top bits mix every bit of the address. */
	uint64_t hash = (uint64_t)(uintptr_t)cbd * 0x9e3779b97f4a7c15u;

	return &self->slots[hash >> (64 - COUNT_SLOT_BITS)];
}

/*
 * Adds the caller's latest n calls to the backlog.  An add that carries it
 * past a multiple of QUIESCE_CB_BACKLOG_FLUSH checks the marks: every full
 * slot's does, and one in about QUIESCE_CB_BACKLOG_FLUSH of single calls.
 */
static void add_to_backlog(struct quiesce_cb_domain *cbd, long n)
{
	long backlog = __atomic_add_fetch(&cbd->backlog, n, __ATOMIC_RELAXED);

	if (QUIESCE_LIKELY(backlog <= QUIESCE_CB_EXPEDITE_BACKLOG) ||
	    backlog / QUIESCE_CB_BACKLOG_FLUSH == (backlog - n) / QUIESCE_CB_BACKLOG_FLUSH)
		return;
	quiesce_cb_hurry_worker(cbd);
	if (backlog > QUIESCE_CB_THROTTLE_BACKLOG &&
	    !QUIESCE_LOAD(&quiesce_test_call_rcu_no_throttle))
		quiesce_cb_throttle(cbd);
}

/* At thread exit: adds what every slot holds, then leaves the list. */
static void counter_exit(void *unused)
{
	struct cb_counter *self = &counter_self;

	if (!self->registered)
		return;
	pthread_mutex_lock(&self->lock);
	for (unsigned i = 0; i < COUNT_SLOTS; i++) {
		struct count_slot *slot = &self->slots[i];
		/* Under the lock: destroy() frees no slot meanwhile. */
		struct quiesce_cb_domain *cbd = QUIESCE_LOAD(&slot->cbd);

		if (cbd && slot->calls)
			__atomic_fetch_add(&cbd->backlog, (long)slot->calls, __ATOMIC_RELAXED);
		QUIESCE_STORE(&slot->cbd, NULL);
	}
	pthread_mutex_unlock(&self->lock);
	/* Its slots are free: destroy() has nothing more to look at here. */
	pthread_mutex_lock(&counters_lock);
	list_del(&self->link);
	pthread_mutex_unlock(&counters_lock);
	pthread_mutex_destroy(&self->lock);
	self->registered = false;
}

static void create_counter_key(void)
{
	if (pthread_key_create(&counter_key, counter_exit))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
}

static QUIESCE_COLD void register_counter(struct cb_counter *self)
{
	pthread_once(&counter_key_once, create_counter_key);
	/* counter_exit() runs at the thread's exit. */
	quiesce_on_thread_exit(counter_key, self, "call_rcu()");
	pthread_mutex_init(&self->lock, NULL);
	pthread_mutex_lock(&counters_lock);
	list_add_tail(&self->link, &counters);
	pthread_mutex_unlock(&counters_lock);
	self->registered = true;
}

/*
 * A call to a domain that does not hold its slot: takes the slot when it
 * is free or its domain has nothing counted there.  Returns whether it did.
 */
static QUIESCE_COLD bool take_slot(struct cb_counter *self, struct count_slot *slot,
				   struct quiesce_cb_domain *cbd)
{
	struct quiesce_cb_domain *old = QUIESCE_LOAD(&slot->cbd);

	if (!self->registered)
		register_counter(self);
	/* A free slot's count is stale: its domain was destroyed. */
	if (old && slot->calls)
		return false;
	/* Fails when destroy() freed the slot meanwhile: this call goes direct. */
	if (!__atomic_compare_exchange_n(&slot->cbd, &old, cbd, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return false;
	slot->calls = 0;
	return true;
}

/* destroy(): no slot names the domain any more (see "Counting" at the top). */
static void forget_counts(struct quiesce_cb_domain *cbd)
{
	struct cb_counter *c;

	if (!QUIESCE_LOAD(&cbd->ever_used) || QUIESCE_LOAD(&quiesce_test_busted_cb_forget))
		return;
	pthread_mutex_lock(&counters_lock);
	list_for_each_entry(c, &counters, link) {
		pthread_mutex_lock(&c->lock);
		for (unsigned i = 0; i < COUNT_SLOTS; i++) {
			struct quiesce_cb_domain *expected = cbd;

			__atomic_compare_exchange_n(&c->slots[i].cbd, &expected, NULL, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&counters_lock);
}

void quiesce_cb_domain_call(struct quiesce_cb_domain *cbd, struct quiesce_rcu_head *head,
			    void (*func)(struct quiesce_rcu_head *))
{
	struct cb_counter *self = &counter_self;
	struct count_slot *slot = slot_of(self, cbd);
	bool slot_held = QUIESCE_LOAD(&slot->cbd) == cbd;
	struct quiesce_rcu_head *prev;
	unsigned calls;

	if (QUIESCE_UNLIKELY(!func))
		quiesce_cb_null_func(head);
	/*
	 * On every call, not only when taking a slot: a slot may still name
	 * a domain set up again at the same address without being destroyed.
	 */
	if (QUIESCE_UNLIKELY(!QUIESCE_LOAD(&cbd->ever_used))) {
		ensure_listed(cbd);
		QUIESCE_STORE(&cbd->ever_used, true);
	}
	if (QUIESCE_UNLIKELY(!slot_held))
		slot_held = take_slot(self, slot, cbd);
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_cb_debug_on)))
		quiesce_cb_debug_queue(head, func, cbd->gp->ops->kind);
	head->func = func;
	prev = quiesce_cb_queue_append(&cbd->shared, head, head);
	/*
	 * head was the tail already: queued twice in a row (cb_debug.c).  Told
	 * by the exchange, not by a load of the tail before it, which would
	 * fetch the line that other callers write once more.  The loop just
	 * linked dies with the process, long before a grace period lets the
	 * callback thread follow it.
	 */
	if (QUIESCE_UNLIKELY(prev == head))
		quiesce_cb_queued_twice(head, NULL, cbd->gp->ops->kind);
	/*
	 * Sequentially consistent, with the append's exchange before it: the
	 * callback thread stores SLEEPING, then rechecks the queue; either it
	 * sees this callback or this load sees SLEEPING.
	 */
	if (prev == &cbd->shared.head &&
	    __atomic_load_n(&cbd->state, __ATOMIC_SEQ_CST) != QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker(cbd);
	if (QUIESCE_UNLIKELY(!slot_held)) {
		add_to_backlog(cbd, 1);
		return;
	}
	calls = slot->calls + 1;
	if (QUIESCE_LIKELY(calls < QUIESCE_CB_BACKLOG_FLUSH)) {
		slot->calls = calls;
		return;
	}
	slot->calls = 0;
	add_to_backlog(cbd, calls);
}

static void forbid(struct quiesce_cb_domain *cbd, const char *call)
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
static bool wait_for_harvest(struct quiesce_cb_domain *cbd, uint64_t deadline_ns)
{
	int cancel = quiesce_cancel_off();	/* between waiters++ and -- (cancel.h) */
	unsigned long target;
	bool done;

	ensure_listed(cbd);	/* its progress condition is made */
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
	forbid(cbd, call);
	if (!QUIESCE_LOAD(&cbd->ever_used))
		return;
	/*
	 * Without a deadline it gives up only once exit() has stopped the
	 * thread (GONE): what is still queued then never runs, so the
	 * barrier cannot keep its promise, and says so.
	 */
	if (!wait_for_harvest(cbd, 0) && quiesce_cb_domain_pending(cbd))
		quiesce_warn("%s() after exit() stopped the %s callback thread: the callbacks "
			     "queued since will not run", call, cbd->gp->ops->kind);
}

unsigned long quiesce_cb_domain_start_poll(struct quiesce_cb_domain *cbd)
{
	unsigned long cookie = quiesce_gp_snapshot(cbd->gp);

	ensure_listed(cbd);
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
	 * its first call would ("Exit and fork" at the top).
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

	if (on_worker || quiesce_rcu_read_ongoing() || caller_holds_gp(cbd) ||
	    QUIESCE_LOAD(&cbd->state) == QUIESCE_CB_WORKER_GONE)
		return;
	__atomic_fetch_add(&cbd->stats.throttled, 1, __ATOMIC_RELAXED);
	cancel = quiesce_cancel_off();	/* between waiters++ and -- (cancel.h) */
	ensure_listed(cbd);	/* its progress condition is made */
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

/*
 * Under start_lock, with the thread running, sleeping or stopping: asks it
 * to stop, leaving its batches for the next one; the state becomes
 * new_state, STOPPING (shutdown) or GONE.
 */
static void ask_worker_to_stop(struct quiesce_cb_domain *cbd, int new_state)
{
	/*
	 * Sequentially consistent: the worker's looks at stop_requested after
	 * storing SLEEPING (work_pending()) or gathering (hurried()) pair
	 * with it, as callers' requests do (see "Sleeping and waking").
	 */
	__atomic_store_n(&cbd->stop_requested, true, __ATOMIC_SEQ_CST);
	/* Pairs with the worker's compare-and-swaps in sleep_until_work(). */
	if (__atomic_exchange_n(&cbd->state, new_state, __ATOMIC_SEQ_CST) ==
	    QUIESCE_CB_WORKER_SLEEPING)
		quiesce_futex_wake_all(&cbd->state);
	quiesce_cb_hurry_worker(cbd);
}

/*
 * Stops the thread (see "Starting and stopping" at the top): called and
 * returns under start_lock, which it lets go of across the join.  With a
 * deadline, gives up waiting at that time; returns whether it ended.
 */
static bool stop_worker(struct quiesce_cb_domain *cbd, int new_state, uint64_t deadline_ns)
{
	pthread_t worker = cbd->worker;
	bool ended = true;
	int cancel;

	ask_worker_to_stop(cbd, new_state);
	pthread_mutex_unlock(&cbd->start_lock);
	/* A cancelled join would leave the state STOPPING for good (cancel.h). */
	cancel = quiesce_cancel_off();
	if (!deadline_ns) {
		pthread_join(worker, NULL);
	} else {
		uint64_t now = quiesce_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
		struct timespec ts;

		/* pthread_timedjoin_np() takes a CLOCK_REALTIME deadline. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)(left / 1000000000u);
		ts.tv_nsec += (long)(left % 1000000000u);
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		ended = !pthread_timedjoin_np(worker, NULL, &ts);
	}
	/* Waiters look at the state again: GONE, they give up. */
	pthread_mutex_lock(&cbd->lock);
	pthread_cond_broadcast(&cbd->progress);
	pthread_mutex_unlock(&cbd->lock);
	pthread_mutex_lock(&cbd->start_lock);
	/* Not when exit() made it GONE meanwhile: then it stays stopped. */
	if (QUIESCE_LOAD(&cbd->state) == QUIESCE_CB_WORKER_STOPPING) {
		/*
		 * Sequentially consistent, before the look at the queues and
		 * requests in work_waiting(): pairs with the loads of the state
		 * after a call or a request (see "Starting and stopping").
		 */
		__atomic_store_n(&cbd->state, QUIESCE_CB_WORKER_ABSENT, __ATOMIC_SEQ_CST);
		if (cbd->batch_count || work_waiting(cbd))
			start_worker(cbd);
	}
	/* Wakes state_after_stop(). */
	quiesce_futex_wake_all(&cbd->state);
	quiesce_cancel_restore(cancel);
	return ended;
}

/* Whether the thread is there and not being stopped. */
static bool worker_alive(int state)
{
	return state == QUIESCE_CB_WORKER_RUNNING || state == QUIESCE_CB_WORKER_SLEEPING;
}

void quiesce_cb_domain_shutdown(struct quiesce_cb_domain *cbd, const char *call)
{
	forbid(cbd, call);
	quiesce_cb_domain_barrier(cbd, call);
	ensure_listed(cbd);	/* before its lock (see "Exit and fork") */
	pthread_mutex_lock(&cbd->start_lock);
	/* Callbacks and requests that came meanwhile restart it (stop_worker()). */
	if (worker_alive(state_after_stop(cbd, 0)))
		stop_worker(cbd, QUIESCE_CB_WORKER_STOPPING, 0);
	pthread_mutex_unlock(&cbd->start_lock);
}

void quiesce_cb_domain_destroy(struct quiesce_cb_domain *cbd)
{
	/* First: the running callback counts as pending, and its barrier would abort. */
	if (on_worker == cbd)
		quiesce_die("destroying a %s domain from one of its own callbacks",
			    cbd->gp->ops->kind);
	if (quiesce_cb_domain_pending(cbd))
		quiesce_die("destroying a %s domain with callbacks pending: "
			    "wait for them with its barrier first", cbd->gp->ops->kind);
	ensure_listed(cbd);	/* before its lock (see "Exit and fork") */
	pthread_mutex_lock(&cbd->start_lock);
	if (worker_alive(state_after_stop(cbd, 0)))
		stop_worker(cbd, QUIESCE_CB_WORKER_GONE, 0);
	pthread_mutex_unlock(&cbd->start_lock);
	/*
	 * After the worker has stopped: its thread's exit added what calls
	 * made by its callbacks left in its slots.
	 */
	forget_counts(cbd);
	pthread_mutex_lock(&domains_lock);
	/* Woken by run_at_exit(), once its stop of this domain has returned. */
	while (cbd->exit_stopping)
		pthread_cond_wait(&exit_stopped, &domains_lock);
	for (struct quiesce_cb_domain **p = &domains; *p; p = &(*p)->next_listed) {
		if (*p == cbd) {
			*p = cbd->next_listed;
			pthread_cond_destroy(&cbd->progress);
			break;
		}
	}
	pthread_mutex_unlock(&domains_lock);
	pthread_mutex_destroy(&cbd->lock);
	pthread_mutex_destroy(&cbd->start_lock);
}

/*
 * exit(): every domain's pending callbacks get to run, all of them within
 * one bound (QUIESCE_CB_EXIT_WAIT_NS), however many domains there are (a
 * program may have one per CPU); then the threads stop.  Inside a
 * critical section (of a domain, or of the default one), or on a callback
 * thread, it cannot wait for anything.
 */
struct exit_run {
	bool may_wait;
	uint64_t deadline_ns;		/* of every domain's wait */
	unsigned stuck;			/* domains left with callbacks pending */
	const char *stuck_kind;		/* their kind, or NULL when they differ */
};

/* How long a thread that has run its callbacks gets to end, past the deadline. */
#define EXIT_JOIN_GRACE_NS 100000000u

/* A domain left with callbacks pending: counted for exit()'s one warning. */
static void note_stuck(struct exit_run *run, const char *kind)
{
	if (!run->stuck++)
		run->stuck_kind = kind;
	else if (run->stuck_kind && strcmp(run->stuck_kind, kind))
		run->stuck_kind = NULL;
}

/*
 * Each domain in turn: its callbacks run, or the bound has passed; it
 * stops.  The threads of the domains after it run their callbacks
 * meanwhile, as they always do.
 */
static void stop_at_exit(struct quiesce_cb_domain *cbd, struct exit_run *run)
{
	bool may_wait = run->may_wait && !caller_holds_gp(cbd);
	uint64_t join_by;
	int state;

	pthread_mutex_lock(&cbd->start_lock);
	state = may_wait ? state_after_stop(cbd, run->deadline_ns) : QUIESCE_LOAD(&cbd->state);
	if (state == QUIESCE_CB_WORKER_ABSENT || state == QUIESCE_CB_WORKER_GONE) {
		QUIESCE_STORE(&cbd->state, QUIESCE_CB_WORKER_GONE);
	} else if (state == QUIESCE_CB_WORKER_STOPPING) {
		/* It stops on its own; the shutdown joining it leaves it stopped. */
		ask_worker_to_stop(cbd, QUIESCE_CB_WORKER_GONE);
	} else if (!may_wait ||
		   (!wait_for_harvest(cbd, run->deadline_ns) && quiesce_cb_domain_pending(cbd))) {
		/*
		 * It cannot run what it holds now (a grace period is held
		 * up), and stops on its own once it can.  Nobody will join
		 * it: GONE is for good, and shutdown and destroy() join only
		 * a live thread.
		 */
		if (may_wait)
			note_stuck(run, cbd->gp->ops->kind);
		ask_worker_to_stop(cbd, QUIESCE_CB_WORKER_GONE);
		pthread_detach(cbd->worker);
	} else {
		join_by = quiesce_now_ns() + EXIT_JOIN_GRACE_NS;
		if (!stop_worker(cbd, QUIESCE_CB_WORKER_GONE,
				 join_by > run->deadline_ns ? join_by : run->deadline_ns)) {
			quiesce_warn("exit: the %s callback thread is still busy; exiting "
				     "without it", cbd->gp->ops->kind);
			/* Its join timed out; nobody else will join it (as above). */
			pthread_detach(cbd->worker);
		}
	}
	pthread_mutex_unlock(&cbd->start_lock);
}

/*
 * Each domain is stopped without domains_lock, which a callback still
 * running may need (its first call to a domain not yet listed, or a
 * worker's creation), and which the stop would otherwise wait for until
 * its deadline; exit_stopping keeps destroy() from unlinking the domain
 * meanwhile.  Domains listed meanwhile, at the head, are not stopped.
 */
static void run_at_exit(void)
{
	struct exit_run run = {
		.may_wait = !on_worker && !quiesce_rcu_read_ongoing(),
		.deadline_ns = quiesce_now_ns() + QUIESCE_CB_EXIT_WAIT_NS,
	};
	struct quiesce_cb_domain *cbd;

	pthread_mutex_lock(&domains_lock);
	for (cbd = domains; cbd; cbd = cbd->next_listed) {
		cbd->exit_stopping = true;
		pthread_mutex_unlock(&domains_lock);
		stop_at_exit(cbd, &run);
		pthread_mutex_lock(&domains_lock);
		cbd->exit_stopping = false;
		pthread_cond_broadcast(&exit_stopped);
	}
	pthread_mutex_unlock(&domains_lock);
	if (run.stuck)
		quiesce_warn("exit: %s callbacks still pending after %u ms on %u callback "
			     "thread%s (a reader holds a grace period up?); they will not run",
			     run.stuck_kind ? run.stuck_kind : "some", QUIESCE_CB_EXIT_WAIT_NS / 1000000u,
			     run.stuck, run.stuck == 1 ? "" : "s");
}

/*
 * fork(): the list, then the counters' list (a callback thread that exit()
 * or a stop joins takes it as it ends), then the debugging set's leaf locks
 * (cb_debug.c); the enqueue side (call_rcu.c) takes its own lock after
 * these.  Not the domains' locks, which the child makes anew (see "Exit and
 * fork" at the top), nor the counters' own: in the child only the forking
 * thread's counter remains, and it held none.
 */
void quiesce_cb_domains_prepare_fork(void)
{
	pthread_mutex_lock(&domains_lock);
	pthread_mutex_lock(&counters_lock);
	quiesce_cb_debug_prepare_fork();
}

void quiesce_cb_domains_parent_after_fork(void)
{
	quiesce_cb_debug_parent_after_fork();
	pthread_mutex_unlock(&counters_lock);
	pthread_mutex_unlock(&domains_lock);
}

/* The child has no callback thread; the parent's batches are the parent's. */
void quiesce_cb_domains_child_after_fork(void)
{
	struct cb_counter *self = &counter_self;

	/* invoke() dies when the callback returns (see the top). */
	forked_in_callback = on_worker;
	quiesce_cb_debug_child_after_fork();
	INIT_LIST_HEAD(&counters);
	if (self->registered) {
		/* The backlogs restart at 0: the counts were the parent's. */
		for (unsigned i = 0; i < COUNT_SLOTS; i++)
			self->slots[i].calls = 0;
		pthread_mutex_init(&self->lock, NULL);
		list_add_tail(&self->link, &counters);
	}
	pthread_mutex_unlock(&counters_lock);
	pthread_cond_init(&exit_stopped, NULL);
	for (struct quiesce_cb_domain *cbd = domains; cbd; cbd = cbd->next_listed) {
		/*
		 * Their holders and waiters, the parent's other threads, are
		 * not here, nor is a stop under way.
		 */
		pthread_mutex_init(&cbd->lock, NULL);
		pthread_mutex_init(&cbd->start_lock, NULL);
		init_progress_cond(cbd);
		cbd->exit_stopping = false;
		if (cbd->state != QUIESCE_CB_WORKER_GONE)
			cbd->state = QUIESCE_CB_WORKER_ABSENT;
		cbd->stop_requested = false;
		cbd->gathering = 0;
		cbd->batch_count = 0;
		cbd->held = 0;
		cbd->backlog = 0;
		cbd->harvests = cbd->harvest_wanted = cbd->invoked_through = 0;
		cbd->waiters = cbd->throttled_waiters = 0;
		memset(&cbd->stats, 0, sizeof(cbd->stats));
		if (!cbd->source)
			quiesce_cb_queue_init(&cbd->shared);
	}
	pthread_mutex_unlock(&domains_lock);
}
