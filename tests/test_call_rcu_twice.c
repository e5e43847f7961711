/*
 * An rcu_head queued again before its callback has run: call_rcu() twice
 * in a row on one head aborts in every build, on the default domain and on
 * the others (the head is still its queue's last); with
 * QUIESCE_DEBUG_CALLBACKS=1 (the test's second run, tests/callbacks.cmake)
 * any repeat aborts, naming the callback queued first.  What is legal
 * still works in both runs: a callback that queues its own head again, a
 * head reused after its callback ran, a hundred thousand heads queued,
 * run and queued again, and a fork() child queuing a head the parent had
 * pending (the child drops the parent's callbacks).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>
#include <quiesce/srcu.h>

#include "check.h"

static atomic_ulong ran;

static void count(struct rcu_head *head)
{
	atomic_fetch_add(&ran, 1);
}

static void other(struct rcu_head *head)
{
	atomic_fetch_add(&ran, 1);
}

/* Twice in a row; the callback thread, held, cannot take the queue between. */
static void twice_in_a_row(void *unused)
{
	static struct rcu_head head;

	check_cb_hold();
	call_rcu(&head, count);
	call_rcu(&head, other);
}

DEFINE_STATIC_SRCU(twice_srcu);
static atomic_int srcu_held;

/* Holds the SRCU callback thread until the child ends. */
static void hold_srcu_thread(struct rcu_head *head)
{
	atomic_store(&srcu_held, 1);
	for (;;)
		pause();
}

static bool srcu_thread_held(void *unused)
{
	return atomic_load(&srcu_held);
}

static void hold_srcu(void)
{
	static struct rcu_head hold;

	call_srcu(&twice_srcu, &hold, hold_srcu_thread);
	check_wait_until(srcu_thread_held, NULL, "the SRCU callback thread to run the hold");
}

static void twice_in_a_row_srcu(void *unused)
{
	static struct rcu_head head;

	hold_srcu();
	call_srcu(&twice_srcu, &head, count);
	call_srcu(&twice_srcu, &head, count);
}

/*
 * Another head queued between: only the debugging set sees it.  The
 * callback thread is held here too, or the first callback might run
 * before the repeat, which would then be legal.
 */
static void twice_apart(void *unused)
{
	static struct rcu_head a, b;

	check_cb_hold();
	call_rcu(&a, count);
	call_rcu(&b, count);
	call_rcu(&a, count);
}

struct object {
	long payload;
	struct rcu_head rcu;
};

static void free_rcu_then_call_rcu(void *unused)
{
	struct object *o = malloc(sizeof(*o));
	static struct rcu_head b;

	check_cb_hold();
	free_rcu(o, rcu);
	call_rcu(&b, count);
	call_rcu(&o->rcu, count);
}

static void twice_apart_srcu(void *unused)
{
	static struct rcu_head a, b;

	hold_srcu();
	call_srcu(&twice_srcu, &a, count);
	call_srcu(&twice_srcu, &b, count);
	call_srcu(&twice_srcu, &a, count);
}

/* A callback that queues its own head again, CHAIN times in all. */
#define CHAIN 50
static void requeue_self(struct rcu_head *head)
{
	if (atomic_fetch_add(&ran, 1) + 1 < CHAIN)
		call_rcu(head, requeue_self);
}

static void test_legal_reuse(void)
{
	static struct rcu_head head;
	enum { N = 100000 };
	struct rcu_head *many = calloc(N, sizeof(*many));

	atomic_store(&ran, 0);
	call_rcu(&head, requeue_self);
	/* Each barrier waits for one link of the chain: loop until all ran. */
	for (int i = 0; i < CHAIN && atomic_load(&ran) < CHAIN; i++)
		rcu_barrier();
	CHECK(atomic_load(&ran) == CHAIN, "the self-queuing chain ran %lu of %d times",
	      atomic_load(&ran), CHAIN);

	for (int round = 0; round < 2; round++) {
		atomic_store(&ran, 0);
		for (int i = 0; i < N; i++)
			call_rcu(&many[i], count);
		rcu_barrier();
		CHECK(atomic_load(&ran) == N, "round %d: %lu of %d callbacks ran", round,
		      atomic_load(&ran), N);
	}
	free(many);
}

static struct rcu_head pending_at_fork;

static void child_requeues(void *unused)
{
	atomic_store(&ran, 0);
	call_rcu(&pending_at_fork, count);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 1, "the child's callback ran %lu times", atomic_load(&ran));
}

/* The parent's pending head is the child's to queue: it drops the parent's. */
static void test_fork_child_requeues(void)
{
	char err[4096];
	int status;

	check_cb_hold();
	call_rcu(&pending_at_fork, count);
	status = check_run_child(child_requeues, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child could not queue the parent's pending head (status %#x): %s", status, err);
	check_cb_release();
	rcu_barrier();
}

int main(void)
{
	bool debugging = getenv("QUIESCE_DEBUG_CALLBACKS") != NULL;

	/* Before the parent starts a callback thread (test_call_rcu_api.c says why). */
	check_child_aborts(twice_in_a_row, NULL, "RCU callback queued twice");
	check_child_aborts(twice_in_a_row_srcu, NULL, "SRCU callback queued twice");
	if (debugging) {
		check_child_aborts(twice_apart, NULL, "RCU callback queued twice");
		check_child_aborts(free_rcu_then_call_rcu, NULL,
				   "by free_rcu(), for the object 8 bytes before the head");
		check_child_aborts(twice_apart_srcu, NULL, "SRCU callback queued twice");
	}
	test_fork_child_requeues();
	test_legal_reuse();
	printf("call_rcu twice (%s): all checks passed\n",
	       debugging ? "QUIESCE_DEBUG_CALLBACKS" : "every build");
	return 0;
}
