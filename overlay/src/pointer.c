/*
 * pointer.c - liburcu's out-of-line pointer operations (rcu_dereference_sym
 * and friends), which the pointer macros call when _LGPL_SOURCE is not
 * defined: the same atomics as quiesce's inline macros.
 */
#include <urcu/pointer.h>

#include "overlay.h"

URCU_EXPORT void *rcu_dereference_sym(void *p)
{
	/*
	 * The caller loaded p (urcu/pointer.h); what orders its loads through
	 * p is the address dependency, which the call does not break.
	 */
	return p;
}

/*
 * The form that liburcu's development head (after 0.15.6) calls: the load
 * happens here.
 */
URCU_EXPORT void *rcu_dereference_sym2(void **p)
{
	return quiesce_rcu_dereference(*p);
}

URCU_EXPORT void *rcu_set_pointer_sym(void **p, void *v)
{
	quiesce_rcu_assign_pointer(*p, v);
	return v;
}

URCU_EXPORT void *rcu_xchg_pointer_sym(void **p, void *v)
{
	return quiesce_rcu_xchg_pointer(p, v);
}

URCU_EXPORT void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *_new)
{
	return quiesce_rcu_cmpxchg_pointer(p, old, _new);
}
