/*
 * The qsbr flavor's thread states as liburcu defines them: an online
 * thread holds every grace period until its next quiescent state, even
 * outside rcu_read_lock(); an offline one holds none; synchronize_rcu()
 * and rcu_barrier() called online go offline around their wait (the
 * caller is not waited for) and come back online.  Each "not yet" is
 * certain (the holder is parked until the test has looked), not a race.
 * The busted control (grace periods that do not wait) must be caught.
 */
#define _LGPL_SOURCE
#include <urcu-qsbr.h>

#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

static atomic_int step;		/* the holder's progress, driven by main */
static atomic_bool gp_done;

static bool at_step_1(void *arg) { return atomic_load(&step) == 1; }
static bool at_step_3(void *arg) { return atomic_load(&step) == 3; }
static bool gp_is_done(void *arg) { return atomic_load(&gp_done); }

/* Online without a quiescent state until step 2; then offline until step 4. */
static void *holder(void *arg)
{
	rcu_register_thread();
	atomic_store(&step, 1);
	while (atomic_load(&step) != 2)
		check_sleep_us(100);
	rcu_quiescent_state();
	rcu_thread_offline();
	CHECK(!rcu_read_ongoing(), "offline, no reader");
	atomic_store(&step, 3);
	while (atomic_load(&step) != 4)
		check_sleep_us(100);
	rcu_thread_online();
	rcu_unregister_thread();
	return NULL;
}

static void *grace_period(void *arg)
{
	/* Registered and online: synchronize_rcu() must take it offline. */
	rcu_register_thread();
	synchronize_rcu();
	CHECK(rcu_read_ongoing(), "back online after synchronize_rcu()");
	rcu_barrier();
	CHECK(rcu_read_ongoing(), "back online after rcu_barrier()");
	rcu_unregister_thread();
	atomic_store(&gp_done, true);
	return NULL;
}

static atomic_bool sync_done;

static void *sync_thread(void *arg)
{
	synchronize_rcu();
	atomic_store(&sync_done, true);
	return NULL;
}

/*
 * Comes online while online, a quiescent state, then looks: the grace
 * period may not have started at the first call (a loaded machine), and
 * it waits for this thread's next one.  Without the quiescent state it
 * never ends.
 */
static bool online_until_sync_done(void *arg)
{
	rcu_thread_online();
	return atomic_load(&sync_done);
}

/*
 * liburcu's forgiving states, which BIND 9's event loop relies on: a
 * quiescent state announced offline brings the thread online (and grace
 * periods then wait for it), going offline when offline stays offline,
 * coming online when online is a quiescent state.
 */
static void forgiving_states(void)
{
	pthread_t t;

	rcu_register_thread();
	rcu_thread_offline();
	rcu_thread_offline();
	CHECK(!rcu_read_ongoing(), "offline twice: offline");
	rcu_quiescent_state();
	CHECK(rcu_read_ongoing(), "a quiescent state announced offline: online");
	pthread_create(&t, NULL, sync_thread, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&sync_done),
	      "a grace period ended while a thread that a quiescent state brought online "
	      "stayed online");
	check_wait_until(online_until_sync_done, NULL,
			 "the grace period after online while online");
	pthread_join(t, NULL);
	CHECK(rcu_read_ongoing(), "online while online: still online");
	rcu_unregister_thread();
}

extern bool quiesce_test_busted_gp;

static void run(void);

/* The busted control: grace periods that do not wait must be caught. */
static void busted_child(void *arg)
{
	quiesce_test_busted_gp = true;
	run();
	exit(0);
}

int main(void)
{
	run();
	atomic_store(&step, 0);
	atomic_store(&gp_done, false);
	atomic_store(&sync_done, false);
	check_child_detects_violation(busted_child, NULL);
	printf("qsbr states: all checks passed\n");
	return 0;
}

static void run(void)
{
	pthread_t h, g;

	pthread_create(&h, NULL, holder, NULL);
	check_wait_until(at_step_1, NULL, "the holder went online");
	pthread_create(&g, NULL, grace_period, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&gp_done), "a grace period ended while a thread stayed online");
	atomic_store(&step, 2);
	check_wait_until(gp_is_done, NULL, "the grace period after the quiescent state");
	pthread_join(g, NULL);
	check_wait_until(at_step_3, NULL, "the holder went offline");

	/* The holder is offline now: a grace period does not wait for it. */
	rcu_register_thread();
	synchronize_rcu();
	rcu_unregister_thread();
	atomic_store(&step, 4);
	pthread_join(h, NULL);
	forgiving_states();
}
