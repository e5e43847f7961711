/*
 * qsbr.c - liburcu's qsbr flavor (urcu_qsbr_*): quiesce's QSBR domain.
 *
 * liburcu's synchronize_rcu() and rcu_barrier() take an online caller
 * offline around their wait and back online after; quiesce's abort
 * instead (so that a lock held across the wait cannot deadlock unnoticed).
 * The overlay keeps liburcu's behaviour: offline_around() below.
 */
#define BUILD_QSBR_LIB
#include <urcu/urcu-qsbr.h>

#include <urcu/static/urcu-qsbr.h>

#include "overlay.h"

#include <quiesce/rcu_qsbr.h>

URCU_EXPORT void urcu_qsbr_read_lock(void)
{
	quiesce_qsbr_read_lock();
}

URCU_EXPORT void urcu_qsbr_read_unlock(void)
{
	quiesce_qsbr_read_unlock();
}

URCU_EXPORT int urcu_qsbr_read_ongoing(void)
{
	return quiesce_qsbr_read_ongoing();
}

/* liburcu's forgiving thread states: urcu/static/urcu-qsbr.h. */
URCU_EXPORT void urcu_qsbr_quiescent_state(void)
{
	_urcu_qsbr_quiescent_state();
}

URCU_EXPORT void urcu_qsbr_thread_offline(void)
{
	_urcu_qsbr_thread_offline();
}

URCU_EXPORT void urcu_qsbr_thread_online(void)
{
	_urcu_qsbr_thread_online();
}

URCU_EXPORT void urcu_qsbr_register_thread(void)
{
	quiesce_qsbr_register_thread();
}

URCU_EXPORT void urcu_qsbr_unregister_thread(void)
{
	quiesce_qsbr_unregister_thread();
}

/* Runs wait() with the calling thread offline, if it was online. */
static void offline_around(void (*wait)(void))
{
	bool online = quiesce_qsbr_thread_online_p();

	if (online)
		quiesce_qsbr_thread_offline();
	wait();
	if (online)
		quiesce_qsbr_thread_online();
}

static void qsbr_synchronize(void)
{
	offline_around(quiesce_qsbr_synchronize_rcu);
}

static void qsbr_barrier(void)
{
	offline_around(quiesce_qsbr_barrier);
}

static void qsbr_defer_barrier(void)
{
	offline_around(quiesce_qsbr_defer_barrier);
}

URCU_EXPORT void urcu_qsbr_synchronize_rcu(void)
{
	qsbr_synchronize();
}

URCU_EXPORT struct urcu_gp_poll_state urcu_qsbr_start_poll_synchronize_rcu(void)
{
	return (struct urcu_gp_poll_state){ quiesce_qsbr_start_poll_synchronize_rcu() };
}

URCU_EXPORT bool urcu_qsbr_poll_state_synchronize_rcu(struct urcu_gp_poll_state state)
{
	return quiesce_qsbr_poll_state_synchronize_rcu(state.grace_period_id);
}

static struct urcu_flavor_domain urcu_qsbr_domain = URCU_FLAVOR_DOMAIN_INIT(
	URCU_FLAVOR_qsbr, QUIESCE_CB_QSBR, quiesce_qsbr_call_rcu, qsbr_synchronize);

URCU_OVERLAY_CALLBACK_API(qsbr, urcu_qsbr_domain, quiesce_qsbr_call_rcu, qsbr_barrier,
			  quiesce_qsbr_defer_rcu, qsbr_defer_barrier)
URCU_OVERLAY_FLAVOR_OBJECT(qsbr);
