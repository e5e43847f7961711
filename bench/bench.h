/*
 * bench.h - the frame of quiesce-bench.
 *
 * Each experiment lives in its own file and registers itself with
 * QB_EXPERIMENT(); main.c runs them by name or all in order (the seed
 * experiments first).  Figures are recorded with their spread over
 * repetitions through qb_record(), and ratios against a peer through
 * qb_ratio(); main.c prints them and writes bench-results/.
 */
#ifndef QUIESCE_BENCH_H
#define QUIESCE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qb_options {
	bool quick;		/* the 30-second version */
	int repetitions;	/* how many samples each figure takes */
	uint64_t budget_ns;	/* what one experiment may take, all rows together */
};

struct qb_experiment {
	const char *name;	/* the subcommand */
	const char *title;	/* one line for the report */
	int order;		/* 0-99 seed experiments, 100+ peer tables */
	void (*run)(const struct qb_options *opt);
};

void qb_register(const struct qb_experiment *e);

#define QB_EXPERIMENT(ident, ...)                                         \
	static const struct qb_experiment ident = { __VA_ARGS__ };        \
	__attribute__((constructor)) static void ident##_register(void)   \
	{                                                                 \
		qb_register(&ident);                                      \
	}

uint64_t qb_now_ns(void);

struct qb_spread {
	double min, median, max;
	int n;
};

/*
 * Records one figure: its samples' min/median/max, printed as a row and
 * kept for the CSV/JSON results.  Returns the spread.
 */
struct qb_spread qb_record(const char *experiment, const char *subject,
			   const char *metric, const char *unit,
			   const double *samples, int n);
/* qb_record() for a figure held to a goal of its own (">= 0.5"), printed after it. */
struct qb_spread qb_record_goal(const char *experiment, const char *subject,
				const char *metric, const char *unit,
				const double *samples, int n, const char *goal);

/*
 * Records the ratio of two figures recorded before (numerator / denominator
 * medians, with the range their spreads allow), and the goal it is held to
 * ("<= 1.0", or NULL).  Returns the median ratio.
 */
double qb_ratio(const char *experiment, const char *metric,
		const char *numerator, const char *denominator,
		const char *goal);

/* Names a peer that this build lacks, with the package that brings it. */
void qb_missing_peer(const char *experiment, const char *peer,
		     const char *package);

/*
 * One row of the seed table, which the report prints once the seed
 * experiments have run: what the kernel thread measured before and after
 * its change, and the analog measured now.  Higher-is-better figures and
 * lower-is-better ones both read as "after / before".
 */
struct qb_seed_row {
	int seed;			/* 000-004, the file in shared/seeds/ */
	const char *thread;		/* the thread's subject, shortened */
	const char *kernel_before;	/* the thread's figures, as it gave them */
	const char *kernel_after;
	const char *kernel_change;	/* e.g. "38x faster", "+27.1%" */
	const char *ours_before_label;	/* what "before" is here */
	const char *ours_after_label;
	double ours_before, ours_after;	/* medians */
	const char *unit;
};
void qb_seed_result(const struct qb_seed_row *row);

/*
 * A point on a plot: plot names the file (bench-results/<plot>.png), series
 * one line on it.  y carries its spread, drawn as an error bar.
 */
void qb_plot_point(const char *plot, const char *title, const char *xlabel,
		   const char *ylabel, const char *series, double x,
		   struct qb_spread y);

/* Prints an indented note under the rows, e.g. "projected from N". */
void qb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A /sys/kernel knob's value ("rcu_expedited": the one every grace-period
 * figure depends on), or "?" where it cannot be read.  Two calls' results
 * may be used at once.
 */
const char *qb_kernel_knob(const char *name);

/* Prints a heading for a group of rows. */
void qb_heading(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One progress line on stderr: main.c prints one as each experiment starts;
 * an experiment may add one per phase that takes seconds.
 */
void qb_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The deadline of a part of an experiment that started at `start` and may
 * take `share` (0..1] of the experiment's budget.  A row that cannot do all
 * its items by then measures fewer and says so ("projected from N").
 */
static inline uint64_t qb_deadline(const struct qb_options *opt, uint64_t start, double share)
{
	return start + (uint64_t)((double)opt->budget_ns * share);
}

/*
 * The deadline of one run, planned to end at `share` of the budget from
 * `start` and to take `run_share` of it: the planned end, or, when earlier
 * runs ran over (a barrier that drains their callbacks, a wait that no
 * deadline cuts), half the run's time from now.  Without that floor a run
 * that starts late measures a handful of items, and its row measures its
 * fixed costs rather than its rate, against a peer whose runs came later
 * and were on time.  qb_not_before() applies the floor itself, for a run
 * that sets up (allocates its objects) before it starts the clock.
 */
static inline uint64_t qb_not_before(uint64_t planned, uint64_t least_ns)
{
	uint64_t least = qb_now_ns() + least_ns;

	return planned > least ? planned : least;
}

static inline uint64_t qb_run_floor_ns(const struct qb_options *opt, double run_share)
{
	return (uint64_t)((double)opt->budget_ns * run_share / 2);
}

static inline uint64_t qb_run_deadline(const struct qb_options *opt, uint64_t start, double share,
				       double run_share)
{
	return qb_not_before(qb_deadline(opt, start, share), qb_run_floor_ns(opt, run_share));
}

/* Runs fn(arg_i) on n threads, released together; returns when all end. */
void qb_run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size);

#endif
