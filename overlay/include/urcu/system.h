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
 * a pointer to const (LTTng-tools reads counters through one) or to
 * volatile builds in C and C++, as liburcu's do.
 */
#define _URCU_LOAD_INTO(name, addr, mo)                                        \
	QUIESCE_UNQUAL_TYPEOF(*(addr)) name;                                   \
	__atomic_load((addr), &name, (mo))

#define _CMM_LOAD_SHARED(p)                                                    \
	__extension__({                                                        \
		_URCU_LOAD_INTO(cmm_load_v_, &(p), __ATOMIC_RELAXED);          \
		cmm_load_v_;                                                   \
	})
#define CMM_LOAD_SHARED(p) _CMM_LOAD_SHARED(p)

/* Stores v into x and yields v, as liburcu's does. */
#define _CMM_STORE_SHARED(x, v)                                                \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(x) cmm_store_v_ = (v);                   \
		__atomic_store(&(x), &cmm_store_v_, __ATOMIC_RELAXED);         \
		cmm_store_v_;                                                  \
	})
#define CMM_STORE_SHARED(x, v) _CMM_STORE_SHARED(x, v)

#endif /* _URCU_SYSTEM_H */
