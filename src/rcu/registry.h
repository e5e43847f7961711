/*
 * registry.h - the list of threads that may be inside a read-side critical
 * section, which a grace period scans.
 */
#ifndef QUIESCE_REGISTRY_H
#define QUIESCE_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/srcu.h>

#include "rcu/gp_barrier.h"

struct quiesce_registry_entry {
	struct quiesce_registry_entry *next, *prev;
	struct quiesce_rcu_reader *reader;	/* the thread's TLS counter */
	/* The phase it was last seen past (rcu_domain.c); by the grace period's owner. */
	unsigned long seen_past_phase;
	struct quiesce_srcu_slot *srcu_slots;	/* its SRCU counts (srcu.h) */
	/* Its mb domain counter: QUIESCE_RCU_UNREGISTERED until it used that domain. */
	struct quiesce_rcu_mb_reader *mb_reader;
	pthread_t thread;
	int tid;
	struct quiesce_barrier_slot barrier;	/* signal backend: its handshake */
};

/*
 * Held only for short scans, never while sleeping, so that threads can
 * register and exit while a grace period waits.
 */
extern pthread_mutex_t quiesce_registry_lock;
extern struct quiesce_registry_entry quiesce_registry_head;
/* Written under the lock; read without it by the no-reader shortcut. */
extern unsigned long quiesce_registry_count;

#define quiesce_registry_for_each(e)                                        \
	for (struct quiesce_registry_entry *e = quiesce_registry_head.next; \
	     e != &quiesce_registry_head; e = e->next)

/*
 * The reader counter of a registered thread that waits for a grace period
 * (rcu_domain.c, "Callers that wait"): depth 0 like 0, but not 0, so that
 * rcu_read_lock() takes its slow path, and not QUIESCE_RCU_UNREGISTERED.
 */
#define QUIESCE_RCU_WAITING QUIESCE_RCU_PHASE_ONE
/*
 * The counter of such a thread on its way out of the wait, until its fence
 * (rcu_domain.c, "Callers that wait"): depth 0 and not 0, as the mark, so
 * that a signal handler's section still takes the slow path; a scan that
 * reads it counts the thread as not seen.
 */
#define QUIESCE_RCU_LEAVING_WAIT (2 * QUIESCE_RCU_PHASE_ONE)

/*
 * Whether a reader counter laid out as the default domain's (phase in the
 * high bits, nesting depth in the low ones, include/quiesce/rcu.h; the mb
 * domain's is the same) is inside a section entered at a phase other than
 * `phase`, and so holds the grace period that flipped to `phase`.
 */
static inline bool quiesce_rcu_ctr_blocks(unsigned long ctr, unsigned long phase)
{
	return (ctr & QUIESCE_RCU_NEST_MASK) && ((ctr ^ phase) & ~QUIESCE_RCU_NEST_MASK);
}

/* The calling thread's entry (in static TLS, so signal handlers may use it). */
struct quiesce_registry_entry *quiesce_registry_self(void);

/*
 * Registers the calling thread if it is not, and sets its mb domain counter
 * (rcu_mb.h), which its entry points at, to 0 if it says
 * QUIESCE_RCU_UNREGISTERED.  Takes no lock when the thread is registered.
 */
void quiesce_registry_use_mb(void);

/*
 * Test-only: when set, called by a thread that registers, before it links
 * its entry, and by one that leaves, between the unlink and its counters'
 * QUIESCE_RCU_UNREGISTERED: where no signal handler may run (registry.c).
 */
extern void (*quiesce_test_registry_window)(void);
/*
 * Test-only: the child of fork() leaves the registry as the parent's
 * prepare handler left it, locked ("busted"): its first registration or
 * grace period waits for ever.
 */
extern bool quiesce_test_busted_fork_registry;

#endif
