/*
 * Concurrency Kit's lock-free queue (ck_fifo_mpmc, which keeps the node of
 * the last item it dequeued as its dummy and hands the previous one back
 * as garbage) and its stack with the generation-counted pop
 * (ck_stack_push_mpmc / ck_stack_pop_mpmc) as queue flavors.  Neither has a
 * splice.
 */
#include <ck_fifo.h>
#include <ck_stack.h>

#include "queue_flavor.h"

_Static_assert(sizeof(ck_fifo_mpmc_entry_t) <= QB_NODE_BYTES, "ck's entry fits");

struct ck_queue {
	ck_fifo_mpmc_t fifo __attribute__((aligned(64)));
	/* The dummy at the start: not an item, so never released. */
	ck_fifo_mpmc_entry_t stub __attribute__((aligned(64)));
};

static void *fifo_create(void)
{
	struct ck_queue *q = qb_queue_alloc(sizeof(*q));

	ck_fifo_mpmc_init(&q->fifo, &q->stub);
	return q;
}

static void fifo_enqueue(void *p, struct qb_item *it)
{
	struct ck_queue *q = p;

	ck_fifo_mpmc_enqueue(&q->fifo, (ck_fifo_mpmc_entry_t *)it->node, it);
}

static struct qb_item *fifo_dequeue(void *p, bool single, struct qb_item **released)
{
	struct ck_queue *q = p;
	ck_fifo_mpmc_entry_t *garbage;
	struct qb_item *it;

	if (!ck_fifo_mpmc_dequeue(&q->fifo, &it, &garbage)) {
		*released = NULL;
		return NULL;
	}
	*released = garbage == &q->stub ? NULL : (struct qb_item *)garbage;
	return it;
}

const struct qb_queue_flavor qb_ck_fifo_mpmc = {
	.name = "ck_fifo_mpmc",
	.create = fifo_create,
	.destroy = qb_queue_free,
	.enqueue = fifo_enqueue,
	.dequeue = fifo_dequeue,
};

static void *stack_create(void)
{
	ck_stack_t *s = qb_queue_alloc(sizeof(*s));

	ck_stack_init(s);
	return s;
}

static void stack_push(void *s, struct qb_item *it)
{
	ck_stack_push_mpmc(s, (ck_stack_entry_t *)it->node);
}

static struct qb_item *stack_pop(void *s, bool single, struct qb_item **released)
{
	struct qb_item *it = (struct qb_item *)ck_stack_pop_mpmc(s);

	*released = it;
	return it;
}

const struct qb_queue_flavor qb_ck_stack = {
	.name = "ck_stack",
	.create = stack_create,
	.destroy = qb_queue_free,
	.enqueue = stack_push,
	.dequeue = stack_pop,
};
