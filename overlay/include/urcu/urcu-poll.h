/*
 * urcu/urcu-poll.h (liburcu overlay) - the polled grace-period cookie of
 * start_poll_synchronize_rcu() / poll_state_synchronize_rcu(): quiesce's
 * cookie (an unsigned long naming a grace period) in liburcu's struct.
 */
#ifndef _URCU_POLL_H
#define _URCU_POLL_H

struct urcu_gp_poll_state {
	unsigned long grace_period_id;
};

#endif /* _URCU_POLL_H */
