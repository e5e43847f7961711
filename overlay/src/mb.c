/*
 * mb.c - liburcu's mb flavor (urcu_mb_*): quiesce's mb domain
 * (<quiesce/rcu_mb.h>), whose readers fence and whose grace periods issue
 * no heavy barrier, as liburcu's mb flavor's.  Its callbacks run on the
 * domain's own thread, "quiesce-mb-cb".
 */
#include <urcu/urcu-mb.h>

#include "overlay.h"

#include <quiesce/rcu_mb.h>

URCU_EXPORT void urcu_mb_read_lock(void)
{
	quiesce_rcu_mb_read_lock();
}

URCU_EXPORT void urcu_mb_read_unlock(void)
{
	quiesce_rcu_mb_read_unlock();
}

URCU_EXPORT int urcu_mb_read_ongoing(void)
{
	return quiesce_rcu_mb_read_ongoing();
}

URCU_EXPORT void urcu_mb_synchronize_rcu(void)
{
	quiesce_synchronize_rcu_mb();
}

URCU_EXPORT struct urcu_gp_poll_state urcu_mb_start_poll_synchronize_rcu(void)
{
	return (struct urcu_gp_poll_state){ quiesce_start_poll_synchronize_rcu_mb() };
}

URCU_EXPORT bool urcu_mb_poll_state_synchronize_rcu(struct urcu_gp_poll_state state)
{
	return quiesce_poll_state_synchronize_rcu_mb(state.grace_period_id);
}

URCU_EXPORT void urcu_mb_register_thread(void)
{
	quiesce_rcu_mb_register_thread();
}

URCU_EXPORT void urcu_mb_unregister_thread(void)
{
	quiesce_rcu_mb_unregister_thread();
}

/*
 * liburcu's init is also run by its constructor, and calling it again does
 * nothing; quiesce initializes itself by constructors at load, so nothing
 * is left for an explicit call to do.
 */
URCU_EXPORT void urcu_mb_init(void)
{
}

static struct urcu_flavor_domain urcu_mb_domain = URCU_FLAVOR_DOMAIN_INIT(
	URCU_FLAVOR_mb, QUIESCE_CB_RCU_MB, quiesce_call_rcu_mb, quiesce_synchronize_rcu_mb);

URCU_OVERLAY_CALLBACK_API(mb, urcu_mb_domain, quiesce_call_rcu_mb, quiesce_rcu_barrier_mb,
			  quiesce_defer_rcu_mb, quiesce_defer_barrier_mb)
URCU_OVERLAY_FLAVOR_OBJECT(mb);
