/*
 * link_wait.c - the wait of the wait-free queue's and stack's consumers for
 * an enqueuer (pusher) that has claimed its place but not yet linked it,
 * and of the queue's RCU consumers for one another.
 *
 * The window is one store wide unless the enqueuer was preempted in it, so
 * the wait spins first, then yields (the enqueuer may be waiting for this
 * very CPU), then sleeps a millisecond at a time (it may be descheduled for
 * long, e.g. stopped by a debugger).  Nothing wakes the waiter: only the
 * store it waits for ends the wait, because a wake-up would cost every
 * enqueue a look at a waiter flag, and the enqueue must stay wait-free.
 */
#include <sched.h>
#include <time.h>

#include <quiesce/wfqueue.h>

#define SPINS 128
#define YIELDS 64
#define SLEEP_NS 1000000L

/* One step of the wait: spin, then yield, then sleep. */
static void back_off(unsigned attempt)
{
	struct timespec nap = { 0, SLEEP_NS };

	if (attempt < SPINS)
		quiesce_cpu_relax();
	else if (attempt < SPINS + YIELDS)
		sched_yield();
	else
		nanosleep(&nap, NULL);
}

void *quiesce_ds_wait_link(void *const *link)
{
	void *next;

	/* Acquire: pairs with the release of the enqueuer's link store. */
	for (unsigned attempt = 0; (next = __atomic_load_n(link, __ATOMIC_ACQUIRE)) == NULL;
	     attempt++)
		back_off(attempt);
	return next;
}

/*
 * The RCU consumers' wait (quiesce_wfcq_dequeue_rcu()): the head's link is
 * NULL while the tail is elsewhere, because an enqueuer into the empty
 * queue has not linked yet, or because another consumer took the last node
 * and waits for an enqueuer's link behind it.  Ended by that link store, or
 * that consumer's restore of the head's link, or by its emptying of the
 * queue.  The caller reloads both with the orderings it needs.
 */
void quiesce_wfcq_wait_rcu_first(struct quiesce_wfcq_head *head, struct quiesce_wfcq_tail *tail)
{
	for (unsigned attempt = 0; QUIESCE_LOAD(&head->node.next) == NULL &&
				   QUIESCE_LOAD(&tail->p) != &head->node;
	     attempt++)
		back_off(attempt);
}
