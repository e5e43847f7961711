/* rcu_sync.h - rcu_sync's test-only control. */
#ifndef QUIESCE_SRC_RCU_SYNC_H
#define QUIESCE_SRC_RCU_SYNC_H

#include <stdbool.h>

/*
 * Test-only ("busted"): rcu_sync_enter() closes the gate without waiting
 * for a grace period, and rcu_sync_exit() reopens it at once, so readers
 * on the fast path can overlap an updater.  Checkers must catch it.
 */
extern bool quiesce_test_busted_rcu_sync;

#endif
