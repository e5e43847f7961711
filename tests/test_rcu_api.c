/* The RCU API's plain semantics: nesting, registration, polling, knobs. */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_seq.h"

static void test_nesting(void)
{
	CHECK(!rcu_read_ongoing(), "outside any section");
	rcu_read_lock();
	CHECK(rcu_read_ongoing(), "inside one section");
	rcu_read_lock();
	rcu_read_lock();
	rcu_read_unlock();
	rcu_read_unlock();
	CHECK(rcu_read_ongoing(), "still inside the outermost section");
	rcu_read_unlock();
	CHECK(!rcu_read_ongoing(), "all sections left");
}

static void *first_use_thread(void *arg)
{
	struct quiesce_rcu_stats *before = arg, now;

	rcu_read_lock();
	quiesce_rcu_get_stats(&now);
	CHECK(now.registered_threads == before->registered_threads + 1,
	      "first rcu_read_lock() registers the thread (%lu -> %lu)",
	      (unsigned long)before->registered_threads, (unsigned long)now.registered_threads);
	rcu_read_unlock();
	rcu_register_thread();	/* idempotent */
	quiesce_rcu_get_stats(&now);
	CHECK(now.registered_threads == before->registered_threads + 1, "no double entry");
	return NULL;	/* exits registered: the destructor must unregister it */
}

static void test_auto_registration_and_exit(void)
{
	struct quiesce_rcu_stats before, after;
	pthread_t t;

	quiesce_rcu_get_stats(&before);
	pthread_create(&t, NULL, first_use_thread, &before);
	pthread_join(t, NULL);
	quiesce_rcu_get_stats(&after);
	CHECK(after.registered_threads == before.registered_threads,
	      "a thread that exits registered is unregistered");
	synchronize_rcu();	/* must not wait for the dead thread */
}

static bool cookie_done(void *cookie)
{
	return poll_state_synchronize_rcu(*(unsigned long *)cookie);
}

static void test_polling(void)
{
	unsigned long cookie = get_state_synchronize_rcu();
	unsigned long polled;

	CHECK(!poll_state_synchronize_rcu(cookie), "no grace period has passed yet");
	synchronize_rcu();
	CHECK(poll_state_synchronize_rcu(cookie), "synchronize_rcu() completes a cookie");
	cond_synchronize_rcu(cookie);	/* returns at once */

	cookie = get_state_synchronize_rcu();
	cond_synchronize_rcu(cookie);
	CHECK(poll_state_synchronize_rcu(cookie), "cond_synchronize_rcu() waits when needed");

	/* start_poll: the background worker completes it; nobody blocks. */
	polled = start_poll_synchronize_rcu();
	check_wait_until(cookie_done, &polled, "start_poll cookie never completed");

	/* A reader holding a section keeps a cookie from completing. */
	rcu_read_lock();
	cookie = start_poll_synchronize_rcu();
	check_sleep_us(20000);
	CHECK(!poll_state_synchronize_rcu(cookie), "cookie completed under a reader");
	rcu_read_unlock();
	check_wait_until(cookie_done, &cookie, "cookie never completed after the reader left");
}

static void test_snapshot_arithmetic(void)
{
	CHECK(quiesce_gp_seq_snap(4) == 6, "idle: the next grace period");
	CHECK(quiesce_gp_seq_snap(5) == 8, "running: the one after it");
	CHECK(quiesce_gp_seq_done(8, 8) && !quiesce_gp_seq_done(7, 8), "done");
	CHECK(quiesce_gp_seq_done(2, (unsigned long)-2), "wraps");
}

static void test_knobs_and_stats(void)
{
	struct quiesce_rcu_stats a, b;

	/*
	 * The background workers (the polled API's, the callbacks') may run
	 * normal grace periods of their own meanwhile: normal ones are counted
	 * at least, expedited ones exactly.
	 */
	quiesce_rcu_get_stats(&a);
	synchronize_rcu();
	synchronize_rcu_expedited();
	quiesce_rcu_get_stats(&b);
	CHECK(b.gp_normal >= a.gp_normal + 1 && b.gp_expedited == a.gp_expedited + 1,
	      "one normal (%" PRIu64 ") and one expedited (%" PRIu64 ") grace period",
	      b.gp_normal - a.gp_normal, b.gp_expedited - a.gp_expedited);
	CHECK(b.sync_calls == a.sync_calls + 2, "two calls counted");

	rcu_set_normal(true);
	synchronize_rcu_expedited();
	quiesce_rcu_get_stats(&a);
	CHECK(a.gp_expedited == b.gp_expedited, "rcu_normal turns expedited into normal");
	rcu_set_normal(false);
	rcu_set_expedited(true);
	synchronize_rcu();
	quiesce_rcu_get_stats(&b);
	CHECK(b.gp_expedited == a.gp_expedited + 1, "rcu_expedited expedites normal requests");
	rcu_set_expedited(false);
}

static void test_pointer_ops(void)
{
	static int a = 1, b = 2;
	static int *gp = RCU_INITIALIZER(&a);
	int *old;

	rcu_read_lock();
	CHECK(*rcu_dereference(gp) == 1, "dereference");
	rcu_read_unlock();
	rcu_assign_pointer(gp, &b);
	CHECK(rcu_access_pointer(gp) == &b, "assign");
	old = rcu_xchg_pointer(&gp, &a);
	CHECK(old == &b && gp == &a, "xchg");
	old = rcu_cmpxchg_pointer(&gp, &b, &b);
	CHECK(old == &a && gp == &a, "failed cmpxchg returns what it found");
	old = rcu_cmpxchg_pointer(&gp, &a, &b);
	CHECK(old == &a && gp == &b, "cmpxchg");
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	test_nesting();
	test_auto_registration_and_exit();
	test_snapshot_arithmetic();
	test_polling();
	test_knobs_and_stats();
	test_pointer_ops();
	printf("rcu api: all checks passed\n");
	return 0;
}
