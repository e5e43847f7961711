/*
 * urcu/urcu-signal.h (liburcu overlay) - liburcu's signal flavor (grace
 * periods signal every reader there; removed in liburcu 0.15),
 * mapped onto quiesce's default RCU (<quiesce/rcu.h>) as memb is: the
 * flavors differ in how liburcu orders readers against grace periods, and
 * quiesce's one way serves them all.
 *
 * With _LGPL_SOURCE the read side is quiesce's inline one; without, it is
 * a call to urcu_signal_read_lock() ... in libquiesce-urcu, as every other
 * function here always is.  Registration is optional; quiescent states and
 * going offline mean nothing in this flavor, as in liburcu's.  The short
 * names come with <urcu.h> when RCU_SIGNAL is defined.
 */
#ifndef _URCU_SIGNAL_H
#define _URCU_SIGNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/pointer.h>
#include <urcu/urcu-poll.h>

#ifdef __cplusplus
extern "C" {
#endif

#include <urcu/map/urcu-signal.h>

#ifdef _LGPL_SOURCE
#include <urcu/static/urcu-signal.h>
#define urcu_signal_read_lock _urcu_signal_read_lock
#define urcu_signal_read_unlock _urcu_signal_read_unlock
#define urcu_signal_read_ongoing _urcu_signal_read_ongoing
#else
extern void urcu_signal_read_lock(void);
extern void urcu_signal_read_unlock(void);
extern int urcu_signal_read_ongoing(void);
#endif

extern void urcu_signal_synchronize_rcu(void);
extern struct urcu_gp_poll_state urcu_signal_start_poll_synchronize_rcu(void);
extern bool urcu_signal_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);
extern void urcu_signal_register_thread(void);
extern void urcu_signal_unregister_thread(void);
extern void urcu_signal_init(void);

static inline void urcu_signal_quiescent_state(void)
{
}

static inline void urcu_signal_thread_offline(void)
{
}

static inline void urcu_signal_thread_online(void)
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

#endif /* _URCU_SIGNAL_H */
