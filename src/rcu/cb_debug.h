/*
 * cb_debug.h - catching an rcu_head queued a second time before its
 * callback has run (cb_debug.c).  Queued twice, a head links its queue
 * into a loop or cuts off what was queued after it: the loop runs a freed
 * object's callback over and over, the cut loses callbacks for good.
 */
#ifndef QUIESCE_CB_DEBUG_H
#define QUIESCE_CB_DEBUG_H

#include <stdbool.h>

#include <quiesce/rcu.h>

/*
 * Whether QUIESCE_DEBUG_CALLBACKS=1 was set when the library was loaded:
 * then every queued head is recorded until its callback runs.  Relaxed
 * atomic: a program's constructor that runs before the library's may have
 * started a callback thread, which reads it while the constructor sets it.
 */
extern bool quiesce_cb_debug_on;

/*
 * Records head, queued with func on a domain of the given kind; dies if it
 * is recorded already.
 */
void quiesce_cb_debug_queue(struct quiesce_rcu_head *head,
			    void (*func)(struct quiesce_rcu_head *), const char *kind);

/* Forgets head: its callback is about to run. */
void quiesce_cb_debug_run(struct quiesce_rcu_head *head);

/*
 * Dies for head, found queued already (with old_func, or NULL when not
 * known) on a domain of the given kind; for the check every build makes (the head is still the
 * last of its queue) as for the recorded heads.
 */
QUIESCE_COLD QUIESCE_NORETURN void quiesce_cb_queued_twice(struct quiesce_rcu_head *head,
							   void (*old_func)(struct quiesce_rcu_head *),
							   const char *kind);

/* Around fork(): the child forgets the parent's heads, which it drops. */
void quiesce_cb_debug_prepare_fork(void);
void quiesce_cb_debug_parent_after_fork(void);
void quiesce_cb_debug_child_after_fork(void);

#endif
