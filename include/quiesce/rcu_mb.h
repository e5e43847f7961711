/*
 * quiesce/rcu_mb.h - RCU whose readers fence (liburcu's "mb" flavor): a
 * grace-period domain of its own, beside the default one of
 * <quiesce/rcu.h>, that trades a full fence on each outermost
 * quiesce_rcu_mb_read_lock() and quiesce_rcu_mb_read_unlock() for grace
 * periods that interrupt no CPU.
 *
 * Readers:   quiesce_rcu_mb_read_lock(); p = rcu_dereference(gp); ...
 *            quiesce_rcu_mb_read_unlock();
 * Updaters:  rcu_assign_pointer(gp, new); quiesce_synchronize_rcu_mb();
 *            free(old);  or  quiesce_call_rcu_mb(&old->head, func);
 *
 * Which to choose.  The default domain's readers execute no fence, so its
 * grace periods issue membarrier(), which interrupts every CPU running a
 * thread of the process.  Here a grace period is a phase flip and a scan
 * of the registered threads: no system call, no interrupt, so isolated or
 * real-time CPUs are left alone and grace periods are cheap; each read-side
 * section pays two full fences instead.  The two
 * domains are independent: a section of one does not hold the other's
 * grace periods, and protects only what that domain's updaters retire.
 * The pointer macros of <quiesce/rcu.h> (rcu_dereference() ...) serve both.
 *
 * Rules for callers (as for <quiesce/rcu.h>)
 * - Sections nest (65535 deep at most, as rcu.h's) and must not block for
 *   long (a stalled reader is reported after the stall timeout, rcu.h).
 * - quiesce_synchronize_rcu_mb() (and its expedited form) and
 *   quiesce_rcu_barrier_mb() inside an mb section would wait for
 *   themselves: they abort with a message.  So does an unbalanced
 *   quiesce_rcu_mb_read_unlock(), and unregistering inside a section.
 * - A thread registers on its first mb section (quiesce_rcu_mb_register_
 *   thread() does it ahead of time).  It shares its entry in the thread
 *   registry with the default domain: quiesce_rcu_unregister_thread() and
 *   quiesce_rcu_mb_unregister_thread() both take the thread out of both
 *   domains, and its next section of either registers it again.  A thread
 *   that exits inside an mb section is reported on stderr and unregistered.
 * - Sections may be taken in signal handlers of a thread registered
 *   already, by either domain: its first mb section then takes no lock
 *   (the rule of rcu.h).
 * - After fork() the child's registry holds only the forking thread.
 * - Callbacks run on the thread "quiesce-mb-cb"; the rules of call_rcu()
 *   in rcu.h apply (a callback must not call quiesce_rcu_barrier_mb(), and
 *   must return outside any mb section: checked).
 *
 * The ordering argument is at the top of src/rcu/rcu_mb.c.
 */
#ifndef QUIESCE_RCU_MB_H
#define QUIESCE_RCU_MB_H

#include <stdbool.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A reader's counter, laid out as the default domain's (rcu.h): 0 outside
 * any section; inside, the phase at the outermost lock in the high bits
 * and the nesting depth in the low QUIESCE_RCU_NEST_BITS;
 * QUIESCE_RCU_UNREGISTERED before the thread's first mb section.  A TLS
 * object of its own, so that the default domain's readers never touch it.
 */
struct quiesce_rcu_mb_reader {
	unsigned long ctr;	/* read by the mb grace period's scan */
} QUIESCE_CACHELINE_ALIGNED;

/* Read-mostly: written once per grace period, read by every reader. */
struct quiesce_rcu_mb_gp_word {
	unsigned long ctr;	/* current phase, nesting depth 1 */
	int writer_sleeping;	/* a grace period sleeps, waiting for readers */
} QUIESCE_CACHELINE_ALIGNED;

QUIESCE_API extern __thread struct quiesce_rcu_mb_reader quiesce_rcu_mb_reader_self
	__attribute__((__tls_model__("initial-exec")));
QUIESCE_API extern struct quiesce_rcu_mb_gp_word quiesce_rcu_mb_gp_word;

QUIESCE_API void quiesce_rcu_mb_register_thread(void);
QUIESCE_API void quiesce_rcu_mb_unregister_thread(void);
QUIESCE_API QUIESCE_COLD void quiesce_rcu_mb_read_lock_first_use(void);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_rcu_mb_unbalanced_unlock(void);
QUIESCE_API QUIESCE_COLD void quiesce_rcu_mb_wake_grace_period(void);

static inline void quiesce_rcu_mb_read_lock(void)
{
	struct quiesce_rcu_mb_reader *self = &quiesce_rcu_mb_reader_self;
	unsigned long ctr = self->ctr;

	if (QUIESCE_LIKELY(ctr == 0)) {
		QUIESCE_STORE(&self->ctr, QUIESCE_LOAD(&quiesce_rcu_mb_gp_word.ctr));
		/*
		 * (a) in src/rcu/rcu_mb.c: orders the counter store before the
		 * section's loads.  Pairs with the updater's fence after its
		 * unlink (quiesce_gp_snapshot()), which precedes the scan's
		 * load of this counter.  It also acquires the phase just read:
		 * pairs with the release store that flipped it.
		 */
		quiesce_fence_store_load();
	} else if (QUIESCE_LIKELY(((ctr + 1) & QUIESCE_RCU_NEST_MASK) > 1)) {
		QUIESCE_STORE(&self->ctr, ctr + 1);	/* nested: depth 1 to NEST_MASK - 1 */
	} else {
		quiesce_rcu_mb_read_lock_first_use();	/* registers, then enters; or nests too deep */
	}
}

static inline void quiesce_rcu_mb_read_unlock(void)
{
	struct quiesce_rcu_mb_reader *self = &quiesce_rcu_mb_reader_self;
	unsigned long ctr = self->ctr;

	if (QUIESCE_UNLIKELY(!(ctr & QUIESCE_RCU_NEST_MASK)))
		quiesce_rcu_mb_unbalanced_unlock();
	if (QUIESCE_LIKELY((ctr & QUIESCE_RCU_NEST_MASK) == 1)) {
		/*
		 * (b): release, so that the section's loads complete before
		 * the scan can see the reader leave; pairs with the scan's
		 * sequentially consistent load of this counter.
		 */
		QUIESCE_STORE_RELEASE(&self->ctr, 0UL);
		/*
		 * (c): orders that store before the loads below; pairs with
		 * the fence between a grace period's store of writer_sleeping
		 * and its rescan (readers_fence in gp_engine.c).  Either the
		 * rescan sees us gone, or we see the flag, and the phase
		 * flipped before it.  Only a reader that entered before the
		 * flip holds the grace period, so only such a one wakes it.
		 */
		quiesce_fence_store_load();
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_rcu_mb_gp_word.writer_sleeping)) &&
		    ((ctr ^ QUIESCE_LOAD(&quiesce_rcu_mb_gp_word.ctr)) & ~QUIESCE_RCU_NEST_MASK))
			quiesce_rcu_mb_wake_grace_period();
	} else {
		QUIESCE_STORE(&self->ctr, ctr - 1);
	}
}

static inline bool quiesce_rcu_mb_read_ongoing(void)
{
	return (quiesce_rcu_mb_reader_self.ctr & QUIESCE_RCU_NEST_MASK) != 0;
}

/* Grace periods of the mb domain; the expedited form polls longer before it sleeps. */
QUIESCE_API void quiesce_synchronize_rcu_mb(void);
QUIESCE_API void quiesce_synchronize_rcu_mb_expedited(void);

/* Polled grace periods, as in rcu.h; start_poll asks "quiesce-mb-cb" to run one. */
QUIESCE_API unsigned long quiesce_get_state_synchronize_rcu_mb(void);
QUIESCE_API unsigned long quiesce_start_poll_synchronize_rcu_mb(void);
QUIESCE_API bool quiesce_poll_state_synchronize_rcu_mb(unsigned long cookie);
QUIESCE_API void quiesce_cond_synchronize_rcu_mb(unsigned long cookie);

/*
 * Callbacks after an mb grace period, and the wait for them (on the mb
 * workers of <quiesce/call_rcu_worker.h> too), as in rcu.h.
 */
QUIESCE_API void quiesce_call_rcu_mb(struct quiesce_rcu_head *head,
				     void (*func)(struct quiesce_rcu_head *head));
QUIESCE_API void quiesce_rcu_barrier_mb(void);

#ifndef QUIESCE_NO_SHORT_NAMES
#define rcu_mb_read_lock quiesce_rcu_mb_read_lock
#define rcu_mb_read_unlock quiesce_rcu_mb_read_unlock
#define rcu_mb_read_ongoing quiesce_rcu_mb_read_ongoing
#define rcu_mb_register_thread quiesce_rcu_mb_register_thread
#define rcu_mb_unregister_thread quiesce_rcu_mb_unregister_thread
#define synchronize_rcu_mb quiesce_synchronize_rcu_mb
#define synchronize_rcu_mb_expedited quiesce_synchronize_rcu_mb_expedited
#define get_state_synchronize_rcu_mb quiesce_get_state_synchronize_rcu_mb
#define start_poll_synchronize_rcu_mb quiesce_start_poll_synchronize_rcu_mb
#define poll_state_synchronize_rcu_mb quiesce_poll_state_synchronize_rcu_mb
#define cond_synchronize_rcu_mb quiesce_cond_synchronize_rcu_mb
#define call_rcu_mb quiesce_call_rcu_mb
#define rcu_barrier_mb quiesce_rcu_barrier_mb
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCU_MB_H */
