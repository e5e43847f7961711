/*
 * gp_barrier.h - the heavy barrier a grace period issues once, which stands
 * in for the fence that readers never execute.
 *
 * After quiesce_gp_barrier() returns, every registered reader thread has
 * executed the equivalent of a full memory barrier at some point during the
 * call: stores it made before that point are visible to the caller, and its
 * loads after that point see every store the caller made before the call.
 */
#ifndef QUIESCE_GP_BARRIER_H
#define QUIESCE_GP_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

/*
 * Chooses the backend, the first that works of membarrier, mprotect and
 * signal (QUIESCE_RCU_BACKEND forces one), on the first of these calls;
 * every call here makes it first.
 */
void quiesce_gp_barrier_init(void);

/*
 * expedited: interrupt the CPUs running this process's threads (fast);
 * otherwise ride on the kernel's own grace period (slow, interrupts no one).
 * Only the membarrier backend tells the two apart.  A barrier that waits
 * longer than the stall timeout is reported (stall.h).
 */
void quiesce_gp_barrier(bool expedited);

/*
 * membarrier(PRIVATE_EXPEDITED_RSEQ): when it returns, every thread of this
 * process has executed a full barrier, and every restartable sequence that
 * was in progress has been aborted (it starts over when its thread runs
 * again).  Ready only on the membarrier backend, with kernel 5.10 or later.
 */
bool quiesce_rseq_barrier_ready(void);
void quiesce_rseq_barrier(void);
uint64_t quiesce_rseq_barrier_count(void);

/* The fallbacks.  An init that returns false says why in *why_not. */
bool quiesce_gp_barrier_mprotect_init(const char **why_not);
void quiesce_gp_barrier_mprotect(void);
void quiesce_gp_barrier_signal_init(void);
void quiesce_gp_barrier_signal(void);

/*
 * The signal backend's handshake with one registered thread (kept in its
 * registry entry), in barrier request numbers.  A signal is in flight, sent
 * and not yet handled, while answered < sent.
 */
struct quiesce_barrier_slot {
	unsigned long answered;	/* the last request its handler saw */
	unsigned long sent;	/* the last request a signal was sent for */
	unsigned long asleep;	/* the last request it was found asleep for */
};

/* Test-only: the signal backend takes every thread for asleep ("busted"). */
extern bool quiesce_test_busted_asleep;
/* Test-only: a kernel backend's barrier call takes this much longer. */
extern unsigned quiesce_test_slow_barrier_ms;

#endif
