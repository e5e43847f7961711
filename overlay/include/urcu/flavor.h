/*
 * urcu/flavor.h (liburcu overlay) - struct rcu_flavor_struct, the table of
 * one flavor's functions that data structures (cds_lfht) take, and the
 * rculfhash fork hooks.  Each flavor's table is the object
 * urcu_<flavor>_flavor in libquiesce-urcu (rcu_flavor through the short
 * names); its members are that flavor's functions, so a call through the
 * table is the call by name.  The layout is liburcu 0.14-0.15's, whose
 * last two members (the polled grace period) 0.13 lacks.
 *
 * urcu_register_rculfhash_atfork(a): the flavor's call_rcu_before_fork()
 * calls a->before_fork(a->priv), call_rcu_after_fork_parent() and
 * _child() the other two, for every registered a, as liburcu's do.
 */
#ifndef _URCU_FLAVOR_H
#define _URCU_FLAVOR_H

#include <stdbool.h>

#include <urcu/urcu-poll.h>
#include <urcu/call-rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct urcu_atfork {
	void (*before_fork)(void *priv);
	void (*after_fork_parent)(void *priv);
	void (*after_fork_child)(void *priv);
	void *priv;
};

void urcu_register_rculfhash_atfork(struct urcu_atfork *atfork);
void urcu_unregister_rculfhash_atfork(struct urcu_atfork *atfork);

struct rcu_flavor_struct {
	void (*read_lock)(void);
	void (*read_unlock)(void);
	int (*read_ongoing)(void);
	void (*read_quiescent_state)(void);
	void (*update_call_rcu)(struct rcu_head *head, void (*func)(struct rcu_head *head));
	void (*update_synchronize_rcu)(void);
	void (*update_defer_rcu)(void (*fct)(void *p), void *p);

	void (*thread_offline)(void);
	void (*thread_online)(void);
	void (*register_thread)(void);
	void (*unregister_thread)(void);

	void (*barrier)(void);

	void (*register_rculfhash_atfork)(struct urcu_atfork *atfork);
	void (*unregister_rculfhash_atfork)(struct urcu_atfork *atfork);

	struct urcu_gp_poll_state (*update_start_poll_synchronize_rcu)(void);
	bool (*update_poll_state_synchronize_rcu)(struct urcu_gp_poll_state state);
};

extern const struct rcu_flavor_struct rcu_flavor;

#ifdef __cplusplus
}
#endif

#endif /* _URCU_FLAVOR_H */
