/*
 * urcu/lfstack.h (quiesce overlay) - liburcu's lock-free stack (cds_lfs)
 * on quiesce/stack.h.
 *
 * The types are quiesce's: struct cds_lfs_node, cds_lfs_head and
 * cds_lfs_stack are struct quiesce_lfs_node, quiesce_lfs_head and
 * quiesce_lfs_stack; struct __cds_lfs_stack (no mutex) is liburcu's, the
 * top word alone, and the calls that take either take liburcu's
 * transparent union cds_lfs_stack_ptr_t, as in urcu/wfstack.h.
 *
 * Each call is quiesce's with the same arguments and return values:
 * cds_lfs_push (false if the stack was empty before), cds_lfs_pop_blocking
 * and cds_lfs_pop_all_blocking (under the stack's mutex; the nodes may be
 * freed at once if nobody uses the __ pops on that stack), __cds_lfs_pop
 * (quiesce_lfs_pop_rcu's helper on the top word: inside rcu_read_lock(),
 * nodes freed or pushed again only after a grace period) and
 * __cds_lfs_pop_all (quiesce_lfs_pop_all's).  These are liburcu's rules;
 * quiesce/stack.h gives the argument.  All calls are inline.
 */
#ifndef QUIESCE_OVERLAY_URCU_LFSTACK_H
#define QUIESCE_OVERLAY_URCU_LFSTACK_H

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu-pointer.h>

#include <stdbool.h>
#include <stddef.h>

#include <urcu/static/quiesce-ptr-union.h>
#include <quiesce/stack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cds_lfs_node quiesce_lfs_node
#define cds_lfs_head quiesce_lfs_head
#define cds_lfs_stack quiesce_lfs_stack

struct __cds_lfs_stack {
	struct cds_lfs_head *head;
};

_URCU_PTR_UNIONS(cds_lfs_stack, struct __cds_lfs_stack, struct cds_lfs_stack, s);
_URCU_PTR_UNION_LEAD(urcu_lfs_stack_top, cds_lfs_stack, struct __cds_lfs_stack,
		     struct cds_lfs_stack, s, struct cds_lfs_head *, head);

static inline void cds_lfs_node_init(struct cds_lfs_node *node)
{
	quiesce_lfs_node_init(node);
}

static inline void cds_lfs_init(struct cds_lfs_stack *s)
{
	quiesce_lfs_init(s);
}

static inline void __cds_lfs_init(struct __cds_lfs_stack *s)
{
	s->head = NULL;
}

static inline void cds_lfs_destroy(struct cds_lfs_stack *s)
{
	quiesce_lfs_destroy(s);
}

static inline bool cds_lfs_empty(cds_lfs_stack_const_ptr_t s)
{
	return _quiesce_lfs_empty(&s._s->head);
}

/* Returns false if the stack was empty before, true otherwise. */
static inline bool cds_lfs_push(cds_lfs_stack_ptr_t s, struct cds_lfs_node *node)
{
	return _quiesce_lfs_push(urcu_lfs_stack_top(s), node);
}

static inline void cds_lfs_pop_lock(struct cds_lfs_stack *s)
{
	quiesce_lfs_pop_lock(s);
}

static inline void cds_lfs_pop_unlock(struct cds_lfs_stack *s)
{
	quiesce_lfs_pop_unlock(s);
}

static inline struct cds_lfs_node *cds_lfs_pop_blocking(struct cds_lfs_stack *s)
{
	return quiesce_lfs_pop_blocking(s);
}

static inline struct cds_lfs_head *cds_lfs_pop_all_blocking(struct cds_lfs_stack *s)
{
	return quiesce_lfs_pop_all_blocking(s);
}

static inline struct cds_lfs_node *__cds_lfs_pop(cds_lfs_stack_ptr_t s)
{
	return _quiesce_lfs_pop(urcu_lfs_stack_top(s));
}

static inline struct cds_lfs_head *__cds_lfs_pop_all(cds_lfs_stack_ptr_t s)
{
	return _quiesce_lfs_pop_all(urcu_lfs_stack_top(s));
}

/* Walk a chain a pop-all returned (NULL: nothing). */
#define cds_lfs_for_each(__head, __node) quiesce_lfs_for_each(__head, __node)
#define cds_lfs_for_each_safe(__head, __node, __n) \
	quiesce_lfs_for_each_safe(__head, __node, __n)

#ifdef __cplusplus
}

/* liburcu's casts, C++ only (0.14; the const ones 0.15): _URCU_PTR_UNION_CAST(). */
_URCU_PTR_UNION_CAST(cds_lfs_stack_cast, cds_lfs_stack_ptr_t, struct __cds_lfs_stack)
_URCU_PTR_UNION_CAST(cds_lfs_stack_cast, cds_lfs_stack_ptr_t, struct cds_lfs_stack)
_URCU_PTR_UNION_CAST(cds_lfs_stack_const_cast, cds_lfs_stack_const_ptr_t,
		     const struct __cds_lfs_stack)
_URCU_PTR_UNION_CAST(cds_lfs_stack_const_cast, cds_lfs_stack_const_ptr_t,
		     const struct cds_lfs_stack)
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/lfstack.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_LFSTACK_H */
