/*
 * The wait-free concurrent queue: the return conventions on one thread,
 * then producers enqueueing while three kinds of consumer take from the
 * queue at once (a locked dequeue, nonblocking dequeues under the lock,
 * and whole-queue splices into a private queue that is iterated, then
 * drained).  Every element must come out exactly once, and each consumer
 * must see each producer's elements in the order they were enqueued.
 * Consumed elements are poisoned and kept in quarantine, and enqueued ones
 * start with a poisoned link, so a consumer that follows a stale link finds
 * poison.  The busted control (an enqueue that publishes its node before
 * clearing its link) must be caught.
 */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PRODUCERS 3
#define CONSUMERS 3
#define PER_PRODUCER 100000
#define TOTAL ((unsigned long)PRODUCERS * PER_PRODUCER)
/*
 * A run that makes no progress for this long is stuck: a lost element.  The
 * busted run, which is expected to get stuck, is given less.
 */
#define STALL_MS 20000
#define BUSTED_STALL_MS 2000
#define ITEM_LIVE 0x51554555u
#define STALE_LINK ((struct quiesce_wfcq_node *)0x6b6b6b6b6b6b6b6bUL)

struct item {
	struct quiesce_wfcq_node node;
	unsigned magic;
	unsigned producer;
	unsigned long seq;
};

static struct quiesce_wfcq_head qhead;
static struct quiesce_wfcq_tail qtail;
static atomic_uchar seen[PRODUCERS][PER_PRODUCER];
static atomic_ulong consumed, violations, would_blocks, splices;

static void violation(const char *what, const struct item *it)
{
	if (atomic_fetch_add(&violations, 1) < 5)
		fprintf(stderr, "violation: %s (producer %u, seq %lu)\n", what, it->producer, it->seq);
}

/* One consumer's record of the last sequence number seen per producer. */
struct consumer {
	unsigned id;
	long last[PRODUCERS];
};

static void consume(struct consumer *c, struct quiesce_wfcq_node *node)
{
	struct item *it = container_of(node, struct item, node);

	if (it->magic != ITEM_LIVE || it->producer >= PRODUCERS || it->seq >= PER_PRODUCER) {
		atomic_fetch_add(&violations, 1);
		fprintf(stderr, "violation: a consumed element is not live (magic %#x)\n", it->magic);
		return;
	}
	if (atomic_fetch_add(&seen[it->producer][it->seq], 1) != 0)
		violation("dequeued twice", it);
	if ((long)it->seq <= c->last[it->producer])
		violation("out of order for its producer", it);
	c->last[it->producer] = (long)it->seq;
	check_quarantine(it, sizeof(*it));
	atomic_fetch_add_explicit(&consumed, 1, memory_order_relaxed);
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned long seq = 0; seq < PER_PRODUCER; seq++) {
		struct item *it = malloc(sizeof(*it));

		it->node.next = STALE_LINK;	/* as a recycled element would be */
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

static void consume_locked(struct consumer *c)
{
	struct quiesce_wfcq_node *node = quiesce_wfcq_dequeue_blocking(&qhead, &qtail);

	if (node)
		consume(c, node);
}

static void consume_nonblocking(struct consumer *c)
{
	quiesce_wfcq_dequeue_lock(&qhead, &qtail);
	for (int i = 0; i < 16; i++) {
		struct quiesce_wfcq_node *node = quiesce_wfcq_sc_dequeue_nonblocking(&qhead, &qtail);

		if (node == NULL)
			break;
		if (node == QUIESCE_WFCQ_WOULDBLOCK) {
			atomic_fetch_add_explicit(&would_blocks, 1, memory_order_relaxed);
			break;
		}
		consume(c, node);
	}
	quiesce_wfcq_dequeue_unlock(&qhead, &qtail);
}

/* Splices everything into a private queue, checks it by iterating, drains it. */
static void consume_spliced(struct consumer *c, struct quiesce_wfcq_head *ph,
			    struct quiesce_wfcq_tail *pt, bool nonblocking)
{
	struct quiesce_wfcq_node *node;
	enum quiesce_wfcq_ret ret;
	long last[PRODUCERS];

	if (nonblocking) {
		quiesce_wfcq_dequeue_lock(&qhead, &qtail);
		ret = quiesce_wfcq_sc_splice_nonblocking(ph, pt, &qhead, &qtail);
		quiesce_wfcq_dequeue_unlock(&qhead, &qtail);
	} else {
		ret = quiesce_wfcq_splice_blocking(ph, pt, &qhead, &qtail);
	}
	if (ret == QUIESCE_WFCQ_RET_WOULDBLOCK) {
		atomic_fetch_add_explicit(&would_blocks, 1, memory_order_relaxed);
		return;
	}
	if (ret == QUIESCE_WFCQ_RET_SRC_EMPTY)
		return;
	if (ret != QUIESCE_WFCQ_RET_DEST_EMPTY) {
		atomic_fetch_add(&violations, 1);
		fprintf(stderr, "violation: splice into an empty queue returned %d\n", ret);
	}
	atomic_fetch_add_explicit(&splices, 1, memory_order_relaxed);
	/* Iteration sees the same order that the dequeues below will check. */
	memcpy(last, c->last, sizeof(last));
	quiesce_wfcq_sc_for_each_blocking(ph, pt, node) {
		struct item *it = container_of(node, struct item, node);

		if (it->magic == ITEM_LIVE && it->producer < PRODUCERS) {
			if ((long)it->seq <= last[it->producer])
				violation("iterated out of order", it);
			last[it->producer] = (long)it->seq;
		}
	}
	while ((node = quiesce_wfcq_sc_dequeue_blocking(ph, pt)) != NULL)
		consume(c, node);
	if (!quiesce_wfcq_empty(ph, pt)) {
		atomic_fetch_add(&violations, 1);
		fprintf(stderr, "violation: a drained queue is not empty\n");
	}
}

static void *consumer(void *arg)
{
	struct consumer c = { .id = (unsigned)(uintptr_t)arg };
	struct quiesce_wfcq_head ph;
	struct quiesce_wfcq_tail pt;
	unsigned long rounds = 0;

	for (int p = 0; p < PRODUCERS; p++)
		c.last[p] = -1;
	quiesce_wfcq_init(&ph, &pt);
	while (!all_consumed()) {
		switch (c.id % CONSUMERS) {
		case 0:
			consume_locked(&c);
			break;
		case 1:
			consume_nonblocking(&c);
			break;
		default:
			consume_spliced(&c, &ph, &pt, ++rounds % 2);
		}
	}
	quiesce_wfcq_destroy(&ph, &pt);
	return NULL;
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
		pthread_create(&threads[i], NULL, consumer, (void *)(uintptr_t)i);
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
	fprintf(stderr, "%lu elements, %lu splices, %lu would-block returns\n", TOTAL,
		atomic_load(&splices), atomic_load(&would_blocks));
	return 0;
}

static void busted_child(void *arg)
{
	quiesce_test_busted_wfcq = true;
	exit(run_stress(BUSTED_STALL_MS) ? 1 : 0);
}

/* The return conventions, on one thread. */
static void conventions(void)
{
	struct quiesce_wfcq_head h, h2;
	struct quiesce_wfcq_tail t, t2;
	struct quiesce_wfcq_node n[4], *node, *next;
	int i = 0;

	quiesce_wfcq_init(&h, &t);
	quiesce_wfcq_init(&h2, &t2);
	CHECK(quiesce_wfcq_empty(&h, &t), "a new queue is empty");
	CHECK(quiesce_wfcq_sc_dequeue_nonblocking(&h, &t) == NULL, "empty: NULL, not would-block");
	CHECK(quiesce_wfcq_splice_blocking(&h2, &t2, &h, &t) == QUIESCE_WFCQ_RET_SRC_EMPTY,
	      "splicing an empty queue");
	CHECK(!quiesce_wfcq_enqueue(&h, &t, &n[0]), "the first enqueue says the queue was empty");
	CHECK(quiesce_wfcq_enqueue(&h, &t, &n[1]), "the second says it was not");
	CHECK(quiesce_wfcq_dequeue_blocking(&h, &t) == &n[0], "first in, first out");
	CHECK(quiesce_wfcq_enqueue(&h, &t, &n[0]), "a dequeued node may be enqueued again");
	CHECK(quiesce_wfcq_splice_blocking(&h2, &t2, &h, &t) == QUIESCE_WFCQ_RET_DEST_EMPTY,
	      "splicing into an empty queue");
	CHECK(quiesce_wfcq_empty(&h, &t), "a spliced queue is empty");
	CHECK(!quiesce_wfcq_enqueue(&h, &t, &n[2]), "and takes enqueues again");
	CHECK(quiesce_wfcq_enqueue(&h, &t, &n[3]), "behind the first");
	CHECK(quiesce_wfcq_sc_splice_nonblocking(&h2, &t2, &h, &t) == QUIESCE_WFCQ_RET_DEST_NON_EMPTY,
	      "splicing behind nodes");
	quiesce_wfcq_sc_for_each_blocking(&h2, &t2, node) {
		static const int order[] = { 1, 0, 2, 3 };

		CHECK(node == &n[order[i]], "iteration order, step %d", i);
		i++;
	}
	CHECK(i == 4, "iteration saw %d nodes", i);
	CHECK(quiesce_wfcq_sc_first_blocking(&h2, &t2) == &n[1], "iteration dequeues nothing");
	for (i = 0; (node = quiesce_wfcq_sc_dequeue_blocking(&h2, &t2)) != NULL; i++)
		;
	CHECK(i == 4 && quiesce_wfcq_empty(&h2, &t2), "drained %d nodes", i);
	quiesce_wfcq_enqueue(&h2, &t2, &n[0]);
	quiesce_wfcq_enqueue(&h2, &t2, &n[1]);
	i = 0;
	quiesce_wfcq_sc_for_each_blocking_safe(&h2, &t2, node, next)
		node->next = STALE_LINK, i++;	/* as if freed */
	CHECK(i == 2, "safe iteration saw %d nodes", i);
	quiesce_wfcq_sc_init(&h2, &t2);
	CHECK(quiesce_wfcq_empty(&h2, &t2) && !quiesce_wfcq_enqueue(&h2, &t2, &n[2]) &&
	      quiesce_wfcq_sc_dequeue_blocking(&h2, &t2) == &n[2], "reset by sc_init");
	quiesce_wfcq_enqueue(&h, &t, &n[0]);
	quiesce_wfcq_enqueue(&h, &t, &n[1]);
	CHECK(quiesce_wfcq_dequeue_with_state_blocking(&h, &t, &i) == &n[0] && i == 0,
	      "not the last: state %d", i);
	CHECK(quiesce_wfcq_sc_dequeue_with_state_nonblocking(&h, &t, &i) == &n[1] &&
	      i == QUIESCE_WFCQ_STATE_LAST, "the last: state %d", i);
	quiesce_wfcq_destroy(&h, &t);
	quiesce_wfcq_destroy(&h2, &t2);
}

int main(void)
{
	conventions();
	CHECK(run_stress(STALL_MS) == 0, "the queue lost, doubled or reordered elements");
	check_child_detects_violation(busted_child, NULL);
	printf("wfqueue: all checks passed\n");
	return 0;
}
