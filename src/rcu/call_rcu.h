/*
 * call_rcu.h - between the two halves of call_rcu: the enqueue side
 * (call_rcu.c: per-thread queues, thread exit, backlog accounting) and the
 * callback thread (call_rcu_worker.c: batches, grace periods, invocation,
 * rcu_barrier, lifecycle).
 */
#ifndef QUIESCE_CALL_RCU_H
#define QUIESCE_CALL_RCU_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

/* A thread adds its call_rcu() calls to the shared backlog this many at once. */
#define QUIESCE_CB_BACKLOG_FLUSH 64
/* Pending callbacks past which the callback thread expedites grace periods. */
#define QUIESCE_CB_EXPEDITE_BACKLOG 10000
/* Pending callbacks past which call_rcu() callers wait for the backlog. */
#define QUIESCE_CB_THROTTLE_BACKLOG 100000
/* The longest one call_rcu() waits for the backlog, in nanoseconds. */
#define QUIESCE_CB_THROTTLE_MAX_WAIT_NS 20000000u
/* The longest exit() waits for pending callbacks, in nanoseconds. */
#define QUIESCE_CB_EXIT_WAIT_NS 1000000000u

/* A list of callbacks taken from queues, linked, possibly with missing links. */
struct quiesce_cb_list {
	struct quiesce_rcu_head *first, *last;
};

/*
 * Callbacks queued and not yet run, approximately: each thread adds its
 * calls in steps of QUIESCE_CB_BACKLOG_FLUSH, the worker subtracts what it
 * runs.  Signed, as the worker may run callbacks not yet added.
 */
extern long quiesce_cb_backlog;

/*
 * The callback thread's state (a futex word): callers that find their queue
 * empty read it, and wake or start the thread unless it runs.
 */
enum {
	QUIESCE_CB_WORKER_RUNNING,
	QUIESCE_CB_WORKER_SLEEPING,
	QUIESCE_CB_WORKER_ABSENT,	/* not started yet, or shut down */
	QUIESCE_CB_WORKER_GONE,		/* stopped at exit: never restarts */
};
extern int quiesce_cb_worker_state;

/* Enqueue side (call_rcu.c), for the worker. */
/* Appends every callback queued so far, by every thread, to list. */
void quiesce_cb_harvest(struct quiesce_cb_list *list);
/* Whether any thread has callbacks queued that no harvest has taken. */
bool quiesce_cb_queued_anywhere(void);
/* Whether call_rcu() was ever called in this process (since fork()). */
bool quiesce_cb_ever_used(void);

/* Worker side (call_rcu_worker.c), for the enqueue side. */
/* Wakes or starts the callback thread (its state is not RUNNING). */
void quiesce_cb_wake_worker(void);
/* Ends the worker's pause for callbacks to gather: someone waits for them. */
void quiesce_cb_hurry_worker(void);
/* The backlog passed the throttle mark: wait for it, when allowed to. */
void quiesce_cb_throttle(void);
/* Whether the calling thread is the callback thread. */
bool quiesce_cb_on_worker(void);
void quiesce_cb_worker_prepare_fork(void);
void quiesce_cb_worker_parent_after_fork(void);
void quiesce_cb_worker_child_after_fork(void);

/* Counters for quiesce_rcu_get_stats(). */
void quiesce_cb_worker_stats(struct quiesce_rcu_stats *out);
void quiesce_call_rcu_get_stats(struct quiesce_rcu_stats *out);

/* Test-only: callbacks run without waiting for a grace period ("busted"). */
extern bool quiesce_test_busted_call_rcu;
/* Test-only: call_rcu() callers never wait for the backlog. */
extern bool quiesce_test_call_rcu_no_throttle;

#endif
