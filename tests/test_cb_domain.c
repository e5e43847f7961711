/*
 * Callbacks of a domain other than the default one's per-thread queues
 * (src/rcu/cb_*.c, shared-queue domains as SRCU and QSBR use them),
 * here over the default grace-period domain: a callback waits for a reader
 * that was inside when it was queued; the barrier waits for every callback
 * queued before it, from many threads, on many domains at once; the domain's
 * thread drives polled grace periods; pending() and destroy() tell the
 * truth (right after a barrier too, while the worker goes round again);
 * misuse aborts; a child of fork() uses the domain on its own.
 *
 * Callers count their calls in a cache of their own thread (cb_call.c:
 * "Counting"), so also: a barrier and pending() right after another
 * thread's call see it; pending() sees the callbacks the worker holds
 * (busted control: one that looks at the queues only); a thread's exit adds
 * what it held to the backlog, and never writes into a domain destroyed
 * meanwhile (busted control: destroy that leaves the domain in the caches);
 * a flood past the throttle mark throttles its caller (control: the
 * throttle switched off).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/cb_domain.h"
#include "rcu/gp_seq.h"

struct counted {
	struct rcu_head rcu;
	atomic_ulong *counter;
};

static void count_and_free(struct rcu_head *head)
{
	struct counted *c = container_of(head, struct counted, rcu);

	atomic_fetch_add(c->counter, 1);
	check_poison(c, sizeof(*c));
	free(c);
}

static void queue_counted(struct quiesce_cb_domain *cbd, atomic_ulong *counter)
{
	struct counted *c = malloc(sizeof(*c));

	c->counter = counter;
	quiesce_cb_domain_call(cbd, &c->rcu, count_and_free);
}

static void test_waits_for_reader(void)
{
	struct quiesce_cb_domain cbd;
	atomic_ulong ran = 0;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-cb");
	check_hold_reader();
	queue_counted(&cbd, &ran);
	check_sleep_us(50000);
	CHECK(atomic_load(&ran) == 0, "a callback ran while a reader from before it was inside");
	CHECK(quiesce_cb_domain_pending(&cbd), "pending() misses a callback not yet run");
	check_release_reader();
	quiesce_cb_domain_barrier(&cbd, "test_barrier");
	CHECK(atomic_load(&ran) == 1, "the callback ran once the reader left");
	CHECK(!quiesce_cb_domain_pending(&cbd), "pending() after the barrier");
	quiesce_cb_domain_destroy(&cbd);
}

/* Many domains, each fed by several threads, each barrier exact. */
#define DOMAINS 200
#define ENQUEUERS 4
#define PER_THREAD 50
static struct quiesce_cb_domain domains[DOMAINS];
static atomic_ulong counts[DOMAINS];

static void *enqueue_everywhere(void *unused)
{
	for (int d = 0; d < DOMAINS; d++)
		for (int i = 0; i < PER_THREAD; i++)
			queue_counted(&domains[d], &counts[d]);
	return NULL;
}

static void test_many_domains(void)
{
	pthread_t t[ENQUEUERS];

	for (int d = 0; d < DOMAINS; d++)
		quiesce_cb_domain_init(&domains[d], &quiesce_rcu_domain, "test-many");
	for (int i = 0; i < ENQUEUERS; i++)
		pthread_create(&t[i], NULL, enqueue_everywhere, NULL);
	for (int i = 0; i < ENQUEUERS; i++)
		pthread_join(t[i], NULL);
	for (int d = 0; d < DOMAINS; d++) {
		quiesce_cb_domain_barrier(&domains[d], "test_barrier");
		CHECK(atomic_load(&counts[d]) == ENQUEUERS * PER_THREAD,
		      "domain %d: the barrier returned after %lu of %d callbacks", d,
		      atomic_load(&counts[d]), ENQUEUERS * PER_THREAD);
		quiesce_cb_domain_destroy(&domains[d]);
	}
}

/*
 * Another thread calls, then this one asks pending() and waits for a
 * barrier, call after call: neither may miss a call that the other thread
 * holds uncounted in its cache.  Its exit adds what it held.
 */
#define PING_PONGS 200
static struct quiesce_cb_domain pingpong;
static atomic_ulong pingpong_ran, pingpong_called, pingpong_checked;

static void *call_then_wait(void *unused)
{
	for (unsigned long i = 1; i <= PING_PONGS; i++) {
		queue_counted(&pingpong, &pingpong_ran);
		atomic_store(&pingpong_called, i);
		/* Bounded by the checking side, which fails as hung. */
		while (atomic_load(&pingpong_checked) != i)
			sched_yield();
	}
	return NULL;
}

static void test_barrier_after_other_thread(void)
{
	pthread_t t;

	quiesce_cb_domain_init(&pingpong, &quiesce_rcu_domain, "test-pingpong");
	pthread_create(&t, NULL, call_then_wait, NULL);
	for (unsigned long i = 1; i <= PING_PONGS; i++) {
		while (atomic_load(&pingpong_called) != i)
			sched_yield();
		CHECK(quiesce_cb_domain_pending(&pingpong) || atomic_load(&pingpong_ran) == i,
		      "pending() missed another thread's call %lu, not yet run", i);
		quiesce_cb_domain_barrier(&pingpong, "test_barrier");
		CHECK(atomic_load(&pingpong_ran) == i,
		      "the barrier returned before another thread's call %lu ran", i);
		CHECK(!quiesce_cb_domain_pending(&pingpong), "pending() after the barrier, call %lu",
		      i);
		atomic_store(&pingpong_checked, i);
	}
	pthread_join(t, NULL);
	CHECK(QUIESCE_LOAD(&pingpong.backlog) == 0,
	      "a backlog of %ld once every callback ran: the exited thread's counts are lost",
	      QUIESCE_LOAD(&pingpong.backlog));
	quiesce_cb_domain_destroy(&pingpong);
}

static bool queue_taken(void *cbd)
{
	return quiesce_cb_queue_empty(&((struct quiesce_cb_domain *)cbd)->shared);
}

/* Whether pending() sees a callback the worker has taken and waits to run. */
static bool pending_while_held(bool busted)
{
	struct quiesce_cb_domain cbd;
	atomic_ulong ran = 0;
	bool seen;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-held");
	check_hold_reader();
	queue_counted(&cbd, &ran);
	check_wait_until(queue_taken, &cbd, "the harvest of the callback");
	QUIESCE_STORE(&quiesce_test_busted_cb_pending, busted);
	seen = quiesce_cb_domain_pending(&cbd);
	QUIESCE_STORE(&quiesce_test_busted_cb_pending, false);
	CHECK(atomic_load(&ran) == 0, "a callback ran while a reader from before it was inside");
	check_release_reader();
	quiesce_cb_domain_barrier(&cbd, "test_barrier");
	quiesce_cb_domain_destroy(&cbd);
	return seen;
}

static void test_pending_held(void)
{
	CHECK(pending_while_held(false), "pending() misses a callback the worker holds");
	CHECK(!pending_while_held(true),
	      "busted control: pending() without the batches still saw the callback");
}

/*
 * Right after a barrier, with nothing queued since, nothing is pending,
 * however the worker's next (empty) harvest and the look interleave: the
 * barrier returns as the worker goes round once more, and the slowed
 * harvest holds any store of held it makes for 200 us.
 */
#define AFTER_BARRIER_ROUNDS 300

static void test_nothing_pending_after_barrier(void)
{
	struct quiesce_cb_domain cbd;
	atomic_ulong ran = 0;
	int seen = 0;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-after");
	QUIESCE_STORE(&quiesce_test_slow_harvest, true);
	for (int round = 0; round < AFTER_BARRIER_ROUNDS; round++) {
		queue_counted(&cbd, &ran);
		quiesce_cb_domain_barrier(&cbd, "test_barrier");
		seen += quiesce_cb_domain_pending(&cbd);
	}
	QUIESCE_STORE(&quiesce_test_slow_harvest, false);
	CHECK(seen == 0, "pending() saw a callback right after a barrier in %d of %d rounds",
	      seen, AFTER_BARRIER_ROUNDS);
	CHECK(atomic_load(&ran) == AFTER_BARRIER_ROUNDS, "every callback ran");
	quiesce_cb_domain_destroy(&cbd);
}

/*
 * A thread calls a domain (its cache holds the counts), the domain is
 * destroyed once the callbacks ran, its memory poisoned, then the thread
 * exits: whether anything wrote into the domain's memory.
 */
static struct quiesce_cb_domain *doomed;
static atomic_bool doomed_called, doomed_exit;
static atomic_ulong doomed_ran;

static void *call_then_exit(void *unused)
{
	for (int i = 0; i < 5; i++)
		queue_counted(doomed, &doomed_ran);
	atomic_store(&doomed_called, true);
	while (!atomic_load(&doomed_exit))
		check_sleep_us(100);
	return NULL;
}

static bool written_after_destroy(bool busted)
{
	unsigned char *mem = malloc(sizeof(*doomed));
	bool written = false;
	pthread_t t;

	doomed = (struct quiesce_cb_domain *)mem;
	quiesce_cb_domain_init(doomed, &quiesce_rcu_domain, "test-doomed");
	atomic_store(&doomed_called, false);
	atomic_store(&doomed_exit, false);
	pthread_create(&t, NULL, call_then_exit, NULL);
	while (!atomic_load(&doomed_called))
		check_sleep_us(100);
	quiesce_cb_domain_barrier(doomed, "test_barrier");
	QUIESCE_STORE(&quiesce_test_busted_cb_forget, busted);
	quiesce_cb_domain_destroy(doomed);
	QUIESCE_STORE(&quiesce_test_busted_cb_forget, false);
	memset(mem, CHECK_POISON_BYTE, sizeof(*doomed));
	atomic_store(&doomed_exit, true);
	pthread_join(t, NULL);
	for (size_t i = 0; i < sizeof(*doomed); i++)
		written |= mem[i] != CHECK_POISON_BYTE;
	free(mem);
	return written;
}

static void test_destroy_forgets_counts(void)
{
	CHECK(!written_after_destroy(false),
	      "a thread's exit wrote its counts into a domain destroyed before");
	CHECK(written_after_destroy(true),
	      "busted control: destroy left the domain in a cache and nothing was written");
}

/*
 * One thread floods a domain whose grace period a reader holds up: it is
 * throttled soon past the mark (the control: never, with the throttle off).
 */
#define FLOOD_CALLS (QUIESCE_CB_THROTTLE_BACKLOG + 100 * QUIESCE_CB_BACKLOG_FLUSH)
static struct rcu_head flood_heads[FLOOD_CALLS];
static atomic_ulong flood_ran;

static void count_only(struct rcu_head *head)
{
	atomic_fetch_add(&flood_ran, 1);
}

static uint64_t throttled_in_flood(bool no_throttle)
{
	struct quiesce_cb_domain cbd;
	uint64_t throttled;
	unsigned long calls = 0;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-flood");
	atomic_store(&flood_ran, 0);
	check_hold_reader();
	QUIESCE_STORE(&quiesce_test_call_rcu_no_throttle, no_throttle);
	while (calls < FLOOD_CALLS && !QUIESCE_LOAD(&cbd.stats.throttled))
		quiesce_cb_domain_call(&cbd, &flood_heads[calls++], count_only);
	QUIESCE_STORE(&quiesce_test_call_rcu_no_throttle, false);
	check_release_reader();
	quiesce_cb_domain_barrier(&cbd, "test_barrier");
	CHECK(atomic_load(&flood_ran) == calls, "the barrier returned after %lu of %lu callbacks",
	      atomic_load(&flood_ran), calls);
	throttled = QUIESCE_LOAD(&cbd.stats.throttled);
	quiesce_cb_domain_destroy(&cbd);
	return throttled;
}

static void test_throttle(void)
{
	CHECK(throttled_in_flood(false) > 0, "a flood of %d callbacks was never throttled",
	      FLOOD_CALLS);
	CHECK(throttled_in_flood(true) == 0, "control: throttled with the throttle off");
}

static bool cookie_passed(void *cookie)
{
	return quiesce_gp_seq_done(quiesce_gp_seq_current(&quiesce_rcu_domain),
				   *(unsigned long *)cookie);
}

/* Nobody calls synchronize: the domain's thread runs the grace period. */
static void test_start_poll(void)
{
	struct quiesce_cb_domain cbd;
	unsigned long cookie;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-poll");
	rcu_read_lock();	/* registers this thread: no shortcut */
	rcu_read_unlock();
	cookie = quiesce_cb_domain_start_poll(&cbd);
	check_wait_until(cookie_passed, &cookie, "the polled grace period");
	quiesce_cb_domain_destroy(&cbd);
}

static struct quiesce_cb_domain misuse;

static void barrier_from_callback(struct rcu_head *head)
{
	quiesce_cb_domain_barrier(&misuse, "test_barrier");
}

static void child_barrier_from_callback(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	quiesce_cb_domain_call(&misuse, &head, barrier_from_callback);
	quiesce_cb_domain_barrier(&misuse, "test_barrier");
}

static void child_destroy_pending(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	/*
	 * Holds the callback back until the destroy, which must abort at
	 * once: unlocked before it, the callback's grace period could end
	 * and its call run first (it did, once, under ThreadSanitizer).
	 */
	rcu_read_lock();
	quiesce_cb_domain_call(&misuse, &head, barrier_from_callback);
	quiesce_cb_domain_destroy(&misuse);
	rcu_read_unlock();
}

static void child_null_func(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	quiesce_cb_domain_call(&misuse, &head, NULL);
}

/*
 * The child has no callback thread of its parent's; it starts its own.  Its
 * backlog starts at 0 and so does the forking thread's slot, which held
 * some of the parent's calls: once the child's callbacks have run, the
 * backlog counts no call that the child did not make (with one call short
 * of a full slot, the parent's would fill it and be added).
 */
#define PARENT_CALLS 3
#define CHILD_CALLS (QUIESCE_CB_BACKLOG_FLUSH - 1)
static struct quiesce_cb_domain forked;
static atomic_ulong forked_count;

static void child_uses_domain(void *unused)
{
	for (int i = 0; i < CHILD_CALLS; i++)
		queue_counted(&forked, &forked_count);
	quiesce_cb_domain_barrier(&forked, "test_barrier");
	if (atomic_load(&forked_count) != PARENT_CALLS + CHILD_CALLS) {
		fprintf(stderr, "the child's barrier returned after %lu callbacks\n",
			atomic_load(&forked_count));
		check_child_exit(1);
	}
	if (QUIESCE_LOAD(&forked.backlog) > 0) {
		fprintf(stderr, "the child's backlog is %ld once every callback ran\n",
			QUIESCE_LOAD(&forked.backlog));
		check_child_exit(1);
	}
	exit(0);
}

static void test_fork(void)
{
	char err[256];
	int status;

	quiesce_cb_domain_init(&forked, &quiesce_rcu_domain, "test-fork");
	for (int i = 0; i < PARENT_CALLS; i++)
		queue_counted(&forked, &forked_count);
	quiesce_cb_domain_barrier(&forked, "test_barrier");
	status = check_run_child(child_uses_domain, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's barrier on an inherited domain (status %d): %s", status, err);
	quiesce_cb_domain_destroy(&forked);
}

int main(void)
{
	test_waits_for_reader();
	test_many_domains();
	test_barrier_after_other_thread();
	test_pending_held();
	test_nothing_pending_after_barrier();
	test_destroy_forgets_counts();
	test_throttle();
	test_start_poll();
	test_fork();
	check_child_aborts(child_barrier_from_callback, NULL, "called from an RCU callback");
	check_child_aborts(child_destroy_pending, NULL, "with callbacks pending");
	check_child_aborts(child_null_func, NULL, "a callback function is required");
	return 0;
}
