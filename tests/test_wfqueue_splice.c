/*
 * Splices into a queue that others use (wfqueue.h: "a splice is a consumer
 * call on its source and an enqueue on its destination"): producers enqueue
 * into a source queue and a destination queue, one thread splices the
 * source into the destination again and again (blocking under the source's
 * mutex, and nonblocking under quiesce_wfcq_dequeue_lock()), while a
 * consumer takes from the source and two take from the destination, one
 * with locked blocking dequeues and one with nonblocking ones.  So splices
 * meet enqueuers cut on either queue, a source being dequeued between
 * splices, and a destination being emptied under them.
 *
 * Every element must come out exactly once, and each consumer must see a
 * producer's elements of one queue in the order they were enqueued (a
 * splice keeps the source's order; nodes enqueued straight into the
 * destination interleave freely with spliced ones).  A consumer poisons an
 * element and frees it at once, which the queue allows (it never touches a
 * node after handing it out): under AddressSanitizer a late touch by a
 * splice, an enqueue or a dequeue is a use after free, and without it the
 * poison makes a stale link visible.  Enqueued elements start with a
 * poisoned link, which enqueue must clear.  The busted control (an enqueue
 * that publishes its node before clearing its link, src/ds/wfqueue.c) must
 * be caught.
 */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PRODUCERS 2
#define PER_PRODUCER 100000
#define TOTAL ((unsigned long)PRODUCERS * PER_PRODUCER)
#define STALL_MS 20000
#define BUSTED_STALL_MS 2000
#define ITEM_LIVE 0x53504c49u
#define STALE_LINK ((struct quiesce_wfcq_node *)0x6b6b6b6b6b6b6b6bUL)

enum { SRC, DEST };

struct item {
	struct quiesce_wfcq_node node;
	unsigned magic;
	unsigned producer;
	unsigned queue;			/* SRC or DEST: where it was enqueued */
	long seq;
};

static struct quiesce_wfcq_head qh[2] QUIESCE_CACHELINE_ALIGNED;
static struct quiesce_wfcq_tail qt[2] QUIESCE_CACHELINE_ALIGNED;
static atomic_uchar seen[PRODUCERS][PER_PRODUCER];
static atomic_ulong consumed, violations, splices, would_blocks;
static atomic_bool stop;

static void violation(const char *what, const struct item *it)
{
	atomic_fetch_add(&violations, 1);
	fprintf(stderr, "violation: %s (item %p)\n", what, (const void *)it);
}

static void consume(struct quiesce_wfcq_node *node, long last[PRODUCERS][2])
{
	struct item *it = quiesce_container_of(node, struct item, node);

	if (it->magic != ITEM_LIVE || it->producer >= PRODUCERS || it->queue > DEST ||
	    it->seq < 0 || it->seq >= PER_PRODUCER) {
		violation("a poisoned or foreign element", it);
		return;
	}
	if (it->seq <= last[it->producer][it->queue])
		violation("out of order", it);
	last[it->producer][it->queue] = it->seq;
	if (atomic_fetch_add(&seen[it->producer][it->seq], 1) != 0)
		violation("dequeued twice", it);
	check_poison(it, sizeof(*it));
	free(it);
	atomic_fetch_add(&consumed, 1);
}

static void *producer(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	for (long s = 0; s < PER_PRODUCER; s++) {
		struct item *it = malloc(sizeof(*it));

		CHECK(it != NULL, "malloc");
		it->node.next = STALE_LINK;
		it->magic = ITEM_LIVE;
		it->producer = p;
		it->seq = s;
		/* Runs of a few into each queue, out of step between producers. */
		it->queue = (unsigned)((s / 5 + p) % 2);
		quiesce_wfcq_enqueue(&qh[it->queue], &qt[it->queue], &it->node);
	}
	return NULL;
}

static void *splicer(void *arg)
{
	unsigned long round = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		enum quiesce_wfcq_ret ret;

		if (++round % 2) {
			ret = quiesce_wfcq_splice_blocking(&qh[DEST], &qt[DEST], &qh[SRC], &qt[SRC]);
			if (ret == QUIESCE_WFCQ_RET_WOULDBLOCK)
				violation("a blocking splice said would-block", NULL);
		} else {
			quiesce_wfcq_dequeue_lock(&qh[SRC], &qt[SRC]);
			ret = quiesce_wfcq_sc_splice_nonblocking(&qh[DEST], &qt[DEST], &qh[SRC], &qt[SRC]);
			quiesce_wfcq_dequeue_unlock(&qh[SRC], &qt[SRC]);
		}
		if (ret == QUIESCE_WFCQ_RET_WOULDBLOCK)
			atomic_fetch_add_explicit(&would_blocks, 1, memory_order_relaxed);
		else if (ret == QUIESCE_WFCQ_RET_DEST_EMPTY || ret == QUIESCE_WFCQ_RET_DEST_NON_EMPTY)
			atomic_fetch_add_explicit(&splices, 1, memory_order_relaxed);
		else if (ret != QUIESCE_WFCQ_RET_SRC_EMPTY)
			violation("a splice returned no known code", NULL);
	}
	return NULL;
}

/* 0: the source, locked; 1: the destination, locked; 2: the destination, nonblocking. */
static void *consumer(void *arg)
{
	int kind = (int)(uintptr_t)arg;
	long last[PRODUCERS][2];

	for (int p = 0; p < PRODUCERS; p++)
		last[p][SRC] = last[p][DEST] = -1;
	while (!atomic_load(&stop)) {
		struct quiesce_wfcq_node *node;

		if (kind < 2) {
			node = quiesce_wfcq_dequeue_blocking(&qh[kind], &qt[kind]);
		} else {
			quiesce_wfcq_dequeue_lock(&qh[DEST], &qt[DEST]);
			node = quiesce_wfcq_sc_dequeue_nonblocking(&qh[DEST], &qt[DEST]);
			quiesce_wfcq_dequeue_unlock(&qh[DEST], &qt[DEST]);
			if (node == QUIESCE_WFCQ_WOULDBLOCK) {
				atomic_fetch_add_explicit(&would_blocks, 1, memory_order_relaxed);
				continue;
			}
		}
		if (node != NULL)
			consume(node, last);
		if (atomic_load(&consumed) == TOTAL || atomic_load(&violations))
			atomic_store(&stop, true);
	}
	return NULL;
}

/* Returns the number of violations; a stall (a lost element) exits 1. */
static unsigned long run_stress(unsigned stall_ms)
{
	pthread_t threads[1 + 3 + PRODUCERS];

	for (int q = SRC; q <= DEST; q++)
		quiesce_wfcq_init(&qh[q], &qt[q]);
	pthread_create(&threads[0], NULL, splicer, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&threads[1 + i], NULL, consumer, (void *)(uintptr_t)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&threads[4 + i], NULL, producer, (void *)(uintptr_t)i);
	check_wait_count(&consumed, TOTAL, &violations, stall_ms);
	atomic_store(&stop, true);
	for (int i = 0; i < 4 + PRODUCERS; i++)
		check_join_within(threads[i], STALL_MS, "a splice-stress thread");
	if (atomic_load(&violations))
		return atomic_load(&violations);
	for (int p = 0; p < PRODUCERS; p++)
		for (int s = 0; s < PER_PRODUCER; s++)
			CHECK(atomic_load(&seen[p][s]) == 1, "element %d.%d seen %d times", p, s,
			      atomic_load(&seen[p][s]));
	for (int q = SRC; q <= DEST; q++) {
		CHECK(quiesce_wfcq_empty(&qh[q], &qt[q]), "queue %d is empty at the end", q);
		quiesce_wfcq_destroy(&qh[q], &qt[q]);
	}
	fprintf(stderr, "%lu elements, %lu splices, %lu would-block returns\n", TOTAL,
		atomic_load(&splices), atomic_load(&would_blocks));
	return 0;
}

static void busted_child(void *arg)
{
	(void)arg;
	quiesce_test_busted_wfcq = true;
	check_child_exit(run_stress(BUSTED_STALL_MS) ? 1 : 0);
}

int main(void)
{
	CHECK(run_stress(STALL_MS) == 0, "splices lost, doubled or reordered elements");
	check_child_detects_violation(busted_child, NULL);
	printf("wfqueue_splice: all checks passed\n");
	return 0;
}
