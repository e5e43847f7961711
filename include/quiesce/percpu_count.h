/*
 * quiesce/percpu_count.h - per-CPU signed counters whose sum is the value.
 *
 * A counter is one long per possible CPU plus one shared long.  Adding on
 * the fast path touches only the slot of the CPU the thread runs on, with
 * no atomic instruction and no fence: on x86-64 the add is the commit of a
 * restartable sequence (rseq, registered by glibc 2.35+), which the kernel
 * restarts if the thread is preempted or migrated before it, so the slot is
 * never written by two CPUs at once.  A thread without rseq (valgrind,
 * GLIBC_TUNABLES=glibc.pthread.rseq=0, an old kernel) adds atomically to the
 * shared slot instead; per-CPU slots see only rseq adds, the shared slot
 * only atomic ones, so the two kinds never mix on one word.  Other
 * architectures, and ThreadSanitizer builds (which cannot see the asm), use
 * atomic adds on the slot of the CPU rseq reports, or on the shared slot.
 *
 * Slots may go negative: a thread may add on one CPU and subtract on
 * another.  Only the sum means anything, and a sum read while adds run is
 * not a snapshot: callers order their reads against the adders themselves.
 *
 * Memory: counters are carved from chunks in which every CPU has a block
 * of its own (QUIESCE_PERCPU_BLOCK bytes), so a counter costs
 * 8 * (possible CPUs + 1) bytes, and counters of different CPUs never share
 * a cache line while counters of one CPU pack together, as the kernel's
 * per-CPU allocator does.
 */
#ifndef QUIESCE_PERCPU_COUNT_H
#define QUIESCE_PERCPU_COUNT_H

#include <stdbool.h>
#include <stddef.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#if defined(__x86_64__) && !defined(QUIESCE_TSAN) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#ifdef RSEQ_SIG
#define QUIESCE_PERCPU_RSEQ_X86 1
#endif
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes between one CPU's slot of a counter and the next CPU's (log2). */
#define QUIESCE_PERCPU_BLOCK_SHIFT 12
#define QUIESCE_PERCPU_BLOCK (1L << QUIESCE_PERCPU_BLOCK_SHIFT)

/*
 * A counter is named by its slot for CPU 0; CPU c's slot lies c blocks
 * further, and the shared slot after the last CPU's.
 */
QUIESCE_API long *quiesce_percpu_count_alloc(void);
QUIESCE_API void quiesce_percpu_count_free(long *cpu0);
/* The sum of all slots (relaxed loads; acquire under ThreadSanitizer). */
QUIESCE_API long quiesce_percpu_count_sum(long *cpu0);
/* Atomic add to the shared slot, with release semantics. */
QUIESCE_API void quiesce_percpu_count_add_shared(long *cpu0, long delta);
/* Possible CPUs, as the kernel numbers them (slots per counter minus one). */
QUIESCE_API unsigned quiesce_percpu_nr_cpus(void);
/* Whether the calling thread adds through rseq (false: the shared slot). */
QUIESCE_API bool quiesce_percpu_thread_has_rseq(void);
/* Atomic add to the slot of the CPU rseq reports, or to the shared slot. */
QUIESCE_API void quiesce_percpu_count_add_atomic(long *cpu0, long delta);

#ifdef QUIESCE_PERCPU_RSEQ_X86
/*
 * Test-only: QUIESCE_TEST_RSEQ_WINDOW_SPINS, defined before this header is
 * included, makes the sequence below spin that many times between its look
 * at the gate and its add, so that stress tests can catch a writer that
 * closes a gate without aborting the sequences in flight.
 */
#ifdef QUIESCE_TEST_RSEQ_WINDOW_SPINS
#define QUIESCE_RSEQ_STR2(x) #x
#define QUIESCE_RSEQ_STR(x) QUIESCE_RSEQ_STR2(x)
#define QUIESCE_RSEQ_TEST_WINDOW                                                  \
	"movl $" QUIESCE_RSEQ_STR(QUIESCE_TEST_RSEQ_WINDOW_SPINS) ", %%ecx\n\t" \
	"5:\n\tpause\n\tdecl %%ecx\n\tjnz 5b\n\t"
#define QUIESCE_RSEQ_TEST_CLOBBER , "rcx"
#else
#define QUIESCE_RSEQ_TEST_WINDOW ""
#define QUIESCE_RSEQ_TEST_CLOBBER
#endif

/*
 * The rseq critical section: store the descriptor's address in the
 * thread's rseq area, read the CPU number, OR the gate into it (an open
 * gate is 0, a closed one negative), give up if the result is negative,
 * add to that CPU's slot.  The add is the commit: if the kernel preempts,
 * migrates or signals the thread between the descriptor store and the add,
 * or membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) interrupts it there,
 * it resumes at the abort handler, which starts over, gate check included.
 * A negative CPU number means the thread has no rseq registration.  The
 * descriptor (version, flags, start, post-commit offset, abort) lives in
 * __rseq_cs, 32-byte aligned as the kernel requires; the abort handler is
 * preceded by the signature glibc registered (RSEQ_SIG), encoded as the
 * operand of a ud1 instruction.
 *
 * Returns false, having added nothing, when the gate is closed (negative)
 * or the thread has no rseq.  The gate load is a plain x86 load, so an
 * acquire: what the caller does next is ordered after it.
 */
static QUIESCE_ALWAYS_INLINE bool quiesce_percpu_count_add_if_open(long *cpu0, const int *gate,
								     long delta)
{
	__asm__ goto(
		".pushsection __rseq_cs, \"aw\"\n\t"
		".balign 32\n\t"
		"3:\n\t"
		".long 0, 0\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"0:\n\t"
		"leaq 3b(%%rip), %%rax\n\t"
		"movq %%rax, %%fs:8(%[area])\n\t"
		"1:\n\t"
		"movl %%fs:4(%[area]), %%eax\n\t"
		"orl (%[gate]), %%eax\n\t"
		"js %l[refused]\n\t"
		QUIESCE_RSEQ_TEST_WINDOW
		"shlq %[shift], %%rax\n\t"
		"addq %[delta], (%[cpu0], %%rax)\n\t"
		"2:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".byte 0x0f, 0xb9, 0x3d\n\t"
		".long %c[sig]\n\t"
		"4:\n\t"
		"jmp 0b\n\t"
		".popsection\n\t"
		:
		: [area] "r"(__rseq_offset), [cpu0] "r"(cpu0), [gate] "r"(gate),
		  [delta] "er"(delta), [shift] "i"(QUIESCE_PERCPU_BLOCK_SHIFT), [sig] "i"(RSEQ_SIG)
		: "rax", "memory", "cc" QUIESCE_RSEQ_TEST_CLOBBER
		: refused);
	return true;
refused:
	return false;
}

/* A gate that is always open (0), for adds that check none. */
QUIESCE_API extern const int quiesce_percpu_gate_open;

/*
 * No ordering of its own: callers bracket it with an RCU read-side section
 * or with fences that say what they pair with.  The "memory" clobber keeps
 * the compiler from moving accesses across it.
 */
static QUIESCE_ALWAYS_INLINE void quiesce_percpu_count_add(long *cpu0, long delta)
{
	if (QUIESCE_UNLIKELY(!quiesce_percpu_count_add_if_open(cpu0, &quiesce_percpu_gate_open,
								delta)))
		quiesce_percpu_count_add_shared(cpu0, delta);
}
#else
/* Without the x86-64 sequence, nothing is added under a gate. */
static QUIESCE_ALWAYS_INLINE bool quiesce_percpu_count_add_if_open(long *cpu0, const int *gate,
								     long delta)
{
	(void)cpu0;
	(void)gate;
	(void)delta;
	return false;
}

static QUIESCE_ALWAYS_INLINE void quiesce_percpu_count_add(long *cpu0, long delta)
{
	quiesce_percpu_count_add_atomic(cpu0, delta);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_PERCPU_COUNT_H */
