/*
 * liburcu's call_rcu (memb flavor, its default callback thread) under the
 * workload of bench/call_rcu.c.  Only liburcu's headers here: its names
 * clash with quiesce's.
 */
#define _LGPL_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include "bench.h"
#include "call_rcu_peer.h"

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

static void free_obj(struct rcu_head *head)
{
	free(caa_container_of(head, struct obj, rcu));
	atomic_fetch_add_explicit(&freed, 1, memory_order_relaxed);
}

static long alive(struct enqueuer *all, int n)
{
	long a = 0;

	for (int i = 0; i < n; i++)
		a += atomic_load_explicit(&all[i].allocated, memory_order_relaxed);
	return a - atomic_load_explicit(&freed, memory_order_relaxed);
}

static struct enqueuer *enqueuers;
static int enqueuer_count;

static void *enqueue(void *arg)
{
	struct enqueuer *self = arg;

	urcu_memb_register_thread();
	for (long i = 1; i <= self->per_thread; i++) {
		struct obj *o = malloc(sizeof(*o));

		o->payload[0] = i;
		urcu_memb_call_rcu(&o->rcu, free_obj);
		if (i % SAMPLE_EVERY == 0) {
			long now, p;

			atomic_store_explicit(&self->allocated, i, memory_order_relaxed);
			now = alive(enqueuers, enqueuer_count);
			p = atomic_load(&peak);
			while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
				;
		}
	}
	atomic_store_explicit(&self->allocated, self->per_thread, memory_order_relaxed);
	urcu_memb_unregister_thread();
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
	urcu_memb_barrier();
	return (double)threads * (double)per_thread / ((qb_now_ns() - start) / 1e9);
}

double qb_urcu_call_rcu_rate(int threads, long per_thread)
{
	return run(threads, per_thread);
}

long qb_urcu_call_rcu_flood_peak(int threads, long per_thread)
{
	run(threads, per_thread);
	return atomic_load(&peak);
}
