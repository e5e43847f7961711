/*
 * liburcu's QSBR flavor as a bench flavor, its read side and quiescent
 * state inlined (_LGPL_SOURCE), as a program that includes its headers
 * gets them.  Built only when liburcu-qsbr is installed.
 */
#define _LGPL_SOURCE
#include <stdbool.h>
#include <urcu/urcu-qsbr.h>

#include <quiesce/compiler.h>

#include "bench.h"
#include "rcu_flavor.h"

/* Declared in bench/qsbr.c, the experiment that uses them. */
extern const struct qb_rcu_flavor qb_urcu_qsbr;
extern const qb_placed_timer *const qb_urcu_qsbr_quiescent_state;

static __thread bool registered;

static void register_once(void)
{
	/* liburcu asserts on a second registration. */
	if (!registered)
		urcu_qsbr_register_thread();
	registered = true;
}

static void unregister(void)
{
	urcu_qsbr_unregister_thread();
	registered = false;
}

static void read_lock(void)
{
	urcu_qsbr_read_lock();
}

/* The busy readers of the latency rows announce a quiescent state per section. */
static void read_unlock_and_announce(void)
{
	urcu_qsbr_read_unlock();
	urcu_qsbr_quiescent_state();
}

/* The compiler barrier keeps the loop, as in quiesce's row. */
QB_PLACED_TIMER(read_pair, register_once(),
		urcu_qsbr_read_lock(); quiesce_compiler_barrier(); urcu_qsbr_read_unlock());

QB_PLACED_TIMER(quiescent_state, register_once(),
		urcu_qsbr_quiescent_state(); quiesce_compiler_barrier());
const qb_placed_timer *const qb_urcu_qsbr_quiescent_state = quiescent_state;

/* The caller is not registered (sync_latency.c), as liburcu allows. */
const struct qb_rcu_flavor qb_urcu_qsbr = {
	.name = "liburcu qsbr",
	.register_thread = register_once,
	.unregister_thread = unregister,
	.read_lock = read_lock,
	.read_unlock = read_unlock_and_announce,
	.synchronize = urcu_qsbr_synchronize_rcu,
	.read_pair = read_pair,
};
