/*
 * urcu/rculfqueue.h (quiesce overlay) - liburcu's RCU lock-free queue
 * (cds_lfq) on quiesce's wait-free queue (quiesce/wfqueue.h).
 *
 * liburcu's queue is a Michael-Scott queue with dummy nodes, whose
 * dequeued nodes may still be read by concurrent enqueuers and dequeuers:
 * hence its rules that enqueue and dequeue run inside rcu_read_lock() and
 * that a dequeued node is freed, or enqueued again, only after a grace
 * period, and the call_rcu function its init takes, which frees its
 * dummies.  Here enqueue is quiesce_wfcq_enqueue() (wait-free, no dummy)
 * and dequeue is quiesce_wfcq_dequeue_rcu(): lock-free among dequeuers,
 * under the same rules (a dequeuer may read a node another has just
 * taken), waiting only for an enqueuer between its two stores or for the
 * dequeuer that took the last node while an enqueuer came behind it.  No
 * dummies: the call_rcu function passed to cds_lfq_init_rcu() is never
 * called.
 *
 * Unlike liburcu's, where an enqueue links its node with its first
 * compare-exchange and any thread moves a lagging tail on, a node here is
 * linked only by the thread that began its enqueue.  So a fork() child in
 * which that thread does not exist, or a signal handler that interrupted
 * that very enqueue, waits for ever in cds_lfq_dequeue_rcu() once it
 * reaches the node (quiesce/wfqueue.h, fork() and signal handlers): fork
 * with no enqueue in progress, and do not dequeue in a handler.
 *
 * Ordering: a dequeuer sees what the enqueuer wrote to the node before
 * enqueueing it; nodes of one enqueuer leave in the order it enqueued them.
 */
#ifndef QUIESCE_OVERLAY_URCU_RCULFQUEUE_H
#define QUIESCE_OVERLAY_URCU_RCULFQUEUE_H

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu-pointer.h>
#include <urcu-call-rcu.h>

#include <errno.h>

#include <quiesce/wfqueue.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cds_lfq_node_rcu {
	struct quiesce_wfcq_node wfcq;
};

struct cds_lfq_queue_rcu {
	struct quiesce_wfcq_head head;
	struct quiesce_wfcq_tail tail;
};

static inline void cds_lfq_node_init_rcu(struct cds_lfq_node_rcu *node)
{
	quiesce_wfcq_node_init(&node->wfcq);
}

static inline void _quiesce_overlay_lfq_init(struct cds_lfq_queue_rcu *q)
{
	quiesce_wfcq_init(&q->head, &q->tail);
}

/* The queue_call_rcu function is evaluated and not kept: nothing needs it. */
#define cds_lfq_init_rcu(q, queue_call_rcu) \
	((void)(queue_call_rcu), _quiesce_overlay_lfq_init(q))

/* 0, or -EPERM (the queue is left as it is) if it is not empty. */
static inline int cds_lfq_destroy_rcu(struct cds_lfq_queue_rcu *q)
{
	if (!quiesce_wfcq_empty(&q->head, &q->tail))
		return -EPERM;
	quiesce_wfcq_destroy(&q->head, &q->tail);
	return 0;
}

static inline void cds_lfq_enqueue_rcu(struct cds_lfq_queue_rcu *q, struct cds_lfq_node_rcu *node)
{
	quiesce_wfcq_enqueue(&q->head, &q->tail, &node->wfcq);
}

/* The first node, or NULL if the queue is empty.  Inside rcu_read_lock(). */
static inline struct cds_lfq_node_rcu *cds_lfq_dequeue_rcu(struct cds_lfq_queue_rcu *q)
{
	/* wfcq is the first member: the conversion keeps NULL. */
	return (struct cds_lfq_node_rcu *)quiesce_wfcq_dequeue_rcu(&q->head, &q->tail);
}

#ifdef __cplusplus
}
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/rculfqueue.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_RCULFQUEUE_H */
