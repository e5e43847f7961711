/*
 * sync_latency.h - the synchronize-latency measurement that the rcu, qsbr,
 * srcu and backends experiments share: busy reader threads, then grace
 * periods timed one by one, and the rows a latency table records.
 */
#ifndef QUIESCE_BENCH_SYNC_LATENCY_H
#define QUIESCE_BENCH_SYNC_LATENCY_H

#include <stdint.h>

#include "rcu_flavor.h"

/*
 * Starts `readers` threads that register with the flavor and enter and
 * leave read-side sections back to back, then times up to max_calls
 * synchronize calls (at least one) until the deadline, under rcu_normal if
 * the flavor asks for it.  Returns how many calls were timed; their median
 * and p99 in microseconds.  With no reader a call takes tens of
 * nanoseconds, a few ticks of the clock: each sample is then the mean of
 * QB_SYNC_NO_READER_BATCH calls timed together.
 */
#define QB_SYNC_NO_READER_BATCH 64

int qb_sync_latency(const struct qb_rcu_flavor *flavor, int readers, int max_calls,
		    uint64_t deadline, double *median_us, double *p99_us);

struct qb_options;

/*
 * One row pair of a latency table: qb_sync_latency() once per repetition,
 * each to the deadline of the next of `cells` equal slices of `share` of
 * the budget (*cell counts the slices used), recorded as the flavor's
 * median_metric and p99_metric rows of experiment exp, in microseconds,
 * with a note of how many calls were timed.  Returns the medians' spread,
 * and the p99s' in *p99.
 */
struct qb_spread qb_sync_latency_rows(const char *exp, const struct qb_rcu_flavor *flavor,
				      int readers, int max_calls, const struct qb_options *opt,
				      uint64_t start, double share, int *cell, int cells,
				      const char *median_metric, const char *p99_metric,
				      struct qb_spread *p99);

#endif
