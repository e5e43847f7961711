/*
 * defer_rcu() as liburcu's users call it, out of line (no _LGPL_SOURCE):
 * work deferred while a reader holds its section runs only after the
 * reader leaves (the busted control, quiesce's callbacks that do not wait,
 * must be caught); registered threads defer many functions, each runs
 * exactly once, after rcu_defer_barrier(); unregistering waits for the
 * thread's deferred work.
 */
#include <urcu.h>

#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define THREADS 3
#define PER_THREAD 3000

extern bool quiesce_test_busted_call_rcu;

static atomic_int ran[THREADS];

static void count(void *p)
{
	atomic_fetch_add(&ran[(intptr_t)p], 1);
}

static void *defer_some(void *arg)
{
	CHECK(rcu_defer_register_thread() == 0, "rcu_defer_register_thread");
	for (int i = 0; i < PER_THREAD; i++)
		defer_rcu(count, arg);
	rcu_defer_unregister_thread();
	CHECK(atomic_load(&ran[(intptr_t)arg]) == PER_THREAD,
	      "unregistering left deferred work behind");
	return NULL;
}

static atomic_bool reader_in, reader_release, deferred_ran;

static void mark(void *p)
{
	CHECK(atomic_load(&reader_release), "deferred work ran while a reader held its section");
	atomic_store(&deferred_ran, true);
}

static void *holding_reader(void *arg)
{
	rcu_read_lock();
	atomic_store(&reader_in, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(100);
	rcu_read_unlock();
	return NULL;
}

static bool reader_is_in(void *arg) { return atomic_load(&reader_in); }

static void *barrier_thread(void *arg)
{
	rcu_defer_barrier();
	return NULL;
}

static void waits_for_reader(void)
{
	pthread_t t, b;

	pthread_create(&t, NULL, holding_reader, NULL);
	check_wait_until(reader_is_in, NULL, "the reader entered");
	defer_rcu(mark, NULL);
	/* The barrier hands the work over while the reader holds its section. */
	pthread_create(&b, NULL, barrier_thread, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&deferred_ran), "deferred work ran before the reader left");
	atomic_store(&reader_release, true);
	pthread_join(t, NULL);
	pthread_join(b, NULL);
	CHECK(atomic_load(&deferred_ran), "rcu_defer_barrier() waited for the work");
}

static void busted_child(void *arg)
{
	quiesce_test_busted_call_rcu = true;
	waits_for_reader();
	exit(0);
}

int main(void)
{
	pthread_t t[THREADS];

	waits_for_reader();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, defer_some, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	rcu_defer_barrier();
	for (int i = 0; i < THREADS; i++)
		CHECK(atomic_load(&ran[i]) == PER_THREAD, "thread %d: %d of %d ran once", i,
		      atomic_load(&ran[i]), PER_THREAD);
	atomic_store(&reader_in, false);
	atomic_store(&reader_release, false);
	atomic_store(&deferred_ran, false);
	check_child_detects_violation(busted_child, NULL);
	printf("defer_rcu: all checks passed\n");
	return 0;
}
