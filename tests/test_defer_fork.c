/*
 * fork() with a partial block of quiesce_defer_rcu(): its entries run in
 * the parent, exactly once, never in the child, which defers, flushes
 * (a flusher of its own, with no barrier) and barriers on its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/defer.h>

#include "check.h"

#define PENDING 50

static atomic_ulong ran;

static void count(void *p)
{
	(void)p;
	atomic_fetch_add(&ran, 1);
}

static bool ran_at_least(void *arg) { return atomic_load(&ran) >= (uintptr_t)arg; }

static void child(void *unused)
{
	quiesce_defer_barrier();
	CHECK(atomic_load(&ran) == 1, "the parent's deferred work ran in the child: %lu",
	      atomic_load(&ran));
	for (int i = 0; i < 10; i++)
		quiesce_defer_rcu(count, NULL);
	quiesce_defer_barrier();
	CHECK(atomic_load(&ran) == 11, "the child's own work ran: %lu", atomic_load(&ran));
	/* No barrier: the child's own flusher must hand the block over. */
	quiesce_defer_rcu(count, NULL);
	check_wait_until(ran_at_least, (void *)12, "the child's idle block ran");
	_exit(0);
}

int main(void)
{
	char err[4096];
	int status;

	/*
	 * The flusher and the callback thread run their own code before the
	 * fork (an ASan child would inherit the allocator locks of a thread
	 * still starting): this entry ran, handed over by the flusher.
	 */
	quiesce_defer_rcu(count, NULL);
	check_wait_until(ran_at_least, (void *)1, "the first entry ran");
	/* A partial block, pending at fork(). */
	for (int i = 0; i < PENDING; i++)
		quiesce_defer_rcu(count, NULL);
	status = check_run_child(child, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status %#x): %s",
	      status, err);
	quiesce_defer_barrier();
	CHECK(atomic_load(&ran) == 1 + PENDING, "the parent ran its %d entries once: %lu",
	      1 + PENDING, atomic_load(&ran));
	printf("defer_rcu fork: all checks passed\n");
	return 0;
}
