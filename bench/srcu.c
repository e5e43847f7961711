/*
 * srcu: an SRCU domain beside quiesce's default RCU, in one run.
 *
 *  - read-side pair cost (ns per srcu_read_lock + srcu_read_unlock, and per
 *    rcu_read_lock + rcu_read_unlock), on 1 and 2 threads at once, each
 *    thread in its own loop (goal: SRCU within 2x of RCU, flat in threads);
 *  - synchronize latency, median and p99, with 0, 1 and 2 busy reader
 *    threads of the domain waited for: synchronize_srcu(), its expedited
 *    form, and synchronize_rcu() with as many RCU readers.
 * Each part measures for its share of the experiment's time budget.
 */
#include <stdio.h>

#include <quiesce/srcu.h>

#include "bench.h"
#include "rcu_flavor.h"
#include "sync_latency.h"

#define EXP "srcu"

/* Shares of the budget: read pairs, latency table. */
#define READ_SHARE 0.3
#define LATENCY_SHARE 0.7
/* At most this many latencies per repetition. */
#define MAX_CALLS 100000
/* Pairs a timed batch: 0.1-1 ms, so that every code offset gets many. */
#define PAIR_BATCH 100000L

static DEFINE_SRCU(bench_srcu);
/* The index the flavor's read_lock() got, for its read_unlock(). */
static __thread int bench_srcu_idx;

static void srcu_lock(void)
{
	bench_srcu_idx = srcu_read_lock(&bench_srcu);
}

static void srcu_unlock(void)
{
	srcu_read_unlock(&bench_srcu, bench_srcu_idx);
}

static void srcu_sync(void)
{
	synchronize_srcu(&bench_srcu);
}

static void srcu_sync_expedited(void)
{
	synchronize_srcu_expedited(&bench_srcu);
}

/* The thread registers in pair_loop_thread(). */
QB_PLACED_TIMER(srcu_pair, (void)0,
		int idx = srcu_read_lock(&bench_srcu); srcu_read_unlock(&bench_srcu, idx));

static const struct qb_rcu_flavor srcu_flavor = {
	.name = "quiesce synchronize_srcu",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = srcu_lock,
	.read_unlock = srcu_unlock,
	.synchronize = srcu_sync,
	.read_pair = srcu_pair,
};

static const struct qb_rcu_flavor srcu_expedited_flavor = {
	.name = "quiesce synchronize_srcu_expedited",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = srcu_lock,
	.read_unlock = srcu_unlock,
	.synchronize = srcu_sync_expedited,
	.read_pair = srcu_pair,
};

struct pair_loop {
	const struct qb_rcu_flavor *flavor;
	uint64_t deadline;
	double ns;
};

/* This thread's ns per pair until the deadline (placed_timer.h). */
static void *pair_loop_thread(void *p)
{
	struct pair_loop *l = p;

	l->flavor->register_thread();
	l->ns = qb_placed_ns(l->flavor->read_pair, PAIR_BATCH, l->deadline);
	l->flavor->unregister_thread();
	return NULL;
}

/* ns per pair on each of `threads` threads at once, averaged over them. */
static double pair_ns(const struct qb_rcu_flavor *flavor, int threads, uint64_t deadline)
{
	struct pair_loop loops[threads];
	double sum = 0;

	for (int i = 0; i < threads; i++)
		loops[i] = (struct pair_loop){ flavor, deadline, 0 };
	qb_run_threads(threads, pair_loop_thread, loops, sizeof(loops[0]));
	for (int i = 0; i < threads; i++)
		sum += loops[i].ns;
	return sum / threads;
}

static void read_pairs(const struct qb_options *opt)
{
	const struct qb_rcu_flavor *const flavors[] = { &srcu_flavor, &qb_quiesce_rcu };
	const char *names[] = { "srcu_read_lock+unlock", "rcu_read_lock+unlock" };
	const int cells = 2 * 2 * opt->repetitions;
	uint64_t start = qb_now_ns();
	int cell = 0;

	for (int threads = 1; threads <= 2; threads++) {
		char metric[48];

		snprintf(metric, sizeof(metric), "read pair, %d thread%s", threads,
			 threads == 1 ? "" : "s");
		qb_heading("read-side lock+unlock pair, %d thread%s at once (each thread's median "
			   "over %d code offsets, averaged)", threads, threads == 1 ? "" : "s",
			   QB_PLACEMENTS);
		qb_progress("srcu: read pairs, %d thread%s", threads, threads == 1 ? "" : "s");
		for (int f = 0; f < 2; f++) {
			double samples[opt->repetitions];
			struct qb_spread s;

			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = pair_ns(flavors[f], threads,
					qb_deadline(opt, start, READ_SHARE * ++cell / cells));
			s = qb_record(EXP, names[f], metric, "ns", samples, opt->repetitions);
			qb_plot_point("srcu-read-pair", "read-side pair (bars: min..max of the repetitions)",
				      "threads", "nanoseconds", names[f], threads, s);
		}
		qb_ratio(EXP, metric, names[0], names[1], "<= 2.0");
	}
}

static void sync_latency(const struct qb_options *opt)
{
	const struct qb_rcu_flavor *const flavors[] = {
		&srcu_flavor, &srcu_expedited_flavor, &qb_quiesce_rcu,
	};
	const int n = sizeof(flavors) / sizeof(flavors[0]);
	const int cells = 3 * n * opt->repetitions;
	uint64_t start = qb_now_ns();
	int cell = 0;

	for (int readers = 0; readers <= 2; readers++) {
		char median_metric[48], p99_metric[48];

		snprintf(median_metric, sizeof(median_metric), "median, %d readers", readers);
		snprintf(p99_metric, sizeof(p99_metric), "p99, %d readers", readers);
		qb_heading("synchronize latency with %d busy reader threads (of the domain waited for)",
			   readers);
		for (int f = 0; f < n; f++) {
			struct qb_spread median, p99;

			qb_progress("srcu: latency, %d readers, %s", readers, flavors[f]->name);
			median = qb_sync_latency_rows(EXP, flavors[f], readers, MAX_CALLS, opt, start,
						      LATENCY_SHARE, &cell, cells, median_metric,
						      p99_metric, &p99);
			qb_plot_point("srcu-sync-latency",
				      "synchronize latency, median (bars: min..max of the repetitions)",
				      "busy reader threads", "microseconds", flavors[f]->name, readers,
				      median);
		}
		qb_ratio(EXP, median_metric, srcu_flavor.name, qb_quiesce_rcu.name, NULL);
		qb_ratio(EXP, median_metric, srcu_expedited_flavor.name, qb_quiesce_rcu.name, NULL);
		qb_ratio(EXP, p99_metric, srcu_flavor.name, qb_quiesce_rcu.name, NULL);
	}
}

static void run_srcu(const struct qb_options *opt)
{
	qb_note("/sys/kernel/rcu_expedited = %s; barrier backend: %s",
		qb_kernel_knob("rcu_expedited"), quiesce_rcu_backend_name());
	read_pairs(opt);
	sync_latency(opt);
}

QB_EXPERIMENT(srcu_experiment, .name = EXP,
	      .title = "SRCU read pair and synchronize_srcu() latency beside quiesce's RCU",
	      .order = 105, .run = run_srcu)
