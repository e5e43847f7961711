/*
 * call_rcu_worker.c - the callback thread: harvests, waits for grace
 * periods, runs callbacks; rcu_barrier(), backpressure and its lifecycle.
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
 *      synchronize_rcu() caller, and goes back to 1.  With nothing to wait
 *      for, it sleeps until woken.
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
 * reopening.  rcu_barrier(), a throttled caller, a backlog past the
 * expedite mark and shutdown cut the pause short (hurry_worker()).
 *
 * At most three batches are pending at step 2.  After step 1 every pending
 * cookie c is unexpired: c > s for the sequence s read there, and c <=
 * snap(s), which leaves two values; the fresh cookie adds one.
 *
 * Sleeping and waking (the store-buffer pattern, all sequentially
 * consistent): the worker stores SLEEPING, then rechecks every queue and
 * request; a caller appends, then loads the state.  Either the recheck sees
 * the callback or the caller sees SLEEPING and wakes it.  A caller appending
 * to a queue that was not empty need not look: whoever made it non-empty did.
 *
 * rcu_barrier(): harvests are numbered.  A barrier that reads harvest number
 * h asks for harvest h + 1 and waits until every batch holding callbacks of
 * harvests up to h + 1 has run (invoked_through).  Its own earlier call_rcu()
 * precedes, in the same total order, its read of h, which precedes harvest
 * h + 1's store of its number and so that harvest's look at every queue.
 */
#include "rcu/call_rcu.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rcu/call_rcu_queue.h"
#include "common/diag.h"
#include "common/futex.h"
#include "rcu/gp_engine.h"

struct cb_batch {
	struct quiesce_cb_list list;
	unsigned long cookie;	/* the grace period it waits for */
	unsigned long harvest;	/* the last harvest it holds */
};

#define MAX_BATCHES 3
/* How long callbacks gather before a normal grace period (see the top). */
#define GATHER_NS 1000000u

bool quiesce_test_busted_call_rcu;

int quiesce_cb_worker_state = QUIESCE_CB_WORKER_ABSENT;
static __thread bool on_worker __attribute__((tls_model("initial-exec")));

/* The worker's own: batches oldest first (cookie order). */
static struct cb_batch batches[MAX_BATCHES];
static unsigned batch_count;

/*
 * Harvest numbers: the worker stores harvests; waiters ask for a harvest
 * under cb_lock (harvest_wanted) and wait on cb_progress until
 * invoked_through reaches it.
 */
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_progress;
static unsigned long harvests, harvest_wanted, invoked_through;
static unsigned waiters, throttled_waiters;	/* under cb_lock */

/* Starting and stopping the thread: under start_lock. */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t worker;
static bool stop_requested;
static int gathering;	/* futex: the worker pauses to let callbacks gather */
static bool exit_handler_registered;

static struct {
	uint64_t invoked, batches, expedited, throttled;
} stats;

bool quiesce_cb_on_worker(void)
{
	return on_worker;
}

static void free_rcu_object(struct quiesce_rcu_head *head, uintptr_t offset_plus_one)
{
	free((char *)head - (offset_plus_one - 1));
}

/* Runs a batch's callbacks in order; returns how many. */
static uint64_t invoke(struct quiesce_cb_list *list)
{
	struct quiesce_rcu_head *cb = list->first, *next;
	uint64_t n = 0;

	do {
		void (*func)(struct quiesce_rcu_head *) = cb->func;

		/* Read before the callback frees cb. */
		next = cb == list->last ? NULL : quiesce_cb_queue_next(cb);
		if ((uintptr_t)func < QUIESCE_FREE_RCU_OFFSET_LIMIT)
			free_rcu_object(cb, (uintptr_t)func);
		else
			func(cb);
		if (QUIESCE_UNLIKELY(quiesce_rcu_read_ongoing()))
			quiesce_die("RCU callback %p returned inside a read-side critical section",
				    (void *)(uintptr_t)func);
		n++;
		cb = next;
	} while (cb);
	return n;
}

/* Everything harvested up to `harvest` has run: wake whoever waits for it. */
static void publish_progress(unsigned long harvest)
{
	pthread_mutex_lock(&cb_lock);
	QUIESCE_STORE(&invoked_through, harvest);
	if (waiters)
		pthread_cond_broadcast(&cb_progress);
	pthread_mutex_unlock(&cb_lock);
}

static void run_ready_batches(void)
{
	while (batch_count && !QUIESCE_LOAD(&stop_requested) &&
	       (quiesce_poll_state_synchronize_rcu(batches[0].cookie) ||
		QUIESCE_LOAD(&quiesce_test_busted_call_rcu))) {
		uint64_t n = invoke(&batches[0].list);
		unsigned long harvest = batches[0].harvest;

		__atomic_fetch_sub(&quiesce_cb_backlog, (long)n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stats.invoked, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stats.batches, 1, __ATOMIC_RELAXED);
		batch_count--;
		for (unsigned i = 0; i < batch_count; i++)
			batches[i] = batches[i + 1];
		publish_progress(harvest);
	}
}

static void harvest_into_batches(void)
{
	struct quiesce_cb_list fresh = { NULL, NULL };
	unsigned long harvest = harvests + 1, cookie;
	struct cb_batch *newest = batch_count ? &batches[batch_count - 1] : NULL;

	/*
	 * Sequentially consistent, before the harvest looks at the queues:
	 * see rcu_barrier() at the top of this file.
	 */
	__atomic_store_n(&harvests, harvest, __ATOMIC_SEQ_CST);
	quiesce_cb_harvest(&fresh);
	if (!fresh.first) {
		if (newest)
			newest->harvest = harvest;
		else
			publish_progress(harvest);
		return;
	}
	/* After the harvest: the cookie's grace period follows every call. */
	cookie = quiesce_get_state_synchronize_rcu();
	if (newest && newest->cookie == cookie) {
		QUIESCE_STORE(&newest->list.last->next, fresh.first);
		newest->list.last = fresh.last;
		newest->harvest = harvest;
		return;
	}
	if (batch_count == MAX_BATCHES)
		quiesce_die("internal error: more than %d callback batches pending", MAX_BATCHES);
	batches[batch_count++] = (struct cb_batch){ fresh, cookie, harvest };
}

static bool should_expedite(void)
{
	return QUIESCE_LOAD(&quiesce_cb_backlog) > QUIESCE_CB_EXPEDITE_BACKLOG ||
	       QUIESCE_LOAD(&throttled_waiters);
}

/* Whether anyone waits for the callbacks: then the worker must not pause. */
static bool hurried(void)
{
	return should_expedite() || __atomic_load_n(&stop_requested, __ATOMIC_SEQ_CST) ||
	       (long)(__atomic_load_n(&harvest_wanted, __ATOMIC_SEQ_CST) - harvests) > 0;
}

/*
 * Lets callbacks gather before a normal grace period.  The store-buffer
 * pattern, sequentially consistent: we store gathering, then look at what
 * hurries us; whoever hurries us stores its request, then takes gathering
 * in quiesce_cb_hurry_worker().  Either we see the request or it wakes us.
 * (The backlog is counted with relaxed atomics: past the expedite mark it
 * hurries us at best effort, and the deadline bounds a missed look.)
 */
static void gather_callbacks(void)
{
	uint64_t deadline = quiesce_now_ns() + GATHER_NS, now;

	for (;;) {
		__atomic_store_n(&gathering, 1, __ATOMIC_SEQ_CST);
		if (hurried() || (now = quiesce_now_ns()) >= deadline)
			break;
		/* Woken by quiesce_cb_hurry_worker(), or at the deadline. */
		quiesce_futex_wait(&gathering, 1, deadline - now);
	}
	__atomic_store_n(&gathering, 0, __ATOMIC_RELAXED);
}

void quiesce_cb_hurry_worker(void)
{
	if (__atomic_exchange_n(&gathering, 0, __ATOMIC_SEQ_CST))
		quiesce_futex_wake_all(&gathering);
}

static bool work_pending(void)
{
	/* Sequentially consistent: see "Sleeping and waking" above. */
	return __atomic_load_n(&stop_requested, __ATOMIC_SEQ_CST) ||
	       (long)(__atomic_load_n(&harvest_wanted, __ATOMIC_SEQ_CST) - harvests) > 0 ||
	       quiesce_cb_queued_anywhere();
}

static void sleep_until_work(void)
{
	int running = QUIESCE_CB_WORKER_RUNNING;

	/* Fails only when exit() made the state GONE: the loop then stops. */
	if (!__atomic_compare_exchange_n(&quiesce_cb_worker_state, &running,
					 QUIESCE_CB_WORKER_SLEEPING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	if (!work_pending()) {
		/* Woken by quiesce_cb_wake_worker(), which stores RUNNING. */
		while (__atomic_load_n(&quiesce_cb_worker_state, __ATOMIC_SEQ_CST) ==
		       QUIESCE_CB_WORKER_SLEEPING)
			quiesce_futex_wait(&quiesce_cb_worker_state,
					   QUIESCE_CB_WORKER_SLEEPING, 0);
	}
	running = QUIESCE_CB_WORKER_SLEEPING;
	__atomic_compare_exchange_n(&quiesce_cb_worker_state, &running,
				    QUIESCE_CB_WORKER_RUNNING, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void *worker_main(void *unused)
{
	on_worker = true;
	while (!QUIESCE_LOAD(&stop_requested)) {
		run_ready_batches();
		harvest_into_batches();
		if (!batch_count) {
			sleep_until_work();
			continue;
		}
		if (QUIESCE_LOAD(&quiesce_test_busted_call_rcu))
			continue;
		if (!should_expedite())
			gather_callbacks();
		if (should_expedite()) {
			__atomic_fetch_add(&stats.expedited, 1, __ATOMIC_RELAXED);
			quiesce_gp_wait_for(&quiesce_rcu_domain, batches[0].cookie, true);
		} else {
			quiesce_gp_wait_for(&quiesce_rcu_domain, batches[0].cookie, false);
		}
	}
	return NULL;
}

static void call_rcu_at_exit(void);

/* Under start_lock, with the state ABSENT. */
static void start_worker(void)
{
	sigset_t all, old;

	if (!exit_handler_registered) {
		/* Registered once: a child of fork() inherits it. */
		atexit(call_rcu_at_exit);
		exit_handler_registered = true;
	}
	QUIESCE_STORE(&stop_requested, false);
	QUIESCE_STORE(&quiesce_cb_worker_state, QUIESCE_CB_WORKER_RUNNING);
	/* A full signal mask: the process's signals are for its own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&worker, NULL, worker_main, NULL))
		quiesce_die("cannot start the RCU callback thread");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_setname_np(worker, "quiesce-cb");
}

void quiesce_cb_wake_worker(void)
{
	int sleeping = QUIESCE_CB_WORKER_SLEEPING;

	/* Sequentially consistent: see "Sleeping and waking" above. */
	if (__atomic_compare_exchange_n(&quiesce_cb_worker_state, &sleeping,
					QUIESCE_CB_WORKER_RUNNING, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		quiesce_futex_wake_all(&quiesce_cb_worker_state);
		return;
	}
	if (sleeping != QUIESCE_CB_WORKER_ABSENT)
		return;
	pthread_mutex_lock(&start_lock);
	if (QUIESCE_LOAD(&quiesce_cb_worker_state) == QUIESCE_CB_WORKER_ABSENT)
		start_worker();
	pthread_mutex_unlock(&start_lock);
}

/*
 * For a caller that has just stored what it waits for: the worker runs its
 * next harvest now, whether it was asleep, absent or letting callbacks
 * gather.
 */
static void wake_or_hurry_worker(void)
{
	if (__atomic_load_n(&quiesce_cb_worker_state, __ATOMIC_SEQ_CST) !=
	    QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker();
	else
		quiesce_cb_hurry_worker();
}

static void forbid(const char *call)
{
	if (quiesce_rcu_read_ongoing())
		quiesce_die("%s() called inside an RCU read-side critical section: "
			    "it would wait for itself forever", call);
	if (on_worker)
		quiesce_die("%s() called from an RCU callback: it would wait for itself forever",
			    call);
}

/*
 * Asks for a harvest that starts after this call and waits until it has run
 * (or until deadline_ns, when not 0).  Returns whether it has.
 */
static bool wait_for_harvest(uint64_t deadline_ns)
{
	unsigned long target;
	bool done;

	pthread_mutex_lock(&cb_lock);
	/* Sequentially consistent: see rcu_barrier() at the top of this file. */
	target = __atomic_load_n(&harvests, __ATOMIC_SEQ_CST) + 1;
	if ((long)(target - harvest_wanted) > 0)
		__atomic_store_n(&harvest_wanted, target, __ATOMIC_SEQ_CST);
	waiters++;
	pthread_mutex_unlock(&cb_lock);

	wake_or_hurry_worker();

	pthread_mutex_lock(&cb_lock);
	/* Woken by publish_progress(), or by the deadline. */
	while (!(done = (long)(invoked_through - target) >= 0) &&
	       QUIESCE_LOAD(&quiesce_cb_worker_state) != QUIESCE_CB_WORKER_GONE) {
		struct timespec ts;

		if (!deadline_ns) {
			pthread_cond_wait(&cb_progress, &cb_lock);
			continue;
		}
		if (quiesce_now_ns() >= deadline_ns)
			break;
		ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
		ts.tv_nsec = (long)(deadline_ns % 1000000000u);
		pthread_cond_timedwait(&cb_progress, &cb_lock, &ts);
	}
	waiters--;
	pthread_mutex_unlock(&cb_lock);
	return done;
}

void quiesce_rcu_barrier(void)
{
	forbid("rcu_barrier");
	if (!quiesce_cb_ever_used())
		return;
	wait_for_harvest(0);
}

/*
 * A throttled caller waits until the backlog has fallen to half the mark,
 * not until everything queued before it has run: it resumes queueing while
 * the callback thread works through the rest, so the two overlap.
 */
void quiesce_cb_throttle(void)
{
	uint64_t deadline_ns = quiesce_now_ns() + QUIESCE_CB_THROTTLE_MAX_WAIT_NS;
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u),
			       (long)(deadline_ns % 1000000000u) };

	if (on_worker || quiesce_rcu_read_ongoing() ||
	    QUIESCE_LOAD(&quiesce_cb_worker_state) == QUIESCE_CB_WORKER_GONE)
		return;
	__atomic_fetch_add(&stats.throttled, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&cb_lock);
	waiters++;
	/*
	 * Atomic: should_expedite() reads it without the lock.  Sequentially
	 * consistent, before the hurry: see gather_callbacks().
	 */
	__atomic_fetch_add(&throttled_waiters, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cb_lock);
	wake_or_hurry_worker();

	pthread_mutex_lock(&cb_lock);
	/*
	 * Woken by publish_progress() after each batch, which takes cb_lock
	 * after lowering the backlog; or by the deadline.
	 */
	while (QUIESCE_LOAD(&quiesce_cb_backlog) > QUIESCE_CB_THROTTLE_BACKLOG / 2 &&
	       QUIESCE_LOAD(&quiesce_cb_worker_state) != QUIESCE_CB_WORKER_GONE &&
	       quiesce_now_ns() < deadline_ns)
		pthread_cond_timedwait(&cb_progress, &cb_lock, &ts);
	waiters--;
	__atomic_fetch_sub(&throttled_waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cb_lock);
}

/*
 * Stops the thread (under start_lock), leaving its batches for the next one.
 * With a deadline, gives up waiting at that time; returns whether it ended.
 */
static bool stop_worker(int new_state, uint64_t deadline_ns)
{
	bool ended = true;

	__atomic_store_n(&stop_requested, true, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&quiesce_cb_worker_state, new_state, __ATOMIC_SEQ_CST) ==
	    QUIESCE_CB_WORKER_SLEEPING)
		quiesce_futex_wake_all(&quiesce_cb_worker_state);
	quiesce_cb_hurry_worker();
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
	/* Woken with the state GONE: anyone still waiting gives up. */
	pthread_mutex_lock(&cb_lock);
	pthread_cond_broadcast(&cb_progress);
	pthread_mutex_unlock(&cb_lock);
	return ended;
}

void quiesce_call_rcu_shutdown(void)
{
	forbid("quiesce_call_rcu_shutdown");
	quiesce_rcu_barrier();
	pthread_mutex_lock(&start_lock);
	if (QUIESCE_LOAD(&quiesce_cb_worker_state) != QUIESCE_CB_WORKER_ABSENT &&
	    QUIESCE_LOAD(&quiesce_cb_worker_state) != QUIESCE_CB_WORKER_GONE) {
		stop_worker(QUIESCE_CB_WORKER_ABSENT, 0);
		/* Callbacks queued by other threads meanwhile still get to run. */
		if (batch_count || quiesce_cb_queued_anywhere())
			start_worker();
	}
	pthread_mutex_unlock(&start_lock);
}

/*
 * exit(): lets the pending callbacks run (within a bound), then stops the
 * thread, so that no callback runs while the rest of exit() tears the
 * process down.  Inside a critical section, or on the callback thread, it
 * cannot wait for anything.
 */
static void call_rcu_at_exit(void)
{
	uint64_t deadline = quiesce_now_ns() + QUIESCE_CB_EXIT_WAIT_NS;
	bool may_wait = !on_worker && !quiesce_rcu_read_ongoing();
	int state;

	pthread_mutex_lock(&start_lock);
	state = QUIESCE_LOAD(&quiesce_cb_worker_state);
	if (state == QUIESCE_CB_WORKER_ABSENT || state == QUIESCE_CB_WORKER_GONE) {
		QUIESCE_STORE(&quiesce_cb_worker_state, QUIESCE_CB_WORKER_GONE);
		pthread_mutex_unlock(&start_lock);
		return;
	}
	if (may_wait && !wait_for_harvest(deadline))
		quiesce_warn("exit: RCU callbacks still pending after %u ms (a reader holds "
			     "the grace period up?); they will not run",
			     QUIESCE_CB_EXIT_WAIT_NS / 1000000u);
	if (!may_wait) {
		__atomic_store_n(&stop_requested, true, __ATOMIC_SEQ_CST);
		__atomic_store_n(&quiesce_cb_worker_state, QUIESCE_CB_WORKER_GONE,
				 __ATOMIC_SEQ_CST);
		quiesce_futex_wake_all(&quiesce_cb_worker_state);
	} else if (!stop_worker(QUIESCE_CB_WORKER_GONE, deadline)) {
		quiesce_warn("exit: the RCU callback thread is still busy; exiting without it");
	}
	pthread_mutex_unlock(&start_lock);
}

void quiesce_cb_worker_stats(struct quiesce_rcu_stats *out)
{
	out->cb_invoked = __atomic_load_n(&stats.invoked, __ATOMIC_RELAXED);
	out->cb_batches = __atomic_load_n(&stats.batches, __ATOMIC_RELAXED);
	out->cb_expedited = __atomic_load_n(&stats.expedited, __ATOMIC_RELAXED);
	out->cb_throttled = __atomic_load_n(&stats.throttled, __ATOMIC_RELAXED);
}

/*
 * fork(): taken in this order around fork() (call_rcu.c then takes
 * queues_lock), so that the child never copies them held.
 */
static void init_progress_cond(void)
{
	pthread_condattr_t attr;

	/* Deadlines are quiesce_now_ns() values. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cb_progress, &attr);
	pthread_condattr_destroy(&attr);
}

void quiesce_cb_worker_prepare_fork(void)
{
	pthread_mutex_lock(&start_lock);
	pthread_mutex_lock(&cb_lock);
}

void quiesce_cb_worker_parent_after_fork(void)
{
	pthread_mutex_unlock(&cb_lock);
	pthread_mutex_unlock(&start_lock);
}

/* The child has no callback thread; the parent's batches are the parent's. */
void quiesce_cb_worker_child_after_fork(void)
{
	/* Waiters of the parent's have no thread here. */
	init_progress_cond();
	if (quiesce_cb_worker_state != QUIESCE_CB_WORKER_GONE)
		quiesce_cb_worker_state = QUIESCE_CB_WORKER_ABSENT;
	stop_requested = false;
	gathering = 0;
	batch_count = 0;
	harvests = harvest_wanted = invoked_through = 0;
	waiters = throttled_waiters = 0;
	memset(&stats, 0, sizeof(stats));
	pthread_mutex_unlock(&cb_lock);
	pthread_mutex_unlock(&start_lock);
}

__attribute__((constructor)) static void call_rcu_worker_init(void)
{
	init_progress_cond();
}
