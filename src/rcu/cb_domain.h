/*
 * cb_domain.h - callbacks of one grace-period domain: queued by any thread,
 * batched per grace period, run by the domain's own callback thread, which
 * also drives the domain's polled grace periods (start_poll).
 *
 * The default RCU domain (quiesce_rcu_cb) queues on per-thread queues
 * (call_rcu.c: its "source"); every other domain queues on one shared
 * wait-free queue in the struct, and each calling thread counts its calls
 * in a small cache of its own (cb_call.c: "Counting").  The thread starts
 * on the first call that needs it, stops at quiesce_cb_domain_destroy(), at
 * quiesce_call_rcu_shutdown() for the default domain, and at exit().
 */
#ifndef QUIESCE_CB_DOMAIN_H
#define QUIESCE_CB_DOMAIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

#include "rcu/call_rcu_queue.h"
#include "rcu/gp_engine.h"

/*
 * A thread adds its calls to a domain's backlog this many at once, which is
 * also when it checks the marks below.
 */
#define QUIESCE_CB_BACKLOG_FLUSH 64
/* Pending callbacks past which the callback thread expedites grace periods. */
#define QUIESCE_CB_EXPEDITE_BACKLOG 10000
/* Pending callbacks past which callers wait for the backlog. */
#define QUIESCE_CB_THROTTLE_BACKLOG 100000
/* The longest one call waits for the backlog, in nanoseconds. */
#define QUIESCE_CB_THROTTLE_MAX_WAIT_NS 20000000u
/* The longest exit() waits for a domain's pending callbacks, in nanoseconds. */
#define QUIESCE_CB_EXIT_WAIT_NS 1000000000u

/* A list of callbacks taken from queues, linked, possibly with missing links. */
struct quiesce_cb_list {
	struct quiesce_rcu_head *first, *last;
};

/* Appends the chain first..last, taken from a queue, to list. */
static inline void quiesce_cb_list_append(struct quiesce_cb_list *list,
					  struct quiesce_rcu_head *first,
					  struct quiesce_rcu_head *last)
{
	if (list->first)
		QUIESCE_STORE(&list->last->next, first);
	else
		list->first = first;
	list->last = last;
}

struct quiesce_cb_domain;

/* Where a domain's callbacks are queued, when not on its shared queue. */
struct quiesce_cb_source {
	/* Appends every callback queued so far, by every thread, to list. */
	void (*harvest)(struct quiesce_cb_domain *cbd, struct quiesce_cb_list *list);
	/* Whether any callback is queued that no harvest has taken. */
	bool (*queued_anywhere)(struct quiesce_cb_domain *cbd);
};

/*
 * The callback thread's state (a futex word): callers that queue into an
 * empty queue read it, and wake or start the thread unless it runs or is
 * being stopped (cb_lifecycle.c: "Starting and stopping").
 */
enum {
	QUIESCE_CB_WORKER_RUNNING,
	QUIESCE_CB_WORKER_SLEEPING,
	QUIESCE_CB_WORKER_STOPPING,	/* shutdown joins it, then looks for work */
	QUIESCE_CB_WORKER_ABSENT,	/* not started yet, or shut down */
	QUIESCE_CB_WORKER_GONE,		/* stopped at exit or destroy: never restarts */
};

struct quiesce_cb_batch {
	struct quiesce_cb_list list;
	unsigned long cookie;	/* the grace period it waits for */
	unsigned long harvest;	/* the last harvest it holds */
};
#define QUIESCE_CB_MAX_BATCHES 3

struct quiesce_cb_domain {
	struct quiesce_gp_domain *gp;
	const struct quiesce_cb_source *source;	/* NULL: the shared queue */
	const char *thread_name;
	int cpu;				/* its thread's CPU; -1: any (lib_thread.c) */
	struct quiesce_cb_queue shared;
	/*
	 * Callbacks queued and not yet run, approximately: each calling
	 * thread adds its calls QUIESCE_CB_BACKLOG_FLUSH at a time (call_rcu.c
	 * for the default domain, the counting cache in cb_call.c for the
	 * others).  Signed, as the worker may run callbacks not yet added.
	 * For backpressure only: pending() does not read it.
	 */
	long backlog;
	int state;				/* futex: QUIESCE_CB_WORKER_* */
	bool ever_used;				/* a callback was ever queued */

	/* The worker's own: batches oldest first (cookie order). */
	struct quiesce_cb_batch batches[QUIESCE_CB_MAX_BATCHES];
	unsigned batch_count;
	/*
	 * batch_count, plus one while a harvest takes callbacks from the
	 * queues; the worker writes it, pending() reads it (cb_domain.c:
	 * "Pending").
	 */
	unsigned held;

	/*
	 * Harvest numbers: the worker stores harvests; waiters ask for a
	 * harvest under lock (harvest_wanted) and wait on progress until
	 * invoked_through reaches it.  poll_target: the latest cookie that
	 * start_poll asked for, under lock.
	 */
	pthread_mutex_t lock;
	pthread_cond_t progress;		/* CLOCK_MONOTONIC; made when listed */
	unsigned long harvests, harvest_wanted, invoked_through, poll_target;
	unsigned waiters, throttled_waiters;	/* under lock */

	/* Starting and stopping the thread: under start_lock (not the join). */
	pthread_mutex_t start_lock;
	pthread_t worker;
	bool stop_requested;
	int gathering;				/* futex: the worker lets callbacks gather */
	bool listed;				/* on the list of domains, for exit and fork */
	bool exit_stopping;			/* exit() stops it now: domains_lock */
	struct quiesce_cb_domain *next_listed;

	/*
	 * The worker's counts.  What was queued is counted where it is
	 * queued: per thread, for the default domain (call_rcu.c).
	 */
	struct {
		uint64_t invoked, batches, expedited, throttled;
	} stats;
};

#define QUIESCE_CB_DOMAIN_INIT(self, gp_, source_, name_)                           \
	{ .gp = (gp_), .source = (source_), .thread_name = (name_), .cpu = -1,      \
	  .shared = { .tail = &(self).shared.head },                                 \
	  .state = QUIESCE_CB_WORKER_ABSENT,                                         \
	  .lock = PTHREAD_MUTEX_INITIALIZER,                                          \
	  .start_lock = PTHREAD_MUTEX_INITIALIZER }

/* The default RCU domain's callbacks (call_rcu.c). */
extern struct quiesce_cb_domain quiesce_rcu_cb;

/*
 * A domain queueing on its shared queue; thread_name at most 15 characters,
 * its thread on any CPU until the caller sets cpu.
 */
void quiesce_cb_domain_init(struct quiesce_cb_domain *cbd, struct quiesce_gp_domain *gp,
			    const char *thread_name);
/*
 * Queues head->func to run after a grace period of the domain; any thread,
 * callbacks included.  func must not be NULL; below
 * QUIESCE_FREE_RCU_OFFSET_LIMIT it is free_rcu()'s offset.
 */
void quiesce_cb_domain_call(struct quiesce_cb_domain *cbd, struct quiesce_rcu_head *head,
			    void (*func)(struct quiesce_rcu_head *));
/*
 * Waits until every callback queued before the call has run.  call names
 * the caller's API function for the messages of misuse (from the domain's
 * own callback: it would wait for itself).
 */
void quiesce_cb_domain_barrier(struct quiesce_cb_domain *cbd, const char *call);
/*
 * A cookie as quiesce_gp_snapshot(); the domain's thread runs grace
 * periods until it has passed, and the caller does not wait.
 */
unsigned long quiesce_cb_domain_start_poll(struct quiesce_cb_domain *cbd);
/*
 * Whether the grace period a cookie names has passed (quiesce_gp_poll()).
 * One that start_poll asked for keeps being asked for in a child of
 * fork(), which has no callback thread: a poll that finds it pending
 * there starts one, so that it passes without anyone blocking.
 */
bool quiesce_cb_domain_poll(struct quiesce_cb_domain *cbd, unsigned long cookie);
/*
 * Whether callbacks are queued or waiting to run: exactly, for every call
 * that happened before it, by any thread.
 */
bool quiesce_cb_domain_pending(struct quiesce_cb_domain *cbd);
/* The domain's thread, started if it is not running. */
pthread_t quiesce_cb_domain_thread(struct quiesce_cb_domain *cbd);
/* Runs the domain's callbacks (barrier) and stops its thread; a later call restarts it. */
void quiesce_cb_domain_shutdown(struct quiesce_cb_domain *cbd, const char *call);
/*
 * Stops the domain's thread for good and forgets the domain, in every
 * thread's counting cache too; dies with a message when callbacks are
 * pending.
 */
void quiesce_cb_domain_destroy(struct quiesce_cb_domain *cbd);

/* A NULL callback function: dies with a message. */
QUIESCE_COLD QUIESCE_NORETURN void quiesce_cb_null_func(struct quiesce_rcu_head *head);

/* For the default domain's enqueue side (call_rcu.c). */
/* Wakes or starts the callback thread (its state is not RUNNING); not while it stops. */
void quiesce_cb_wake_worker(struct quiesce_cb_domain *cbd);
/* Ends the worker's pause for callbacks to gather: someone waits for them. */
void quiesce_cb_hurry_worker(struct quiesce_cb_domain *cbd);
/* The backlog passed the throttle mark: wait for it, when allowed to. */
void quiesce_cb_throttle(struct quiesce_cb_domain *cbd);
/* The domain's thread state around fork() (after the enqueue side's locks). */
void quiesce_cb_domains_prepare_fork(void);
void quiesce_cb_domains_parent_after_fork(void);
void quiesce_cb_domains_child_after_fork(void);
/*
 * Registers exit()'s stop of the callback threads, once, with the stats'
 * exit handler before it (init_order.h says when).
 */
void quiesce_cb_exit_handler_init(void);

/* The default domain's counters, for quiesce_rcu_get_stats(). */
void quiesce_call_rcu_get_stats(struct quiesce_rcu_stats *out);
/* Whether the calling thread is the default domain's callback thread. */
bool quiesce_cb_on_worker(void);
/* Whether the calling thread is cbd's callback thread. */
bool quiesce_cb_domain_on_worker(const struct quiesce_cb_domain *cbd);
/* Whether the default domain's callback thread stopped at exit for good. */
bool quiesce_cb_gone(void);

/* Test-only: callbacks run without waiting for a grace period ("busted"). */
extern bool quiesce_test_busted_call_rcu;
/* Test-only: callers never wait for the backlog. */
extern bool quiesce_test_call_rcu_no_throttle;
/* Test-only: destroy leaves the domain in the threads' counting caches ("busted"). */
extern bool quiesce_test_busted_cb_forget;
/* Test-only: pending() looks at the queues only, not at the batches ("busted"). */
extern bool quiesce_test_busted_cb_pending;
/* Test-only: one callback in 64 (not free_rcu()'s) is dropped, never run ("busted"). */
extern bool quiesce_test_busted_cb_lost;
/* Test-only: one callback in 64 (not free_rcu()'s) runs twice in a row ("busted"). */
extern bool quiesce_test_busted_cb_twice;
/* Test-only: rcu_barrier() does not wait for the callback workers ("busted"). */
extern bool quiesce_test_busted_barrier;
/*
 * Test-only: a harvest sleeps 200 us between its store of held and its
 * take from the queues, where pending() must still answer right.
 */
extern bool quiesce_test_slow_harvest;

#endif
