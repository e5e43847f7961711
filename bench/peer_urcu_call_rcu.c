/*
 * liburcu's call_rcu (memb flavor) as two call-rcu flavors: on its default
 * callback thread, and on per-CPU call_rcu_data (a worker pinned to each
 * CPU, made and freed around the row); and call_rcu_data of the program's
 * own, for the barrier row.  Only liburcu's headers here: its names clash
 * with quiesce's.
 */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include "bench.h"
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

static void make_per_cpu(void)
{
	if (urcu_memb_create_all_cpu_call_rcu_data(0))
		qb_note("liburcu: create_all_cpu_call_rcu_data() failed: its default thread ran the callbacks");
}

const struct qb_cb_flavor qb_urcu_call_rcu_per_cpu = {
	.name = "liburcu per-CPU call_rcu_data",
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.queue = queue,
	.barrier = urcu_memb_barrier,
	.setup = make_per_cpu,
	.teardown = urcu_memb_free_all_cpu_call_rcu_data,
};

static struct call_rcu_data *workers[QB_CB_WORKERS];

static void make_workers(void)
{
	for (int i = 0; i < QB_CB_WORKERS; i++)
		workers[i] = urcu_memb_create_call_rcu_data(0, -1);
}

/* call_rcu() queues on the calling thread's call_rcu_data. */
static void queue_on(int i, void *obj)
{
	urcu_memb_set_thread_call_rcu_data(workers[i]);
	urcu_memb_call_rcu((struct rcu_head *)obj, free_object);
}

static void drop_workers(void)
{
	urcu_memb_set_thread_call_rcu_data(NULL);
	for (int i = 0; i < QB_CB_WORKERS; i++)
		urcu_memb_call_rcu_data_free(workers[i]);
}

const struct qb_cb_workers qb_urcu_call_rcu_workers = {
	.name = "liburcu call_rcu_data",
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.make = make_workers,
	.queue_on = queue_on,
	.barrier = urcu_memb_barrier,
	.drop = drop_workers,
};
