/*
 * call_rcu's guarantees one by one: a callback waits for a reader that was
 * inside when it was queued; rcu_barrier() waits for every callback queued
 * before it, from any thread, exited ones included; callbacks may queue
 * callbacks; callbacks queued while the callback thread is busy run as one
 * batch; free_rcu() frees; shutdown and restart; misuse aborts; exit() runs
 * what is pending, gives up on what a stuck reader holds back (it says so),
 * and QUIESCE_STATS=1 prints.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>

#include "check.h"

struct counted {
	struct rcu_head rcu;
	atomic_ulong *counter;
};

static void count_and_free(struct rcu_head *head)
{
	struct counted *c = container_of(head, struct counted, rcu);

	atomic_fetch_add(c->counter, 1);
	free(c);
}

static void queue_counted(atomic_ulong *counter)
{
	struct counted *c = malloc(sizeof(*c));

	c->counter = counter;
	call_rcu(&c->rcu, count_and_free);
}

/* A reader inside when the callback is queued holds it back. */
static void test_waits_for_reader(void)
{
	atomic_ulong ran = 0;

	check_hold_reader();
	queue_counted(&ran);
	check_sleep_us(50000);
	CHECK(atomic_load(&ran) == 0, "a callback ran while a reader from before it was inside");
	check_release_reader();
	rcu_barrier();
	CHECK(atomic_load(&ran) == 1, "the callback ran once the reader left");
}

/* Callbacks from several threads, some of which exit at once. */
#define ENQUEUERS 4
#define PER_THREAD 5000
static atomic_ulong barrier_count;

static void *enqueue_then_exit(void *unused)
{
	for (int i = 0; i < PER_THREAD; i++)
		queue_counted(&barrier_count);
	return NULL;
}

static void test_barrier_all_threads(void)
{
	pthread_t t[ENQUEUERS];

	for (int round = 0; round < 5; round++) {
		atomic_store(&barrier_count, 0);
		for (int i = 0; i < ENQUEUERS; i++)
			pthread_create(&t[i], NULL, enqueue_then_exit, NULL);
		for (int i = 0; i < ENQUEUERS; i++)
			pthread_join(t[i], NULL);
		queue_counted(&barrier_count);
		rcu_barrier();
		CHECK(atomic_load(&barrier_count) == ENQUEUERS * PER_THREAD + 1,
		      "rcu_barrier() returned before every callback ran: %lu of %d",
		      atomic_load(&barrier_count), ENQUEUERS * PER_THREAD + 1);
	}
}

/* Callbacks that queue callbacks: each barrier completes at least one level. */
#define CHAIN_DEPTH 5
struct chain {
	struct rcu_head rcu;
	int level;
};
static atomic_int chain_levels_run;

static void chain_step(struct rcu_head *head)
{
	struct chain *c = container_of(head, struct chain, rcu);

	atomic_fetch_add(&chain_levels_run, 1);
	if (++c->level < CHAIN_DEPTH)
		call_rcu(&c->rcu, chain_step);
	else
		free(c);
}

static void test_callbacks_queue_callbacks(void)
{
	struct chain *c = calloc(1, sizeof(*c));

	call_rcu(&c->rcu, chain_step);
	for (int i = 1; i <= CHAIN_DEPTH; i++) {
		rcu_barrier();
		CHECK(atomic_load(&chain_levels_run) >= i,
		      "after %d barriers only %d levels of the chain ran", i,
		      atomic_load(&chain_levels_run));
	}
	CHECK(atomic_load(&chain_levels_run) == CHAIN_DEPTH, "the chain ran once per level");
}

/*
 * Callbacks queued while the callback thread is busy (held in a callback)
 * are harvested together and run as one batch: 100 callbacks, and the
 * holding one, in two batches.
 */
static void test_batching(void)
{
	struct quiesce_rcu_stats before, after;
	atomic_ulong ran = 0;

	check_cb_hold();
	quiesce_rcu_get_stats(&before);
	for (int i = 0; i < 100; i++)
		queue_counted(&ran);
	check_cb_release();
	rcu_barrier();
	quiesce_rcu_get_stats(&after);
	CHECK(atomic_load(&ran) == 100, "rcu_barrier() left %lu of 100 callbacks",
	      atomic_load(&ran));
	CHECK(after.cb_invoked - before.cb_invoked == 101 && after.cb_batches - before.cb_batches == 2,
	      "100 callbacks queued behind a busy callback thread (and the one that held it) "
	      "ran as %llu callbacks in %llu batches, not 101 in 2",
	      (unsigned long long)(after.cb_invoked - before.cb_invoked),
	      (unsigned long long)(after.cb_batches - before.cb_batches));
}

struct freeable {
	char pad[100];
	struct rcu_head rcu;
};

static void test_free_rcu(void)
{
	struct quiesce_rcu_stats before, after;
	struct freeable *none = NULL;

	quiesce_rcu_get_stats(&before);
	for (int i = 0; i < 1000; i++) {
		struct freeable *f = malloc(sizeof(*f));

		memset(f->pad, i, sizeof(f->pad));
		free_rcu(f, rcu);
	}
	free_rcu(none, rcu);
	rcu_barrier();
	quiesce_rcu_get_stats(&after);
	/* ASan's leak check and heap checks say whether the right pointer was freed. */
	CHECK(after.cb_invoked - before.cb_invoked == 1000,
	      "free_rcu() ran %llu callbacks for 1000 objects (NULL is no object)",
	      (unsigned long long)(after.cb_invoked - before.cb_invoked));
	CHECK(after.cb_pending == 0, "nothing pending after rcu_barrier()");
}

static void test_shutdown_and_restart(void)
{
	atomic_ulong ran = 0;

	for (int i = 0; i < 100; i++)
		queue_counted(&ran);
	quiesce_call_rcu_shutdown();
	CHECK(atomic_load(&ran) == 100, "shutdown ran the pending callbacks first");
	quiesce_call_rcu_shutdown();
	queue_counted(&ran);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 101, "call_rcu() after shutdown starts the thread again");
}

/* Misuse, each in a child that must abort with a message. */
static void null_callback(void *unused)
{
	static struct rcu_head head;

	call_rcu(&head, NULL);
}

static void barrier_inside_reader(void *unused)
{
	rcu_read_lock();
	rcu_barrier();
}

static void barrier_in_callback_cb(struct rcu_head *head)
{
	rcu_barrier();
}

static void barrier_in_callback(void *unused)
{
	static struct rcu_head head;

	call_rcu(&head, barrier_in_callback_cb);
	rcu_barrier();
}

static void leaves_reader_locked(struct rcu_head *head)
{
	rcu_read_lock();
}

static void callback_leaves_reader(void *unused)
{
	static struct rcu_head head;

	call_rcu(&head, leaves_reader_locked);
	rcu_barrier();
}

/* exit() with callbacks pending: they run, within the bound. */
static void say_ran(struct rcu_head *head)
{
	fprintf(stderr, "callback ran at exit\n");
}

static void exit_with_pending(void *unused)
{
	static struct rcu_head head;

	call_rcu(&head, say_ran);
	exit(0);
}

/* exit() inside a read-side critical section cannot wait: it must not try. */
static void exit_inside_reader(void *unused)
{
	static struct rcu_head head;

	rcu_read_lock();
	call_rcu(&head, say_ran);
	exit(0);
}

static bool wait_for_cb_thread_at_exit;

/*
 * Runs after the library's exit handler (destructors run after atexit()
 * handlers), before ThreadSanitizer's exit checks.  Not CHECK(): exit()
 * must not be called again from here.
 */
__attribute__((destructor)) static void wait_for_cb_thread_end(void)
{
	uint64_t deadline = check_now_ns() + CHECK_HANG_MS * 1000000ull;

	if (!wait_for_cb_thread_at_exit)
		return;
	/* Woken by exit()'s stop of the idle callback thread (cb_lifecycle.c). */
	while (check_each_lib_thread(NULL, NULL) > 0) {
		if (check_now_ns() > deadline) {
			fprintf(stderr, "the callback thread did not end after exit() stopped it\n");
			_exit(1);
		}
		check_sleep_us(100);
	}
}

/*
 * exit() inside a reader while the callback thread is idle: the thread
 * ends on its own, before the process does, and nobody joins it.  Unless
 * the stop detached it, ThreadSanitizer reports it as a leaked thread.
 */
static void exit_inside_reader_idle(void *unused)
{
	static struct rcu_head head;

	call_rcu(&head, say_ran);
	rcu_barrier();
	wait_for_cb_thread_at_exit = true;
	rcu_read_lock();
	exit(0);
}

/* exit() while another thread holds a reader forever: bounded wait. */
static void exit_with_stuck_reader(void *unused)
{
	static struct rcu_head head;

	check_hold_reader();
	call_rcu(&head, say_ran);
	exit(0);
}

/*
 * exit() while another thread holds a reader forever, with callbacks
 * pending on the default domain, on STUCK_WORKERS RCU workers and on a
 * QSBR worker.  The RCU threads share one bound, are left to stop on their
 * own (no join, no "still busy") and are reported in one line; the QSBR
 * one, whose grace periods nobody holds, runs its callback meanwhile,
 * though exit() comes to it last (the list puts the newest domain first).
 */
#define STUCK_WORKERS 6

static void say_qsbr_ran(struct rcu_head *head)
{
	fprintf(stderr, "the QSBR worker's callback ran\n");
}

static void exit_with_stuck_reader_many_threads(void *unused)
{
	static struct rcu_head head, qsbr_head, heads[STUCK_WORKERS];

	check_hold_reader();
	quiesce_call_rcu_on(quiesce_call_rcu_worker_create(QUIESCE_CB_QSBR, -1), &qsbr_head,
			    say_qsbr_ran);
	for (int i = 0; i < STUCK_WORKERS; i++)
		quiesce_call_rcu_on(quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1), &heads[i],
				    say_ran);
	call_rcu(&head, say_ran);
	exit(0);
}

static void exit_printing_stats(void *unused)
{
	atomic_ulong ran = 0;

	setenv("QUIESCE_STATS", "1", 1);
	queue_counted(&ran);
	exit(0);
}

/*
 * Runs fn in a child that exits; checks its output for expect (or, with a
 * leading '!', for its absence) and whether the pending callback ran.  An
 * exit() that hung would be ended by check_run_child()'s hang detector,
 * and fail the clean-exit check; that exit() waits only within its bound
 * shows in what it says (the stuck reader's "still pending"), not in how
 * long a loaded machine takes.
 */
static void check_exit(void (*fn)(void *), const char *expect, bool callback_runs)
{
	char err[4096];
	int status = check_run_child(fn, NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child did not exit cleanly (status %#x): %s", status, err);
	if (expect && expect[0] == '!')
		CHECK(!strstr(err, expect + 1), "exit output has \"%s\": %s", expect + 1, err);
	else if (expect)
		CHECK(strstr(err, expect), "exit output lacks \"%s\": %s", expect, err);
	/* A thread that has run its callbacks ends; one that cannot is not joined. */
	CHECK(!strstr(err, "still busy"), "exit joined a callback thread in vain: %s", err);
	CHECK((strstr(err, "callback ran at exit") != NULL) == callback_runs,
	      "the pending callback %s at exit: %s", callback_runs ? "did not run" : "ran", err);
}

int main(void)
{
	test_waits_for_reader();
	test_barrier_all_threads();
	test_callbacks_queue_callbacks();
	test_batching();
	test_free_rcu();
	test_shutdown_and_restart();

	/* No running callback thread at the children's fork (check.h, check_fork()). */
	quiesce_call_rcu_shutdown();
	check_child_aborts(null_callback, NULL, "a callback function is required");
	check_child_aborts(barrier_inside_reader, NULL, "inside an RCU read-side critical section");
	check_child_aborts(barrier_in_callback, NULL, "called from an RCU callback");
	check_child_aborts(callback_leaves_reader, NULL, "returned inside a read-side critical section");

	check_exit(exit_with_pending, NULL, true);
	/* Had it waited, it would have warned after a second. */
	check_exit(exit_inside_reader, "!still pending", false);
	check_exit(exit_inside_reader_idle, NULL, true);
	check_exit(exit_with_stuck_reader, "still pending", false);
	/*
	 * The QSBR callback runs within the bound; the one line, for the
	 * STUCK_WORKERS (6) workers and call_rcu()'s thread, follows it.
	 */
	check_exit(exit_with_stuck_reader_many_threads,
		   "the QSBR worker's callback ran\nquiesce: exit: RCU callbacks still pending "
		   "after 1000 ms on 7 callback threads", false);
	check_exit(exit_printing_stats, "callbacks queued 1, invoked 1, pending 0", false);
	printf("call_rcu api: all checks passed\n");
	return 0;
}
