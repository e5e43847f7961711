/*
 * call_rcu_queue.h - a wait-free queue of callbacks: any thread appends with
 * one exchange and one store; one consumer at a time takes everything.
 *
 * The shape is that of liburcu's wfcqueue (Desnoyers and Lai): a dummy head
 * node and a tail pointer.  An append swaps itself in as the tail, then links
 * the node it displaced to itself.  Between those two steps the chain is
 * broken; a consumer that meets a missing link waits for it (the appender is
 * one store away from writing it, so the wait is bounded unless the appender
 * is preempted, in which case the consumer yields the CPU to it).
 *
 * For the default RCU domain each thread owns one queue and is its only
 * appender, so the exchange touches a cache line that no other thread writes
 * between two harvests by the callback thread.  Every other domain has one
 * queue that all its callers share (cb_domain.h).
 *
 * An owner's append writes the node after the exchange, not before
 * (quiesce_cb_queue_append_own()).  The node's line is usually one that
 * readers share (the callback's object was just unpublished), so a store to
 * it waits for the line, and a locked exchange behind that store would wait
 * with it: most of call_rcu()'s cost when readers run on other CPUs.
 * Written after the exchange, the node drains from the store buffer while
 * the caller goes on, until the caller's next locked instruction or fence
 * (the next call's exchange, back to back).  The price is a window in which
 * the node is the tail but holds stale contents.  Nobody reads it then: the
 * consumer reaches a node only through its predecessor's link, which the
 * append stores last.  But the consumer writes into the last node it takes,
 * to join chains (quiesce_cb_list_append()), and the owner's late store of
 * next = NULL would undo that join; so the owner raises `appending` around
 * its append, and quiesce_cb_queue_take() waits for it to fall.
 */
#ifndef QUIESCE_CALL_RCU_QUEUE_H
#define QUIESCE_CALL_RCU_QUEUE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include <quiesce/rcu.h>

struct quiesce_cb_queue {
	struct quiesce_rcu_head head;	/* dummy: head.next is the first callback */
	struct quiesce_rcu_head *tail;	/* the last callback, or &head when empty */
	bool appending;			/* an owner's append is under way */
};

/* Spins on a missing link before yielding the CPU to its appender. */
#define QUIESCE_CB_LINK_SPINS 100

static inline void quiesce_cb_queue_init(struct quiesce_cb_queue *q)
{
	q->head.next = NULL;
	q->tail = &q->head;
	q->appending = false;
}

/*
 * Appends the chain first..last (linked, last->next unused).  Returns the
 * node it displaced as the tail: &q->head when the queue was empty before,
 * which is when the consumer may need a wake-up; last itself when last was
 * queued already (the caller dies: cb_debug.c).
 */
static inline struct quiesce_rcu_head *quiesce_cb_queue_append(struct quiesce_cb_queue *q,
							       struct quiesce_rcu_head *first,
							       struct quiesce_rcu_head *last)
{
	struct quiesce_rcu_head *prev;

	last->next = NULL;
	/*
	 * Acquire: pairs with the release in quiesce_cb_queue_take(), so that
	 * linking into the dummy head below follows the consumer's reset of
	 * it.  Release: publishes last->next = NULL.  Sequentially consistent:
	 * the worker's idle check and rcu_barrier() rely on the total order of
	 * this exchange with their own accesses (see cb_domain.c, cb_call.c).
	 */
	prev = __atomic_exchange_n(&q->tail, last, __ATOMIC_SEQ_CST);
	/*
	 * Release: the chain's contents (each callback's func) are visible to
	 * the consumer that follows this link with an acquire load.
	 */
	__atomic_store_n(&prev->next, first, __ATOMIC_RELEASE);
	return prev;
}

/*
 * Appends cb, with callback func, to a queue whose only appender is the
 * caller (a thread's own queue), writing the node after the exchange (see
 * the top of this file).  Returns true when the queue was empty before.
 */
static inline bool quiesce_cb_queue_append_own(struct quiesce_cb_queue *q,
					       struct quiesce_rcu_head *cb,
					       void (*func)(struct quiesce_rcu_head *))
{
	struct quiesce_rcu_head *prev;

	/*
	 * Made visible to the consumer by the exchange's release: a take
	 * whose exchange returns cb reads true here, or the false below.
	 */
	QUIESCE_STORE(&q->appending, true);
	/* Orderings as in quiesce_cb_queue_append(). */
	prev = __atomic_exchange_n(&q->tail, cb, __ATOMIC_SEQ_CST);
	cb->func = func;
	cb->next = NULL;
	/* Release: func and next before the link, as in quiesce_cb_queue_append(). */
	__atomic_store_n(&prev->next, cb, __ATOMIC_RELEASE);
	/*
	 * Release: pairs with the acquire in quiesce_cb_queue_take(); a take
	 * that reads false may then write into cb, after next = NULL.
	 */
	__atomic_store_n(&q->appending, false, __ATOMIC_RELEASE);
	return prev == &q->head;
}

static inline bool quiesce_cb_queue_empty(struct quiesce_cb_queue *q)
{
	/* Sequentially consistent: see quiesce_cb_queue_append(). */
	return __atomic_load_n(&q->tail, __ATOMIC_SEQ_CST) == &q->head;
}

/*
 * One step of a wait for an appender between its exchange and its last
 * store: spins, then yields the CPU, which the appender may be waiting for.
 */
static inline void quiesce_cb_queue_back_off(unsigned *spins)
{
	if (++*spins < QUIESCE_CB_LINK_SPINS)
		quiesce_cpu_relax();
	else
		sched_yield();
}

/*
 * The node after cb, waiting for an appender that has swapped the tail but
 * not yet linked (see the top of this file).  Only for a node that is not the
 * last one taken.
 */
static inline struct quiesce_rcu_head *quiesce_cb_queue_next(struct quiesce_rcu_head *cb)
{
	struct quiesce_rcu_head *next;
	unsigned spins = 0;

	/* Acquire: pairs with the release store of the link in append. */
	while (!(next = __atomic_load_n(&cb->next, __ATOMIC_ACQUIRE)))
		quiesce_cb_queue_back_off(&spins);
	return next;
}

/*
 * Takes the whole content: returns the first callback and sets *last, or
 * returns NULL when the queue is empty.  The nodes between them may still
 * be missing a link: walk them with quiesce_cb_queue_next().  One consumer
 * at a time (the caller serializes).
 */
static inline struct quiesce_rcu_head *quiesce_cb_queue_take(struct quiesce_cb_queue *q,
							     struct quiesce_rcu_head **last)
{
	struct quiesce_rcu_head *first;
	unsigned spins = 0;

	if (quiesce_cb_queue_empty(q))
		return NULL;
	first = quiesce_cb_queue_next(&q->head);
	/*
	 * No appender writes head.next now: the tail is not &head, so each
	 * one links to the node it displaced.
	 */
	QUIESCE_STORE(&q->head.next, NULL);
	/*
	 * Release: pairs with the acquire in append, which may link into the
	 * dummy head next, after this reset.  Acquire: pairs with the last
	 * appender's exchange.  Sequentially consistent: as in append.
	 */
	*last = __atomic_exchange_n(&q->tail, &q->head, __ATOMIC_SEQ_CST);
	/*
	 * The caller may write into *last (quiesce_cb_list_append()): wait
	 * for an owner's append of it to finish.  Acquire: pairs with the
	 * release that lowers the flag in quiesce_cb_queue_append_own().
	 * Woken by that store; an append that started after the exchange
	 * above (into the emptied queue) may keep it raised a little longer.
	 */
	while (__atomic_load_n(&q->appending, __ATOMIC_ACQUIRE))
		quiesce_cb_queue_back_off(&spins);
	return first;
}

#endif
