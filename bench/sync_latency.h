/*
 * sync_latency.h - the synchronize-latency measurement that the rcu and
 * backends experiments share: busy reader threads, then grace periods
 * timed one by one.
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

#endif
