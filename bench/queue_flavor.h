/*
 * queue_flavor.h - one queue or stack implementation as the queues
 * experiment sees it, so that quiesce, liburcu and Concurrency Kit run the
 * same workload through the same indirect calls.
 *
 * Items never go back to malloc during a run: each producer owns two pools
 * and refills one while consumers drain the other, and reuses a pool only
 * once the queue has released every node in it (ck_fifo keeps the node of
 * the last item it dequeued as its dummy, so release can come one dequeue
 * late).
 */
#ifndef QUIESCE_BENCH_QUEUE_FLAVOR_H
#define QUIESCE_BENCH_QUEUE_FLAVOR_H

#include <stdbool.h>
#include <stdint.h>

/* Room for any flavor's node: ck_fifo_mpmc's entry is the largest. */
#define QB_NODE_BYTES 32

struct qb_pool;

struct qb_item {
	unsigned char node[QB_NODE_BYTES] __attribute__((aligned(16)));
	struct qb_pool *pool;
	unsigned long seq;
};

struct qb_queue_flavor {
	const char *name;
	void *(*create)(void);
	void (*destroy)(void *q);
	/* Optional: a thread's first and last call (RCU registration). */
	void (*thread_start)(void);
	void (*thread_stop)(void);
	void (*enqueue)(void *q, struct qb_item *it);
	/*
	 * Takes one item: returns it, NULL if empty.  *released is the item
	 * whose node the queue gave back (NULL for none).  single: the
	 * caller is the only consumer, for the flavors that have a cheaper
	 * path for that.
	 */
	struct qb_item *(*dequeue)(void *q, bool single, struct qb_item **released);
	/* Queues only (NULL for none): takes everything with one splice. */
	void (*splice_all)(void *q, void (*release)(struct qb_item *it));
	/* Optional: what must pass before a pool's nodes are pushed again. */
	void (*before_reuse)(void);
};

extern const struct qb_queue_flavor qb_quiesce_wfcq, qb_quiesce_wfs, qb_quiesce_lfs;
#ifdef QUIESCE_HAVE_URCU
extern const struct qb_queue_flavor qb_urcu_wfcq, qb_urcu_wfs, qb_urcu_lfs;
#endif
#ifdef QUIESCE_HAVE_CK
extern const struct qb_queue_flavor qb_ck_fifo_mpmc, qb_ck_stack;
#endif

/* Allocates or frees a queue object aligned to a cache line. */
void *qb_queue_alloc(unsigned long size);
void qb_queue_free(void *q);

#endif
