/*
 * urcu/wfqueue.h (quiesce overlay) - liburcu's older wait-free queue
 * (cds_wfq, deprecated there in favour of urcu/wfcqueue.h), on quiesce's
 * queue: struct cds_wfq_queue holds a quiesce_wfcq head and tail, struct
 * cds_wfq_node is a quiesce_wfcq_node.  Enqueue from any thread;
 * cds_wfq_dequeue_blocking() under the queue's mutex, and
 * __cds_wfq_dequeue_blocking() with dequeuers serialized by the caller, as
 * in liburcu.  Both return NULL when the queue is empty.
 */
#ifndef QUIESCE_OVERLAY_URCU_WFQUEUE_H
#define QUIESCE_OVERLAY_URCU_WFQUEUE_H

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/uatomic.h>

#include <assert.h>

#include <quiesce/wfqueue.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cds_wfq_node quiesce_wfcq_node

struct cds_wfq_queue {
	struct quiesce_wfcq_head head;
	struct quiesce_wfcq_tail tail;
};

static inline void cds_wfq_node_init(struct cds_wfq_node *node)
{
	quiesce_wfcq_node_init(node);
}

static inline void cds_wfq_init(struct cds_wfq_queue *q)
{
	quiesce_wfcq_init(&q->head, &q->tail);
}

static inline void cds_wfq_destroy(struct cds_wfq_queue *q)
{
	quiesce_wfcq_destroy(&q->head, &q->tail);
}

static inline void cds_wfq_enqueue(struct cds_wfq_queue *q, struct cds_wfq_node *node)
{
	quiesce_wfcq_enqueue(&q->head, &q->tail, node);
}

static inline struct cds_wfq_node *__cds_wfq_dequeue_blocking(struct cds_wfq_queue *q)
{
	return quiesce_wfcq_sc_dequeue_blocking(&q->head, &q->tail);
}

static inline struct cds_wfq_node *cds_wfq_dequeue_blocking(struct cds_wfq_queue *q)
{
	return quiesce_wfcq_dequeue_blocking(&q->head, &q->tail);
}

#ifdef __cplusplus
}
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/wfqueue.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_WFQUEUE_H */
