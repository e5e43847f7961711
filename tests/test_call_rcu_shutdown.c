/*
 * quiesce_call_rcu_shutdown() against what other threads and its own
 * callback thread do while it stops that thread (cb_lifecycle.c: "Starting
 * and stopping"), each interleaving made certain:
 *  - an rcu_barrier() and a start_poll_synchronize_rcu() that ask while
 *    the shutdown begins, after its own barrier, are served: the thread
 *    they asked stops without serving them, so the shutdown restarts it;
 *  - a callback that queues one or polls while the stop goes on, a
 *    callback thread whose exit hands its partial defer_rcu() block to
 *    call_rcu(), and a fork() prepared while the shutdown joins that
 *    thread (its exit waits for defer's registry lock, which the fork
 *    holds) neither deadlock the shutdown nor lose what they asked for;
 *  - quiesce_call_rcu_thread() asked inside a read-side section while the
 *    stop goes on answers without waiting for the stop, which waits for
 *    a grace period that the asker holds up.
 *
 * The shutdown is held after its barrier by holding the start_lock it takes
 * next.  A hang is the bug each test catches: it is reported after the
 * suite's time limit (CHECK_HANG_MS), with _exit(): exit() would wait for
 * the library's locks a hang may hold.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/defer.h>
#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/cb_domain.h"
#include "rcu/gp_seq.h"

#define HANG_S ((int)(CHECK_HANG_MS / 1000))

static struct quiesce_cb_domain *const cb = &quiesce_rcu_cb;

static QUIESCE_NORETURN void hung(const char *what)
{
	fprintf(stderr, "HANG: %s, still after %d s\n", what, HANG_S);
	_exit(1);
}

/* Polls done() every 100 us until it is true, or reports what as hung. */
static void wait_for(bool (*done)(void), const char *what)
{
	uint64_t deadline = check_now_ns() + HANG_S * 1000000000ull;

	while (!done()) {
		if (check_now_ns() > deadline)
			hung(what);
		check_sleep_us(100);
	}
}

static void join_or_hang(pthread_t t, const char *what)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += HANG_S;
	if (pthread_timedjoin_np(t, NULL, &ts))
		hung(what);
}

static atomic_ulong ran;

static void count(struct rcu_head *head)
{
	atomic_fetch_add(&ran, 1);
}

/* The callback thread runs: a callback has, and the barrier returned. */
static void start_callback_thread(void)
{
	static struct rcu_head head;

	call_rcu(&head, count);
	rcu_barrier();
}

/* Only the callback thread runs grace periods here: this one is its. */
static bool grace_period_running(void)
{
	return quiesce_gp_seq_running(quiesce_gp_seq_current(&quiesce_rcu_domain));
}

/*
 * The shutdown, held between its barrier and its stop: this thread holds
 * start_lock from start_held_shutdown() until it lets go of it.
 */
static pthread_t stopper;
static unsigned long wanted_before;

static void *shutdown_main(void *unused)
{
	quiesce_call_rcu_shutdown();
	return NULL;
}

static bool shutdown_barrier_done(void)
{
	unsigned long wanted = __atomic_load_n(&cb->harvest_wanted, __ATOMIC_SEQ_CST);

	return wanted != wanted_before &&
	       (long)(QUIESCE_LOAD(&cb->invoked_through) - wanted) >= 0;
}

static void start_held_shutdown(void)
{
	pthread_mutex_lock(&cb->start_lock);
	wanted_before = __atomic_load_n(&cb->harvest_wanted, __ATOMIC_SEQ_CST);
	pthread_create(&stopper, NULL, shutdown_main, NULL);
	wait_for(shutdown_barrier_done, "the shutdown's barrier");
}

/* The shutdown has asked the thread to stop (the state it stored). */
static bool stop_begun(void)
{
	int state = QUIESCE_LOAD(&cb->state);

	return state != QUIESCE_CB_WORKER_RUNNING && state != QUIESCE_CB_WORKER_SLEEPING;
}

/*
 * The callback thread, in a grace period that a reader holds up (a poll's,
 * which it runs after its last harvest), cannot serve what is asked now
 * before the shutdown's stop, nor end until the reader is released.
 */
static void park_callback_thread(void)
{
	check_hold_reader();
	start_poll_synchronize_rcu();
	wait_for(grace_period_running, "the callback thread's polled grace period");
}

static bool barrier_looked(void)
{
	return !__atomic_load_n(&cb->gathering, __ATOMIC_SEQ_CST);
}

static void *barrier_main(void *unused)
{
	rcu_barrier();
	return NULL;
}

static void test_barrier_as_shutdown_stops(void)
{
	pthread_t waiter;

	start_callback_thread();
	start_held_shutdown();
	park_callback_thread();
	/*
	 * The barrier asks for a harvest, then finds the thread running and
	 * hurries it: its exchange of gathering, set here by hand (the thread
	 * is not gathering), says that it has looked.
	 */
	__atomic_store_n(&cb->gathering, 1, __ATOMIC_SEQ_CST);
	pthread_create(&waiter, NULL, barrier_main, NULL);
	wait_for(barrier_looked, "the barrier looking at the callback thread");
	pthread_mutex_unlock(&cb->start_lock);
	wait_for(stop_begun, "the shutdown asking the callback thread to stop");
	check_release_reader();
	join_or_hang(stopper, "quiesce_call_rcu_shutdown()");
	join_or_hang(waiter, "an rcu_barrier() that asked as the shutdown began");
}

static unsigned long late_cookie;

static bool late_poll_done(void)
{
	return poll_state_synchronize_rcu(late_cookie);
}

static void test_poll_as_shutdown_stops(void)
{
	start_callback_thread();
	start_held_shutdown();
	park_callback_thread();
	/* After the running grace period: only the callback thread runs it. */
	late_cookie = start_poll_synchronize_rcu();
	CHECK(!late_poll_done(), "a poll's grace period passed while a reader held it up");
	pthread_mutex_unlock(&cb->start_lock);
	wait_for(stop_begun, "the shutdown asking the callback thread to stop");
	check_release_reader();
	join_or_hang(stopper, "quiesce_call_rcu_shutdown()");
	wait_for(late_poll_done, "a grace period that start_poll asked for as the shutdown began");
}

/*
 * quiesce_call_rcu_thread() from inside a read-side section that holds up
 * the grace period the stopping thread waits for: the thread asked for is
 * the one stopping (liburcu's answer, from anywhere, at once), not the
 * next, which starts only once the stop, and so the reader, has ended.
 */
static atomic_bool asker_inside, asker_may_ask;
static pthread_t asked_thread;

static void *ask_inside_section(void *unused)
{
	rcu_read_lock();
	atomic_store(&asker_inside, true);
	while (!atomic_load(&asker_may_ask))
		check_sleep_us(100);
	asked_thread = quiesce_call_rcu_thread(QUIESCE_CB_RCU);
	rcu_read_unlock();
	return NULL;
}

static bool asker_is_inside(void)
{
	return atomic_load(&asker_inside);
}

static void test_thread_asked_inside_section_as_shutdown_stops(void)
{
	pthread_t asker, stopping;

	start_callback_thread();
	stopping = quiesce_call_rcu_thread(QUIESCE_CB_RCU);
	atomic_store(&asker_inside, false);
	atomic_store(&asker_may_ask, false);
	pthread_create(&asker, NULL, ask_inside_section, NULL);
	wait_for(asker_is_inside, "the asker's read-side section");
	start_held_shutdown();
	/* Held up by the asker's section. */
	start_poll_synchronize_rcu();
	wait_for(grace_period_running, "the callback thread's polled grace period");
	pthread_mutex_unlock(&cb->start_lock);
	wait_for(stop_begun, "the shutdown asking the callback thread to stop");
	atomic_store(&asker_may_ask, true);
	join_or_hang(asker, "quiesce_call_rcu_thread() inside a section as the shutdown stops");
	join_or_hang(stopper, "quiesce_call_rcu_shutdown() while a reader asks for the thread");
	CHECK(pthread_equal(asked_thread, stopping),
	      "asked as the shutdown stopped it: the thread that was running");
}

/*
 * A callback that runs as the stop begins, and then queues another or
 * asks for a grace period (start_poll).
 */
static atomic_bool stop_callback_running;
static bool stop_callback_polls;
static struct rcu_head queued_in_stop;

static void call_as_stop_begins(struct rcu_head *head)
{
	atomic_store(&stop_callback_running, true);
	/* Ended by the shutdown's store of the state (a hang is reported). */
	wait_for(stop_begun, "the shutdown asking the callback thread to stop");
	if (stop_callback_polls)
		late_cookie = start_poll_synchronize_rcu();
	else
		call_rcu(&queued_in_stop, count);
}

static bool stop_callback_runs(void)
{
	return atomic_load(&stop_callback_running);
}

static void callback_as_shutdown_stops(bool polls)
{
	static struct rcu_head head;

	start_callback_thread();
	start_held_shutdown();
	atomic_store(&ran, 0);
	atomic_store(&stop_callback_running, false);
	stop_callback_polls = polls;
	call_rcu(&head, call_as_stop_begins);
	wait_for(stop_callback_runs, "the callback queued after the shutdown's barrier");
	pthread_mutex_unlock(&cb->start_lock);
	join_or_hang(stopper, polls ? "quiesce_call_rcu_shutdown() while a callback polls"
				    : "quiesce_call_rcu_shutdown() while a callback queues");
	if (polls) {
		wait_for(late_poll_done, "a grace period that a callback asked for in the stop");
		return;
	}
	rcu_barrier();
	CHECK(atomic_load(&ran) == 1, "the callback queued during the stop ran %lu times",
	      atomic_load(&ran));
}

static void test_callback_queues_as_shutdown_stops(void)
{
	callback_as_shutdown_stops(false);
}

static void test_callback_polls_as_shutdown_stops(void)
{
	callback_as_shutdown_stops(true);
}

/* A callback that defers: its thread holds a partial defer_rcu() block. */
static atomic_ulong deferred_ran;

static void deferred(void *unused)
{
	atomic_fetch_add(&deferred_ran, 1);
}

static void defers(struct rcu_head *head)
{
	defer_rcu(deferred, NULL);
}

/*
 * Shutdown right after the callback: the thread's exit hands the block
 * over (defer's flusher would take it only some 10 ms later).
 */
static void test_worker_exit_defers(void)
{
	static struct rcu_head head;
	pthread_t t;

	start_callback_thread();
	atomic_store(&deferred_ran, 0);
	call_rcu(&head, defers);
	pthread_create(&t, NULL, shutdown_main, NULL);
	join_or_hang(t, "quiesce_call_rcu_shutdown() after a callback deferred");
	rcu_barrier();
	CHECK(atomic_load(&deferred_ran) == 1, "the deferred call ran %lu times",
	      atomic_load(&deferred_ran));
}

/*
 * fork() while the shutdown joins the thread: its prepare handlers take
 * defer's registry lock, then call_rcu.c's locks.  This handler,
 * registered before defer's first use, runs between the two and lets the
 * fork go on once the shutdown has asked the thread to stop, so that the
 * thread's exit, which takes the registry lock, waits for the fork.
 */
static atomic_bool fork_held, fork_in_prepare;

static void hold_fork_prepare(void)
{
	if (!atomic_load(&fork_held))
		return;
	atomic_store(&fork_in_prepare, true);
	/* Ended by the shutdown's store of the state (a hang is reported). */
	wait_for(stop_begun, "the shutdown asking the callback thread to stop");
}

static bool fork_prepares(void)
{
	return atomic_load(&fork_in_prepare);
}

static void *fork_main(void *unused)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	CHECK(pid > 0, "fork failed");
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %#x)",
	      status);
	return NULL;
}

static void test_fork_as_shutdown_joins(void)
{
	static struct rcu_head head;
	pthread_t forker;

	start_callback_thread();
	atomic_store(&deferred_ran, 0);
	call_rcu(&head, defers);
	rcu_barrier();
	atomic_store(&fork_held, true);
	pthread_create(&forker, NULL, fork_main, NULL);
	wait_for(fork_prepares, "the fork's prepare handler");
	pthread_create(&stopper, NULL, shutdown_main, NULL);
	join_or_hang(stopper, "quiesce_call_rcu_shutdown() while a fork() is prepared");
	join_or_hang(forker, "a fork() prepared while the shutdown joins the callback thread");
	atomic_store(&fork_held, false);
	rcu_defer_barrier();
	CHECK(atomic_load(&deferred_ran) == 1, "the deferred call ran %lu times",
	      atomic_load(&deferred_ran));
}

int main(void)
{
	/* Before defer's first use: defer's prepare handler runs first. */
	pthread_atfork(hold_fork_prepare, NULL, NULL);
	test_barrier_as_shutdown_stops();
	test_poll_as_shutdown_stops();
	test_callback_queues_as_shutdown_stops();
	test_callback_polls_as_shutdown_stops();
	test_thread_asked_inside_section_as_shutdown_stops();
	test_worker_exit_defers();
	test_fork_as_shutdown_joins();
	printf("call_rcu shutdown: all checks passed\n");
	return 0;
}
