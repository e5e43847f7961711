/*
 * urcu/system.h (liburcu overlay) - liburcu's shared-variable accessors:
 * CMM_LOAD_SHARED / CMM_STORE_SHARED are single relaxed atomic accesses
 * (liburcu's are volatile ones; atomic ones are the same instructions and
 * ThreadSanitizer understands them).  The underscore forms are the same
 * here: they differ in liburcu only by a compiler barrier that a relaxed
 * atomic access does not need to stay one access.
 */
#ifndef _URCU_SYSTEM_H
#define _URCU_SYSTEM_H

#include <urcu/compiler.h>
#include <urcu/arch.h>

/*
 * Declares name and loads *addr into it atomically with the C11 order mo.
 * name's type is *addr's without const or volatile, so that a load through
 * a pointer to const builds, as liburcu's do (LTTng-tools reads counters
 * through const pointers): in C, a comma expression is not an lvalue and
 * its type has no qualifiers; in C++ it keeps them, so there name is
 * initialized from __atomic_load_n() (integers and pointers, as liburcu
 * 0.15's own builtins take).
 */
#ifndef __cplusplus
#define _URCU_LOAD_INTO(name, addr, mo)                                        \
	__typeof__(((void)0, *(addr))) name;                                   \
	__atomic_load((addr), &name, (mo))
#else
#define _URCU_LOAD_INTO(name, addr, mo) __typeof__(*(addr)) name = __atomic_load_n((addr), (mo))
#endif

#define _CMM_LOAD_SHARED(p)                                                    \
	__extension__({                                                        \
		_URCU_LOAD_INTO(cmm_load_v_, &(p), __ATOMIC_RELAXED);          \
		cmm_load_v_;                                                   \
	})
#define CMM_LOAD_SHARED(p) _CMM_LOAD_SHARED(p)

/* Stores v into x and yields v, as liburcu's does. */
#define _CMM_STORE_SHARED(x, v)                                                \
	__extension__({                                                        \
		__typeof__(x) cmm_store_v_ = (v);                              \
		__atomic_store(&(x), &cmm_store_v_, __ATOMIC_RELAXED);         \
		cmm_store_v_;                                                  \
	})
#define CMM_STORE_SHARED(x, v) _CMM_STORE_SHARED(x, v)

#endif /* _URCU_SYSTEM_H */
