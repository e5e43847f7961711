/*
 * urcu/wfcqueue.h (quiesce overlay) - liburcu's wait-free concurrent queue
 * (cds_wfcq) on quiesce/wfqueue.h.
 *
 * The types are quiesce's: struct cds_wfcq_node, cds_wfcq_head and
 * cds_wfcq_tail are struct quiesce_wfcq_node, quiesce_wfcq_head and
 * quiesce_wfcq_tail.  struct __cds_wfcq_head, liburcu's head without a
 * mutex for callers that exclude each other themselves, is liburcu's too:
 * the node alone, one word (BIND 9 packs one into a cache line and asserts
 * the layout).  The calls that take either head take cds_wfcq_head_ptr_t,
 * liburcu's transparent union of the two pointers (in C++, a union that
 * converts from either); they are the calls that touch no mutex (enqueue,
 * empty, the __cds_ consumer calls), and quiesce's forms of those take the
 * head's node, the first member of both (urcu_wfcq_head_node()).
 *
 * Each call is quiesce's: cds_wfcq_X is quiesce_wfcq_X and __cds_wfcq_X is
 * quiesce_wfcq_sc_X, with the same arguments, return values
 * (CDS_WFCQ_WOULDBLOCK, CDS_WFCQ_RET_*, CDS_WFCQ_STATE_LAST) and rules:
 * enqueue from any thread at any time; the cds_ dequeue and splice under
 * the head's mutex; the __cds_ calls with consumers serialized by the
 * caller (cds_wfcq_dequeue_lock() or a single consumer).  All calls are
 * inline whether or not _LGPL_SOURCE is defined.
 */
#ifndef QUIESCE_OVERLAY_URCU_WFCQUEUE_H
#define QUIESCE_OVERLAY_URCU_WFCQUEUE_H

#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

#include <urcu/compiler.h>
#include <urcu/static/quiesce-ptr-union.h>
#include <quiesce/wfqueue.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cds_wfcq_node quiesce_wfcq_node
#define cds_wfcq_head quiesce_wfcq_head
#define cds_wfcq_tail quiesce_wfcq_tail
#define cds_wfcq_ret quiesce_wfcq_ret

struct __cds_wfcq_head {
	struct cds_wfcq_node node;
};

_URCU_PTR_UNIONS(cds_wfcq_head, struct __cds_wfcq_head, struct cds_wfcq_head, h);
_URCU_PTR_UNION_LEAD(urcu_wfcq_head_node, cds_wfcq_head, struct __cds_wfcq_head,
		     struct cds_wfcq_head, h, struct cds_wfcq_node, node);

#define CDS_WFCQ_WOULDBLOCK QUIESCE_WFCQ_WOULDBLOCK
#define CDS_WFCQ_RET_WOULDBLOCK QUIESCE_WFCQ_RET_WOULDBLOCK
#define CDS_WFCQ_RET_DEST_EMPTY QUIESCE_WFCQ_RET_DEST_EMPTY
#define CDS_WFCQ_RET_DEST_NON_EMPTY QUIESCE_WFCQ_RET_DEST_NON_EMPTY
#define CDS_WFCQ_RET_SRC_EMPTY QUIESCE_WFCQ_RET_SRC_EMPTY

enum cds_wfcq_state {
	CDS_WFCQ_STATE_LAST = QUIESCE_WFCQ_STATE_LAST,
};

_URCU_PTR_UNION_CAST(__cds_wfcq_head_cast, cds_wfcq_head_ptr_t, struct __cds_wfcq_head)
_URCU_PTR_UNION_CAST(cds_wfcq_head_cast, cds_wfcq_head_ptr_t, struct cds_wfcq_head)
_URCU_PTR_UNION_CAST(__cds_wfcq_head_const_cast, cds_wfcq_head_const_ptr_t,
		     const struct __cds_wfcq_head)
_URCU_PTR_UNION_CAST(cds_wfcq_head_const_cast, cds_wfcq_head_const_ptr_t,
		     const struct cds_wfcq_head)

static inline void cds_wfcq_node_init(struct cds_wfcq_node *node)
{
	quiesce_wfcq_node_init(node);
}

static inline void cds_wfcq_init(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	quiesce_wfcq_init(head, tail);
}

static inline void __cds_wfcq_init(struct __cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	_quiesce_wfcq_sc_init(&head->node, tail);
}

static inline void cds_wfcq_destroy(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	quiesce_wfcq_destroy(head, tail);
}

static inline bool cds_wfcq_empty(cds_wfcq_head_const_ptr_t head, const struct cds_wfcq_tail *tail)
{
	return _quiesce_wfcq_empty(&head._h->node, tail);
}

static inline void cds_wfcq_dequeue_lock(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	quiesce_wfcq_dequeue_lock(head, tail);
}

static inline void cds_wfcq_dequeue_unlock(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	quiesce_wfcq_dequeue_unlock(head, tail);
}

/* Returns false if the queue was empty before, true otherwise. */
static inline bool cds_wfcq_enqueue(cds_wfcq_head_ptr_t head, struct cds_wfcq_tail *tail,
				    struct cds_wfcq_node *node)
{
	return _quiesce_wfcq_enqueue(urcu_wfcq_head_node(head), tail, node);
}

static inline struct cds_wfcq_node *cds_wfcq_dequeue_blocking(struct cds_wfcq_head *head,
							      struct cds_wfcq_tail *tail)
{
	return quiesce_wfcq_dequeue_blocking(head, tail);
}

static inline struct cds_wfcq_node *
cds_wfcq_dequeue_with_state_blocking(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail,
				     int *state)
{
	return quiesce_wfcq_dequeue_with_state_blocking(head, tail, state);
}

static inline enum cds_wfcq_ret cds_wfcq_splice_blocking(struct cds_wfcq_head *dest_q_head,
							 struct cds_wfcq_tail *dest_q_tail,
							 struct cds_wfcq_head *src_q_head,
							 struct cds_wfcq_tail *src_q_tail)
{
	return quiesce_wfcq_splice_blocking(dest_q_head, dest_q_tail, src_q_head, src_q_tail);
}

static inline struct cds_wfcq_node *__cds_wfcq_dequeue_blocking(cds_wfcq_head_ptr_t head,
								struct cds_wfcq_tail *tail)
{
	return _quiesce_wfcq_dequeue(urcu_wfcq_head_node(head), tail, NULL, true);
}

static inline struct cds_wfcq_node *__cds_wfcq_dequeue_nonblocking(cds_wfcq_head_ptr_t head,
								   struct cds_wfcq_tail *tail)
{
	return _quiesce_wfcq_dequeue(urcu_wfcq_head_node(head), tail, NULL, false);
}

static inline struct cds_wfcq_node *
__cds_wfcq_dequeue_with_state_blocking(cds_wfcq_head_ptr_t head, struct cds_wfcq_tail *tail,
				       int *state)
{
	return _quiesce_wfcq_dequeue(urcu_wfcq_head_node(head), tail, state, true);
}

static inline struct cds_wfcq_node *
__cds_wfcq_dequeue_with_state_nonblocking(cds_wfcq_head_ptr_t head, struct cds_wfcq_tail *tail,
					  int *state)
{
	return _quiesce_wfcq_dequeue(urcu_wfcq_head_node(head), tail, state, false);
}

static inline enum cds_wfcq_ret __cds_wfcq_splice_blocking(cds_wfcq_head_ptr_t dest_q_head,
							   struct cds_wfcq_tail *dest_q_tail,
							   cds_wfcq_head_ptr_t src_q_head,
							   struct cds_wfcq_tail *src_q_tail)
{
	return _quiesce_wfcq_splice(urcu_wfcq_head_node(dest_q_head), dest_q_tail,
				    urcu_wfcq_head_node(src_q_head), src_q_tail, true);
}

static inline enum cds_wfcq_ret __cds_wfcq_splice_nonblocking(cds_wfcq_head_ptr_t dest_q_head,
							      struct cds_wfcq_tail *dest_q_tail,
							      cds_wfcq_head_ptr_t src_q_head,
							      struct cds_wfcq_tail *src_q_tail)
{
	return _quiesce_wfcq_splice(urcu_wfcq_head_node(dest_q_head), dest_q_tail,
				    urcu_wfcq_head_node(src_q_head), src_q_tail, false);
}

static inline struct cds_wfcq_node *__cds_wfcq_first_blocking(cds_wfcq_head_ptr_t head,
							      struct cds_wfcq_tail *tail)
{
	return _quiesce_wfcq_first(urcu_wfcq_head_node(head), tail, true);
}

static inline struct cds_wfcq_node *__cds_wfcq_first_nonblocking(cds_wfcq_head_ptr_t head,
								 struct cds_wfcq_tail *tail)
{
	return _quiesce_wfcq_first(urcu_wfcq_head_node(head), tail, false);
}

static inline struct cds_wfcq_node *__cds_wfcq_next_blocking(cds_wfcq_head_ptr_t head,
							     struct cds_wfcq_tail *tail,
							     struct cds_wfcq_node *node)
{
	(void)head;
	return _quiesce_wfcq_next(tail, node, true);
}

static inline struct cds_wfcq_node *__cds_wfcq_next_nonblocking(cds_wfcq_head_ptr_t head,
								struct cds_wfcq_tail *tail,
								struct cds_wfcq_node *node)
{
	(void)head;
	return _quiesce_wfcq_next(tail, node, false);
}

/*
 * liburcu 0.13 names these too; iteration needs the consumer side held
 * (cds_wfcq_dequeue_lock()), so they are the __cds_ forms.
 */
static inline struct cds_wfcq_node *cds_wfcq_first_blocking(struct cds_wfcq_head *head,
							    struct cds_wfcq_tail *tail)
{
	return quiesce_wfcq_sc_first_blocking(head, tail);
}

static inline struct cds_wfcq_node *cds_wfcq_next_blocking(struct cds_wfcq_head *head,
							   struct cds_wfcq_tail *tail,
							   struct cds_wfcq_node *node)
{
	return quiesce_wfcq_sc_next_blocking(head, tail, node);
}

/* Either head, as the calls they make. */
#define __cds_wfcq_for_each_blocking(head, tail, node)				\
	for ((node) = __cds_wfcq_first_blocking(head, tail); (node) != NULL;	\
	     (node) = __cds_wfcq_next_blocking(head, tail, node))

#define __cds_wfcq_for_each_blocking_safe(head, tail, node, n)			\
	for ((node) = __cds_wfcq_first_blocking(head, tail),			\
	     (n) = (node) ? __cds_wfcq_next_blocking(head, tail, node) : NULL;	\
	     (node) != NULL;							\
	     (node) = (n), (n) = (node) ? __cds_wfcq_next_blocking(head, tail, node) : NULL)

#ifdef __cplusplus
}
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/wfcqueue.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_WFCQUEUE_H */
