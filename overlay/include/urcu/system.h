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
 * Whether *addr has a lock-free atomic access: its size is one an atomic
 * instruction covers and addr's type aligns it for one.  A constant, so
 * that only the branch taken below is compiled into the program, at -O0
 * too.
 */
#define _URCU_LOCK_FREE(addr) __atomic_always_lock_free(sizeof(*(addr)), (addr))

/*
 * Copies size bytes from src to dst between compiler barriers, so that
 * the compiler neither drops the copy nor moves it across the program's
 * other accesses: for the objects no atomic instruction covers (a struct
 * of 12 bytes, a long double), for which the __atomic builtins would call
 * libatomic, which a liburcu program does not link.  The copy is not
 * atomic; neither are liburcu's volatile accesses to those.
 */
#define _URCU_COPY_SHARED(dst, src, size)                                      \
	do {                                                                   \
		cmm_barrier();                                                 \
		__builtin_memcpy(_URCU_PLAIN_PTR(dst), _URCU_PLAIN_PTR(src), (size)); \
		cmm_barrier();                                                 \
	} while (0)
/* p as a void *, its object's const or volatile dropped (-Wcast-qual). */
#define _URCU_PLAIN_PTR(p) ((void *)(__UINTPTR_TYPE__)(const volatile void *)(p))

/*
 * Declares name and loads *addr into it atomically with the C11 order mo
 * (an object with no lock-free access: copied, then a fence for any order
 * above relaxed).  name's type is *addr's without const or volatile, so
 * that a load through a pointer to const (LTTng-tools reads counters
 * through one) or to volatile builds in C and C++, as liburcu's do.
 */
#define _URCU_LOAD_INTO(name, addr, mo)                                        \
	QUIESCE_UNQUAL_TYPEOF(*(addr)) name;                                   \
	if (_URCU_LOCK_FREE(addr)) {                                           \
		__atomic_load((addr), &name, (mo));                            \
	} else {                                                               \
		_URCU_COPY_SHARED(&name, (addr), sizeof(name));                \
		if ((mo) != __ATOMIC_RELAXED)                                  \
			cmm_smp_mb();                                          \
	}

/*
 * Stores *src, of *addr's type, into *addr atomically with the C11 order mo
 * (an object with no lock-free access: a fence for any order above
 * relaxed, then copied).
 */
#define _URCU_STORE_FROM(addr, src, mo)                                        \
	do {                                                                   \
		if (_URCU_LOCK_FREE(addr)) {                                   \
			__atomic_store((addr), (src), (mo));                   \
		} else {                                                       \
			if ((mo) != __ATOMIC_RELAXED)                          \
				cmm_smp_mb();                                  \
			_URCU_COPY_SHARED((addr), (src), sizeof(*(src)));      \
		}                                                              \
	} while (0)

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
		_URCU_STORE_FROM(&(x), &cmm_store_v_, __ATOMIC_RELAXED);      \
		cmm_store_v_;                                                  \
	})
#define CMM_STORE_SHARED(x, v)                                                 \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(x) cmm_stored_v_ = _CMM_STORE_SHARED(x, v); \
		cmm_smp_wmc();                                                 \
		cmm_stored_v_;                                                 \
	})

#endif /* _URCU_SYSTEM_H */
