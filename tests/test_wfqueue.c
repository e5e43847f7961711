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
 *
 * Then the same stress with RCU consumers only (quiesce_wfcq_dequeue_rcu()),
 * which follow RCU's rules as liburcu's cds_lfq users do: each dequeue in a
 * read-side section, and a consumed element goes back to the producers only
 * through call_rcu(), which poisons it and puts it on a free list that the
 * producers take from before they allocate.  So elements come back to the
 * queue (the ABA case the rules make safe), and a consumer that takes an
 * element twice, or follows a link out of a recycled element, finds a
 * doubled count or the poison.  Its busted control (the dequeue without
 * its compare-exchange) must be caught, and so must an RCU dequeue that
 * does not wait in either of the two windows where the queue is cut
 * (built by hand on one queue).
 */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
/* How long hold_cut() holds a cut enqueue for rcu_conventions(). */
#define CUT_US 20000
#define ITEM_LIVE 0x51554555u
#define ITEM_RETIRED 0x6b6b6b6bu
#define STALE_LINK ((struct quiesce_wfcq_node *)0x6b6b6b6b6b6b6b6bUL)

struct item {
	struct quiesce_wfcq_node node;
	struct rcu_head rcu;		/* RCU consumers: its retirement */
	unsigned magic;
	unsigned producer;
	unsigned long seq;
	struct item *free_next;		/* on the free list, under free_lock */
};

static struct quiesce_wfcq_head qhead QUIESCE_CACHELINE_ALIGNED;
static struct quiesce_wfcq_tail qtail QUIESCE_CACHELINE_ALIGNED;
static atomic_uchar seen[PRODUCERS][PER_PRODUCER];
static atomic_ulong consumed, violations, would_blocks, splices, recycled;
static bool rcu_consumers;		/* this run's consumers: RCU ones only */

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static struct item *free_list;		/* retired elements, under free_lock */

static void violation(const char *what, const struct item *it)
{
	if (atomic_fetch_add(&violations, 1) < 5)
		fprintf(stderr, "violation: %s (producer %u, seq %lu)\n", what, it->producer, it->seq);
}

/* call_rcu() callback: no RCU consumer can still be reading the element. */
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

static void free_all(void)
{
	struct item *it;

	rcu_barrier();	/* every retired element is on the free list */
	while ((it = take_free()) != NULL)
		free(it);
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
	atomic_fetch_add_explicit(&consumed, 1, memory_order_relaxed);
	if (rcu_consumers)
		call_rcu(&it->rcu, retire);
	else
		check_quarantine(it, offsetof(struct item, free_next));
}

static void *producer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned long seq = 0; seq < PER_PRODUCER; seq++) {
		struct item *it = take_free();	/* only RCU runs retire elements */

		if (it) {
			if (it->magic != ITEM_RETIRED)
				violation("a recycled element was not retired", it);
			atomic_fetch_add_explicit(&recycled, 1, memory_order_relaxed);
		} else {
			it = malloc(sizeof(*it));
			CHECK(it, "out of memory");
			it->node.next = STALE_LINK;	/* as a recycled element's */
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

static void consume_locked(struct consumer *c)
{
	struct quiesce_wfcq_node *node = quiesce_wfcq_dequeue_blocking(&qhead, &qtail);

	if (node)
		consume(c, node);
}

static void consume_rcu(struct consumer *c)
{
	struct quiesce_wfcq_node *node;

	rcu_read_lock();
	node = quiesce_wfcq_dequeue_rcu(&qhead, &qtail);
	rcu_read_unlock();
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
		if (rcu_consumers) {
			consume_rcu(&c);
			continue;
		}
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

/*
 * Returns the number of violations; a stall (a lost element) exits 1.  rcu:
 * every consumer is an RCU one.
 */
static unsigned long run_stress(unsigned stall_ms, bool rcu)
{
	pthread_t threads[PRODUCERS + CONSUMERS];

	rcu_consumers = rcu;
	memset(seen, 0, sizeof(seen));
	atomic_store(&consumed, 0);
	atomic_store(&violations, 0);
	atomic_store(&splices, 0);
	atomic_store(&would_blocks, 0);
	atomic_store(&recycled, 0);
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
	if (rcu)
		free_all();
	fprintf(stderr, "%lu elements, %lu splices, %lu would-block returns, %lu recycled\n",
		TOTAL, atomic_load(&splices), atomic_load(&would_blocks), atomic_load(&recycled));
	return 0;
}

static void busted_child(void *arg)
{
	quiesce_test_busted_wfcq = true;
	check_child_exit(run_stress(BUSTED_STALL_MS, false) ? 1 : 0);
}

static void busted_rcu_child(void *arg)
{
	quiesce_test_busted_wfcq_rcu = true;
	check_child_exit(run_stress(BUSTED_STALL_MS, true) ? 1 : 0);
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

/*
 * fork() while another thread's enqueue is cut between its two steps
 * (wfqueue.h, fork()): the child inherits a node that holds the tail but is
 * linked from nowhere, and nobody will link it there.  Built by hand, as
 * cut_enqueue() below does: the exchange of _quiesce_wfcq_append() without
 * its link store.
 */
static struct quiesce_wfcq_head fork_h, fork_h2;
static struct quiesce_wfcq_tail fork_t, fork_t2;
static struct quiesce_wfcq_node fork_n[4];

static void *fork_blocking_dequeue(void *arg)
{
	atomic_bool *returned = arg;

	quiesce_wfcq_dequeue_blocking(&fork_h2, &fork_t2);
	atomic_store(returned, true);
	return NULL;
}

static void fork_cut_child(void *arg)
{
	static atomic_bool returned;
	pthread_t thread;

	(void)arg;
	/* The node before the cut one is reached, but a dequeue waits behind it. */
	CHECK(quiesce_wfcq_sc_first_nonblocking(&fork_h, &fork_t) == &fork_n[0] &&
	      quiesce_wfcq_sc_next_nonblocking(&fork_h, &fork_t, &fork_n[0]) ==
	      QUIESCE_WFCQ_WOULDBLOCK, "the child: iteration up to the cut");
	for (int i = 0; i < 3; i++)
		CHECK(quiesce_wfcq_sc_dequeue_nonblocking(&fork_h, &fork_t) == QUIESCE_WFCQ_WOULDBLOCK,
		      "the child: the node before the cut would block (%d)", i);
	CHECK(QUIESCE_LOAD(&fork_h.node.next) == &fork_n[0], "the child: the queue as it was");
	CHECK(!quiesce_wfcq_empty(&fork_h, &fork_t), "the child: the cut node counts");
	/*
	 * A splice needs the first link only: it moves the cut along, into
	 * a queue that then has it, and leaves the source usable.
	 */
	CHECK(quiesce_wfcq_sc_splice_nonblocking(&fork_h2, &fork_t2, &fork_h, &fork_t) ==
	      QUIESCE_WFCQ_RET_DEST_EMPTY, "the child: a splice of the cut queue");
	CHECK(quiesce_wfcq_sc_dequeue_nonblocking(&fork_h2, &fork_t2) == QUIESCE_WFCQ_WOULDBLOCK,
	      "the child: the splice's destination has the cut");
	/* A blocking dequeue waits for the link for ever: still waiting here. */
	pthread_create(&thread, NULL, fork_blocking_dequeue, &returned);
	check_sleep_us(200000);
	CHECK(!atomic_load(&returned), "the child: a blocking dequeue met no cut node");
	CHECK(!quiesce_wfcq_enqueue(&fork_h, &fork_t, &fork_n[2]) &&
	      quiesce_wfcq_dequeue_blocking(&fork_h, &fork_t) == &fork_n[2] &&
	      quiesce_wfcq_empty(&fork_h, &fork_t), "the child: the spliced source works");
	_exit(0);
}

static void test_fork_cut_enqueue(void)
{
	char err[4096];
	int status;

	quiesce_wfcq_init(&fork_h, &fork_t);
	quiesce_wfcq_init(&fork_h2, &fork_t2);
	quiesce_wfcq_enqueue(&fork_h, &fork_t, &fork_n[0]);
	fork_n[1].next = NULL;
	CHECK(__atomic_exchange_n(&fork_t.p, &fork_n[1], __ATOMIC_ACQ_REL) == &fork_n[0],
	      "the tail was the first node");
	status = check_run_child(fork_cut_child, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fork child: status %#x: %s",
	      status, err);
	/* The parent's enqueuer finishes: its queue is whole. */
	__atomic_store_n(&fork_n[0].next, &fork_n[1], __ATOMIC_RELEASE);
	CHECK(quiesce_wfcq_dequeue_blocking(&fork_h, &fork_t) == &fork_n[0] &&
	      quiesce_wfcq_dequeue_blocking(&fork_h, &fork_t) == &fork_n[1] &&
	      quiesce_wfcq_empty(&fork_h, &fork_t), "the parent's queue after the fork");
	quiesce_wfcq_destroy(&fork_h, &fork_t);
	quiesce_wfcq_destroy(&fork_h2, &fork_t2);
}

/*
 * A signal handler that interrupts an enqueue between its two steps
 * (wfqueue.h, signal handlers): its own enqueue goes in behind the cut node,
 * and its nonblocking dequeue says "would block" instead of waiting for the
 * link that only the interrupted thread can store.  The cut is built by
 * hand, as below, and the handler runs at a known point (raise()).
 */
static struct quiesce_wfcq_head sig_hd;
static struct quiesce_wfcq_tail sig_tl;
static struct quiesce_wfcq_node sig_n[3];
static bool sig_was_non_empty;
static struct quiesce_wfcq_node *sig_got;

static void enqueue_in_handler(int sig)
{
	(void)sig;
	sig_was_non_empty = quiesce_wfcq_enqueue(&sig_hd, &sig_tl, &sig_n[2]);
	sig_got = quiesce_wfcq_sc_dequeue_nonblocking(&sig_hd, &sig_tl);
}

static void test_signal_handler_enqueue(void)
{
	struct sigaction sa = { .sa_handler = enqueue_in_handler }, old;

	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, &old) == 0, "sigaction");
	quiesce_wfcq_init(&sig_hd, &sig_tl);
	quiesce_wfcq_enqueue(&sig_hd, &sig_tl, &sig_n[0]);
	sig_n[1].next = NULL;
	CHECK(__atomic_exchange_n(&sig_tl.p, &sig_n[1], __ATOMIC_ACQ_REL) == &sig_n[0],
	      "the tail was the first node");
	raise(SIGUSR1);
	CHECK(sig_was_non_empty, "the handler's enqueue found the queue empty");
	CHECK(sig_got == QUIESCE_WFCQ_WOULDBLOCK, "the handler's nonblocking dequeue: %p",
	      (void *)sig_got);
	__atomic_store_n(&sig_n[0].next, &sig_n[1], __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++)
		CHECK(quiesce_wfcq_sc_dequeue_nonblocking(&sig_hd, &sig_tl) == &sig_n[i],
		      "after the handler: node %d", i);
	CHECK(quiesce_wfcq_empty(&sig_hd, &sig_tl), "after the handler: empty");
	quiesce_wfcq_destroy(&sig_hd, &sig_tl);
	CHECK(sigaction(SIGUSR1, &old, NULL) == 0, "sigaction");
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
			struct quiesce_wfcq_node *prev, struct quiesce_wfcq_node *n,
			void (*hold)(void))
{
	struct waiter w = { .h = h, .t = t };
	pthread_t thread;

	n->next = NULL;
	/* The two steps of _quiesce_wfcq_append(), with its orderings and pairings. */
	CHECK(__atomic_exchange_n(&t->p, n, __ATOMIC_ACQ_REL) == prev, "the tail was prev");
	pthread_create(&thread, NULL, wait_dequeue, &w);
	hold();
	if (prev == &h->node)
		CHECK(!atomic_load(&w.done), "a dequeue returned while an enqueue was cut");
	__atomic_store_n(&prev->next, n, __ATOMIC_RELEASE);
	check_join_within(thread, STALL_MS, "a consumer waiting for a link");
	CHECK(w.got == (prev == &h->node ? n : prev), "the cut enqueue: dequeued %p", (void *)w.got);
}

static void hold_cut(void)
{
	check_sleep_us(CUT_US);
}

/*
 * A wait that outlasts the stall timeout says so, once, in both windows
 * (quiesce/link_wait.h): in a child, with a timeout of 20 ms set by
 * quiesce_rcu_set_stall_timeout_ms(), whose stderr the parent reads.
 * QUIESCE_STALL_TIMEOUT_MS says an hour there: with the library linked,
 * the header-only wait must take the library's setting, not read the
 * environment.  The child's stderr is a file until then, read back to
 * hold each cut until its wait has warned: a fixed hold failed when the
 * consumer had not slept 20 times in it (a loaded machine).  Without the
 * warning the child hangs, and CHECK_HANG_MS ends it.
 */
static const char link_warning[] = "quiesce: a queue or stack consumer has waited ";
static int cuts_held;

static int count_warnings(const char *text)
{
	int warnings = 0;

	for (const char *at = text; (at = strstr(at, link_warning)); at++)
		warnings++;
	return warnings;
}

static void hold_cut_until_warned(void)
{
	char text[8192];
	ssize_t len;

	cuts_held++;
	/* Woken by nothing: the consumer's warning is polled for in the file. */
	for (;;) {
		len = pread(STDERR_FILENO, text, sizeof(text) - 1, 0);
		text[len > 0 ? len : 0] = '\0';
		if (count_warnings(text) >= cuts_held)
			return;
		check_sleep_us(1000);
	}
}

static void cut_waits_warn_child(void *arg)
{
	struct quiesce_wfcq_head h;
	struct quiesce_wfcq_tail t;
	struct quiesce_wfcq_node n[3];
	FILE *log = tmpfile();
	int parent_err = dup(STDERR_FILENO);
	char text[8192];
	ssize_t len;

	(void)arg;
	CHECK(log && parent_err >= 0 && dup2(fileno(log), STDERR_FILENO) >= 0,
	      "stderr to a file");
	setenv("QUIESCE_STALL_TIMEOUT_MS", "3600000", 1);
	quiesce_rcu_set_stall_timeout_ms(20);
	CHECK(quiesce_link_wait_timeout_ms() == 20, "the link wait's timeout: %llu ms",
	      (unsigned long long)quiesce_link_wait_timeout_ms());
	quiesce_wfcq_init(&h, &t);
	cut_enqueue(&h, &t, &h.node, &n[0], hold_cut_until_warned);
	synchronize_rcu();
	quiesce_wfcq_enqueue(&h, &t, &n[1]);
	cut_enqueue(&h, &t, &n[1], &n[2], hold_cut_until_warned);
	len = pread(STDERR_FILENO, text, sizeof(text), 0);
	if (len > 0 && write(parent_err, text, (size_t)len) < 0)
		_exit(2);
	_exit(0);
}

static void test_cut_waits_warn(void)
{
	char err[8192];
	int status = check_run_child(cut_waits_warn_child, NULL, err, sizeof(err));
	int warnings = count_warnings(err);

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child: status %#x: %s", status,
	      err);
	CHECK(warnings == 2, "%d warnings for two waits past the stall timeout: %s", warnings, err);
}

/* The RCU consumers' conventions and the two windows, on one queue. */
static void rcu_conventions(void)
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

	cut_enqueue(&h, &t, &h.node, &n[0], hold_cut);
	CHECK(quiesce_wfcq_empty(&h, &t), "empty after the cut enqueue into it");
	synchronize_rcu();
	quiesce_wfcq_enqueue(&h, &t, &n[1]);
	cut_enqueue(&h, &t, &n[1], &n[2], hold_cut);
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
	test_fork_cut_enqueue();
	test_signal_handler_enqueue();
	rcu_conventions();
	test_cut_waits_warn();
	CHECK(run_stress(STALL_MS, false) == 0, "the queue lost, doubled or reordered elements");
	check_child_detects_violation(busted_child, NULL);
	CHECK(run_stress(STALL_MS, true) == 0,
	      "the RCU consumers lost, doubled or reordered elements");
	check_child_detects_violation(busted_rcu_child, NULL);
	printf("wfqueue: all checks passed\n");
	return 0;
}
