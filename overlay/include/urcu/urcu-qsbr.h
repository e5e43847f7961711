/*
 * urcu/urcu-qsbr.h (liburcu overlay) - liburcu's quiescent-state-based
 * flavor, mapped onto quiesce's QSBR domain (<quiesce/rcu_qsbr.h>): a
 * registered thread is online, and a reader, until it goes offline; it
 * reports quiescent states; read_lock and read_unlock are empty.
 *
 * With _LGPL_SOURCE the read side, quiescent states and read_ongoing are
 * inline; without, read_lock and read_unlock are still empty inline
 * functions (calls in libquiesce-urcu under DEBUG_RCU or BUILD_QSBR_LIB,
 * as in liburcu) and the rest are calls into libquiesce-urcu.
 * synchronize_rcu() and rcu_barrier() from an online thread go offline
 * around their wait, as liburcu's do (quiesce's own calls refuse instead).
 * The short names come with <urcu-qsbr.h>.
 */
#ifndef _URCU_QSBR_H
#define _URCU_QSBR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/config.h>
#include <urcu/pointer.h>
#include <urcu/urcu-poll.h>

#ifdef __cplusplus
extern "C" {
#endif

#include <urcu/map/urcu-qsbr.h>

/* A program may define both (gdnsd's developer builds do). */
#if defined(RCU_DEBUG) && !defined(DEBUG_RCU)
#define DEBUG_RCU
#endif

#ifdef _LGPL_SOURCE
#include <urcu/static/urcu-qsbr.h>
#define urcu_qsbr_read_lock _urcu_qsbr_read_lock
#define urcu_qsbr_read_unlock _urcu_qsbr_read_unlock
#define urcu_qsbr_read_ongoing _urcu_qsbr_read_ongoing
#define urcu_qsbr_quiescent_state _urcu_qsbr_quiescent_state
#define urcu_qsbr_thread_offline _urcu_qsbr_thread_offline
#define urcu_qsbr_thread_online _urcu_qsbr_thread_online
#else
#if !defined(BUILD_QSBR_LIB) && !defined(DEBUG_RCU)
static inline void urcu_qsbr_read_lock(void)
{
}

static inline void urcu_qsbr_read_unlock(void)
{
}
#else
extern void urcu_qsbr_read_lock(void);
extern void urcu_qsbr_read_unlock(void);
#endif
extern int urcu_qsbr_read_ongoing(void);
extern void urcu_qsbr_quiescent_state(void);
extern void urcu_qsbr_thread_offline(void);
extern void urcu_qsbr_thread_online(void);
#endif

extern void urcu_qsbr_synchronize_rcu(void);
extern struct urcu_gp_poll_state urcu_qsbr_start_poll_synchronize_rcu(void);
extern bool urcu_qsbr_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);
extern void urcu_qsbr_register_thread(void);
extern void urcu_qsbr_unregister_thread(void);

#ifdef __cplusplus
}
#endif

#include <urcu/call-rcu.h>
#include <urcu/defer.h>
#include <urcu/flavor.h>

#ifndef URCU_API_MAP
#include <urcu/map/clear.h>
#endif

#endif /* _URCU_QSBR_H */
