/*
 * urcu/pointer.h (liburcu overlay) - publishing and reading RCU-protected
 * pointers.  With _LGPL_SOURCE (or URCU_INLINE_SMALL_FUNCTIONS) they are
 * quiesce's inline atomics: rcu_dereference a dependency-ordered load (an
 * acquire under ThreadSanitizer), rcu_set_pointer / rcu_assign_pointer a
 * release store, rcu_xchg_pointer and rcu_cmpxchg_pointer fully ordered
 * (cmpxchg returns the pointer found: it stored when that equals old).
 * Without, each is a call to liburcu's out-of-line symbol
 * (rcu_dereference_sym, ...) in libquiesce-urcu.
 */
#ifndef _URCU_POINTER_H
#define _URCU_POINTER_H

#include <urcu/compiler.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_LGPL_SOURCE) || defined(URCU_INLINE_SMALL_FUNCTIONS)

#include <urcu/static/pointer.h>

#define rcu_dereference _rcu_dereference
#define rcu_cmpxchg_pointer _rcu_cmpxchg_pointer
#define rcu_xchg_pointer _rcu_xchg_pointer
#define rcu_set_pointer _rcu_set_pointer

#else

extern void *rcu_dereference_sym(void *p);
extern void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *_new);
extern void *rcu_xchg_pointer_sym(void **p, void *v);
extern void *rcu_set_pointer_sym(void **p, void *v);

/*
 * The pointer is loaded here, atomically (an acquire under ThreadSanitizer,
 * which cannot see the address dependency), and passed to the symbol, as
 * liburcu 0.13's header does, so a program's stub of rcu_dereference_sym
 * still serves.
 */
#ifdef CMM_SANITIZE_THREAD
#define _urcu_load_pointer(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#else
#define _urcu_load_pointer(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#endif
#define rcu_dereference(p)                                                     \
	__extension__({                                                        \
		__typeof__(p) urcu_deref_p_ = URCU_FORCE_CAST(__typeof__(p),   \
			rcu_dereference_sym(URCU_FORCE_CAST(void *, _urcu_load_pointer(p)))); \
		urcu_deref_p_;                                                 \
	})
#define rcu_cmpxchg_pointer(p, old, _new)                                      \
	__extension__({                                                        \
		__typeof__(*(p)) urcu_old_ = (old);                            \
		__typeof__(*(p)) urcu_new_ = (_new);                           \
		URCU_FORCE_CAST(__typeof__(*(p)),                              \
			rcu_cmpxchg_pointer_sym(URCU_FORCE_CAST(void **, p),   \
						urcu_old_, urcu_new_));        \
	})
#define rcu_xchg_pointer(p, v)                                                 \
	__extension__({                                                        \
		__typeof__(*(p)) urcu_v_ = (v);                                \
		URCU_FORCE_CAST(__typeof__(*(p)),                              \
			rcu_xchg_pointer_sym(URCU_FORCE_CAST(void **, p), urcu_v_)); \
	})
#define rcu_set_pointer(p, v)                                                  \
	do {                                                                   \
		__typeof__(*(p)) urcu_v_ = (v);                                \
		(void)rcu_set_pointer_sym(URCU_FORCE_CAST(void **, p), urcu_v_); \
	} while (0)

#endif

#define rcu_assign_pointer(p, v) rcu_set_pointer((&p), (v))

#ifdef __cplusplus
}
#endif

#endif /* _URCU_POINTER_H */
