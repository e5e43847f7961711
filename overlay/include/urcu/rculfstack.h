/*
 * urcu/rculfstack.h (quiesce overlay) - liburcu's older RCU lock-free stack
 * (deprecated there in favour of urcu/lfstack.h), on quiesce's lock-free
 * stack: struct cds_lfs_node_rcu is struct quiesce_lfs_node, and struct
 * cds_lfs_stack_rcu is liburcu's, the top word alone, on which quiesce's
 * helpers that take no lock work (_quiesce_lfs_*).  cds_lfs_push_rcu()
 * returns 0 if the stack was empty before, 1 otherwise; cds_lfs_pop_rcu()
 * runs inside rcu_read_lock(), and a popped node is freed or pushed again
 * only after a grace period, as in liburcu.
 */
#ifndef QUIESCE_OVERLAY_URCU_RCULFSTACK_H
#define QUIESCE_OVERLAY_URCU_RCULFSTACK_H

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu-pointer.h>

#include <quiesce/stack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cds_lfs_node_rcu quiesce_lfs_node

struct cds_lfs_stack_rcu {
	struct quiesce_lfs_head *head;
};

static inline void cds_lfs_node_init_rcu(struct cds_lfs_node_rcu *node)
{
	quiesce_lfs_node_init(node);
}

static inline void cds_lfs_init_rcu(struct cds_lfs_stack_rcu *s)
{
	s->head = NULL;
}

static inline int cds_lfs_push_rcu(struct cds_lfs_stack_rcu *s, struct cds_lfs_node_rcu *node)
{
	return _quiesce_lfs_push(&s->head, node);
}

static inline struct cds_lfs_node_rcu *cds_lfs_pop_rcu(struct cds_lfs_stack_rcu *s)
{
	return _quiesce_lfs_pop(&s->head);
}

#ifdef __cplusplus
}
#endif

/*
 * With _LGPL_SOURCE, liburcu's header includes its inline version, and what
 * that brings (its _cds_ names, <poll.h>) comes with it.
 */
#ifdef _LGPL_SOURCE
#include <urcu/static/rculfstack.h>
#endif

#endif /* QUIESCE_OVERLAY_URCU_RCULFSTACK_H */
