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
#include "call_rcu_flavor.h"

#define EXPERIMENT "call-rcu"
#define SAMPLE_EVERY 1024

_Static_assert(sizeof(struct rcu_head) == QB_CB_HEAD_BYTES, "quiesce's head size");

static void free_object(struct rcu_head *head)
{
	qb_cb_free(head);
}

static void queue(void *obj)
{
	call_rcu((struct rcu_head *)obj, free_object);
}

const struct qb_cb_flavor qb_quiesce_call_rcu = {
	.name = "quiesce call_rcu",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.queue = queue,
	.barrier = quiesce_rcu_barrier,
};

struct enqueuer {
	const struct qb_cb_flavor *flavor;
	atomic_long allocated;
	long per_thread;
	char pad[40];
};

static atomic_long freed, peak;
static struct enqueuer *enqueuers;
static int enqueuer_count;

void qb_cb_free(void *obj)
{
	free(obj);
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

	self->flavor->register_thread();
	for (long i = 1; i <= self->per_thread; i++) {
		long *obj = malloc(QB_CB_OBJECT_BYTES);

		obj[QB_CB_HEAD_BYTES / sizeof(long)] = i;
		self->flavor->queue(obj);
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
	self->flavor->unregister_thread();
	return NULL;
}

/* Callbacks per second, from the start until the barrier has returned. */
static double run(const struct qb_cb_flavor *flavor, int threads, long per_thread)
{
	struct enqueuer all[threads];
	uint64_t start;

	for (int i = 0; i < threads; i++) {
		all[i].flavor = flavor;
		atomic_store(&all[i].allocated, 0);
		all[i].per_thread = per_thread;
	}
	enqueuers = all;
	enqueuer_count = threads;
	atomic_store(&freed, 0);
	atomic_store(&peak, 0);
	start = qb_now_ns();
	qb_run_threads(threads, enqueue, all, sizeof(all[0]));
	flavor->barrier();
	return (double)threads * (double)per_thread / ((qb_now_ns() - start) / 1e9);
}

static const struct qb_cb_flavor *const flavors[] = {
	&qb_quiesce_call_rcu,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_call_rcu,
#endif
};
#define FLAVORS (sizeof(flavors) / sizeof(flavors[0]))

static void throughput(const struct qb_options *opt, int threads)
{
	long per_thread = (opt->quick ? 200000 : 2000000) / threads;
	char metric[32];

	snprintf(metric, sizeof(metric), "%d enqueuer%s", threads, threads > 1 ? "s" : "");
	for (size_t f = 0; f < FLAVORS; f++) {
		double rate[opt->repetitions];

		for (int r = 0; r < opt->repetitions; r++)
			rate[r] = run(flavors[f], threads, per_thread) / 1e6;
		qb_record(EXPERIMENT, flavors[f]->name, metric, "M cb/s", rate, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, metric, qb_quiesce_call_rcu.name, qb_urcu_call_rcu.name, ">= 1.0");
#endif
}

static void flood(const struct qb_options *opt)
{
	long per_thread = (opt->quick ? 1000000 : 10000000) / 2;

	qb_heading("flood of %ld callbacks from 2 threads: peak held by pending callbacks",
		   2 * per_thread);
	for (size_t f = 0; f < FLAVORS; f++) {
		double pending, mib;

		run(flavors[f], 2, per_thread);
		pending = (double)atomic_load(&peak);
		mib = pending * (double)QB_CB_OBJECT_BYTES / (1 << 20);
		qb_record(EXPERIMENT, flavors[f]->name, "flood peak pending", "callbacks", &pending, 1);
		qb_record(EXPERIMENT, flavors[f]->name, "flood peak memory", "MiB", &mib, 1);
	}
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
