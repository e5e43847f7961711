/*
 * quiesce/defer.h - headless deferral: run fn(p) after a grace period,
 * with no rcu_head in the object (liburcu's defer_rcu(), in the spirit of
 * the kernel's headless kvfree_rcu()).
 *
 *   rcu_assign_pointer(gp, new);  quiesce_defer_rcu(free, old);
 *
 * Each thread appends (fn, p) to a block of its own; a full block goes to
 * the domain's call_rcu() as one callback, which runs the block's entries
 * in the order they were deferred.  A call is a few stores under a lock
 * that only its thread takes, except when a barrier or the flushing thread
 * collects the block (src/rcu/defer.c).
 *
 * Guarantees and rules for callers
 * - fn(p) runs exactly once, after a grace period of the domain that
 *   started after the call, on the domain's callback thread (or, when no
 *   memory can be had for a block, on the caller after it waited for a
 *   grace period itself).
 * - A thread that stops deferring does not hold its partial block for
 *   long: a flushing thread hands any block older than a few tens of
 *   milliseconds to call_rcu(), so fn(p) runs within that plus the
 *   domain's callback delay without any further call.  A thread's exit
 *   hands its blocks over at once.
 * - quiesce_defer_barrier() (and its domain's variants) waits until every
 *   fn(p) deferred before it, by any thread, has run, and every callback
 *   the domain's rcu_barrier() waits for.
 * - quiesce_defer_rcu() and quiesce_defer_rcu_mb() may wait for a grace
 *   period (no memory for a block, or too much deferred work pending), so
 *   they must not be called inside a read-side critical section of their
 *   domain: they abort with a message there.  quiesce_qsbr_defer_rcu() may
 *   be called by an online QSBR thread, but is then a quiescent state of
 *   it, as liburcu's: when it waits, it does so offline.  The barriers
 *   follow their domain's rcu_barrier() rules (an online QSBR thread may not
 *   call quiesce_qsbr_defer_barrier(); none may be called from a deferred
 *   function or a callback of its domain: both abort with a message).
 * - fn may itself defer.  Entries are run in order per block; no order is
 *   promised between threads or between blocks.
 * - fork(): the child starts with nothing deferred; what the parent
 *   deferred runs in the parent only.
 * - At exit(), entries still in a live thread's partial block are not run
 *   (as liburcu's queues): call the barrier first where they must be.
 */
#ifndef QUIESCE_DEFER_H
#define QUIESCE_DEFER_H

#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The default RCU domain (<quiesce/rcu.h>). */
QUIESCE_API void quiesce_defer_rcu(void (*fn)(void *p), void *p);
QUIESCE_API void quiesce_defer_barrier(void);

/* The mb domain (<quiesce/rcu_mb.h>). */
QUIESCE_API void quiesce_defer_rcu_mb(void (*fn)(void *p), void *p);
QUIESCE_API void quiesce_defer_barrier_mb(void);

/* The QSBR domain (<quiesce/rcu_qsbr.h>). */
QUIESCE_API void quiesce_qsbr_defer_rcu(void (*fn)(void *p), void *p);
QUIESCE_API void quiesce_qsbr_defer_barrier(void);

#ifndef QUIESCE_NO_SHORT_NAMES
#define defer_rcu quiesce_defer_rcu
#define rcu_defer_barrier quiesce_defer_barrier
#define defer_rcu_mb quiesce_defer_rcu_mb
#define rcu_defer_barrier_mb quiesce_defer_barrier_mb
#define rcu_qsbr_defer_rcu quiesce_qsbr_defer_rcu
#define rcu_qsbr_defer_barrier quiesce_qsbr_defer_barrier
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_DEFER_H */
