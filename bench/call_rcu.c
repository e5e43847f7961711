/*
 * call-rcu: call_rcu() end to end, against liburcu's call_rcu.
 *
 * One and two threads each allocate small objects and queue each for
 * freeing after a grace period; the figure is callbacks per second from the
 * start until rcu_barrier() returns.  Then a flood of 10^7 callbacks (10^6
 * quick): the peak number of objects queued and not yet freed, which is the
 * memory the pending callbacks hold.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "bench.h"
#include "call_rcu_peer.h"

#define EXPERIMENT "call-rcu"
#define SAMPLE_EVERY 1024

struct obj {
	struct rcu_head rcu;
	long payload[QB_CB_PAYLOAD_WORDS];
};

struct enqueuer {
	atomic_long allocated;
	long per_thread;
	char pad[48];
};

static atomic_long freed, peak;
static struct enqueuer *enqueuers;
static int enqueuer_count;

static void free_obj(struct rcu_head *head)
{
	free(container_of(head, struct obj, rcu));
	atomic_fetch_add_explicit(&freed, 1, memory_order_relaxed);
}

static long alive(void)
{
	long a = 0;

	for (int i = 0; i < enqueuer_count; i++)
		a += atomic_load_explicit(&enqueuers[i].allocated, memory_order_relaxed);
	return a - atomic_load_explicit(&freed, memory_order_relaxed);
}

static void *enqueue(void *arg)
{
	struct enqueuer *self = arg;

	for (long i = 1; i <= self->per_thread; i++) {
		struct obj *o = malloc(sizeof(*o));

		o->payload[0] = i;
		call_rcu(&o->rcu, free_obj);
		if (i % SAMPLE_EVERY == 0) {
			long now, p;

			atomic_store_explicit(&self->allocated, i, memory_order_relaxed);
			now = alive();
			p = atomic_load(&peak);
			while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
				;
		}
	}
	atomic_store_explicit(&self->allocated, self->per_thread, memory_order_relaxed);
	return NULL;
}

static double run(int threads, long per_thread)
{
	struct enqueuer all[threads];
	uint64_t start;

	for (int i = 0; i < threads; i++) {
		atomic_store(&all[i].allocated, 0);
		all[i].per_thread = per_thread;
	}
	enqueuers = all;
	enqueuer_count = threads;
	atomic_store(&freed, 0);
	atomic_store(&peak, 0);
	start = qb_now_ns();
	qb_run_threads(threads, enqueue, all, sizeof(all[0]));
	rcu_barrier();
	return (double)threads * (double)per_thread / ((qb_now_ns() - start) / 1e9);
}

static void throughput(const struct qb_options *opt, int threads)
{
	long per_thread = (opt->quick ? 200000 : 2000000) / threads;
	double ours[opt->repetitions];
	char subject[64], metric[32];

	snprintf(metric, sizeof(metric), "%d enqueuer%s", threads, threads > 1 ? "s" : "");
	for (int r = 0; r < opt->repetitions; r++)
		ours[r] = run(threads, per_thread) / 1e6;
	snprintf(subject, sizeof(subject), "quiesce call_rcu");
	qb_record(EXPERIMENT, subject, metric, "M cb/s", ours, opt->repetitions);
#ifdef QUIESCE_HAVE_URCU
	double peer[opt->repetitions];

	for (int r = 0; r < opt->repetitions; r++)
		peer[r] = qb_urcu_call_rcu_rate(threads, per_thread) / 1e6;
	qb_record(EXPERIMENT, "liburcu call_rcu", metric, "M cb/s", peer, opt->repetitions);
	qb_ratio(EXPERIMENT, metric, "quiesce call_rcu", "liburcu call_rcu", ">= 1.0");
#endif
}

static void flood(const struct qb_options *opt)
{
	long per_thread = (opt->quick ? 1000000 : 10000000) / 2;
	double pending, mib;

	qb_heading("flood of %ld callbacks from 2 threads: peak held by pending callbacks",
		   2 * per_thread);
	run(2, per_thread);
	pending = (double)atomic_load(&peak);
	mib = pending * (double)sizeof(struct obj) / (1 << 20);
	qb_record(EXPERIMENT, "quiesce call_rcu", "flood peak pending", "callbacks", &pending, 1);
	qb_record(EXPERIMENT, "quiesce call_rcu", "flood peak memory", "MiB", &mib, 1);
#ifdef QUIESCE_HAVE_URCU
	pending = (double)qb_urcu_call_rcu_flood_peak(2, per_thread);
	mib = pending * (double)sizeof(struct obj) / (1 << 20);
	qb_record(EXPERIMENT, "liburcu call_rcu", "flood peak pending", "callbacks", &pending, 1);
	qb_record(EXPERIMENT, "liburcu call_rcu", "flood peak memory", "MiB", &mib, 1);
#endif
}

static void run_call_rcu(const struct qb_options *opt)
{
#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXPERIMENT, "liburcu call_rcu", "liburcu-dev");
#endif
	throughput(opt, 1);
	throughput(opt, 2);
	flood(opt);
}

QB_EXPERIMENT(call_rcu_experiment, .name = EXPERIMENT,
	      .title = "call_rcu() end to end (callbacks/s, rcu_barrier included) and flood memory, vs liburcu",
	      .order = 120, .run = run_call_rcu);
