/* sync_latency.c - see sync_latency.h. */
#include "sync_latency.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#include "bench.h"

struct busy_reader {
	const struct qb_rcu_flavor *flavor;
	atomic_bool *stop;
	atomic_int *ready;
};

static void *busy_reader_thread(void *p)
{
	struct busy_reader *b = p;

	b->flavor->register_thread();
	atomic_fetch_add(b->ready, 1);
	while (!atomic_load_explicit(b->stop, memory_order_relaxed)) {
		b->flavor->read_lock();
		for (int i = 0; i < 20; i++)
			quiesce_compiler_barrier();
		b->flavor->read_unlock();
	}
	b->flavor->unregister_thread();
	return NULL;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int qb_sync_latency(const struct qb_rcu_flavor *flavor, int readers, int max_calls,
		    uint64_t deadline, double *median_us, double *p99_us)
{
	pthread_t threads[readers > 0 ? readers : 1];
	atomic_bool stop = false;
	atomic_int ready = 0;
	struct busy_reader b = { flavor, &stop, &ready };
	uint64_t *lat = malloc(sizeof(*lat) * (size_t)max_calls);
	int batch = readers ? 1 : QB_SYNC_NO_READER_BATCH, calls = 0;

	rcu_set_normal(flavor->rcu_normal);
	for (int i = 0; i < readers; i++)
		pthread_create(&threads[i], NULL, busy_reader_thread, &b);
	/* The readers are registered, and so are waited for, once ready. */
	while (atomic_load(&ready) < readers)
		sched_yield();
	do {
		uint64_t t0 = qb_now_ns();

		for (int i = 0; i < batch; i++)
			flavor->synchronize();
		/* In tenths of a nanosecond per call, rounded. */
		lat[calls++] = ((qb_now_ns() - t0) * 10 + (uint64_t)batch / 2) / (uint64_t)batch;
	} while (calls < max_calls && qb_now_ns() < deadline);
	atomic_store(&stop, true);
	for (int i = 0; i < readers; i++)
		pthread_join(threads[i], NULL);
	rcu_set_normal(false);
	qsort(lat, (size_t)calls, sizeof(lat[0]), compare_u64);
	*median_us = (double)lat[calls / 2] / 10000.0;
	*p99_us = (double)lat[(calls * 99) / 100] / 10000.0;
	free(lat);
	return calls * batch;
}

struct qb_spread qb_sync_latency_rows(const char *exp, const struct qb_rcu_flavor *flavor,
				      int readers, int max_calls, const struct qb_options *opt,
				      uint64_t start, double share, int *cell, int cells,
				      const char *median_metric, const char *p99_metric,
				      struct qb_spread *p99)
{
	double medians[opt->repetitions], p99s[opt->repetitions];
	struct qb_spread median;
	int calls = 0;

	for (int r = 0; r < opt->repetitions; r++)
		calls += qb_sync_latency(flavor, readers, max_calls,
					 qb_deadline(opt, start, share * ++*cell / cells),
					 &medians[r], &p99s[r]);
	median = qb_record(exp, flavor->name, median_metric, "us", medians, opt->repetitions);
	*p99 = qb_record(exp, flavor->name, p99_metric, "us", p99s, opt->repetitions);
	qb_note("%d calls in %d repetitions", calls, opt->repetitions);
	return median;
}
