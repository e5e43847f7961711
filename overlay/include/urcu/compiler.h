/*
 * urcu/compiler.h (liburcu overlay) - liburcu's compiler helpers: branch
 * hints, the compiler barrier, ACCESS_ONCE, container_of, min/max, build
 * assertions.  Plain GCC builtins; of quiesce it takes only
 * QUIESCE_UNQUAL_TYPEOF (quiesce/compiler.h, which brings C++'s
 * <type_traits> as liburcu 0.15's compiler.h does), for the temporaries
 * of system.h's and uatomic.h's accesses.
 */
#ifndef _URCU_COMPILER_H
#define _URCU_COMPILER_H

#include <stddef.h>

#include <urcu/config.h>
#include <quiesce/compiler.h>

/* The GCC version as one number (10203: 1.2.3), for version tests; clang's too. */
#ifdef __GNUC__
#define URCU_GCC_VERSION (__GNUC__ * 10000 + __GNUC_MINOR__ * 100 + __GNUC_PATCHLEVEL__)
#endif

#define caa_likely(x) __builtin_expect(!!(x), 1)
#define caa_unlikely(x) __builtin_expect(!!(x), 0)

/* Keeps the compiler from moving memory accesses across this point. */
#define cmm_barrier() __asm__ __volatile__("" ::: "memory")

/* One access, neither merged, split, cached nor repeated by the compiler. */
#define CMM_ACCESS_ONCE(x) (*(__volatile__ __typeof__(x) *)&(x))

/* Hides a value from the optimizer (no assumption from an earlier compare). */
#define _CMM_OPTIMIZER_HIDE_VAR(var) __asm__("" : "+r"(var))

#ifndef caa_max
#define caa_max(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef caa_min
#define caa_min(a, b) ((a) < (b) ? (a) : (b))
#endif

#define __CAA_COMBINE_TOKENS(prefix, counter) prefix##counter
#define CAA_COMBINE_TOKENS(prefix, counter) __CAA_COMBINE_TOKENS(prefix, counter)

#define CAA_BITS_PER_LONG (__SIZEOF_LONG__ * 8)

#define caa_container_of(ptr, type, member)                                    \
	__extension__({                                                        \
		const __typeof__(((type *)NULL)->member) *caa_ptr_ = (ptr);    \
		(type *)((char *)caa_ptr_ - offsetof(type, member));           \
	})
/* As caa_container_of(), but NULL gives NULL. */
#define caa_container_of_check_null(ptr, type, member)                         \
	__extension__({                                                        \
		const __typeof__(((type *)NULL)->member) *caa_ptr_ = (ptr);    \
		caa_ptr_ ? (type *)((char *)caa_ptr_ - offsetof(type, member)) : NULL; \
	})

#define CAA_BUILD_BUG_ON_ZERO(cond) (sizeof(struct { int : -!!(cond); }))
#define CAA_BUILD_BUG_ON(cond) ((void)CAA_BUILD_BUG_ON_ZERO(cond))
#ifdef __cplusplus
#define urcu_static_assert(predicate, msg, c_identifier_msg) static_assert(predicate, msg)
#else
#define urcu_static_assert(predicate, msg, c_identifier_msg) _Static_assert(predicate, msg)
#endif

/* Sparse's RCU annotation: nothing to the compiler. */
#define __rcu

#ifdef __cplusplus
/* C++: to the unqualified type (a cast to a const pointer is a warning). */
#define URCU_FORCE_CAST(to, arg) (reinterpret_cast<typename std::remove_cv<to>::type>(arg))
#else
#define URCU_FORCE_CAST(type, arg) ((type)(arg))
#endif

#define caa_is_signed_type(type) ((type)-1 < (type)0)
#define caa_cast_long_keep_sign(v) ((unsigned long)(v))
#define CDS_DEPRECATED(msg) __attribute__((__deprecated__(msg)))
#define CAA_ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

#if defined(__SANITIZE_THREAD__)
#define CMM_SANITIZE_THREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CMM_SANITIZE_THREAD 1
#endif
#endif

#endif /* _URCU_COMPILER_H */
