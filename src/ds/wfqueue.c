/*
 * wfqueue.c - why the wait-free concurrent queue of quiesce/wfqueue.h is
 * correct, and its deliberately broken test variant.  The code is inline in
 * the header; the wait for a link is in quiesce/link_wait.h.
 *
 * The queue is a singly linked list from a dummy node in the head to the
 * node the tail points at.  It is the two-word queue of liburcu's cds_wfcq,
 * itself a descendant of the queues of Mellor-Crummey (1987) and of
 * Vyukov's intrusive MPSC queue: an enqueue swaps the tail to its node, then
 * stores its node into the previous tail's next.  Between the two steps the
 * list is cut: the consumer sees a node whose next is NULL although the tail
 * is elsewhere, and waits (or says "would block").
 *
 * Invariants
 * - Each node is some exchange's "last" at most once per enqueue, so each
 *   prev->next is written by exactly one enqueuer (or splice), once.
 * - The list from head->node, through links already stored, followed by the
 *   links still to be stored (one per exchange that returned a prev and has
 *   not linked yet), reaches the tail: the exchanges form a total order on
 *   the tail, and each one's prev is the one before's last.
 * - Only the consumer (serialized) writes head->node.next other than an
 *   enqueuer whose prev is &head->node, and that enqueuer exists only once
 *   the tail has been moved back to the head, after the consumer's store
 *   (the release/acquire pair on the tail orders the two stores).
 *
 * Why nothing is lost or doubled
 * - An enqueue claims its place with one atomic exchange, so concurrent
 *   enqueues are ordered by the tail's modification order and none can be
 *   overwritten.
 * - A node's next is cleared before the node is published on the tail
 *   (release), and the enqueuer that finds it as prev writes its link after
 *   reading the tail (acquire): the link cannot be overwritten by the clear.
 *   This is the ordering the busted variant below removes.
 * - The consumer takes the last node only by moving the tail from that node
 *   back to the head with a compare-exchange: it fails if an enqueuer has
 *   swapped in behind the node, and then the node's link is on the way.
 * - A splice takes the source's chain with one exchange of its tail; an
 *   enqueuer either swapped before it (its node is in the chain, linked into
 *   a node of the chain) or after it (its prev is the emptied head).  The
 *   chain is then appended to the destination as one long enqueue.
 *
 * Why a node's contents are seen: every path to a node goes through a link
 * stored with release after the node was written (the enqueuer's link, or
 * the splicer's, which itself read the chain's first link with acquire) and
 * loaded with acquire.  FIFO per enqueuer: its enqueues are sequenced, so
 * its exchanges are in that order on the tail, and the list is in tail
 * order.
 *
 * RCU consumers (quiesce_wfcq_dequeue_rcu()), concurrent with one another
 * and without a lock.  A consumer reads first from the head's link, then
 * first's link, then takes first with one compare-exchange of the head's
 * link from first to that next.
 * - The compare-exchange succeeds only if the head still links to first,
 *   so two consumers never take the same node: whoever moved the link off
 *   first took it.  That first could have left and come back to the front
 *   (ABA) only by being enqueued again, which the caller's rules forbid
 *   while we are in our read-side section; the same rules keep first's
 *   memory alive for our read of its link after another consumer took it.
 * - first's link, once non-NULL, never changes while first is queued, so
 *   a next read as non-NULL is still first's successor when the
 *   compare-exchange succeeds.
 * - A NULL next means first looked like the last node: the consumer that
 *   moves the head's link to NULL owns the last-node step that the
 *   serialized consumer does (tail back to the head, or wait for the
 *   enqueuer that came behind first and store its node into the head's
 *   link).  Meanwhile the head's link is NULL while the tail is not the
 *   head, which every other consumer reads as "wait" (it cannot take a
 *   node), and no enqueuer writes the head's link because none can find
 *   the head in the tail.  So the owner's store of the link cannot be
 *   lost, nor overwrite anyone's.
 * - A NULL head link with the tail at the head is the empty queue.  A
 *   consumer reads the link (acquire), then the tail: every exchange of
 *   the tail that the link's storer had seen (a consumer's NULL follows
 *   its acquire of the node it took, which follows that node's enqueue)
 *   happens before that look, so it does not find the tail at the head
 *   from before a node that is still queued.
 * The busted variant below drops the compare-exchange.
 */
#include <sched.h>

#include <quiesce/compiler.h>

#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

/*
 * How long the busted enqueue leaves its node linked but not cleared: a
 * spin, and a yield so that a one-CPU or serializing run (valgrind) also
 * lets another thread into the window.
 */
#define BUSTED_WINDOW_SPINS 256

bool quiesce_test_busted_wfcq;

/*
 * Busted: the node is published (exchanged into the tail and linked) before
 * its next is cleared, as a missing release on the publication would allow,
 * with the window widened.  A consumer that reaches the node meanwhile
 * follows its stale next; an enqueuer that links behind it is overwritten
 * and lost.  The stress test and the torture type must catch it.
 */
bool quiesce_test_wfcq_busted_enqueue(struct quiesce_wfcq_node *head_node,
				      struct quiesce_wfcq_tail *tail,
				      struct quiesce_wfcq_node *node)
{
	struct quiesce_wfcq_node *prev = __atomic_exchange_n(&tail->p, node, __ATOMIC_RELAXED);

	__atomic_store_n(&prev->next, node, __ATOMIC_RELAXED);
	for (int i = 0; i < BUSTED_WINDOW_SPINS; i++)
		quiesce_cpu_relax();
	sched_yield();
	QUIESCE_STORE(&node->next, NULL);
	return prev != head_node;
}

bool quiesce_test_busted_wfcq_rcu;

/*
 * Busted: the RCU dequeue without its compare-exchange, as if a serialized
 * consumer's dequeue ran in several consumers at once, with the window
 * between reading the head's link and storing it widened.  Two consumers
 * take the same node, or one stores back a link the other has moved past.
 * The RCU-consumer stress must catch it.
 */
struct quiesce_wfcq_node *quiesce_test_wfcq_busted_dequeue_rcu(struct quiesce_wfcq_head *head,
							       struct quiesce_wfcq_tail *tail)
{
	struct quiesce_wfcq_node *first, *next;

	while ((first = QUIESCE_LOAD_ACQUIRE(&head->node.next)) == NULL) {
		if (QUIESCE_LOAD(&tail->p) == &head->node)
			return NULL;
		quiesce_wfcq_wait_rcu_first(head, tail);
	}
	next = QUIESCE_LOAD_ACQUIRE(&first->next);
	if (next == NULL)
		return quiesce_wfcq_sc_dequeue_blocking(head, tail);
	for (int i = 0; i < BUSTED_WINDOW_SPINS; i++)
		quiesce_cpu_relax();
	sched_yield();
	__atomic_store_n(&head->node.next, next, __ATOMIC_RELEASE);
	return first;
}
