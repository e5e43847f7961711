/*
 * Per-CPU counters: threads that add on whatever CPU they run on (and
 * migrate, since they outnumber the CPUs and yield) must leave an exact
 * sum; freed counters come back zeroed; many counters coexist.  Run both
 * with rseq and, through tests/percpu.cmake, without it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/percpu_count.h>

#include "check.h"

#define THREADS 4
#define ADDS 200000
#define COUNTERS 1500

static long *shared_counter;

static void *adder(void *arg)
{
	long delta = (long)(intptr_t)arg;

	for (int i = 0; i < ADDS; i++) {
		quiesce_percpu_count_add(shared_counter, delta);
		if (i % 1024 == 0)
			sched_yield();
	}
	return NULL;
}

/* Adds that a thread makes on one CPU and undoes on another. */
static void *undoer(void *unused)
{
	for (int i = 0; i < ADDS / 8; i++) {
		quiesce_percpu_count_add(shared_counter, 1);
		sched_yield();
		quiesce_percpu_count_add(shared_counter, -1);
	}
	return NULL;
}

static void check_rseq_mode(void)
{
	const char *tunables = getenv("GLIBC_TUNABLES");
	bool want_fallback = tunables && strstr(tunables, "glibc.pthread.rseq=0");

	fprintf(stderr, "CPUs %u, this thread %s rseq\n", quiesce_percpu_nr_cpus(),
		quiesce_percpu_thread_has_rseq() ? "has" : "lacks");
	if (want_fallback)
		CHECK(!quiesce_percpu_thread_has_rseq(), "rseq disabled by GLIBC_TUNABLES, yet in use");
}

int main(void)
{
	pthread_t t[THREADS + 1];
	long *many[COUNTERS];

	check_rseq_mode();
	shared_counter = quiesce_percpu_count_alloc();
	CHECK(quiesce_percpu_count_sum(shared_counter) == 0, "a new counter starts at zero");
	for (intptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, adder, (void *)(intptr_t)(i % 2 ? -3 : 5));
	pthread_create(&t[THREADS], NULL, undoer, NULL);
	for (int i = 0; i <= THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(quiesce_percpu_count_sum(shared_counter) == (long)ADDS * (5 - 3) * THREADS / 2,
	      "sum %ld, expected %ld", quiesce_percpu_count_sum(shared_counter),
	      (long)ADDS * (5 - 3) * THREADS / 2);
	quiesce_percpu_count_add_shared(shared_counter, 7);
	CHECK(quiesce_percpu_count_sum(shared_counter) == (long)ADDS * THREADS + 7,
	      "the shared slot counts in the sum");

	/* More counters than one chunk holds; each independent, all zeroed. */
	for (int i = 0; i < COUNTERS; i++) {
		many[i] = quiesce_percpu_count_alloc();
		CHECK(quiesce_percpu_count_sum(many[i]) == 0, "counter %d not zero", i);
		quiesce_percpu_count_add(many[i], i);
	}
	for (int i = 0; i < COUNTERS; i++)
		CHECK(quiesce_percpu_count_sum(many[i]) == i, "counter %d disturbed", i);
	quiesce_percpu_count_free(shared_counter);
	for (int i = 0; i < COUNTERS; i++)
		quiesce_percpu_count_free(many[i]);
	shared_counter = quiesce_percpu_count_alloc();
	CHECK(quiesce_percpu_count_sum(shared_counter) == 0, "a reused counter starts at zero");
	quiesce_percpu_count_free(shared_counter);
	printf("percpu counters: all checks passed\n");
	return 0;
}
