/*
 * urcu/arch.h (liburcu overlay) - liburcu's memory barriers, cache-line
 * size, cpu_relax and cycle counter, written on GCC's __atomic builtins.
 *
 * cmm_smp_*() order accesses between threads; cmm_*() without smp_ are
 * liburcu's I/O barriers, the same here (no device memory in user space).
 * mc/rmc/wmc ("memory clobber") only keep the compiler from reordering:
 * every architecture quiesce builds for keeps caches coherent.
 * read_barrier_depends orders dependent loads, which every such
 * architecture does by itself.
 */
#ifndef _URCU_ARCH_H
#define _URCU_ARCH_H

#include <urcu/syscall-compat.h>

#include <stdint.h>
#include <time.h>

#include <urcu/compiler.h>
#include <urcu/config.h>

#if defined(__x86_64__)
#define URCU_ARCH_X86 1
#define URCU_ARCH_AMD64 1
#elif defined(__i386__)
#define URCU_ARCH_X86 1
#elif defined(__aarch64__)
#define URCU_ARCH_AARCH64 1
#elif defined(__arm__)
#define URCU_ARCH_ARM 1
#elif defined(__powerpc64__)
#define URCU_ARCH_PPC 1
#define URCU_ARCH_PPC64 1
#elif defined(__riscv)
#define URCU_ARCH_RISCV 1
#endif

/*
 * liburcu's values, architecture by architecture: a struct aligned with it
 * must have one layout whether a file includes liburcu's headers or the
 * overlay's (GlusterFS compiles most of its files against whichever
 * liburcu is on the system path and a few through pkg-config).
 */
#if defined(__x86_64__) || defined(__i386__) || defined(__s390__)
#define CAA_CACHE_LINE_SIZE 128
#elif defined(__powerpc__) || defined(__sparc__)
#define CAA_CACHE_LINE_SIZE 256
#else
#define CAA_CACHE_LINE_SIZE 64
#endif
#define CONFIG_HAVE_MEM_COHERENCY 1

#define cmm_smp_mb() quiesce_fence_seq_cst()
#define cmm_smp_rmb() quiesce_fence_acquire()
#define cmm_smp_wmb() quiesce_fence_release()
#define cmm_smp_mc() cmm_barrier()
#define cmm_smp_rmc() cmm_barrier()
#define cmm_smp_wmc() cmm_barrier()
#define cmm_smp_read_barrier_depends() do { } while (0)

#define cmm_mb() cmm_smp_mb()
#define cmm_rmb() cmm_smp_rmb()
#define cmm_wmb() cmm_smp_wmb()
#define cmm_mc() cmm_barrier()
#define cmm_rmc() cmm_barrier()
#define cmm_wmc() cmm_barrier()
#define cmm_read_barrier_depends() do { } while (0)

/* liburcu emits this extra fence only when configured for old binaries. */
#define cmm_emit_legacy_smp_mb() do { } while (0)

static inline void caa_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	cmm_barrier();
#endif
}

/*
 * A cycle counter for benchmarks: the time-stamp counter on x86, the
 * virtual counter on arm64, else monotonic nanoseconds (liburcu's own
 * fallback).
 */
#define HAS_CAA_GET_CYCLES 1
typedef uint64_t caa_cycles_t;

static inline caa_cycles_t caa_get_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((caa_cycles_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1ULL;
	return (caa_cycles_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

#endif /* _URCU_ARCH_H */
