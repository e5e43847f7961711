/*
 * liburcu's call_rcu (memb flavor, its default callback thread) as a
 * call-rcu flavor.  Only liburcu's headers here: its names clash with
 * quiesce's.
 */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include "call_rcu_flavor.h"

_Static_assert(sizeof(struct rcu_head) == QB_CB_HEAD_BYTES, "liburcu's head size");

static void free_object(struct rcu_head *head)
{
	qb_cb_free(head);
}

static void queue(void *obj)
{
	urcu_memb_call_rcu((struct rcu_head *)obj, free_object);
}

const struct qb_cb_flavor qb_urcu_call_rcu = {
	.name = "liburcu call_rcu",
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.queue = queue,
	.barrier = urcu_memb_barrier,
};
