/*
 * The wait-free queue's RCU consumers (quiesce_wfcq_dequeue_rcu()): the
 * conventions on one thread, the two windows where a consumer must wait,
 * then producers enqueueing while several RCU consumers dequeue at once.
 *
 * The stress follows RCU's rules as liburcu's cds_lfq users do: each
 * dequeue runs in a read-side section, and a consumed element goes back to
 * the producers only through call_rcu(), which poisons it and puts it on a
 * free list that the producers take from before they allocate.  So
 * elements come back to the queue (the ABA case the rules make safe), and
 * a consumer that takes an element twice, or follows a link out of an
 * element that has been recycled, finds a doubled count or the poison.
 * Every element must come out exactly once, and each consumer must see
 * each producer's elements in order.  The busted control (the dequeue
 * without its compare-exchange) must be caught.
 */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PRODUCERS 2
#define CONSUMERS 3
#define PER_PRODUCER 100000
#define TOTAL ((unsigned long)PRODUCERS * PER_PRODUCER)
/* As in test_wfqueue.c: no progress for this long is a lost element. */
#define STALL_MS 20000
#define BUSTED_STALL_MS 2000
#define ITEM_LIVE 0x51554555u
#define ITEM_RETIRED 0x6b6b6b6bu
#define STALE_LINK ((struct quiesce_wfcq_node *)0x6b6b6b6b6b6b6b6bUL)

struct item {
	struct quiesce_wfcq_node node;
	struct rcu_head rcu;
	unsigned magic;
	unsigned producer;
	unsigned long seq;
	struct item *free_next;		/* on the free list, under free_lock */
};

static struct quiesce_wfcq_head qhead QUIESCE_CACHELINE_ALIGNED;
static struct quiesce_wfcq_tail qtail QUIESCE_CACHELINE_ALIGNED;
static atomic_uchar seen[PRODUCERS][PER_PRODUCER];
static atomic_ulong consumed, violations, recycled;

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static struct item *free_list;		/* retired elements, under free_lock */

static void violation(const char *what, const struct item *it)
{
	if (atomic_fetch_add(&violations, 1) < 5)
		fprintf(stderr, "violation: %s (magic %#x, producer %u, seq %lu)\n", what,
			it->magic, it->producer, it->seq);
}

/* call_rcu() callback: no consumer can still be reading the element. */
static void retire(struct rcu_head *head)
{
	struct item *it = container_of(head, struct item, rcu);

	it->magic = ITEM_RETIRED;
	it->node.next = STALE_LINK;
	pthread_mutex_lock(&free_lock);
	it->free_next = free_list;
	free_list = it;
	pthread_mutex_unlock(&free_lock);
}

static struct item *take_free(void)
{
	struct item *it;

	pthread_mutex_lock(&free_lock);
	it = free_list;
	if (it)
		free_list = it->free_next;
	pthread_mutex_unlock(&free_lock);
	return it;
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned long seq = 0; seq < PER_PRODUCER; seq++) {
		struct item *it = take_free();

		if (it) {
			if (it->magic != ITEM_RETIRED)
				violation("a recycled element was not retired", it);
			atomic_fetch_add_explicit(&recycled, 1, memory_order_relaxed);
		} else {
			it = malloc(sizeof(*it));
			CHECK(it, "out of memory");
			it->node.next = STALE_LINK;	/* as a recycled one's */
		}
		it->magic = ITEM_LIVE;
		it->producer = id;
		it->seq = seq;
		quiesce_wfcq_enqueue(&qhead, &qtail, &it->node);
	}
	return NULL;
}

static bool all_consumed(void)
{
	return atomic_load_explicit(&consumed, memory_order_relaxed) == TOTAL;
}

static void consume(long last[PRODUCERS], struct item *it)
{
	if (it->magic != ITEM_LIVE || it->producer >= PRODUCERS || it->seq >= PER_PRODUCER) {
		violation("a dequeued element is not live", it);
		return;
	}
	if (atomic_fetch_add(&seen[it->producer][it->seq], 1) != 0)
		violation("dequeued twice", it);
	if ((long)it->seq <= last[it->producer])
		violation("out of order for its producer", it);
	last[it->producer] = (long)it->seq;
	atomic_fetch_add_explicit(&consumed, 1, memory_order_relaxed);
	call_rcu(&it->rcu, retire);
}

static void *consumer(void *arg)
{
	long last[PRODUCERS];

	for (int p = 0; p < PRODUCERS; p++)
		last[p] = -1;
	while (!all_consumed() && !atomic_load_explicit(&violations, memory_order_relaxed)) {
		struct quiesce_wfcq_node *node;

		rcu_read_lock();
		node = quiesce_wfcq_dequeue_rcu(&qhead, &qtail);
		rcu_read_unlock();
		if (node)
			consume(last, container_of(node, struct item, node));
	}
	return NULL;
}

static void free_all(void)
{
	struct item *it;

	rcu_barrier();	/* every consumed element is on the free list */
	while ((it = take_free()) != NULL)
		free(it);
}

/* Returns the number of violations; a stall (a lost element) exits 1. */
static unsigned long run_stress(unsigned stall_ms)
{
	pthread_t threads[PRODUCERS + CONSUMERS];

	memset(seen, 0, sizeof(seen));
	atomic_store(&consumed, 0);
	atomic_store(&violations, 0);
	quiesce_wfcq_init(&qhead, &qtail);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_create(&threads[i], NULL, consumer, NULL);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&threads[CONSUMERS + i], NULL, producer, (void *)(uintptr_t)i);
	check_wait_count(&consumed, TOTAL, &violations, stall_ms);
	if (atomic_load(&violations))
		return atomic_load(&violations);
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
		check_join_within(threads[i], STALL_MS, "a queue thread");
	for (int p = 0; p < PRODUCERS; p++)
		for (int s = 0; s < PER_PRODUCER; s++)
			CHECK(atomic_load(&seen[p][s]) == 1, "element %d.%d seen %d times", p, s,
			      atomic_load(&seen[p][s]));
	CHECK(quiesce_wfcq_empty(&qhead, &qtail), "the queue is empty at the end");
	quiesce_wfcq_destroy(&qhead, &qtail);
	free_all();
	fprintf(stderr, "%lu elements, %lu of them recycled after a grace period\n", TOTAL,
		atomic_load(&recycled));
	return 0;
}

static void busted_child(void *arg)
{
	quiesce_test_busted_wfcq_rcu = true;
	exit(run_stress(BUSTED_STALL_MS) ? 1 : 0);
}

/* A consumer on its own thread, for the windows below. */
struct waiter {
	struct quiesce_wfcq_head *h;
	struct quiesce_wfcq_tail *t;
	struct quiesce_wfcq_node *got;
	atomic_bool done;
};

static void *wait_dequeue(void *arg)
{
	struct waiter *w = arg;

	rcu_read_lock();
	w->got = quiesce_wfcq_dequeue_rcu(w->h, w->t);
	rcu_read_unlock();
	atomic_store(&w->done, true);
	return NULL;
}

/*
 * An enqueue cut between its two steps (the tail exchanged to n, the link
 * from prev not stored yet), by hand: a consumer must wait for the link,
 * not report an empty queue nor lose n.  With prev the head, it waits in
 * quiesce_wfcq_wait_rcu_first(); with prev the last node, in the last-node
 * step, and it must restore the head's link to n.
 */
static void cut_enqueue(struct quiesce_wfcq_head *h, struct quiesce_wfcq_tail *t,
			struct quiesce_wfcq_node *prev, struct quiesce_wfcq_node *n)
{
	struct waiter w = { .h = h, .t = t };
	pthread_t thread;

	n->next = NULL;
	CHECK(__atomic_exchange_n(&t->p, n, __ATOMIC_ACQ_REL) == prev, "the tail was prev");
	pthread_create(&thread, NULL, wait_dequeue, &w);
	check_sleep_us(20000);
	if (prev == &h->node)
		CHECK(!atomic_load(&w.done), "a dequeue returned while an enqueue was cut");
	__atomic_store_n(&prev->next, n, __ATOMIC_RELEASE);
	check_join_within(thread, STALL_MS, "a consumer waiting for a link");
	CHECK(w.got == (prev == &h->node ? n : prev), "the cut enqueue: dequeued %p", (void *)w.got);
}

/* The conventions and the two windows, on one queue. */
static void conventions(void)
{
	struct quiesce_wfcq_head h;
	struct quiesce_wfcq_tail t;
	struct quiesce_wfcq_node n[3];

	quiesce_wfcq_init(&h, &t);
	rcu_read_lock();
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == NULL, "a new queue is empty");
	quiesce_wfcq_enqueue(&h, &t, &n[0]);
	quiesce_wfcq_enqueue(&h, &t, &n[1]);
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == &n[0], "first in, first out");
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == &n[1], "the last node");
	CHECK(quiesce_wfcq_empty(&h, &t), "empty after the last node");
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == NULL, "empty: NULL");
	rcu_read_unlock();
	/* n[0] and n[1] may come back only after a grace period. */
	synchronize_rcu();
	CHECK(!quiesce_wfcq_enqueue(&h, &t, &n[1]), "an emptied queue takes enqueues again");
	rcu_read_lock();
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == &n[1], "a node enqueued again");
	rcu_read_unlock();
	synchronize_rcu();

	cut_enqueue(&h, &t, &h.node, &n[0]);
	CHECK(quiesce_wfcq_empty(&h, &t), "empty after the cut enqueue into it");
	synchronize_rcu();
	quiesce_wfcq_enqueue(&h, &t, &n[1]);
	cut_enqueue(&h, &t, &n[1], &n[2]);
	CHECK(QUIESCE_LOAD(&h.node.next) == &n[2], "the head's link restored to the node behind");
	rcu_read_lock();
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == &n[2], "the node behind the restored link");
	CHECK(quiesce_wfcq_dequeue_rcu(&h, &t) == NULL, "and then empty");
	rcu_read_unlock();
	quiesce_wfcq_destroy(&h, &t);
}

int main(void)
{
	conventions();
	CHECK(run_stress(STALL_MS) == 0, "the RCU consumers lost, doubled or reordered elements");
	check_child_detects_violation(busted_child, NULL);
	printf("wfqueue_rcu: all checks passed\n");
	return 0;
}
