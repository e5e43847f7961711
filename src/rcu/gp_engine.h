/*
 * gp_engine.h - the grace-period engine, which serves every grace-period
 * domain (the default RCU domain, and any other kind of domain built on it)
 * with one code path, for the library's other parts.
 *
 * What the engine does for every domain: counts grace periods with a
 * sequence number (gp_seq.h), lets concurrent callers share them (one runs
 * grace periods while the others sleep), polls for readers and then sleeps
 * until the last one leaves, reports stalled readers, and, in the child of
 * fork(), takes back a grace period that ran in the parent.  What a domain
 * says (struct quiesce_gp_domain_ops): how a grace period starts (its phase
 * flip), which readers still hold one, and whether no reader can exist at
 * all.
 *
 * Sleeping.  A domain's readers check *writer_sleeping when they leave a
 * section that holds a grace period, and wake it with quiesce_gp_wake().
 * The engine stores the flag, issues the heavy barrier (quiesce_gp_barrier()),
 * then counts the readers again: the barrier stands in for the fence that a
 * reader does not execute between its exit store and its look at the flag
 * (the store-buffer pattern).  A domain whose readers do fence there may set
 * readers_fence and skip that barrier.
 */
#ifndef QUIESCE_GP_ENGINE_H
#define QUIESCE_GP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

struct quiesce_gp_domain;

struct quiesce_gp_domain_ops {
	/* For messages: "RCU", "SRCU", "QSBR". */
	const char *kind;
	/*
	 * Whether a grace period begins with the heavy barrier, before
	 * start(): the readers' sections make no fence of their own.
	 */
	bool barrier_first;
	/*
	 * Whether the readers fence between leaving and looking at
	 * writer_sleeping, so that sleeping needs no heavy barrier.
	 */
	bool readers_fence;
	/*
	 * Optional: whether no reader can exist, so that the grace period
	 * ends at once.  Called after the sequence number went odd (with a
	 * sequentially consistent compare-exchange), before the barrier.
	 */
	bool (*no_reader)(struct quiesce_gp_domain *d);
	/*
	 * Optional: whether the calling thread holds the domain's grace
	 * periods (inside a section; online), so that it must not wait for
	 * one (the callback thread's throttle and exit wait look).
	 */
	bool (*caller_holds)(struct quiesce_gp_domain *d);
	/*
	 * Whether a section may end on another thread than the one that
	 * opened it (SRCU's hand-off, srcu.h).  Then caller_holds() also says
	 * yes for a section handed off and not ended yet, which another
	 * thread ends: it may make a caller skip a wait (the throttle, exit),
	 * but the check after each callback does not abort on it.
	 */
	bool sections_handed_off;
	/* Starts a grace period: flips the domain's phase. */
	void (*start)(struct quiesce_gp_domain *d);
	/*
	 * Counts the readers that still hold the grace period and describes
	 * up to cap of them in stalled[] (names[] holds their names).  May
	 * advance the domain's own state as readers leave.  Called with
	 * cap == 0 while polling.
	 */
	unsigned (*blocking)(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			     char names[][16], unsigned cap);
	/*
	 * Optional: called when blocking() counts none; returns true after
	 * starting another wait of the same grace period (SRCU flips its
	 * index here, then waits for the old one's readers).  Each wait
	 * polls and sleeps as the first does, its sleeps behind a barrier
	 * issued after this call, so that readers see what it stored.
	 */
	bool (*next_wait)(struct quiesce_gp_domain *d);
	/*
	 * Optional, for a barrier_first domain: counts the readers other than
	 * the caller not yet seen past the flip, that is, inside a section
	 * they entered with the phase start() stored, and notes those it
	 * sees.  A domain that gives it has argued that such readers need no
	 * barrier: the engine then flips first, polls this for a while, and
	 * issues the barrier (then waits as usual) only if it stays above 0.
	 */
	unsigned (*unseen_past_flip)(struct quiesce_gp_domain *d);
	/*
	 * Optional, both or neither: the calling thread begins to wait for a
	 * grace period (wait_begins() returns whether it noted that), and has
	 * stopped waiting.  A domain notes it where its grace periods can see
	 * it, so that a thread asleep in a wait, which holds no section
	 * meanwhile, costs them nothing (rcu_domain.c, "Callers that wait").
	 */
	bool (*wait_begins)(struct quiesce_gp_domain *d);
	void (*wait_ends)(struct quiesce_gp_domain *d);
};

struct quiesce_gp_domain {
	const struct quiesce_gp_domain_ops *ops;
	int *writer_sleeping;		/* futex word the readers check on exit */
	/* Odd while a grace period runs; written by its owner (gp_engine.c). */
	unsigned long gp_seq;
	/*
	 * Futex: bumped by GP_ENDED_STEP when an owner is done; GP_ENDED_SLEEPERS
	 * set by a caller about to sleep on it since the last bump (gp_engine.c).
	 */
	int gp_ended;
	int gp_ended_waiters;		/* callers asleep (or about to be) on gp_ended */
	bool listed;			/* on the engine's list, for fork() */
	struct quiesce_gp_domain *next_listed;
	/* Written by the owner of the running grace period only. */
	uint64_t gp_normal, gp_expedited, gp_skipped, gp_no_barrier;
	/*
	 * After a poll for readers past the flip in vain, the next
	 * no_barrier_skip grace periods, and those before no_barrier_retry_ns,
	 * do not poll (see gp_engine.c); the two backoffs are 0 after a poll
	 * that succeeded.
	 */
	unsigned no_barrier_skip, no_barrier_backoff;
	uint64_t no_barrier_backoff_ns, no_barrier_retry_ns;
	/* synchronize calls: that ran a grace period, the others */
	uint64_t sync_calls_owner, sync_calls_shared;
	unsigned long calls;		/* the domain's own calls under way (quiesce_gp_call_begins()) */
};

#define QUIESCE_GP_DOMAIN_INIT(ops_, sleeping_) { .ops = (ops_), .writer_sleeping = (sleeping_) }

void quiesce_gp_domain_init(struct quiesce_gp_domain *d, const struct quiesce_gp_domain_ops *ops,
			    int *writer_sleeping);
/* Takes the domain off the engine's list; no grace period may be running. */
void quiesce_gp_domain_destroy(struct quiesce_gp_domain *d);

/* The default RCU domain (rcu_domain.c). */
extern struct quiesce_gp_domain quiesce_rcu_domain;

/*
 * A domain's own count of its calls under way that wait (SRCU's
 * synchronize and barrier), for its misuse checks: begins before the wait,
 * ends after the call's last touch of the domain.  A fork() child has none
 * of the parent's (the domain is listed from the first begin).
 * Sequentially consistent.
 */
void quiesce_gp_call_begins(struct quiesce_gp_domain *d);
void quiesce_gp_call_ends(struct quiesce_gp_domain *d);
unsigned long quiesce_gp_calls_under_way(struct quiesce_gp_domain *d);

/* The current sequence number (acquire: what the grace period ordered). */
unsigned long quiesce_gp_seq_current(struct quiesce_gp_domain *d);

/*
 * A cookie naming the end of the first grace period that starts after the
 * call; fences first, so that the caller's unlink precedes it.
 */
unsigned long quiesce_gp_snapshot(struct quiesce_gp_domain *d);

/*
 * Returns once the grace period named by snap has passed, running grace
 * periods (normal or expedited, as the knobs allow) until it has.
 */
void quiesce_gp_wait_for(struct quiesce_gp_domain *d, unsigned long snap, bool expedited);

/* A full grace period from now: snapshot, then wait (counts the call). */
void quiesce_gp_synchronize(struct quiesce_gp_domain *d, bool expedited);
/* The quiesce_gp_synchronize() calls so far. */
uint64_t quiesce_gp_sync_calls(struct quiesce_gp_domain *d);

/* Whether the grace period a quiesce_gp_snapshot() cookie names has ended. */
bool quiesce_gp_poll(struct quiesce_gp_domain *d, unsigned long cookie);

/*
 * Aborts with a message naming call when the caller is inside a read-side
 * critical section of d (its caller_holds()), where a wait for d's grace
 * periods would wait for itself.
 */
void quiesce_gp_forbid_inside_reader(struct quiesce_gp_domain *d, const char *call);

/* Wakes a grace period of the domain asleep on *writer_sleeping. */
void quiesce_gp_wake(int *writer_sleeping);

/* Whether rcu_normal is on (env QUIESCE_RCU_NORMAL or rcu_set_normal()). */
bool quiesce_gp_normal_only(void);

/* Test-only: grace periods that return without waiting ("busted"), in every domain. */
extern bool quiesce_test_busted_gp;
/*
 * Test-only: every reader counts as seen past the flip, whatever its counter
 * says, so that grace periods end after the flip without waiting.
 */
extern bool quiesce_test_busted_past_flip;
/*
 * Test-only: a snapshot names the end of the grace period after the one it
 * should ("busted"): waits on it are only longer, a polled cookie is not
 * done after the grace period it was taken for.
 */
extern bool quiesce_test_busted_cookie;
/*
 * Test-only: called, when set, where a test may hold a thread: an owner
 * right after it bumped gp_ended, a caller right before it sleeps on
 * gp_ended, a thread putting a domain on the engine's list, between its
 * two stores, the mb domain's scan, holding the registry lock (rcu_mb.c),
 * and a caller right after its compare-exchange took a grace period.
 */
enum {
	QUIESCE_GP_HOOK_ENDED_BUMPED,
	QUIESCE_GP_HOOK_ENDED_SLEEPING,
	QUIESCE_GP_HOOK_LISTING,
	QUIESCE_GP_HOOK_SCANNING,
	QUIESCE_GP_HOOK_OWNED,
};
extern void (*quiesce_test_gp_hook)(struct quiesce_gp_domain *d, int where);

#endif
