/*
 * cb_lifecycle.c - a domain's callback thread (cb_domain.c) is started,
 * stopped and destroyed here, and what exit() and fork() do to it.
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
 * "Sleeping and waking" (cb_domain.c), sequentially consistent.  A caller
 * that queued or asked and then saw STOPPING is seen by that look; one
 * whose load comes later sees ABSENT (or what followed it) and wakes or
 * starts a thread itself.  A stop or start that finds the state STOPPING waits (a futex on
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
 * before it first takes either lock (quiesce_cb_ensure_listed()).  The
 * forking thread keeps its counting slots, emptied (the counts were of the
 * parent's callbacks: cb_call.c).  A callback must not fork(): its child, a copy of the
 * callback thread without the batches it was running, dies with a message
 * as soon as the callback returns there (one that execs first is not
 * affected).
 */
#include "rcu/cb_domain_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/futex.h"
#include "common/lib_thread.h"
#include "rcu/cb_debug.h"
#include "rcu/stats_at_exit.h"

/* The domains ever used, for exit and fork: under domains_lock. */
static pthread_mutex_t domains_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quiesce_cb_domain *domains;
/* exit() is done with a domain (exit_stopping cleared): destroy() may unlink it. */
static pthread_cond_t exit_stopped = PTHREAD_COND_INITIALIZER;
static pthread_once_t exit_handler_once = PTHREAD_ONCE_INIT;

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
void quiesce_cb_ensure_listed(struct quiesce_cb_domain *cbd)
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
	cbd->worker = quiesce_lib_thread_start(quiesce_cb_worker_main, cbd, false, cbd->cpu,
					       cbd->thread_name, what);
}

void quiesce_cb_wake_worker(struct quiesce_cb_domain *cbd)
{
	int sleeping = QUIESCE_CB_WORKER_SLEEPING;

	/* Sequentially consistent: see "Sleeping and waking" in cb_domain.c. */
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
	quiesce_cb_ensure_listed(cbd);
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
	if (quiesce_cb_domain_on_worker(cbd))
		return pthread_self();
	quiesce_cb_ensure_listed(cbd);
	pthread_mutex_lock(&cbd->start_lock);
	/*
	 * A caller that holds the domain's grace periods (a reader; online,
	 * for QSBR) must not wait for a stop under way: the stopping thread
	 * may be waiting for a grace period that this caller holds up.  It
	 * gets the thread being stopped, as if it had asked just before.
	 */
	if (quiesce_rcu_read_ongoing() || quiesce_cb_caller_holds_gp(cbd))
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
 * Under start_lock, with the thread running, sleeping or stopping: asks it
 * to stop, leaving its batches for the next one; the state becomes
 * new_state, STOPPING (shutdown) or GONE.
 */
static void ask_worker_to_stop(struct quiesce_cb_domain *cbd, int new_state)
{
	/*
	 * Sequentially consistent: the worker's looks at stop_requested after
	 * storing SLEEPING (work_pending()) or gathering (hurried()) pair
	 * with it, as callers' requests do ("Sleeping and waking", cb_domain.c).
	 */
	__atomic_store_n(&cbd->stop_requested, true, __ATOMIC_SEQ_CST);
	/* Pairs with the worker's compare-and-swaps in sleep_until_work() (cb_domain.c). */
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
		 * requests in quiesce_cb_work_waiting(): pairs with the loads of the state
		 * after a call or a request (see "Starting and stopping").
		 */
		__atomic_store_n(&cbd->state, QUIESCE_CB_WORKER_ABSENT, __ATOMIC_SEQ_CST);
		if (cbd->batch_count || quiesce_cb_work_waiting(cbd))
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
	quiesce_cb_forbid(cbd, call);
	quiesce_cb_domain_barrier(cbd, call);
	quiesce_cb_ensure_listed(cbd);	/* before its lock (see "Exit and fork") */
	pthread_mutex_lock(&cbd->start_lock);
	/* Callbacks and requests that came meanwhile restart it (stop_worker()). */
	if (worker_alive(state_after_stop(cbd, 0)))
		stop_worker(cbd, QUIESCE_CB_WORKER_STOPPING, 0);
	pthread_mutex_unlock(&cbd->start_lock);
}

void quiesce_cb_domain_destroy(struct quiesce_cb_domain *cbd)
{
	/* First: the running callback counts as pending, and its barrier would abort. */
	if (quiesce_cb_domain_on_worker(cbd))
		quiesce_die("destroying a %s domain from one of its own callbacks",
			    cbd->gp->ops->kind);
	if (quiesce_cb_domain_pending(cbd))
		quiesce_die("destroying a %s domain with callbacks pending: "
			    "wait for them with its barrier first", cbd->gp->ops->kind);
	quiesce_cb_ensure_listed(cbd);	/* before its lock (see "Exit and fork") */
	pthread_mutex_lock(&cbd->start_lock);
	if (worker_alive(state_after_stop(cbd, 0)))
		stop_worker(cbd, QUIESCE_CB_WORKER_GONE, 0);
	pthread_mutex_unlock(&cbd->start_lock);
	/*
	 * After the worker has stopped: its thread's exit added what calls
	 * made by its callbacks left in its slots.
	 */
	quiesce_cb_forget_counts(cbd);
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
	bool may_wait = run->may_wait && !quiesce_cb_caller_holds_gp(cbd);
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
		   (!quiesce_cb_wait_for_harvest(cbd, run->deadline_ns) && quiesce_cb_domain_pending(cbd))) {
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
		.may_wait = !quiesce_cb_on_some_worker() && !quiesce_rcu_read_ongoing(),
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
 * fork(): the list, then the counters' list (cb_call.c; a callback thread
 * that exit() or a stop joins takes it as it ends), then the debugging
 * set's leaf locks (cb_debug.c); the enqueue side (call_rcu.c) takes its
 * own lock after these.  Not the domains' locks, which the child makes
 * anew (see "Exit and fork" at the top), nor the counters' own.
 */
void quiesce_cb_domains_prepare_fork(void)
{
	pthread_mutex_lock(&domains_lock);
	quiesce_cb_counters_prepare_fork();
	quiesce_cb_debug_prepare_fork();
}

void quiesce_cb_domains_parent_after_fork(void)
{
	quiesce_cb_debug_parent_after_fork();
	quiesce_cb_counters_parent_after_fork();
	pthread_mutex_unlock(&domains_lock);
}

/* The child has no callback thread; the parent's batches are the parent's. */
void quiesce_cb_domains_child_after_fork(void)
{
	/* A callback that forked dies when it returns (see the top). */
	quiesce_cb_worker_child_after_fork();
	quiesce_cb_debug_child_after_fork();
	quiesce_cb_counters_child_after_fork();
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
