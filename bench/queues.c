/*
 * queues: the wait-free queue and the two stacks against liburcu's
 * cds_wfcq / cds_wfs / cds_lfs and Concurrency Kit's ck_fifo_mpmc /
 * ck_stack.
 *
 * Throughput: producers enqueue (push) items from their pools for a fixed
 * time while consumers dequeue (pop) them; the figure is items that went
 * through, per second, from the start until the last consumer found the
 * queue drained: one enqueue and one dequeue per item ("pairs").  With one
 * producer and one consumer the consumer uses each flavor's
 * single-consumer path where it has one (quiesce's sc_ calls, liburcu's
 * __cds_ calls); with two and two, the locked or lock-free path.  The
 * lock-free stacks pop inside a read-side critical section and wait for a
 * grace period before a pool is pushed again (an expedited one: liburcu's
 * memb flavor always expedites).
 *
 * Latency: two producers time each enqueue while one consumer splices the
 * whole queue into its own, continuously, and drains that: the p99 of the
 * enqueue, timer included (the CPU's cycle counter).  ck_fifo has no
 * splice and is left out there.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/stack.h>
#include <quiesce/wfqueue.h>

#include "bench.h"
#include "queue_flavor.h"

#define EXPERIMENT "queues"
#define POOL_ITEMS 16384
/* Consumers add up releases locally and publish them in batches. */
#define RELEASE_BATCH 256
/* Latency samples each producer keeps (the first ones of its run). */
#define LATENCY_SAMPLES (1u << 20)

struct qb_pool {
	struct qb_item items[POOL_ITEMS];
	atomic_uint released __attribute__((aligned(64)));
};

void *qb_queue_alloc(unsigned long size)
{
	void *q = aligned_alloc(64, (size + 63) & ~63UL);

	if (!q) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(q, 0, size);
	return q;
}

void qb_queue_free(void *q)
{
	free(q);
}

/* ---- quiesce's flavors ---- */

struct quiesce_queue {
	struct quiesce_wfcq_head head __attribute__((aligned(64)));
	struct quiesce_wfcq_tail tail __attribute__((aligned(64)));
	struct quiesce_wfcq_head mine_head __attribute__((aligned(64)));
	struct quiesce_wfcq_tail mine_tail;
};

static void *wfcq_create(void)
{
	struct quiesce_queue *q = qb_queue_alloc(sizeof(*q));

	quiesce_wfcq_init(&q->head, &q->tail);
	quiesce_wfcq_sc_init(&q->mine_head, &q->mine_tail);
	return q;
}

static void wfcq_destroy(void *p)
{
	struct quiesce_queue *q = p;

	quiesce_wfcq_destroy(&q->head, &q->tail);
	qb_queue_free(q);
}

static void wfcq_enqueue(void *p, struct qb_item *it)
{
	struct quiesce_queue *q = p;

	quiesce_wfcq_enqueue(&q->head, &q->tail, (struct quiesce_wfcq_node *)it->node);
}

static struct qb_item *wfcq_dequeue(void *p, bool single, struct qb_item **released)
{
	struct quiesce_queue *q = p;
	struct quiesce_wfcq_node *node = single ? quiesce_wfcq_sc_dequeue_blocking(&q->head, &q->tail)
					       : quiesce_wfcq_dequeue_blocking(&q->head, &q->tail);

	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

static void wfcq_splice_all(void *p, void (*release)(struct qb_item *it))
{
	struct quiesce_queue *q = p;
	struct quiesce_wfcq_node *node, *n;

	if (quiesce_wfcq_sc_splice_blocking(&q->mine_head, &q->mine_tail, &q->head, &q->tail) ==
	    QUIESCE_WFCQ_RET_SRC_EMPTY)
		return;
	quiesce_wfcq_sc_for_each_blocking_safe(&q->mine_head, &q->mine_tail, node, n)
		release((struct qb_item *)node);
	quiesce_wfcq_sc_init(&q->mine_head, &q->mine_tail);
}

const struct qb_queue_flavor qb_quiesce_wfcq = {
	.name = "quiesce wfcq",
	.create = wfcq_create,
	.destroy = wfcq_destroy,
	.enqueue = wfcq_enqueue,
	.dequeue = wfcq_dequeue,
	.splice_all = wfcq_splice_all,
};

static void *wfs_create(void)
{
	struct quiesce_wfs_stack *s = qb_queue_alloc(sizeof(*s));

	quiesce_wfs_init(s);
	return s;
}

static void wfs_destroy(void *s)
{
	quiesce_wfs_destroy(s);
	qb_queue_free(s);
}

static void wfs_push(void *s, struct qb_item *it)
{
	quiesce_wfs_push(s, (struct quiesce_wfs_node *)it->node);
}

static struct qb_item *wfs_pop(void *s, bool single, struct qb_item **released)
{
	struct quiesce_wfs_node *node = single ? quiesce_wfs_sc_pop_blocking(s) : quiesce_wfs_pop_blocking(s);

	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

const struct qb_queue_flavor qb_quiesce_wfs = {
	.name = "quiesce wfs",
	.create = wfs_create,
	.destroy = wfs_destroy,
	.enqueue = wfs_push,
	.dequeue = wfs_pop,
};

static void *lfs_create(void)
{
	struct quiesce_lfs_stack *s = qb_queue_alloc(sizeof(*s));

	quiesce_lfs_init(s);
	return s;
}

static void lfs_destroy(void *s)
{
	quiesce_lfs_destroy(s);
	qb_queue_free(s);
}

static void lfs_push(void *s, struct qb_item *it)
{
	quiesce_lfs_push(s, (struct quiesce_lfs_node *)it->node);
}

static struct qb_item *lfs_pop(void *s, bool single, struct qb_item **released)
{
	struct quiesce_lfs_node *node;

	rcu_read_lock();
	node = quiesce_lfs_pop_rcu(s);
	rcu_read_unlock();
	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

const struct qb_queue_flavor qb_quiesce_lfs = {
	.name = "quiesce lfs",
	.create = lfs_create,
	.destroy = lfs_destroy,
	.thread_stop = quiesce_rcu_unregister_thread,
	.enqueue = lfs_push,
	.dequeue = lfs_pop,
	/*
	 * liburcu's memb flavor waits with membarrier(PRIVATE_EXPEDITED):
	 * quiesce's expedited grace period is the same mechanism.
	 */
	.before_reuse = quiesce_synchronize_rcu_expedited,
};

/* ---- the workload ---- */

/* The cycle counter, for per-enqueue timing cheaper than clock_gettime(). */
static inline uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
#else
	return qb_now_ns();
#endif
}

static double ns_per_tick(void)
{
	uint64_t t0 = ticks(), n0 = qb_now_ns();

	while (qb_now_ns() - n0 < 20000000)
		;
	return (double)(qb_now_ns() - n0) / (double)(ticks() - t0);
}

enum role { PRODUCER, CONSUMER, SPLICER };

struct worker {
	const struct qb_queue_flavor *flavor;
	void *q;
	enum role role;
	bool single;
	uint64_t run_ns;
	struct qb_pool *pools;		/* producers: two */
	uint32_t *latency;		/* producers timing enqueues, in ticks */
	uint64_t latency_n;
	uint64_t ops, start_ns, end_ns;
	char pad[64];
};

static atomic_int producers_running;
static __thread struct qb_pool *release_pool;
static __thread unsigned release_pending;

static void release_flush(void)
{
	if (release_pending)
		/* Release: our reads of the items before the producer reuses them. */
		atomic_fetch_add_explicit(&release_pool->released, release_pending,
					  memory_order_release);
	release_pending = 0;
}

static void release_item(struct qb_item *it)
{
	if (it->pool != release_pool || release_pending == RELEASE_BATCH) {
		release_flush();
		release_pool = it->pool;
	}
	release_pending++;
}

static void produce(struct worker *w)
{
	uint64_t end = w->start_ns + w->run_ns;

	for (uint64_t k = 0;; k++) {
		struct qb_pool *pool = &w->pools[k & 1];

		if (k >= 2) {
			/* Acquire: pairs with the consumers' release_flush(). */
			while (atomic_load_explicit(&pool->released, memory_order_acquire) != POOL_ITEMS)
				quiesce_cpu_relax();
			if (w->flavor->before_reuse)
				w->flavor->before_reuse();
			atomic_store_explicit(&pool->released, 0, memory_order_relaxed);
		}
		for (unsigned i = 0; i < POOL_ITEMS; i++) {
			struct qb_item *it = &pool->items[i];

			if (i % 64 == 0 && qb_now_ns() >= end)
				return;
			it->seq = w->ops++;
			if (w->latency && w->latency_n < LATENCY_SAMPLES) {
				uint64_t t0 = ticks();

				w->flavor->enqueue(w->q, it);
				w->latency[w->latency_n++] = (uint32_t)(ticks() - t0);
			} else {
				w->flavor->enqueue(w->q, it);
			}
		}
	}
}

static void consume(struct worker *w)
{
	for (;;) {
		struct qb_item *released, *it = w->flavor->dequeue(w->q, w->single, &released);

		if (released)
			release_item(released);
		if (it) {
			w->ops++;
			continue;
		}
		release_flush();
		/* Acquire: the producers' enqueues are all done and linked. */
		if (!atomic_load_explicit(&producers_running, memory_order_acquire)) {
			it = w->flavor->dequeue(w->q, w->single, &released);
			if (released)
				release_item(released);
			if (!it)
				break;
			w->ops++;
			continue;
		}
		quiesce_cpu_relax();
	}
	release_flush();
}

static void splice(struct worker *w)
{
	for (;;) {
		bool last = !atomic_load_explicit(&producers_running, memory_order_acquire);

		w->flavor->splice_all(w->q, release_item);
		release_flush();
		if (last)
			break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	if (w->flavor->thread_start)
		w->flavor->thread_start();
	w->start_ns = qb_now_ns();
	if (w->role == PRODUCER) {
		produce(w);
		atomic_fetch_sub_explicit(&producers_running, 1, memory_order_release);
	} else if (w->role == CONSUMER) {
		consume(w);
	} else {
		splice(w);
	}
	w->end_ns = qb_now_ns();
	if (w->flavor->thread_stop)
		w->flavor->thread_stop();
	return NULL;
}

static struct qb_pool *pools_new(void)
{
	struct qb_pool *pools = aligned_alloc(64, 2 * sizeof(struct qb_pool));

	if (!pools) {
		perror("aligned_alloc");
		exit(1);
	}
	for (int p = 0; p < 2; p++) {
		for (unsigned i = 0; i < POOL_ITEMS; i++)
			pools[p].items[i].pool = &pools[p];
		atomic_store(&pools[p].released, 0);
	}
	return pools;
}

/*
 * One run: producers for run_ns, then until drained.  Returns items per
 * second; with latency, fills it with the producers' enqueue times (ticks).
 */
static double run(const struct qb_queue_flavor *f, int producers, int consumers, bool splicer,
		  uint64_t run_ns, uint32_t **latency, uint64_t *latency_n)
{
	int n = producers + consumers;
	struct worker w[n];
	uint64_t items = 0, start = UINT64_MAX, end = 0;
	void *q = f->create();

	memset(w, 0, sizeof(w));
	atomic_store(&producers_running, producers);
	for (int i = 0; i < n; i++) {
		w[i].flavor = f;
		w[i].q = q;
		w[i].run_ns = run_ns;
		w[i].single = consumers == 1;
		if (i < producers) {
			w[i].role = PRODUCER;
			w[i].pools = pools_new();
			w[i].latency = latency ? latency[i] : NULL;
		} else {
			w[i].role = splicer ? SPLICER : CONSUMER;
		}
	}
	qb_run_threads(n, worker_main, w, sizeof(w[0]));
	for (int i = 0; i < n; i++) {
		if (w[i].start_ns < start)
			start = w[i].start_ns;
		if (w[i].end_ns > end)
			end = w[i].end_ns;
		if (i < producers) {
			items += w[i].ops;
			if (latency_n)
				latency_n[i] = w[i].latency_n;
			free(w[i].pools);
		}
	}
	f->destroy(q);
	return (double)items / ((double)(end - start) / 1e9);
}

static const struct qb_queue_flavor *const queue_flavors[] = {
	&qb_quiesce_wfcq,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_wfcq,
#endif
#ifdef QUIESCE_HAVE_CK
	&qb_ck_fifo_mpmc,
#endif
};

static const struct qb_queue_flavor *const stack_flavors[] = {
	&qb_quiesce_wfs,
	&qb_quiesce_lfs,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_wfs,
	&qb_urcu_lfs,
#endif
#ifdef QUIESCE_HAVE_CK
	&qb_ck_stack,
#endif
};

static const struct qb_queue_flavor *const splice_flavors[] = {
	&qb_quiesce_wfcq,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_wfcq,
#endif
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool is_ours(const struct qb_queue_flavor *f)
{
	return !strncmp(f->name, "quiesce", 7);
}

/* One throughput row: every flavor, repetitions interleaved. */
static void pairs(const struct qb_options *opt, const char *what,
		  const struct qb_queue_flavor *const *flavors, int count, int per_side,
		  uint64_t run_ns)
{
	int reps = opt->repetitions;
	double rate[count][reps];
	const char *best_ours = NULL, *best_peer = NULL;
	double best_ours_rate = 0, best_peer_rate = 0;
	char metric[48];

	snprintf(metric, sizeof(metric), "%s %d+%d", what, per_side, per_side);
	qb_progress("%s: %s pairs/s, %d flavors x %d runs of %.0f ms", EXPERIMENT, metric, count,
		    reps, run_ns / 1e6);
	for (int r = 0; r < reps; r++)
		for (int f = 0; f < count; f++)
			rate[f][r] = run(flavors[f], per_side, per_side, false, run_ns, NULL, NULL) / 1e6;
	for (int f = 0; f < count; f++) {
		struct qb_spread s = qb_record(EXPERIMENT, flavors[f]->name, metric, "M pairs/s",
					       rate[f], reps);

		qb_plot_point(what[0] == 'q' ? "queues-queue-pairs" : "queues-stack-pairs",
			      what[0] == 'q' ? "queue: enqueue+dequeue pairs" : "stack: push+pop pairs",
			      "threads per side", "M pairs/s", flavors[f]->name, per_side, s);
		if (is_ours(flavors[f]) && s.median > best_ours_rate) {
			best_ours_rate = s.median;
			best_ours = flavors[f]->name;
		} else if (!is_ours(flavors[f]) && s.median > best_peer_rate) {
			best_peer_rate = s.median;
			best_peer = flavors[f]->name;
		}
	}
	if (best_peer)
		qb_ratio(EXPERIMENT, metric, best_ours, best_peer, ">= 1.2");
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Enqueue latency under a consumer that splices the whole queue. */
static void splice_latency(const struct qb_options *opt, uint64_t run_ns)
{
	int reps = opt->repetitions, count = COUNT(splice_flavors);
	double p50[count][reps], p99[count][reps], tick_ns = ns_per_tick();
	uint32_t *lat[2], *all = malloc(2 * LATENCY_SAMPLES * sizeof(uint32_t));

	qb_progress("%s: enqueue latency under a splicing consumer, %d flavors x %d runs of %.0f ms",
		    EXPERIMENT, count, reps, run_ns / 1e6);
	for (int p = 0; p < 2; p++)
		lat[p] = malloc(LATENCY_SAMPLES * sizeof(uint32_t));
	for (int r = 0; r < reps; r++) {
		for (int f = 0; f < count; f++) {
			uint64_t n[2], total;

			run(splice_flavors[f], 2, 1, true, run_ns, lat, n);
			memcpy(all, lat[0], n[0] * sizeof(uint32_t));
			memcpy(all + n[0], lat[1], n[1] * sizeof(uint32_t));
			total = n[0] + n[1];
			qsort(all, total, sizeof(uint32_t), cmp_u32);
			p50[f][r] = all[total / 2] * tick_ns;
			p99[f][r] = all[total * 99 / 100] * tick_ns;
		}
	}
	for (int f = 0; f < count; f++) {
		qb_record(EXPERIMENT, splice_flavors[f]->name, "enqueue p50, splicing consumer", "ns",
			  p50[f], reps);
		qb_record(EXPERIMENT, splice_flavors[f]->name, "enqueue p99, splicing consumer", "ns",
			  p99[f], reps);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, "enqueue p99, splicing consumer", qb_quiesce_wfcq.name, qb_urcu_wfcq.name,
		 "<= 1.0");
#endif
	for (int p = 0; p < 2; p++)
		free(lat[p]);
	free(all);
}

static void run_queues(const struct qb_options *opt)
{
	int runs = 2 * COUNT(queue_flavors) + 2 * COUNT(stack_flavors) + COUNT(splice_flavors);
	/*
	 * A run's own time, leaving a third of the budget for what comes
	 * around it: thread starts, drains, producers waiting for a pool.
	 */
	uint64_t run_ns = (uint64_t)((double)opt->budget_ns * 0.65 / (runs * opt->repetitions));

#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXPERIMENT, "liburcu cds_wfcq, cds_wfs, cds_lfs", "liburcu-dev");
#endif
#ifndef QUIESCE_HAVE_CK
	qb_missing_peer(EXPERIMENT, "ck_fifo_mpmc, ck_stack", "libck-dev");
#endif
	qb_heading("enqueue+dequeue pairs/s (queues), push+pop pairs/s (stacks)");
	pairs(opt, "queue", queue_flavors, COUNT(queue_flavors), 1, run_ns);
	pairs(opt, "queue", queue_flavors, COUNT(queue_flavors), 2, run_ns);
	pairs(opt, "stack", stack_flavors, COUNT(stack_flavors), 1, run_ns);
	pairs(opt, "stack", stack_flavors, COUNT(stack_flavors), 2, run_ns);
	qb_heading("enqueue latency, 2 producers, 1 consumer splicing the whole queue continuously");
	splice_latency(opt, run_ns);
}

QB_EXPERIMENT(queues_experiment, .name = EXPERIMENT,
	      .title = "wait-free queue and stacks vs liburcu cds_wfcq/wfs/lfs and ck_fifo_mpmc/ck_stack",
	      .order = 150, .run = run_queues);
