/*
 * rcu: quiesce's RCU against liburcu's default flavor, in one run.
 *
 *  - read-side pair cost (ns per rcu_read_lock + rcu_read_unlock);
 *  - synchronize latency, median and p99, with 0, 1 and 2 busy reader
 *    threads: quiesce's normal and expedited grace periods, its normal one
 *    under rcu_normal (membarrier GLOBAL: the kernel's own grace period),
 *    and liburcu's;
 *  - calls per second from 1 to 8 threads calling synchronize at once, and
 *    how many grace periods quiesce ran per call (sharing).
 * Each part measures for its share of the experiment's time budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "bench.h"
#include "rcu_flavor.h"
#include "sync_latency.h"

#define EXP "rcu"

static const struct qb_rcu_flavor *const sync_flavors[] = {
	&qb_quiesce_rcu,
	&qb_quiesce_rcu_expedited,
	&qb_quiesce_rcu_normal_knob,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_memb,
#endif
};
#define SYNC_FLAVORS (sizeof(sync_flavors) / sizeof(sync_flavors[0]))

/* Shares of the budget: read pairs, latency table, sharing table. */
#define LATENCY_SHARE 0.6
#define SHARING_SHARE 0.3
#define READ_SHARE 0.1
/* At most this many latencies per repetition. */
#define MAX_CALLS 100000
/* Pairs a timed batch: 0.1-1 ms inlined, so that every copy gets many. */
#define PAIR_BATCH 100000

static void missing_urcu(void)
{
#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXP, "liburcu", "liburcu-dev");
#endif
}

static void read_pairs(const struct qb_options *opt)
{
	const struct qb_rcu_flavor *const flavors[] = {
		&qb_quiesce_rcu,
#ifdef QUIESCE_HAVE_URCU
		&qb_urcu_memb, &qb_urcu_memb_call,
#endif
	};
	const char *names[] = { "quiesce", "liburcu", "liburcu (not inlined)" };
	const int n = sizeof(flavors) / sizeof(flavors[0]);
	uint64_t start = qb_now_ns();

	qb_heading("read-side lock+unlock pair, one thread (median over %d code offsets of "
		   "each one's best batch)", QB_PLACEMENTS);
	for (int f = 0; f < n; f++) {
		double samples[opt->repetitions];

		for (int r = 0; r < opt->repetitions; r++)
			samples[r] = qb_placed_ns(flavors[f]->read_pair, PAIR_BATCH,
				qb_deadline(opt, start, READ_SHARE * (f * opt->repetitions + r + 1) /
							(n * opt->repetitions)));
		qb_record(EXP, names[f], "read pair", "ns", samples, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXP, "read pair", "quiesce", "liburcu", "<= 1.0");
	qb_ratio(EXP, "read pair", "quiesce", "liburcu (not inlined)", "<= 1.0");
#endif
}

static void sync_latency(const struct qb_options *opt)
{
	const int cells = 3 * (int)SYNC_FLAVORS * opt->repetitions;
	uint64_t start = qb_now_ns();
	int cell = 0;

	for (int readers = 0; readers <= 2; readers++) {
		char median_metric[48], p99_metric[48];

		snprintf(median_metric, sizeof(median_metric), "median, %d readers", readers);
		snprintf(p99_metric, sizeof(p99_metric), "p99, %d readers", readers);
		qb_heading("synchronize latency with %d busy reader threads", readers);
		for (size_t f = 0; f < SYNC_FLAVORS; f++) {
			const struct qb_rcu_flavor *flavor = sync_flavors[f];
			struct qb_spread median, p99;

			qb_progress("rcu: latency, %d readers, %s", readers, flavor->name);
			median = qb_sync_latency_rows(EXP, flavor, readers, MAX_CALLS, opt, start,
						      LATENCY_SHARE, &cell, cells, median_metric,
						      p99_metric, &p99);
			qb_plot_point("rcu-sync-latency", "synchronize latency, median (bars: min..max of the repetitions)",
				      "busy reader threads", "microseconds", flavor->name, readers, median);
			qb_plot_point("rcu-sync-latency-p99", "synchronize latency, p99 (bars: min..max of the repetitions)",
				      "busy reader threads", "microseconds", flavor->name, readers, p99);
		}
#ifdef QUIESCE_HAVE_URCU
		qb_ratio(EXP, median_metric, qb_quiesce_rcu.name, qb_urcu_memb.name, "<= 1.0");
		qb_ratio(EXP, median_metric, qb_quiesce_rcu_expedited.name, qb_urcu_memb.name,
			 "<= 1.0");
		qb_ratio(EXP, p99_metric, qb_quiesce_rcu.name, qb_urcu_memb.name, "<= 1.0");
		qb_ratio(EXP, p99_metric, qb_quiesce_rcu_expedited.name, qb_urcu_memb.name,
			 "<= 1.0");
		qb_ratio(EXP, median_metric, qb_quiesce_rcu_normal_knob.name, qb_urcu_memb.name,
			 NULL);
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

static uint64_t quiesce_grace_periods(void)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return s.gp_normal + s.gp_expedited;
}

/* Calls per second; *gp_per_call gets quiesce's grace periods per call. */
static double calls_per_second(const struct qb_rcu_flavor *flavor, int threads,
			       uint64_t duration_ns, double *gp_per_call)
{
	struct sync_caller callers[threads];
	uint64_t start = qb_now_ns(), gps = quiesce_grace_periods();
	unsigned long total = 0;

	rcu_set_normal(flavor->rcu_normal);
	for (int i = 0; i < threads; i++)
		callers[i] = (struct sync_caller){ flavor, start + duration_ns, 0 };
	qb_run_threads(threads, sync_caller_thread, callers, sizeof(callers[0]));
	rcu_set_normal(false);
	for (int i = 0; i < threads; i++)
		total += callers[i].calls;
	*gp_per_call = (double)(quiesce_grace_periods() - gps) / (double)(total ? total : 1);
	return (double)total * 1e9 / (double)(qb_now_ns() - start);
}

static void concurrent_sync(const struct qb_options *opt)
{
	const int thread_counts[] = { 1, 2, 4, 8 };
	const int cells = (int)SYNC_FLAVORS * 4 * opt->repetitions;
	uint64_t duration = (uint64_t)((double)opt->budget_ns * SHARING_SHARE / cells);

	qb_heading("concurrent synchronize calls, calls/s (more is better); "
		   "quiesce's grace periods per call (fewer: more sharing)");
	for (size_t f = 0; f < SYNC_FLAVORS; f++) {
		bool ours = strncmp(sync_flavors[f]->name, "quiesce", 7) == 0;

		for (int t = 0; t < 4; t++) {
			double samples[opt->repetitions], per_call[opt->repetitions];
			char subject[96];

			qb_progress("rcu: %d callers, %s", thread_counts[t], sync_flavors[f]->name);
			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = calls_per_second(sync_flavors[f], thread_counts[t],
							      duration, &per_call[r]);
			snprintf(subject, sizeof(subject), "%s, %d threads", sync_flavors[f]->name,
				 thread_counts[t]);
			qb_plot_point("rcu-concurrent-sync", "concurrent synchronize calls (bars: min..max)",
				      "calling threads", "calls per second", sync_flavors[f]->name,
				      thread_counts[t],
				      qb_record(EXP, subject, "calls/s", "calls/s", samples,
						opt->repetitions));
			if (ours)
				qb_record(EXP, subject, "grace periods per call", "gp/call", per_call,
					  opt->repetitions);
		}
	}
	qb_heading("8 callers / 1 caller: sharing pays where grace periods are long");
	for (size_t f = 0; f < SYNC_FLAVORS; f++) {
		char eight[96], one[96];

		snprintf(eight, sizeof(eight), "%s, 8 threads", sync_flavors[f]->name);
		snprintf(one, sizeof(one), "%s, 1 threads", sync_flavors[f]->name);
		qb_ratio(EXP, "calls/s", eight, one, NULL);
	}
#ifdef QUIESCE_HAVE_URCU
	for (size_t f = 0; f < SYNC_FLAVORS; f++) {
		char ours[96], peer[96];

		if (sync_flavors[f] == &qb_urcu_memb || sync_flavors[f]->rcu_normal)
			continue;
		for (int t = 0; t < 4; t++) {
			snprintf(peer, sizeof(peer), "%s, %d threads", qb_urcu_memb.name,
				 thread_counts[t]);
			snprintf(ours, sizeof(ours), "%s, %d threads", sync_flavors[f]->name,
				 thread_counts[t]);
			qb_ratio(EXP, "calls/s", ours, peer, ">= 1.0");
		}
	}
#endif
}

static void run_rcu(const struct qb_options *opt)
{
	missing_urcu();
	/*
	 * The read pairs register this thread with both libraries, for good:
	 * they come last, so that the "0 readers" rows are liburcu's and
	 * quiesce's with no reader registered at all (liburcu's rcutorture
	 * "uperf" case).
	 */
	sync_latency(opt);
	concurrent_sync(opt);
	read_pairs(opt);
}

QB_EXPERIMENT(rcu_experiment, .name = "rcu",
	      .title = "RCU read side and grace periods against liburcu (memb flavor)",
	      .order = 100, .run = run_rcu);
