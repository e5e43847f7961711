/*
 * rcu: quiesce's RCU against liburcu's default flavor, in one run.
 *
 *  - read-side pair cost (ns per rcu_read_lock + rcu_read_unlock);
 *  - synchronize latency with 0, 1 and 2 busy reader threads;
 *  - calls per second from 1 and 8 threads calling synchronize at once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/compiler.h>

#include "bench.h"
#include "rcu_flavor.h"

#define EXP "rcu"

static const struct qb_rcu_flavor *const sync_flavors[] = {
	&qb_quiesce_rcu,
	&qb_quiesce_rcu_expedited,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_memb,
#endif
};
#define SYNC_FLAVORS (sizeof(sync_flavors) / sizeof(sync_flavors[0]))

static void missing_urcu(void)
{
#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXP, "liburcu", "liburcu-dev");
#endif
}

static void read_pairs(const struct qb_options *opt)
{
	long iterations = opt->quick ? 20000000 : 100000000;
	const struct qb_rcu_flavor *const flavors[] = {
		&qb_quiesce_rcu,
#ifdef QUIESCE_HAVE_URCU
		&qb_urcu_memb, &qb_urcu_memb_call,
#endif
	};
	const char *names[] = { "quiesce", "liburcu", "liburcu (not inlined)" };

	qb_heading("read-side lock+unlock pair, one thread");
	for (size_t f = 0; f < sizeof(flavors) / sizeof(flavors[0]); f++) {
		double samples[opt->repetitions];

		for (int r = 0; r < opt->repetitions; r++)
			samples[r] = flavors[f]->read_pair_ns(iterations);
		qb_record(EXP, names[f], "read pair", "ns", samples, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXP, "read pair", "quiesce", "liburcu", "<= 1.0");
	qb_ratio(EXP, "read pair", "quiesce", "liburcu (not inlined)", "<= 1.0");
#endif
}

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

/* One repetition: median and p99 of `calls` synchronize latencies, in us. */
static void measure_latency(const struct qb_rcu_flavor *flavor, int readers, int calls,
			    double *median_us, double *p99_us)
{
	pthread_t threads[readers > 0 ? readers : 1];
	atomic_bool stop = false;
	atomic_int ready = 0;
	struct busy_reader b = { flavor, &stop, &ready };
	uint64_t lat[calls];

	for (int i = 0; i < readers; i++)
		pthread_create(&threads[i], NULL, busy_reader_thread, &b);
	while (atomic_load(&ready) < readers)
		sched_yield();
	for (int i = 0; i < calls; i++) {
		uint64_t t0 = qb_now_ns();

		flavor->synchronize();
		lat[i] = qb_now_ns() - t0;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < readers; i++)
		pthread_join(threads[i], NULL);
	qsort(lat, (size_t)calls, sizeof(lat[0]), compare_u64);
	*median_us = (double)lat[calls / 2] / 1000.0;
	*p99_us = (double)lat[(calls * 99) / 100] / 1000.0;
}

static void sync_latency(const struct qb_options *opt)
{
	int calls = opt->quick ? 60 : 300;

	for (int readers = 0; readers <= 2; readers++) {
		char median_metric[48], p99_metric[48];

		snprintf(median_metric, sizeof(median_metric), "median, %d readers", readers);
		snprintf(p99_metric, sizeof(p99_metric), "p99, %d readers", readers);
		qb_heading("synchronize latency with %d busy reader threads", readers);
		for (size_t f = 0; f < SYNC_FLAVORS; f++) {
			double medians[opt->repetitions], p99s[opt->repetitions];

			qb_progress("rcu: latency, %d readers, %s", readers, sync_flavors[f]->name);
			for (int r = 0; r < opt->repetitions; r++)
				measure_latency(sync_flavors[f], readers, calls, &medians[r], &p99s[r]);
			qb_plot_point("rcu-sync-latency", "synchronize latency, median", "busy reader threads",
				      "microseconds", sync_flavors[f]->name, readers,
				      qb_record(EXP, sync_flavors[f]->name, median_metric, "us",
						medians, opt->repetitions));
			qb_record(EXP, sync_flavors[f]->name, p99_metric, "us", p99s,
				  opt->repetitions);
		}
#ifdef QUIESCE_HAVE_URCU
		qb_ratio(EXP, median_metric, qb_quiesce_rcu_expedited.name, qb_urcu_memb.name,
			 "<= 1.0");
		qb_ratio(EXP, median_metric, qb_quiesce_rcu.name, qb_urcu_memb.name, NULL);
#endif
	}
}

struct sync_caller {
	const struct qb_rcu_flavor *flavor;
	uint64_t deadline;
	unsigned long calls;
};

static void *sync_caller_thread(void *p)
{
	struct sync_caller *c = p;

	c->flavor->register_thread();
	while (qb_now_ns() < c->deadline) {
		c->flavor->synchronize();
		c->calls++;
	}
	c->flavor->unregister_thread();
	return NULL;
}

static double calls_per_second(const struct qb_rcu_flavor *flavor, int threads,
			       uint64_t duration_ns)
{
	struct sync_caller callers[threads];
	uint64_t start = qb_now_ns();
	unsigned long total = 0;

	for (int i = 0; i < threads; i++)
		callers[i] = (struct sync_caller){ flavor, start + duration_ns, 0 };
	qb_run_threads(threads, sync_caller_thread, callers, sizeof(callers[0]));
	for (int i = 0; i < threads; i++)
		total += callers[i].calls;
	return (double)total * 1e9 / (double)(qb_now_ns() - start);
}

static void concurrent_sync(const struct qb_options *opt)
{
	uint64_t duration = opt->quick ? 150000000u : 400000000u;
	const int thread_counts[] = { 1, 2, 4, 8 };

	qb_heading("concurrent synchronize calls, calls/s (more is better)");
	for (size_t f = 0; f < SYNC_FLAVORS; f++) {
		for (int t = 0; t < 4; t++) {
			double samples[opt->repetitions];
			char subject[96];

			qb_progress("rcu: %d callers, %s", thread_counts[t], sync_flavors[f]->name);
			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = calls_per_second(sync_flavors[f], thread_counts[t], duration);
			snprintf(subject, sizeof(subject), "%s, %d threads", sync_flavors[f]->name,
				 thread_counts[t]);
			qb_plot_point("rcu-concurrent-sync", "concurrent synchronize calls",
				      "calling threads", "calls per second", sync_flavors[f]->name,
				      thread_counts[t],
				      qb_record(EXP, subject, "calls/s", "calls/s", samples,
						opt->repetitions));
		}
	}
	for (size_t f = 0; f < SYNC_FLAVORS; f++) {
		char eight[96], one[96];

		snprintf(eight, sizeof(eight), "%s, 8 threads", sync_flavors[f]->name);
		snprintf(one, sizeof(one), "%s, 1 threads", sync_flavors[f]->name);
		qb_ratio(EXP, "calls/s", eight, one, ">> 1");
	}
#ifdef QUIESCE_HAVE_URCU
	{
		char ours[96], peer[96];

		snprintf(peer, sizeof(peer), "%s, 8 threads", qb_urcu_memb.name);
		snprintf(ours, sizeof(ours), "%s, 8 threads", qb_quiesce_rcu_expedited.name);
		qb_ratio(EXP, "calls/s", ours, peer, ">= 1.0");
		snprintf(ours, sizeof(ours), "%s, 8 threads", qb_quiesce_rcu.name);
		qb_ratio(EXP, "calls/s", ours, peer, NULL);
	}
#endif
}

static void run_rcu(const struct qb_options *opt)
{
	missing_urcu();
	read_pairs(opt);
	sync_latency(opt);
	concurrent_sync(opt);
}

QB_EXPERIMENT(rcu_experiment, .name = "rcu",
	      .title = "RCU read side and grace periods against liburcu (memb flavor)",
	      .order = 100, .run = run_rcu);
