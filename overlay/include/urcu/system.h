/*
 * urcu/system.h (liburcu overlay) - liburcu's shared-variable accessors:
 * single relaxed atomic accesses (liburcu's are volatile ones; atomic ones
 * are the same instructions and ThreadSanitizer understands them).  As in
 * liburcu, CMM_LOAD_SHARED has a compiler barrier before its load and
 * CMM_STORE_SHARED one after its store (cmm_smp_rmc(), cmm_smp_wmc()), so
 * that the compiler keeps the program's other accesses on their side of
 * it: a loop that polls a flag with CMM_LOAD_SHARED reads its other
 * variables again on each turn, as it does on liburcu.  The underscore
 * forms are the bare accesses.
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
#define CMM_LOAD_SHARED(p)                                                     \
	__extension__({                                                        \
		cmm_smp_rmc();                                                 \
		_CMM_LOAD_SHARED(p);                                           \
	})

/* Stores v into x and yields v, as liburcu's does. */
#define _CMM_STORE_SHARED(x, v)                                                \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(x) cmm_store_v_ = (v);                   \
		__atomic_store(&(x), &cmm_store_v_, __ATOMIC_RELAXED);         \
		cmm_store_v_;                                                  \
	})
#define CMM_STORE_SHARED(x, v)                                                 \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(x) cmm_stored_v_ = _CMM_STORE_SHARED(x, v); \
		cmm_smp_wmc();                                                 \
		cmm_stored_v_;                                                 \
	})

#endif /* _URCU_SYSTEM_H */
