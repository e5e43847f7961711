/*
 * rcu_flavor.h - one RCU implementation as the RCU experiments see it, so
 * that quiesce and its peers run the same measurement code.
 */
#ifndef QUIESCE_BENCH_RCU_FLAVOR_H
#define QUIESCE_BENCH_RCU_FLAVOR_H

#include <stdbool.h>

#include "placed_timer.h"

struct qb_rcu_flavor {
	const char *name;
	void (*register_thread)(void);
	void (*unregister_thread)(void);
	void (*read_lock)(void);
	void (*read_unlock)(void);
	void (*synchronize)(void);
	/*
	 * QB_PLACEMENTS copies of a timer of the lock+unlock pair, inlined as
	 * its users would, each at its own code offset; each returns ns per
	 * pair (placed_timer.h).
	 */
	const qb_placed_timer *read_pair;
	/*
	 * Measured under rcu_normal (quiesce_rcu_set_normal(true) around each
	 * measurement): what a user who asks for no interrupts gets.
	 */
	bool rcu_normal;
};

extern const struct qb_rcu_flavor qb_quiesce_rcu;
extern const struct qb_rcu_flavor qb_quiesce_rcu_expedited;
extern const struct qb_rcu_flavor qb_quiesce_rcu_normal_knob;
#ifdef QUIESCE_HAVE_URCU
extern const struct qb_rcu_flavor qb_urcu_memb;		/* _LGPL_SOURCE: inlined */
extern const struct qb_rcu_flavor qb_urcu_memb_call;	/* through the shared library */
void qb_urcu_register_once(void);
#endif

#endif
