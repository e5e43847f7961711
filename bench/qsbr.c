/*
 * qsbr: quiesce's QSBR domain against liburcu's QSBR flavor, in one run.
 *
 *  - read-side pair cost (ns per read_lock + read_unlock): nothing in
 *    either, so the rows measure the loop around it;
 *  - quiescent-state cost with no grace period in progress (ns per call:
 *    a load and a compare in either);
 *  - synchronize latency, median and p99, with 0, 1 and 2 reader threads
 *    that announce a quiescent state after every section, back to back.
 * The calling thread is not a QSBR thread.  Each part measures for its
 * share of the experiment's time budget.
 */
#include <stdio.h>

#include <quiesce/rcu_qsbr.h>

#include "bench.h"
#include "rcu_flavor.h"
#include "sync_latency.h"

#define EXP "qsbr"

#ifdef QUIESCE_HAVE_URCU_QSBR
/* bench/peer_urcu_qsbr.c */
extern const struct qb_rcu_flavor qb_urcu_qsbr;
extern const qb_placed_timer *const qb_urcu_qsbr_quiescent_state;
#endif

/* Shares of the budget: read pairs, quiescent states, latency table. */
#define READ_SHARE 0.1
#define QS_SHARE 0.1
#define LATENCY_SHARE 0.8
#define MAX_CALLS 100000
#define BATCH 100000

static __thread bool registered;

static void register_once(void)
{
	if (!registered)
		rcu_qsbr_register_thread();
	registered = true;
}

static void unregister(void)
{
	rcu_qsbr_unregister_thread();
	registered = false;
}

static void read_lock(void)
{
	rcu_qsbr_read_lock();
}

/* The busy readers of the latency rows announce a quiescent state per section. */
static void read_unlock_and_announce(void)
{
	rcu_qsbr_read_unlock();
	rcu_qsbr_quiescent_state();
}

/* The compiler barrier keeps the loop, as in liburcu's row. */
QB_PLACED_TIMER(read_pair, register_once(),
		rcu_qsbr_read_lock(); quiesce_compiler_barrier(); rcu_qsbr_read_unlock());
QB_PLACED_TIMER(quiescent_state, register_once(),
		rcu_qsbr_quiescent_state(); quiesce_compiler_barrier());

static const struct qb_rcu_flavor qb_quiesce_qsbr = {
	.name = "quiesce qsbr",
	.register_thread = register_once,
	.unregister_thread = unregister,
	.read_lock = read_lock,
	.read_unlock = read_unlock_and_announce,
	.synchronize = quiesce_qsbr_synchronize_rcu,
	.read_pair = read_pair,
};

static const struct qb_rcu_flavor *const flavors[] = {
	&qb_quiesce_qsbr,
#ifdef QUIESCE_HAVE_URCU_QSBR
	&qb_urcu_qsbr,
#endif
};
#define FLAVORS (int)(sizeof(flavors) / sizeof(flavors[0]))

static void per_call_rows(const struct qb_options *opt, uint64_t start, double share,
			  const char *metric, const qb_placed_timer *const measures[])
{
	for (int f = 0; f < FLAVORS; f++) {
		double samples[opt->repetitions];

		for (int r = 0; r < opt->repetitions; r++)
			samples[r] = qb_placed_ns(measures[f], BATCH,
				qb_deadline(opt, start, share * (f * opt->repetitions + r + 1) /
							(FLAVORS * opt->repetitions)));
		qb_record(EXP, flavors[f]->name, metric, "ns", samples, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU_QSBR
	qb_ratio(EXP, metric, qb_quiesce_qsbr.name, qb_urcu_qsbr.name, "<= 1.0");
#endif
}

static void sync_latency(const struct qb_options *opt, uint64_t start)
{
	const int cells = 3 * FLAVORS * opt->repetitions;
	int cell = 0;

	for (int readers = 0; readers <= 2; readers++) {
		char median_metric[48], p99_metric[48];

		snprintf(median_metric, sizeof(median_metric), "synchronize median, %d readers", readers);
		snprintf(p99_metric, sizeof(p99_metric), "synchronize p99, %d readers", readers);
		qb_heading("synchronize latency with %d reader threads announcing quiescent "
			   "states back to back", readers);
		for (int f = 0; f < FLAVORS; f++) {
			struct qb_spread median, p99;

			qb_progress("qsbr: latency, %d readers, %s", readers, flavors[f]->name);
			median = qb_sync_latency_rows(EXP, flavors[f], readers, MAX_CALLS, opt, start,
						      LATENCY_SHARE, &cell, cells, median_metric,
						      p99_metric, &p99);
			qb_plot_point("qsbr-sync-latency",
				      "QSBR synchronize latency, median (bars: min..max of the repetitions)",
				      "reader threads", "microseconds", flavors[f]->name, readers, median);
			qb_plot_point("qsbr-sync-latency-p99",
				      "QSBR synchronize latency, p99 (bars: min..max of the repetitions)",
				      "reader threads", "microseconds", flavors[f]->name, readers, p99);
		}
#ifdef QUIESCE_HAVE_URCU_QSBR
		qb_ratio(EXP, median_metric, qb_quiesce_qsbr.name, qb_urcu_qsbr.name, "<= 1.0");
		qb_ratio(EXP, p99_metric, qb_quiesce_qsbr.name, qb_urcu_qsbr.name, "<= 1.0");
#endif
	}
}

static void run_qsbr(const struct qb_options *opt)
{
	const qb_placed_timer *const read_measures[] = {
		read_pair,
#ifdef QUIESCE_HAVE_URCU_QSBR
		qb_urcu_qsbr.read_pair,
#endif
	};
	const qb_placed_timer *const qs_measures[] = {
		quiescent_state,
#ifdef QUIESCE_HAVE_URCU_QSBR
		qb_urcu_qsbr_quiescent_state,
#endif
	};
	uint64_t start = qb_now_ns();

#ifndef QUIESCE_HAVE_URCU_QSBR
	qb_missing_peer(EXP, "liburcu QSBR", "liburcu-dev");
#endif
	qb_note("/sys/kernel/rcu_expedited = %s", qb_kernel_knob("rcu_expedited"));
	/* Unregistered callers first: the reader threads are the latency rows' own. */
	sync_latency(opt, start);
	qb_heading("read-side lock+unlock pair, one thread (median over %d code offsets of "
		   "each one's best batch)", QB_PLACEMENTS);
	per_call_rows(opt, qb_now_ns(), READ_SHARE, "read pair", read_measures);
	qb_heading("quiescent state, no grace period in progress, one thread (median over %d "
		   "code offsets)", QB_PLACEMENTS);
	per_call_rows(opt, qb_now_ns(), QS_SHARE, "quiescent state", qs_measures);
}

QB_EXPERIMENT(qsbr_experiment, .name = "qsbr",
	      .title = "QSBR read side, quiescent states and grace periods against liburcu QSBR",
	      .order = 100, .run = run_qsbr);
