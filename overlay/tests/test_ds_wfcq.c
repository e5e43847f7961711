/*
 * liburcu's cds_wfcq and cds_lfq through the overlay, as BIND 9 and
 * GlusterFS use them: producers enqueue, consumers dequeue under the
 * queue's lock, and one consumer splices the whole queue into a private
 * __cds_wfcq_head and drains it lock-free.
 *
 * Every node enqueued must come out exactly once, each consumer must see
 * each producer's nodes in the order they were enqueued, and splice must
 * return liburcu's codes.  The control, quiesce's enqueue that publishes a
 * node before clearing its link, must be caught: its late store cuts the
 * queue behind its node (nodes lost, or taken twice), or, when a consumer
 * was quick enough to take the node first, lands in a node already taken.
 * Taken nodes are therefore kept, their link poisoned, until the run
 * ends, and a poison found overwritten is a violation.  cds_lfq: the same
 * exactly-once and per-producer order, under rcu_read_lock(), nodes freed
 * through call_rcu() and poisoned there, and destroy's -EPERM while not
 * empty.
 */
/* Before any header: the busted enqueue of quiesce/wfqueue.h. */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <urcu.h>
#include <urcu/rculfqueue.h>
#include <urcu/wfcqueue.h>
#include <urcu/wfqueue.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define PRODUCERS 2
#define PER_PRODUCER 25000
#define LIVE 0x4c495645u
#define TOTAL (PRODUCERS * PER_PRODUCER)
#define STALL_NS (5ull * 1000000000ull)
/* The link of a taken node, which nothing may write again. */
#define TAKEN_LINK ((struct cds_wfcq_node *)(uintptr_t)0x7a6b656eu)

struct job {
	unsigned producer, seq, magic;
	struct cds_wfcq_node wfcq;
	struct cds_lfq_node_rcu lfq;
	struct rcu_head rcu;
};

static struct cds_wfcq_head head;
static struct cds_wfcq_tail tail;
static atomic_uint consumed[PRODUCERS][PER_PRODUCER];
static struct job *taken_jobs[PRODUCERS][PER_PRODUCER];	/* freed when the run ends */
static atomic_ulong taken, violations, splices;
static atomic_uint producers_done;
static atomic_bool stop;

static void violation(const char *what, unsigned a, unsigned b)
{
	fprintf(stderr, "violation: %s (%u, %u)\n", what, a, b);
	atomic_fetch_add(&violations, 1);
}

static void *producer(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < PER_PRODUCER; i++) {
		struct job *j = malloc(sizeof(*j));

		j->producer = p;
		j->seq = i;
		j->magic = LIVE;
		cds_wfcq_node_init(&j->wfcq);
		cds_wfcq_enqueue(&head, &tail, &j->wfcq);
	}
	atomic_fetch_add(&producers_done, 1);
	return NULL;
}

/* One consumer's view: each producer's sequence numbers only increase. */
struct view {
	int last[PRODUCERS];
};

static void take(struct view *v, struct cds_wfcq_node *n)
{
	struct job *j = caa_container_of(n, struct job, wfcq);

	if (j->magic != LIVE || j->producer >= PRODUCERS || j->seq >= PER_PRODUCER) {
		violation("a torn node", j->producer, j->seq);
		return;
	}
	if ((int)j->seq <= v->last[j->producer])
		violation("a producer's nodes out of order", j->producer, j->seq);
	v->last[j->producer] = (int)j->seq;
	if (atomic_fetch_add(&consumed[j->producer][j->seq], 1)) {
		violation("a node dequeued twice", j->producer, j->seq);
		return;
	}
	j->magic = 0;
	/* Atomic: the control's late store into the link races with this one. */
	__atomic_store_n(&j->wfcq.next, TAKEN_LINK, __ATOMIC_RELAXED);
	taken_jobs[j->producer][j->seq] = j;
	atomic_fetch_add(&taken, 1);
}

static void *dequeuer(void *arg)
{
	struct view v;

	memset(v.last, -1, sizeof(v.last));
	/* Half the nodes at most, so that the splicer takes the rest. */
	while (!atomic_load(&stop) && atomic_load(&taken) < TOTAL / 2) {
		struct cds_wfcq_node *n = cds_wfcq_dequeue_blocking(&head, &tail);

		if (n)
			take(&v, n);
		else
			sched_yield();	/* empty: see splicer() */
	}
	return NULL;
}

static void *splicer(void *arg)
{
	struct __cds_wfcq_head mine;
	struct cds_wfcq_tail mine_tail;
	struct view v;

	memset(v.last, -1, sizeof(v.last));
	__cds_wfcq_init(&mine, &mine_tail);
	while (!atomic_load(&stop) && atomic_load(&taken) < TOTAL) {
		struct cds_wfcq_node *n, *next;
		enum cds_wfcq_ret ret;

		/* Into the head without a mutex: the source's lock, held by hand. */
		cds_wfcq_dequeue_lock(&head, &tail);
		ret = __cds_wfcq_splice_blocking(&mine, &mine_tail, &head, &tail);
		cds_wfcq_dequeue_unlock(&head, &tail);

		/*
		 * Empty: the producers' turn.  Under valgrind, whose threads
		 * run one at a time, a consumer that spins here holds its turn
		 * while the control's producers yield after every enqueue.
		 */
		if (ret == CDS_WFCQ_RET_SRC_EMPTY) {
			sched_yield();
			continue;
		}
		if (ret != CDS_WFCQ_RET_DEST_EMPTY)
			violation("splice into an empty queue did not say so", (unsigned)ret, 0);
		atomic_fetch_add(&splices, 1);
		__cds_wfcq_for_each_blocking_safe(&mine, &mine_tail, n, next)
			take(&v, n);
		__cds_wfcq_init(&mine, &mine_tail);
	}
	return NULL;
}

static void wfcq_mpmc(void *busted)
{
	pthread_t p[PRODUCERS], c[2];
	unsigned long seen = 0;
	uint64_t progress;

	quiesce_test_busted_wfcq = busted != NULL;
	for (unsigned p_ = 0; p_ < PRODUCERS; p_++)
		for (unsigned i = 0; i < PER_PRODUCER; i++)
			atomic_store(&consumed[p_][i], 0);
	atomic_store(&taken, 0);
	atomic_store(&splices, 0);
	atomic_store(&violations, 0);
	atomic_store(&producers_done, 0);
	atomic_store(&stop, false);
	cds_wfcq_init(&head, &tail);
	pthread_create(&c[0], NULL, dequeuer, NULL);
	pthread_create(&c[1], NULL, splicer, NULL);
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)(uintptr_t)i);
	/* A violation ends the test at once, without waiting for the producers. */
	progress = check_now_ns();
	while (atomic_load(&producers_done) < PRODUCERS && !atomic_load(&violations)) {
		CHECK(check_now_ns() - progress < CHECK_HANG_MS * 1000000ull,
		      "producers: stuck for %u ms", CHECK_HANG_MS);
		check_sleep_us(1000);	/* until the producers finish or a consumer reports */
	}
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	for (unsigned i = 0; i < PRODUCERS; i++)
		check_join_within(p[i], CHECK_HANG_MS, "producer");
	/* A lost node stops the count short: a violation, after a long stall. */
	progress = check_now_ns();
	while (atomic_load(&taken) < TOTAL && !atomic_load(&violations)) {
		if (atomic_load(&taken) != seen) {
			seen = atomic_load(&taken);
			progress = check_now_ns();
		} else if (check_now_ns() - progress > STALL_NS) {
			violation("nodes lost: no progress with nodes left", (unsigned)seen, TOTAL);
		}
		check_sleep_us(1000);
	}
	/* Before the joins: a consumer may wait forever for a link that is lost. */
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	atomic_store(&stop, true);
	for (unsigned i = 0; i < 2; i++)
		check_join_within(c[i], CHECK_HANG_MS, "consumer");
	for (unsigned p_ = 0; p_ < PRODUCERS; p_++)
		for (unsigned i = 0; i < PER_PRODUCER; i++) {
			struct job *j = taken_jobs[p_][i];

			CHECK(atomic_load(&consumed[p_][i]) == 1, "node %u of %u taken %u times", i, p_,
			      atomic_load(&consumed[p_][i]));
			CHECK(__atomic_load_n(&j->wfcq.next, __ATOMIC_RELAXED) == TAKEN_LINK,
			      "node %u of %u: its link was written after it was taken", i, p_);
			free(j);
			taken_jobs[p_][i] = NULL;
		}
	CHECK(cds_wfcq_empty(&head, &tail), "empty at the end");
	cds_wfcq_destroy(&head, &tail);
	printf("cds_wfcq: %u nodes, %lu splices, each taken once, in order\n",
	       PRODUCERS * PER_PRODUCER, atomic_load(&splices));
}

/* The return codes and the nonblocking and with_state forms, one thread. */
static void wfcq_codes(void)
{
	struct cds_wfcq_head a, b;
	struct cds_wfcq_tail at, bt;
	struct cds_wfcq_node n1, n2, *n;
	int state;

	cds_wfcq_init(&a, &at);
	cds_wfcq_init(&b, &bt);
	CHECK(__cds_wfcq_splice_blocking(&b, &bt, &a, &at) == CDS_WFCQ_RET_SRC_EMPTY,
	      "splice of an empty queue");
	cds_wfcq_node_init(&n1);
	cds_wfcq_node_init(&n2);
	CHECK(!cds_wfcq_enqueue(&a, &at, &n1) && cds_wfcq_enqueue(&a, &at, &n2),
	      "enqueue says whether the queue was empty");
	CHECK(__cds_wfcq_splice_nonblocking(&b, &bt, &a, &at) == CDS_WFCQ_RET_DEST_EMPTY &&
	      cds_wfcq_empty(&a, &at), "splice into an empty queue");
	CHECK(__cds_wfcq_first_blocking(&b, &bt) == &n1 &&
	      __cds_wfcq_next_blocking(&b, &bt, &n1) == &n2 &&
	      __cds_wfcq_next_blocking(&b, &bt, &n2) == NULL, "iteration");
	n = cds_wfcq_dequeue_with_state_blocking(&b, &bt, &state);
	CHECK(n == &n1 && !(state & CDS_WFCQ_STATE_LAST), "first dequeue, not last");
	n = __cds_wfcq_dequeue_with_state_nonblocking(&b, &bt, &state);
	CHECK(n == &n2 && (state & CDS_WFCQ_STATE_LAST), "second dequeue, last");
	CHECK(__cds_wfcq_dequeue_nonblocking(&b, &bt) == NULL, "empty");
	cds_wfcq_enqueue(&a, &at, &n1);
	cds_wfcq_enqueue(&b, &bt, &n2);
	CHECK(cds_wfcq_splice_blocking(&b, &bt, &a, &at) == CDS_WFCQ_RET_DEST_NON_EMPTY,
	      "splice behind a node");
	CHECK(cds_wfcq_dequeue_blocking(&b, &bt) == &n2 && cds_wfcq_dequeue_blocking(&b, &bt) == &n1,
	      "spliced nodes follow");
	cds_wfcq_destroy(&a, &at);
	cds_wfcq_destroy(&b, &bt);
}

/* liburcu's casts are, in C, the pointer given: a program may store them. */
static void wfcq_casts(void)
{
	struct cds_wfcq_head a;
	struct __cds_wfcq_head bare;
	struct cds_wfcq_tail at, bare_tail;
	struct cds_wfcq_head *full = cds_wfcq_head_cast(&a);
	const struct cds_wfcq_head *full_look = cds_wfcq_head_const_cast(&a);
	struct __cds_wfcq_head *bare_ptr = __cds_wfcq_head_cast(&bare);
	const struct __cds_wfcq_head *bare_look = __cds_wfcq_head_const_cast(&bare);

	cds_wfcq_init(full, &at);
	__cds_wfcq_init(bare_ptr, &bare_tail);
	CHECK(full == &a && full_look == &a && bare_ptr == &bare && bare_look == &bare,
	      "a cast returns the pointer it was given");
	CHECK(cds_wfcq_empty(full_look, &at) && cds_wfcq_empty(bare_look, &bare_tail),
	      "the const casts' results are empty()'s arguments");
	cds_wfcq_destroy(&a, &at);
}

/* The deprecated cds_wfq: FIFO, NULL when empty. */
static void wfq_codes(void)
{
	struct cds_wfq_queue q;
	struct cds_wfq_node n1, n2;

	cds_wfq_init(&q);
	cds_wfq_node_init(&n1);
	cds_wfq_node_init(&n2);
	cds_wfq_enqueue(&q, &n1);
	cds_wfq_enqueue(&q, &n2);
	CHECK(cds_wfq_dequeue_blocking(&q) == &n1 && __cds_wfq_dequeue_blocking(&q) == &n2 &&
	      cds_wfq_dequeue_blocking(&q) == NULL, "cds_wfq: FIFO, then empty");
	cds_wfq_destroy(&q);
}

static struct cds_lfq_queue_rcu lfq;
static atomic_ulong lfq_taken;

static void poison_job(struct rcu_head *rcu)
{
	check_quarantine(caa_container_of(rcu, struct job, rcu), offsetof(struct job, rcu));
}

static void *lfq_producer(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	rcu_register_thread();
	for (unsigned i = 0; i < PER_PRODUCER / 4; i++) {
		struct job *j = malloc(sizeof(*j));

		j->producer = p;
		j->seq = i;
		j->magic = LIVE;
		cds_lfq_node_init_rcu(&j->lfq);
		rcu_read_lock();
		cds_lfq_enqueue_rcu(&lfq, &j->lfq);
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

static void *lfq_consumer(void *arg)
{
	int last[PRODUCERS];

	memset(last, -1, sizeof(last));
	rcu_register_thread();
	while (atomic_load(&lfq_taken) < PRODUCERS * (PER_PRODUCER / 4)) {
		struct cds_lfq_node_rcu *n;
		struct job *j;

		rcu_read_lock();
		n = cds_lfq_dequeue_rcu(&lfq);
		rcu_read_unlock();
		if (!n)
			continue;
		j = caa_container_of(n, struct job, lfq);
		if (j->magic != LIVE || j->producer >= PRODUCERS || (int)j->seq <= last[j->producer])
			violation("cds_lfq: a torn, repeated or reordered node", j->producer, j->seq);
		else
			last[j->producer] = (int)j->seq;
		atomic_fetch_add(&lfq_taken, 1);
		call_rcu(&j->rcu, poison_job);
	}
	rcu_unregister_thread();
	return NULL;
}

static void lfq_mpmc(void)
{
	pthread_t t[PRODUCERS + 2];
	struct cds_lfq_node_rcu stray;

	cds_lfq_init_rcu(&lfq, call_rcu);
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, lfq_producer, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&t[PRODUCERS + i], NULL, lfq_consumer, NULL);
	for (unsigned i = 0; i < PRODUCERS + 2; i++)
		check_join_within(t[i], CHECK_HANG_MS, "cds_lfq thread");
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	cds_lfq_node_init_rcu(&stray);
	cds_lfq_enqueue_rcu(&lfq, &stray);
	CHECK(cds_lfq_destroy_rcu(&lfq) == -EPERM, "destroy refuses a queue with nodes");
	CHECK(cds_lfq_dequeue_rcu(&lfq) == &stray && cds_lfq_dequeue_rcu(&lfq) == NULL, "drained");
	CHECK(cds_lfq_destroy_rcu(&lfq) == 0, "destroy of the empty queue");
	rcu_barrier();
	printf("cds_lfq: %lu nodes, each taken once, in order\n", atomic_load(&lfq_taken));
}

/*
 * fork() while another thread's cds_lfq enqueue is between its two stores
 * (urcu/rculfqueue.h, fork()): the node holds the tail, linked from nowhere,
 * and no thread of the child will link it, so the child's dequeue waits for
 * it for ever, where liburcu's Michael-Scott queue, whose enqueue links its
 * node with its first compare-exchange and whose later steps any thread
 * helps along, never waits.  The cut is built by hand: the tail exchange
 * of quiesce's enqueue without its link store.
 */
static struct cds_lfq_queue_rcu fork_lfq;
static struct cds_lfq_node_rcu fork_ln[2];
static atomic_bool fork_dequeued;

static void *fork_lfq_dequeue(void *arg)
{
	(void)arg;
	rcu_register_thread();
	rcu_read_lock();
	(void)cds_lfq_dequeue_rcu(&fork_lfq);
	rcu_read_unlock();
	atomic_store(&fork_dequeued, true);
	rcu_unregister_thread();
	return NULL;
}

static void lfq_fork_child(void *arg)
{
	pthread_t t;

	(void)arg;
	CHECK(cds_lfq_destroy_rcu(&fork_lfq) == -EPERM, "the child: the cut node counts");
	pthread_create(&t, NULL, fork_lfq_dequeue, NULL);
	check_sleep_us(200000);
	CHECK(!atomic_load(&fork_dequeued), "the child: a dequeue met no cut node");
	_exit(0);
}

static void lfq_fork_cut(void)
{
	char err[4096];
	int status;

	cds_lfq_init_rcu(&fork_lfq, call_rcu);
	cds_lfq_node_init_rcu(&fork_ln[0]);
	cds_lfq_enqueue_rcu(&fork_lfq, &fork_ln[0]);
	cds_lfq_node_init_rcu(&fork_ln[1]);
	CHECK(__atomic_exchange_n(&fork_lfq.tail.p, &fork_ln[1].wfcq, __ATOMIC_ACQ_REL) ==
	      &fork_ln[0].wfcq, "the tail was the first node");
	status = check_run_child(lfq_fork_child, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fork child: status %#x: %s",
	      status, err);
	/* The parent's enqueuer finishes: its queue is whole. */
	__atomic_store_n(&fork_ln[0].wfcq.next, &fork_ln[1].wfcq, __ATOMIC_RELEASE);
	rcu_read_lock();
	CHECK(cds_lfq_dequeue_rcu(&fork_lfq) == &fork_ln[0] &&
	      cds_lfq_dequeue_rcu(&fork_lfq) == &fork_ln[1] && cds_lfq_dequeue_rcu(&fork_lfq) == NULL,
	      "the parent's queue after the fork");
	rcu_read_unlock();
	CHECK(cds_lfq_destroy_rcu(&fork_lfq) == 0, "destroy after the fork");
}

int main(void)
{
	/* liburcu's layout, which BIND 9 asserts: the head without a mutex is its node. */
	CHECK(sizeof(struct __cds_wfcq_head) == sizeof(struct cds_wfcq_node),
	      "struct __cds_wfcq_head is %zu bytes", sizeof(struct __cds_wfcq_head));
	wfcq_codes();
	wfcq_casts();
	wfq_codes();
	wfcq_mpmc(NULL);
	lfq_mpmc();
	lfq_fork_cut();
	check_child_detects_violation(wfcq_mpmc, "busted");
	return 0;
}
