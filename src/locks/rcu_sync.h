/* rcu_sync.h - rcu_sync's test-only control, and its entry for the library's locks. */
#ifndef QUIESCE_SRC_RCU_SYNC_H
#define QUIESCE_SRC_RCU_SYNC_H

#include <stdbool.h>

#include <quiesce/rcu_sync.h>

/*
 * rcu_sync_enter(), for a lock built on the gate: `call` names the lock's
 * own call in the message that a call inside a read-side section gets.
 */
void quiesce_rcu_sync_enter_from(struct quiesce_rcu_sync *rss, const char *call);

/*
 * Test-only ("busted"): rcu_sync_enter() closes the gate without waiting
 * for a grace period, and rcu_sync_exit() reopens it at once, so readers
 * on the fast path can overlap an updater.  Checkers must catch it.
 */
extern bool quiesce_test_busted_rcu_sync;

/*
 * Test-only: called by the reopening callback with the gate's lock held,
 * before it moves the gate on (a test forks meanwhile).
 */
extern void (*quiesce_test_rcu_sync_hook)(struct quiesce_rcu_sync *rss);

#endif
