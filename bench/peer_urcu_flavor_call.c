/*
 * liburcu's default flavor with its read side called through the shared
 * library (no _LGPL_SOURCE): what a program pays when it cannot inline it.
 */
#include <urcu/urcu-memb.h>

#include "bench.h"
#include "rcu_flavor.h"

QB_PLACED_TIMER(read_pair, qb_urcu_register_once(),
		urcu_memb_read_lock(); urcu_memb_read_unlock());

const struct qb_rcu_flavor qb_urcu_memb_call = {
	.name = "liburcu (not inlined)",
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.read_lock = urcu_memb_read_lock,
	.read_unlock = urcu_memb_read_unlock,
	.synchronize = urcu_memb_synchronize_rcu,
	.read_pair = read_pair,
};
