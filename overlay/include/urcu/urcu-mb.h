/*
 * urcu/urcu-mb.h (liburcu overlay) - liburcu's mb flavor, mapped onto
 * quiesce's mb domain (<quiesce/rcu_mb.h>): as in liburcu, readers execute
 * a full fence on their outermost lock and unlock, so that grace periods
 * issue no membarrier() and interrupt no CPU.  It is a domain of its own:
 * an mb reader does not hold the other flavors' grace periods.
 *
 * With _LGPL_SOURCE the read side is quiesce's inline one; without, it is
 * a call to urcu_mb_read_lock() ... in libquiesce-urcu, as every other
 * function here always is.  Registration is optional; quiescent states and
 * going offline mean nothing in this flavor, as in liburcu's.  The short
 * names come with <urcu.h> when RCU_MB is defined.
 */
#ifndef _URCU_MB_H
#define _URCU_MB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/pointer.h>
#include <urcu/urcu-poll.h>

#ifdef __cplusplus
extern "C" {
#endif

#include <urcu/map/urcu-mb.h>

#ifdef _LGPL_SOURCE
#include <urcu/static/urcu-mb.h>
#define urcu_mb_read_lock _urcu_mb_read_lock
#define urcu_mb_read_unlock _urcu_mb_read_unlock
#define urcu_mb_read_ongoing _urcu_mb_read_ongoing
#else
extern void urcu_mb_read_lock(void);
extern void urcu_mb_read_unlock(void);
extern int urcu_mb_read_ongoing(void);
#endif

extern void urcu_mb_synchronize_rcu(void);
extern struct urcu_gp_poll_state urcu_mb_start_poll_synchronize_rcu(void);
extern bool urcu_mb_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);
extern void urcu_mb_register_thread(void);
extern void urcu_mb_unregister_thread(void);
extern void urcu_mb_init(void);

static inline void urcu_mb_quiescent_state(void)
{
}

static inline void urcu_mb_thread_offline(void)
{
}

static inline void urcu_mb_thread_online(void)
{
}

#ifdef __cplusplus
}
#endif

#include <urcu/call-rcu.h>
#include <urcu/defer.h>
#include <urcu/flavor.h>

#ifndef URCU_API_MAP
#include <urcu/map/clear.h>
#endif

#endif /* _URCU_MB_H */
