/*
 * urcu/urcu-memb.h (liburcu overlay) - liburcu's memb flavor, mapped onto
 * quiesce's default RCU (<quiesce/rcu.h>), whose grace periods use the
 * same barrier (membarrier's private expedited command) and whose readers
 * need no registration.
 *
 * With _LGPL_SOURCE the read side is quiesce's inline one; without, it is
 * a call to urcu_memb_read_lock() ... in libquiesce-urcu, as every other
 * function here always is.  Registration is optional (quiesce registers a
 * thread at its first read-side section and unregisters it at its exit);
 * quiescent states and going offline mean nothing in this flavor, as in
 * liburcu's.  The short names (rcu_read_lock, ...) come with <urcu.h>.
 */
#ifndef _URCU_MEMB_H
#define _URCU_MEMB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/pointer.h>
#include <urcu/urcu-poll.h>

#ifdef __cplusplus
extern "C" {
#endif

#include <urcu/map/urcu-memb.h>

#ifdef _LGPL_SOURCE
#include <urcu/static/urcu-memb.h>
#define urcu_memb_read_lock _urcu_memb_read_lock
#define urcu_memb_read_unlock _urcu_memb_read_unlock
#define urcu_memb_read_ongoing _urcu_memb_read_ongoing
#else
extern void urcu_memb_read_lock(void);
extern void urcu_memb_read_unlock(void);
extern int urcu_memb_read_ongoing(void);
#endif

extern void urcu_memb_synchronize_rcu(void);
extern struct urcu_gp_poll_state urcu_memb_start_poll_synchronize_rcu(void);
extern bool urcu_memb_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);
extern void urcu_memb_register_thread(void);
extern void urcu_memb_unregister_thread(void);
extern void urcu_memb_init(void);

static inline void urcu_memb_quiescent_state(void)
{
}

static inline void urcu_memb_thread_offline(void)
{
}

static inline void urcu_memb_thread_online(void)
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

#endif /* _URCU_MEMB_H */
