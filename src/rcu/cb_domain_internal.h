/*
 * cb_domain_internal.h - what the three parts of a callback domain
 * (cb_domain.h) share: the callback thread's loop and the waits on it
 * (cb_domain.c), the callers' path and their count of the backlog
 * (cb_call.c), and the thread's start, stop, exit and fork
 * (cb_lifecycle.c).
 */
#ifndef QUIESCE_CB_DOMAIN_INTERNAL_H
#define QUIESCE_CB_DOMAIN_INTERNAL_H

#include "rcu/cb_domain.h"

/* cb_domain.c */
/* The callback thread's loop; arg is its domain. */
void *quiesce_cb_worker_main(void *arg);
/* Whether callbacks are queued or a request waits (the batches aside). */
bool quiesce_cb_work_waiting(struct quiesce_cb_domain *cbd);
/*
 * Asks for a harvest that starts after this call and waits until it has
 * run (or until deadline_ns, when not 0).  Returns whether it has.
 */
bool quiesce_cb_wait_for_harvest(struct quiesce_cb_domain *cbd, uint64_t deadline_ns);
/* Whether the caller holds the domain's grace periods: it must not wait for one. */
bool quiesce_cb_caller_holds_gp(struct quiesce_cb_domain *cbd);
/* Dies when call, from this caller, would wait for itself. */
void quiesce_cb_forbid(struct quiesce_cb_domain *cbd, const char *call);
/* Whether the calling thread is a callback thread, of any domain. */
bool quiesce_cb_on_some_worker(void);
/* In the child of fork(): a callback that forked dies when it returns. */
void quiesce_cb_worker_child_after_fork(void);

/* cb_call.c */
/* destroy(): no thread's counting slot names the domain any more. */
void quiesce_cb_forget_counts(struct quiesce_cb_domain *cbd);
/* Around fork(), after the list of domains: the list of the threads' counters. */
void quiesce_cb_counters_prepare_fork(void);
void quiesce_cb_counters_parent_after_fork(void);
void quiesce_cb_counters_child_after_fork(void);

/* cb_lifecycle.c */
/*
 * Puts the domain on the list (once), making its progress condition:
 * every thread that takes either of its locks, or waits on or signals the
 * condition, calls this first.
 */
void quiesce_cb_ensure_listed(struct quiesce_cb_domain *cbd);

#endif
