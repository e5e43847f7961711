/*
 * urcu/static/pointer.h (liburcu overlay) - the inline pointer operations,
 * _rcu_dereference() ... _rcu_assign_pointer(), which <urcu/pointer.h>
 * maps rcu_dereference() ... to when _LGPL_SOURCE (or
 * URCU_INLINE_SMALL_FUNCTIONS) is defined, and which a program may include
 * itself, as liburcu's: quiesce's (<quiesce/rcu.h>), a dependency-ordered
 * load, a release store, and fully ordered exchanges (cmpxchg returns the
 * pointer found: it stored when that equals old).  Also liburcu 0.15's
 * cmm_ptr_eq().
 */
#ifndef _URCU_POINTER_STATIC_H
#define _URCU_POINTER_STATIC_H

#include <urcu/annotate.h>
#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/static/urcu-quiesce.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#ifdef __cplusplus
extern "C" {
#endif

#define _rcu_dereference(p) quiesce_rcu_dereference(p)
#define _rcu_cmpxchg_pointer(p, old, _new) quiesce_rcu_cmpxchg_pointer(p, old, _new)
#define _rcu_xchg_pointer(p, v) quiesce_rcu_xchg_pointer(p, v)
#define _rcu_set_pointer(p, v)                                                 \
	do {                                                                   \
		QUIESCE_UNQUAL_TYPEOF(*(p)) urcu_set_v_ = (v);                 \
		quiesce_rcu_assign_pointer(*(p), urcu_set_v_);                 \
	} while (0)
#define _rcu_assign_pointer(p, v) _rcu_set_pointer(&(p), v)

/*
 * Whether two pointers are equal, compared so that the compiler cannot
 * learn from the result that one equals the other, and so replace a
 * pointer loaded by rcu_dereference() with one loaded earlier (which
 * would lose the dependency that orders the loads through it).
 */
static inline int cmm_ptr_eq(const void *a, const void *b)
{
	_CMM_OPTIMIZER_HIDE_VAR(a);
	_CMM_OPTIMIZER_HIDE_VAR(b);
	return a == b;
}

#ifdef __cplusplus
}
#endif

#endif /* _URCU_POINTER_STATIC_H */
