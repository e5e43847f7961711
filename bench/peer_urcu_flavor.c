/*
 * liburcu's default flavor (memb) as a bench flavor, its read side inlined
 * (_LGPL_SOURCE), as a program that includes its headers gets it.
 */
#define _LGPL_SOURCE
#include <stdbool.h>
#include <urcu/urcu-memb.h>

#include "bench.h"
#include "rcu_flavor.h"

/* liburcu asserts on a second registration; the experiments register
 * the main thread from several measurements. */
void qb_urcu_register_once(void)
{
	static __thread bool registered;

	if (!registered)
		urcu_memb_register_thread();
	registered = true;
}

static void read_lock(void)
{
	urcu_memb_read_lock();
}

static void read_unlock(void)
{
	urcu_memb_read_unlock();
}

QB_PLACED_TIMER(read_pair, qb_urcu_register_once(),
		urcu_memb_read_lock(); urcu_memb_read_unlock());

const struct qb_rcu_flavor qb_urcu_memb = {
	.name = "liburcu synchronize_rcu",
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.read_lock = read_lock,
	.read_unlock = read_unlock,
	.synchronize = urcu_memb_synchronize_rcu,
	.read_pair = read_pair,
};
