/*
 * bp.c - liburcu's bulletproof flavor (urcu_bp_*): quiesce's default RCU,
 * plus bp's own pointer symbols and fork hooks.
 */
#include <urcu/urcu-bp.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(bp);

URCU_EXPORT void *urcu_bp_dereference_sym(void *p)
{
	return rcu_dereference_sym(p);
}

URCU_EXPORT void *urcu_bp_set_pointer_sym(void **p, void *v)
{
	return rcu_set_pointer_sym(p, v);
}

URCU_EXPORT void *urcu_bp_xchg_pointer_sym(void **p, void *v)
{
	return rcu_xchg_pointer_sym(p, v);
}

URCU_EXPORT void *urcu_bp_cmpxchg_pointer_sym(void **p, void *old, void *_new)
{
	return rcu_cmpxchg_pointer_sym(p, old, _new);
}

/*
 * liburcu-bp's fork hooks hold its registry and grace-period locks across
 * fork() and, in the child, drop the threads that did not survive.
 * quiesce's pthread_atfork handlers do exactly that for its registry and
 * grace periods, whether or not these are called.
 */
URCU_EXPORT void urcu_bp_before_fork(void)
{
}

URCU_EXPORT void urcu_bp_after_fork_parent(void)
{
}

URCU_EXPORT void urcu_bp_after_fork_child(void)
{
}
