/*
 * quiesce's RCU as a bench flavor: normal and expedited grace periods, and
 * normal ones under rcu_normal (the kernel's grace period, no interrupts).
 */
#include "bench.h"
#include "rcu_flavor.h"

#include <quiesce/rcu.h>

static void read_lock(void)
{
	rcu_read_lock();
}

static void read_unlock(void)
{
	rcu_read_unlock();
}

QB_PLACED_TIMER(read_pair, rcu_register_thread(), rcu_read_lock(); rcu_read_unlock());

static void synchronize_normal(void)
{
	synchronize_rcu();
}

static void synchronize_expedited(void)
{
	synchronize_rcu_expedited();
}

const struct qb_rcu_flavor qb_quiesce_rcu = {
	.name = "quiesce synchronize_rcu",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.synchronize = synchronize_normal,
	.read_pair = read_pair,
};

const struct qb_rcu_flavor qb_quiesce_rcu_expedited = {
	.name = "quiesce synchronize_rcu_expedited",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.synchronize = synchronize_expedited,
	.read_pair = read_pair,
};

const struct qb_rcu_flavor qb_quiesce_rcu_normal_knob = {
	.name = "quiesce synchronize_rcu, rcu_normal",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.synchronize = synchronize_normal,
	.read_pair = read_pair,
	.rcu_normal = true,
};
