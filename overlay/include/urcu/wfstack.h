/*
 * urcu/wfstack.h (quiesce overlay) - liburcu's wait-free stack (cds_wfs)
 * on quiesce/stack.h.
 *
 * The types are quiesce's: struct cds_wfs_node, cds_wfs_head and
 * cds_wfs_stack are struct quiesce_wfs_node, quiesce_wfs_head and
 * quiesce_wfs_stack.  struct __cds_wfs_stack, liburcu's stack without a
 * mutex for callers that exclude poppers themselves, is liburcu's too: the
 * top word alone (GlusterFS embeds one in a struct that files compiled
 * against either library's headers share).  The calls that take either
 * stack take cds_wfs_stack_ptr_t, liburcu's transparent union of the two
 * pointers (in C++, a union that converts from either); they are the
 * calls that touch no mutex (push, empty, the __cds_ pops), and quiesce's
 * forms of those take the address of the top word (urcu_wfs_stack_top()).
 *
 * Each call is quiesce's: cds_wfs_X is quiesce_wfs_X and __cds_wfs_X is
 * quiesce_wfs_sc_X (__cds_wfs_pop_all is quiesce_wfs_sc_pop_all), or the
 * _quiesce_wfs_ helper those are made of, on the top word, with the same
 * arguments, return values (0 / 1 from push, CDS_WFS_WOULDBLOCK,
 * CDS_WFS_STATE_LAST) and rules: push from any thread at any time; the
 * cds_ pops under the stack's mutex; the __cds_ pops with poppers
 * serialized by the caller.  All calls are inline.
 */
#ifndef QUIESCE_OVERLAY_URCU_WFSTACK_H
#define QUIESCE_OVERLAY_URCU_WFSTACK_H

#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

#include <urcu/compiler.h>
#include <urcu/static/quiesce-ptr-union.h>
#include <quiesce/stack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cds_wfs_node quiesce_wfs_node
#define cds_wfs_head quiesce_wfs_head
#define cds_wfs_stack quiesce_wfs_stack

struct __cds_wfs_stack {
	struct cds_wfs_head *head;
};

_URCU_PTR_UNIONS(cds_wfs_stack, struct __cds_wfs_stack, struct cds_wfs_stack, s);
_URCU_PTR_UNION_LEAD(urcu_wfs_stack_top, cds_wfs_stack, struct __cds_wfs_stack,
		     struct cds_wfs_stack, s, struct cds_wfs_head *, head);

/*
 * liburcu 0.13's are void pointers, 0.14's and later typed ones.  In C a
 * void pointer compares with and converts to the head and the node alike;
 * C++ converts no void pointer, so there they are typed, as 0.14's.
 */
#ifdef __cplusplus
#define CDS_WFS_END QUIESCE_WFS_END
#define CDS_WFS_WOULDBLOCK QUIESCE_WFS_WOULDBLOCK
#else
#define CDS_WFS_END ((void *)QUIESCE_WFS_END)
#define CDS_WFS_WOULDBLOCK ((void *)QUIESCE_WFS_WOULDBLOCK)
#endif

enum cds_wfs_state {
	CDS_WFS_STATE_LAST = QUIESCE_WFS_STATE_LAST,
};

static inline void cds_wfs_node_init(struct cds_wfs_node *node)
{
	quiesce_wfs_node_init(node);
}

static inline void cds_wfs_init(struct cds_wfs_stack *s)
{
	quiesce_wfs_init(s);
}

static inline void __cds_wfs_init(struct __cds_wfs_stack *s)
{
	s->head = QUIESCE_WFS_END;
}

static inline void cds_wfs_destroy(struct cds_wfs_stack *s)
{
	quiesce_wfs_destroy(s);
}

static inline bool cds_wfs_empty(cds_wfs_stack_const_ptr_t s)
{
	return _quiesce_wfs_empty(&s._s->head);
}

/* Returns 0 if the stack was empty before, 1 otherwise. */
static inline int cds_wfs_push(cds_wfs_stack_ptr_t s, struct cds_wfs_node *node)
{
	return _quiesce_wfs_push(urcu_wfs_stack_top(s), node);
}

static inline void cds_wfs_pop_lock(struct cds_wfs_stack *s)
{
	quiesce_wfs_pop_lock(s);
}

static inline void cds_wfs_pop_unlock(struct cds_wfs_stack *s)
{
	quiesce_wfs_pop_unlock(s);
}

static inline struct cds_wfs_node *cds_wfs_pop_blocking(struct cds_wfs_stack *s)
{
	return quiesce_wfs_pop_blocking(s);
}

static inline struct cds_wfs_node *cds_wfs_pop_with_state_blocking(struct cds_wfs_stack *s,
								   int *state)
{
	return quiesce_wfs_pop_with_state_blocking(s, state);
}

static inline struct cds_wfs_head *cds_wfs_pop_all_blocking(struct cds_wfs_stack *s)
{
	return quiesce_wfs_pop_all_blocking(s);
}

static inline struct cds_wfs_node *__cds_wfs_pop_blocking(cds_wfs_stack_ptr_t s)
{
	return _quiesce_wfs_pop(urcu_wfs_stack_top(s), NULL, true);
}

static inline struct cds_wfs_node *__cds_wfs_pop_nonblocking(cds_wfs_stack_ptr_t s)
{
	return _quiesce_wfs_pop(urcu_wfs_stack_top(s), NULL, false);
}

static inline struct cds_wfs_node *__cds_wfs_pop_with_state_blocking(cds_wfs_stack_ptr_t s,
								     int *state)
{
	return _quiesce_wfs_pop(urcu_wfs_stack_top(s), state, true);
}

static inline struct cds_wfs_node *__cds_wfs_pop_with_state_nonblocking(cds_wfs_stack_ptr_t s,
									int *state)
{
	return _quiesce_wfs_pop(urcu_wfs_stack_top(s), state, false);
}

static inline struct cds_wfs_head *__cds_wfs_pop_all(cds_wfs_stack_ptr_t s)
{
	return _quiesce_wfs_pop_all(urcu_wfs_stack_top(s));
}

static inline struct cds_wfs_node *cds_wfs_first(struct cds_wfs_head *head)
{
	return quiesce_wfs_first(head);
}

static inline struct cds_wfs_node *cds_wfs_next_blocking(struct cds_wfs_node *node)
{
	return quiesce_wfs_next_blocking(node);
}

static inline struct cds_wfs_node *cds_wfs_next_nonblocking(struct cds_wfs_node *node)
{
	return quiesce_wfs_next_nonblocking(node);
}

#define cds_wfs_for_each_blocking(head, node) quiesce_wfs_for_each_blocking(head, node)
#define cds_wfs_for_each_blocking_safe(head, node, n) \
	quiesce_wfs_for_each_blocking_safe(head, node, n)

#ifdef __cplusplus
}

/* liburcu's casts, C++ only (0.14; the const ones 0.15): _URCU_PTR_UNION_CAST(). */
_URCU_PTR_UNION_CAST(cds_wfs_stack_cast, cds_wfs_stack_ptr_t, struct __cds_wfs_stack)
_URCU_PTR_UNION_CAST(cds_wfs_stack_cast, cds_wfs_stack_ptr_t, struct cds_wfs_stack)
_URCU_PTR_UNION_CAST(cds_wfs_stack_const_cast, cds_wfs_stack_const_ptr_t,
		     const struct __cds_wfs_stack)
_URCU_PTR_UNION_CAST(cds_wfs_stack_const_cast, cds_wfs_stack_const_ptr_t,
		     const struct cds_wfs_stack)
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/wfstack.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_WFSTACK_H */
