/*
 * The library's calls are not cancellation points (src/common/cancel.h): a
 * thread cancelled while it waits in one finishes the call, and the
 * cancellation acts at its next cancellation point after it.
 *
 * Each case starts a thread that makes a call which must wait (a reader
 * holds the grace period: check_hold_reader()), cancels it before or while
 * it waits, then lets the grace period end.  The thread notes that the call
 * returned, then reaches pthread_testcancel(); the join must find it
 * cancelled there, with the note made.  A cancellation that acted inside
 * the call leaves no note: rcu_barrier()'s condition wait would have taken
 * the callback domain's lock back and kept it, and a grace period whose
 * owner died in its stall report would never end, so the next call of the
 * main thread would hang.  Each case ends with such a call.  Cancelling
 * before the wait is enough: a pending cancellation acts at the first
 * cancellation point, so the order of the two does not decide the outcome.
 *   - rcu_barrier(), waiting for a callback held up by the reader;
 *   - synchronize_rcu() reporting a stall to a handler that calls usleep(),
 *     itself a cancellation point.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define STALL_TIMEOUT_MS 20

static atomic_bool returned, callback_ran;
static atomic_int stalls;
static struct rcu_head head;

static void callback(struct rcu_head *h)
{
	(void)h;
	atomic_store(&callback_ran, true);
}

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	(void)stall;
	atomic_fetch_add(&stalls, 1);
	usleep(100);	/* a cancellation point, were cancellation enabled */
}

static void *barrier_caller(void *unused)
{
	(void)unused;
	call_rcu(&head, callback);
	rcu_barrier();
	atomic_store(&returned, true);
	pthread_testcancel();
	return NULL;
}

static void *synchronize_caller(void *unused)
{
	(void)unused;
	synchronize_rcu();
	atomic_store(&returned, true);
	pthread_testcancel();
	return NULL;
}

static bool stalled(void *unused)
{
	(void)unused;
	return atomic_load(&stalls) > 0;
}

static void run_case(void *(*caller)(void *), const char *call, bool wait_for_stall)
{
	pthread_t t;
	void *result;

	atomic_store(&returned, false);
	check_hold_reader();
	CHECK(pthread_create(&t, NULL, caller, NULL) == 0, "pthread_create");
	CHECK(pthread_cancel(t) == 0, "pthread_cancel");
	if (wait_for_stall)
		check_wait_until(stalled, NULL, "a stall report");
	check_release_reader();
	CHECK(pthread_join(t, &result) == 0, "pthread_join");
	CHECK(atomic_load(&returned),
	      "%s: the cancellation acted inside the call, not after it", call);
	CHECK(result == PTHREAD_CANCELED, "%s: the thread was not cancelled after the call", call);
	printf("%s: cancelled after the call returned\n", call);
}

int main(void)
{
	rcu_register_thread();

	run_case(barrier_caller, "rcu_barrier()", false);
	CHECK(atomic_load(&callback_ran), "the callback did not run before rcu_barrier() returned");
	atomic_store(&callback_ran, false);
	call_rcu(&head, callback);
	rcu_barrier();	/* hangs if the cancelled barrier kept the domain's lock */
	CHECK(atomic_load(&callback_ran), "the callback did not run");

	quiesce_rcu_set_stall_timeout_ms(STALL_TIMEOUT_MS);
	quiesce_rcu_set_stall_handler(on_stall);
	run_case(synchronize_caller, "synchronize_rcu() reporting a stall", true);
	quiesce_rcu_set_stall_handler(NULL);
	quiesce_rcu_set_stall_timeout_ms(0);
	synchronize_rcu();	/* hangs if the cancelled owner never ended its grace period */

	rcu_unregister_thread();
	printf("cancellation: all checks passed\n");
	return 0;
}
