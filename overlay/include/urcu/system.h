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

#define _CMM_LOAD_SHARED(p)                                                    \
	__extension__({                                                        \
		__typeof__(p) cmm_load_v_;                                     \
		__atomic_load(&(p), &cmm_load_v_, __ATOMIC_RELAXED);           \
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
