/*
 * liburcu's wait-free queue (cds_wfcq), wait-free stack (cds_wfs) and
 * lock-free stack (cds_lfs, popped under the memb flavor's read lock) as
 * queue flavors, inline (_LGPL_SOURCE) as their users build them.  Only
 * liburcu's headers here: its names clash with quiesce's.
 */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>
#include <urcu/lfstack.h>
#include <urcu/wfcqueue.h>
#include <urcu/wfstack.h>

#include "queue_flavor.h"

_Static_assert(sizeof(struct cds_wfcq_node) <= QB_NODE_BYTES, "liburcu's node fits");

struct urcu_queue {
	struct cds_wfcq_head head __attribute__((aligned(64)));
	struct cds_wfcq_tail tail __attribute__((aligned(64)));
	/* The splicing consumer's own queue. */
	struct __cds_wfcq_head mine_head __attribute__((aligned(64)));
	struct cds_wfcq_tail mine_tail;
};

static void *wfcq_create(void)
{
	struct urcu_queue *q = qb_queue_alloc(sizeof(*q));

	cds_wfcq_init(&q->head, &q->tail);
	__cds_wfcq_init(&q->mine_head, &q->mine_tail);
	return q;
}

static void wfcq_destroy(void *p)
{
	struct urcu_queue *q = p;

	cds_wfcq_destroy(&q->head, &q->tail);
	qb_queue_free(q);
}

static void wfcq_enqueue(void *p, struct qb_item *it)
{
	struct urcu_queue *q = p;
	struct cds_wfcq_node *node = (struct cds_wfcq_node *)it->node;

	cds_wfcq_node_init(node);
	cds_wfcq_enqueue(&q->head, &q->tail, node);
}

static struct qb_item *wfcq_dequeue(void *p, bool single, struct qb_item **released)
{
	struct urcu_queue *q = p;
	struct cds_wfcq_node *node = single ? __cds_wfcq_dequeue_blocking(&q->head, &q->tail)
					    : cds_wfcq_dequeue_blocking(&q->head, &q->tail);

	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

static void wfcq_splice_all(void *p, void (*release)(struct qb_item *it))
{
	struct urcu_queue *q = p;
	struct cds_wfcq_node *node, *n;

	if (__cds_wfcq_splice_blocking(&q->mine_head, &q->mine_tail, &q->head, &q->tail) ==
	    CDS_WFCQ_RET_SRC_EMPTY)
		return;
	__cds_wfcq_for_each_blocking_safe(&q->mine_head, &q->mine_tail, node, n)
		release((struct qb_item *)node);
	__cds_wfcq_init(&q->mine_head, &q->mine_tail);
}

const struct qb_queue_flavor qb_urcu_wfcq = {
	.name = "liburcu cds_wfcq",
	.create = wfcq_create,
	.destroy = wfcq_destroy,
	.enqueue = wfcq_enqueue,
	.dequeue = wfcq_dequeue,
	.splice_all = wfcq_splice_all,
};

static void *wfs_create(void)
{
	struct cds_wfs_stack *s = qb_queue_alloc(sizeof(*s));

	cds_wfs_init(s);
	return s;
}

static void wfs_destroy(void *s)
{
	cds_wfs_destroy(s);
	qb_queue_free(s);
}

static void wfs_push(void *s, struct qb_item *it)
{
	struct cds_wfs_node *node = (struct cds_wfs_node *)it->node;

	cds_wfs_node_init(node);
	cds_wfs_push((struct cds_wfs_stack *)s, node);
}

static struct qb_item *wfs_pop(void *s, bool single, struct qb_item **released)
{
	struct cds_wfs_node *node = single ? __cds_wfs_pop_blocking((struct cds_wfs_stack *)s)
					   : cds_wfs_pop_blocking(s);

	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

const struct qb_queue_flavor qb_urcu_wfs = {
	.name = "liburcu cds_wfs",
	.create = wfs_create,
	.destroy = wfs_destroy,
	.enqueue = wfs_push,
	.dequeue = wfs_pop,
};

static void *lfs_create(void)
{
	struct cds_lfs_stack *s = qb_queue_alloc(sizeof(*s));

	cds_lfs_init(s);
	return s;
}

static void lfs_destroy(void *s)
{
	cds_lfs_destroy(s);
	qb_queue_free(s);
}

static void lfs_push(void *s, struct qb_item *it)
{
	struct cds_lfs_node *node = (struct cds_lfs_node *)it->node;

	cds_lfs_node_init(node);
	cds_lfs_push((struct cds_lfs_stack *)s, node);
}

/* Under the read lock: the pool waits a grace period before reuse. */
static struct qb_item *lfs_pop(void *s, bool single, struct qb_item **released)
{
	struct cds_lfs_node *node;

	urcu_memb_read_lock();
	node = __cds_lfs_pop((struct cds_lfs_stack *)s);
	urcu_memb_read_unlock();
	*released = (struct qb_item *)node;
	return (struct qb_item *)node;
}

const struct qb_queue_flavor qb_urcu_lfs = {
	.name = "liburcu cds_lfs",
	.create = lfs_create,
	.destroy = lfs_destroy,
	.thread_start = urcu_memb_register_thread,
	.thread_stop = urcu_memb_unregister_thread,
	.enqueue = lfs_push,
	.dequeue = lfs_pop,
	.before_reuse = urcu_memb_synchronize_rcu,
};
