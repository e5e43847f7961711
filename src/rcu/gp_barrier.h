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

/* Chooses the backend; QUIESCE_RCU_BACKEND=signal forces the fallback. */
void quiesce_gp_barrier_init(void);

/*
 * expedited: interrupt the CPUs running this process's threads (fast);
 * otherwise ride on the kernel's own grace period (slow, interrupts no one).
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

/* The signal fallback. */
void quiesce_gp_barrier_signal_init(void);
void quiesce_gp_barrier_signal(void);

#endif
