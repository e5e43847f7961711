/*
 * urcu/uatomic.h (liburcu overlay) - liburcu's atomic operations on GCC's
 * __atomic builtins, with liburcu 0.15's optional memory-order argument.
 *
 * What each one orders when no order is given, as liburcu documents it:
 * - uatomic_read / uatomic_load, uatomic_set / uatomic_store: one relaxed
 *   access; uatomic_read and uatomic_set also keep the compiler barrier
 *   that liburcu 0.13 to 0.14 put before the load and after the store
 *   (theirs are CMM_LOAD_SHARED() and CMM_STORE_SHARED()), so that a
 *   program written for those finds its accesses where it left them.
 * - uatomic_cmpxchg (returns the value found; the store happened when it
 *   equals old), uatomic_xchg (returns the old value), uatomic_add_return /
 *   uatomic_sub_return (return the new value): a full barrier before and
 *   after (CMM_SEQ_CST_FENCE: a sequentially consistent operation, then a
 *   fence on architectures where that operation alone does not order the
 *   plain accesses around it; x86's locked instructions do).
 * - uatomic_add / sub / inc / dec / and / or: atomic, no ordering;
 *   cmm_smp_mb__before_uatomic_X() / __after_ give a full barrier on the
 *   side asked for (a compiler barrier on x86, where the locked instruction
 *   is one).
 */
#ifndef _URCU_UATOMIC_H
#define _URCU_UATOMIC_H

#include <urcu/compiler.h>
#include <urcu/arch.h>
#include <urcu/system.h>

#include <stdlib.h>	/* liburcu 0.15's brings it */

/*
 * The operand sizes the operations work on, as liburcu announces them:
 * programs test these before they use an atomic of that size (liburcu's
 * own test_uatomic skips a size whose macro is missing).  liburcu defines
 * BYTE and SHORT on x86 (0.13 on), INT and LLONG too from 0.15; here each
 * is defined where the compiler's operations of that size are lock-free.
 */
#if defined(__GCC_ATOMIC_CHAR_LOCK_FREE) && __GCC_ATOMIC_CHAR_LOCK_FREE == 2
#define UATOMIC_HAS_ATOMIC_BYTE
#endif
#if defined(__GCC_ATOMIC_SHORT_LOCK_FREE) && __GCC_ATOMIC_SHORT_LOCK_FREE == 2
#define UATOMIC_HAS_ATOMIC_SHORT
#endif
#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE == 2
#define UATOMIC_HAS_ATOMIC_INT
#endif
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
#define UATOMIC_HAS_ATOMIC_LLONG
#endif

enum cmm_memorder {
	CMM_RELAXED = __ATOMIC_RELAXED,
	CMM_CONSUME = __ATOMIC_CONSUME,
	CMM_ACQUIRE = __ATOMIC_ACQUIRE,
	CMM_RELEASE = __ATOMIC_RELEASE,
	CMM_ACQ_REL = __ATOMIC_ACQ_REL,
	CMM_SEQ_CST = __ATOMIC_SEQ_CST,
	CMM_SEQ_CST_FENCE = __ATOMIC_SEQ_CST + 1,	/* SEQ_CST, then a full fence */
};

/* The C11 order of a cmm_memorder; CMM_SEQ_CST_FENCE adds a fence after. */
#define _cmm_c11_mo(mo) ((mo) == CMM_SEQ_CST_FENCE ? __ATOMIC_SEQ_CST : (int)(mo))
#if defined(__x86_64__) || defined(__i386__)
#define _cmm_fence_after_rmw(mo) cmm_barrier()
#define _cmm_rmw_full_barrier() cmm_barrier()
#else
#define _cmm_fence_after_rmw(mo)                                               \
	do {                                                                   \
		if ((mo) == CMM_SEQ_CST_FENCE)                                 \
			cmm_smp_mb();                                          \
	} while (0)
#define _cmm_rmw_full_barrier() cmm_smp_mb()
#endif
#define _cmm_fence_after_access(mo)                                            \
	do {                                                                   \
		if ((mo) == CMM_SEQ_CST_FENCE)                                 \
			cmm_smp_mb();                                          \
	} while (0)

/* The optional trailing memory orders: urcu_mo_(default, given...) */
#define _urcu_mo_pick1(a, b, ...) b
#define _urcu_mo_pick2(a, b, c, ...) c
#define _uatomic_default_mo(dflt, ...) _urcu_mo_pick1(_, ##__VA_ARGS__, dflt)
#define _uatomic_default_mo2(dflt, ...) _urcu_mo_pick2(_, ##__VA_ARGS__, dflt, dflt)

#define uatomic_load_mo(addr, mo)                                              \
	__extension__({                                                        \
		_URCU_LOAD_INTO(uatomic_v_, addr, _cmm_c11_mo(mo));            \
		_cmm_fence_after_access(mo);                                   \
		uatomic_v_;                                                    \
	})
#define uatomic_store_mo(addr, v, mo)                                          \
	do {                                                                   \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_v_ = (v);               \
		_URCU_STORE_FROM(addr, &uatomic_v_, _cmm_c11_mo(mo));          \
		_cmm_fence_after_access(mo);                                   \
	} while (0)
/*
 * old is only compared, so it is cast, as liburcu converts it (-1UL for an
 * unsigned int, its own tests do that); new converts as an assignment.
 */
#define uatomic_cmpxchg_mo(addr, old, new, mos, mof)                           \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_old_ =                  \
			(QUIESCE_UNQUAL_TYPEOF(*(addr)))(old);                 \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_new_ = (new);           \
		__atomic_compare_exchange((addr), &uatomic_old_, &uatomic_new_, 0, \
					  _cmm_c11_mo(mos), _cmm_c11_mo(mof)); \
		_cmm_fence_after_rmw(mos);                                     \
		uatomic_old_;                                                  \
	})
#define uatomic_xchg_mo(addr, v, mo)                                           \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_v_ = (v), uatomic_old_; \
		__atomic_exchange((addr), &uatomic_v_, &uatomic_old_, _cmm_c11_mo(mo)); \
		_cmm_fence_after_rmw(mo);                                      \
		uatomic_old_;                                                  \
	})
#define uatomic_add_return_mo(addr, v, mo)                                     \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_r_ =                    \
			__atomic_add_fetch((addr), (v), _cmm_c11_mo(mo));      \
		_cmm_fence_after_rmw(mo);                                      \
		uatomic_r_;                                                    \
	})
#define uatomic_sub_return_mo(addr, v, mo)                                     \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(addr)) uatomic_r_ =                    \
			__atomic_sub_fetch((addr), (v), _cmm_c11_mo(mo));      \
		_cmm_fence_after_rmw(mo);                                      \
		uatomic_r_;                                                    \
	})
#define _uatomic_rmw_void(op, addr, v, mo)                                     \
	do {                                                                   \
		(void)op((addr), (v), _cmm_c11_mo(mo));                        \
		_cmm_fence_after_access(mo);                                   \
	} while (0)
#define uatomic_and_mo(addr, mask, mo) _uatomic_rmw_void(__atomic_fetch_and, addr, mask, mo)
#define uatomic_or_mo(addr, mask, mo) _uatomic_rmw_void(__atomic_fetch_or, addr, mask, mo)
#define uatomic_add_mo(addr, v, mo) _uatomic_rmw_void(__atomic_fetch_add, addr, v, mo)
#define uatomic_sub_mo(addr, v, mo) _uatomic_rmw_void(__atomic_fetch_sub, addr, v, mo)
#define uatomic_inc_mo(addr, mo) uatomic_add_mo(addr, 1, mo)
#define uatomic_dec_mo(addr, mo) uatomic_sub_mo(addr, 1, mo)

#define uatomic_load(addr, ...) uatomic_load_mo(addr, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_read(addr, ...)                                                \
	__extension__({                                                        \
		cmm_smp_rmc();                                                 \
		uatomic_load_mo(addr, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__)); \
	})
#define uatomic_store(addr, v, ...) uatomic_store_mo(addr, v, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_set(addr, v, ...)                                              \
	do {                                                                   \
		uatomic_store_mo(addr, v, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__)); \
		cmm_smp_wmc();                                                 \
	} while (0)
#define uatomic_cmpxchg(addr, old, new, ...)                                   \
	uatomic_cmpxchg_mo(addr, old, new,                                     \
			   _uatomic_default_mo(CMM_SEQ_CST_FENCE, ##__VA_ARGS__), \
			   _uatomic_default_mo2(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_xchg(addr, v, ...) uatomic_xchg_mo(addr, v, _uatomic_default_mo(CMM_SEQ_CST_FENCE, ##__VA_ARGS__))
#define uatomic_add_return(addr, v, ...) uatomic_add_return_mo(addr, v, _uatomic_default_mo(CMM_SEQ_CST_FENCE, ##__VA_ARGS__))
#define uatomic_sub_return(addr, v, ...) uatomic_sub_return_mo(addr, v, _uatomic_default_mo(CMM_SEQ_CST_FENCE, ##__VA_ARGS__))
#define uatomic_and(addr, mask, ...) uatomic_and_mo(addr, mask, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_or(addr, mask, ...) uatomic_or_mo(addr, mask, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_add(addr, v, ...) uatomic_add_mo(addr, v, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_sub(addr, v, ...) uatomic_sub_mo(addr, v, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_inc(addr, ...) uatomic_inc_mo(addr, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))
#define uatomic_dec(addr, ...) uatomic_dec_mo(addr, _uatomic_default_mo(CMM_RELAXED, ##__VA_ARGS__))

#define cmm_smp_mb__before_uatomic_and() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_and() _cmm_rmw_full_barrier()
#define cmm_smp_mb__before_uatomic_or() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_or() _cmm_rmw_full_barrier()
#define cmm_smp_mb__before_uatomic_add() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_add() _cmm_rmw_full_barrier()
#define cmm_smp_mb__before_uatomic_sub() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_sub() _cmm_rmw_full_barrier()
#define cmm_smp_mb__before_uatomic_inc() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_inc() _cmm_rmw_full_barrier()
#define cmm_smp_mb__before_uatomic_dec() _cmm_rmw_full_barrier()
#define cmm_smp_mb__after_uatomic_dec() _cmm_rmw_full_barrier()

#endif /* _URCU_UATOMIC_H */
