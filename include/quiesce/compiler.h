/*
 * quiesce/compiler.h - the few compiler and memory-model helpers that the
 * inline fast paths of the public headers need.
 *
 * Every fence has a name that says what it orders.  On x86-64 the acquire
 * and release forms compile to plain moves; only the store-load fence costs
 * an instruction.  Code that uses these must still say, in a comment, what
 * each one pairs with.
 */
#ifndef QUIESCE_COMPILER_H
#define QUIESCE_COMPILER_H

#if defined(__GNUC__) && __GNUC__ >= 4
#define QUIESCE_API __attribute__((__visibility__("default")))
#else
#define QUIESCE_API
#endif

#define QUIESCE_LIKELY(x) __builtin_expect(!!(x), 1)
#define QUIESCE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define QUIESCE_CACHELINE 64
#define QUIESCE_CACHELINE_ALIGNED __attribute__((__aligned__(QUIESCE_CACHELINE)))
#define QUIESCE_NORETURN __attribute__((__noreturn__))
#define QUIESCE_COLD __attribute__((__cold__, __noinline__))
/*
 * A fast path that must be inlined wherever it is called, whatever the
 * compiler estimates.  gcc weighs an asm statement by its lines, and
 * counts the rseq sequence's descriptor and abort handler as if they ran:
 * without this, a file that calls percpu_down_read() or freezer_start()
 * from two places or more gets one out-of-line copy of each and a call at
 * every site (the freezer's pair then took 2.4 ns instead of 1.0).  Once
 * those were forced, clang declined to inline rcu_read_lock() into their
 * fallback, so it is forced too.  tests/inline_fast_paths.sh checks that
 * every fast path is inlined at -O2, with gcc and with clang.
 */
#define QUIESCE_ALWAYS_INLINE inline __attribute__((__always_inline__))
/*
 * A slow path defined in a header, so that what uses it links no library:
 * out of its callers' line like QUIESCE_COLD, and, being static, emitted
 * only in a file that calls it (no warning in one that does not).
 */
#define QUIESCE_HEADER_COLD static __attribute__((__cold__, __noinline__, __unused__))

/*
 * QUIESCE_TSAN: a ThreadSanitizer build, which does not model standalone
 * fences or address dependencies; the few places that rely on them use an
 * ordered access there instead, and say so.
 */
#if defined(__SANITIZE_THREAD__)
#define QUIESCE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define QUIESCE_TSAN 1
#endif
#endif

/* Keeps the compiler from moving memory accesses across this point. */
#define quiesce_compiler_barrier() __asm__ __volatile__("" ::: "memory")

/*
 * The type of the lvalue lv without const or volatile: the type of a
 * temporary that an __atomic builtin reads or writes through a pointer
 * (they refuse a pointer to volatile, an error in C++).  In C a comma
 * expression is not an lvalue and its type carries no qualifier; in C++ it
 * keeps them, so there std::remove_cv strips them.
 */
#ifdef __cplusplus
#include <type_traits>
#define QUIESCE_UNQUAL_TYPEOF(lv) typename std::remove_cv<__typeof__(lv)>::type
#else
#define QUIESCE_UNQUAL_TYPEOF(lv) __typeof__(((void)0, (lv)))
#endif

#define QUIESCE_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define QUIESCE_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define QUIESCE_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define QUIESCE_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/*
 * Standalone fences, one function an order.  Under ThreadSanitizer gcc
 * warns at every fence (-Wtsan: the tool does not model them; the places
 * where it must see an order use an ordered access instead, under
 * QUIESCE_TSAN).  The fence stays for the hardware, and these functions
 * keep the warning inside the header, so that a program built with
 * -fsanitize=thread -Werror that calls an inline function of ours still
 * builds (overlay/tests/fence_usage.c).  Inlined always: each is one
 * instruction at most, on the read side of the mb domain among others.
 */
#if defined(QUIESCE_TSAN) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define QUIESCE_QUIET_TSAN_FENCES 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"
#endif
static inline __attribute__((__always_inline__)) void quiesce_fence_seq_cst(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline __attribute__((__always_inline__)) void quiesce_fence_acquire(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static inline __attribute__((__always_inline__)) void quiesce_fence_release(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}
#ifdef QUIESCE_QUIET_TSAN_FENCES
#pragma GCC diagnostic pop
#undef QUIESCE_QUIET_TSAN_FENCES
#endif

/* Orders earlier stores before later loads: the one fence x86 pays for. */
#define quiesce_fence_store_load() quiesce_fence_seq_cst()

/*
 * After a sequentially consistent read-modify-write: makes it a full
 * barrier for the plain and relaxed accesses on both sides, as the kernel's
 * xchg() and liburcu's uatomic_xchg() are.  x86's locked instructions are
 * one already; on arm64 the exchange may be an ldaxr/stlxr pair, and a load
 * after it may be satisfied before its store is visible.
 */
#if defined(__x86_64__) || defined(__i386__)
#define quiesce_fence_after_rmw() quiesce_compiler_barrier()
#else
#define quiesce_fence_after_rmw() quiesce_fence_seq_cst()
#endif

static inline void quiesce_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	quiesce_compiler_barrier();
#endif
}

#endif /* QUIESCE_COMPILER_H */
