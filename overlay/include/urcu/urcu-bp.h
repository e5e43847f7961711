/*
 * urcu/urcu-bp.h (liburcu overlay) - liburcu's "bulletproof" flavor,
 * mapped onto quiesce's default RCU, whose readers already need no
 * registration (a thread registers at its first read-side section and is
 * unregistered at its exit), bp's whole point.
 *
 * With _LGPL_SOURCE the read side and the urcu_bp_* pointer operations are
 * inline; without, they are calls into libquiesce-urcu.  Unregistering,
 * init, quiescent states and going offline do nothing in this flavor, as
 * in liburcu's.  urcu_bp_before_fork() and its two partners are accepted
 * around fork(): quiesce's own fork handlers already keep the registry
 * and grace periods consistent in both processes.
 */
#ifndef _URCU_BP_H
#define _URCU_BP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/map/urcu-bp.h>
#include <urcu/pointer.h>
#include <urcu/urcu-poll.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef _LGPL_SOURCE
#include <urcu/static/urcu-bp.h>
#define urcu_bp_read_lock _urcu_bp_read_lock
#define urcu_bp_read_unlock _urcu_bp_read_unlock
#define urcu_bp_read_ongoing _urcu_bp_read_ongoing
#define urcu_bp_dereference rcu_dereference
#define urcu_bp_cmpxchg_pointer rcu_cmpxchg_pointer
#define urcu_bp_xchg_pointer rcu_xchg_pointer
#define urcu_bp_set_pointer rcu_set_pointer
#else
extern void urcu_bp_read_lock(void);
extern void urcu_bp_read_unlock(void);
extern int urcu_bp_read_ongoing(void);
extern void *urcu_bp_dereference_sym(void *p);
extern void *urcu_bp_cmpxchg_pointer_sym(void **p, void *old, void *_new);
extern void *urcu_bp_xchg_pointer_sym(void **p, void *v);
extern void *urcu_bp_set_pointer_sym(void **p, void *v);

#define urcu_bp_dereference(p)                                                 \
	__extension__({                                                        \
		__typeof__(p) urcu_deref_p_ = URCU_FORCE_CAST(__typeof__(p),   \
			urcu_bp_dereference_sym(URCU_FORCE_CAST(void *, _urcu_load_pointer(p)))); \
		urcu_deref_p_;                                                 \
	})
#define urcu_bp_cmpxchg_pointer(p, old, _new)                                  \
	__extension__({                                                        \
		__typeof__(*(p)) urcu_old_ = (old);                            \
		__typeof__(*(p)) urcu_new_ = (_new);                           \
		URCU_FORCE_CAST(__typeof__(*(p)),                              \
			urcu_bp_cmpxchg_pointer_sym(URCU_FORCE_CAST(void **, p), \
						    urcu_old_, urcu_new_));    \
	})
#define urcu_bp_xchg_pointer(p, v)                                             \
	__extension__({                                                        \
		__typeof__(*(p)) urcu_v_ = (v);                                \
		URCU_FORCE_CAST(__typeof__(*(p)),                              \
			urcu_bp_xchg_pointer_sym(URCU_FORCE_CAST(void **, p), urcu_v_)); \
	})
#define urcu_bp_set_pointer(p, v)                                              \
	__extension__({                                                        \
		__typeof__(*(p)) urcu_v_ = (v);                                \
		URCU_FORCE_CAST(__typeof__(*(p)),                              \
			urcu_bp_set_pointer_sym(URCU_FORCE_CAST(void **, p), urcu_v_)); \
	})
#endif

extern void urcu_bp_synchronize_rcu(void);
extern struct urcu_gp_poll_state urcu_bp_start_poll_synchronize_rcu(void);
extern bool urcu_bp_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);
extern void urcu_bp_before_fork(void);
extern void urcu_bp_after_fork_parent(void);
extern void urcu_bp_after_fork_child(void);
extern void urcu_bp_register_thread(void);

static inline void urcu_bp_unregister_thread(void)
{
}

static inline void urcu_bp_init(void)
{
}

static inline void urcu_bp_quiescent_state(void)
{
}

static inline void urcu_bp_thread_offline(void)
{
}

static inline void urcu_bp_thread_online(void)
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

#endif /* _URCU_BP_H */
