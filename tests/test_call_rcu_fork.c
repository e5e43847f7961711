/*
 * fork() with callbacks pending: they run in the parent, exactly once, and
 * never in the child, which gets a callback thread of its own.  Then forks
 * while other threads flood call_rcu(), so that the child often copies the
 * library in mid-operation; each child must still queue, barrier and exit.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PENDING 100
#define POOL 4096

/*
 * Items come from static pools, not malloc(): the child of a multithreaded
 * fork() may find an allocator lock held (ASan's is not fork-safe).
 */
struct item {
	struct rcu_head rcu;
	atomic_bool busy;		/* queued, callback not yet run */
	atomic_ulong *counter;
};

static struct item main_pool[POOL], flood_pool[2][POOL];
static atomic_ulong ran, flood_ran;
static atomic_bool stop;
static atomic_int flooding;		/* flood threads past their start */

static void item_done(struct rcu_head *head)
{
	struct item *it = container_of(head, struct item, rcu);

	atomic_fetch_add(it->counter, 1);
	atomic_store(&it->busy, false);
}

static bool queue_item(struct item *it, atomic_ulong *counter)
{
	if (atomic_load(&it->busy))
		return false;
	atomic_store(&it->busy, true);
	it->counter = counter;
	call_rcu(&it->rcu, item_done);
	return true;
}

/* Items first..first+n-1, which must be free. */
static void queue_items(int first, int n)
{
	for (int i = first; i < first + n; i++)
		CHECK(queue_item(&main_pool[i], &ran), "item %d is free", i);
}

static void child_drops_parents_callbacks(void *unused)
{
	struct quiesce_rcu_stats s;

	rcu_barrier();
	CHECK(atomic_load(&ran) == 0, "the parent's callbacks ran in the child: %lu",
	      atomic_load(&ran));
	quiesce_rcu_get_stats(&s);
	CHECK(s.cb_pending == 0, "the child counts %llu pending callbacks",
	      (unsigned long long)s.cb_pending);
	/* The parent's items stay busy here: their callbacks were dropped. */
	queue_items(PENDING, 10);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 10, "the child's own callbacks ran: %lu", atomic_load(&ran));
	_exit(0);
}

static void test_pending_stay_in_parent(void)
{
	char err[4096];
	int status;

	/*
	 * The callback thread and the reader are past their start before the
	 * fork (see test_fork_under_load()): one callback has run, and the
	 * reader is inside its section.
	 */
	CHECK(queue_item(&main_pool[POOL - 1], &flood_ran), "the last item is free");
	rcu_barrier();
	check_hold_reader();
	/* The reader holds these back: they are pending at fork(). */
	queue_items(0, PENDING);
	check_sleep_us(20000);
	CHECK(atomic_load(&ran) == 0, "callbacks ran while a reader from before was inside");
	status = check_run_child(child_drops_parents_callbacks, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status %#x): %s",
	      status, err);
	check_release_reader();
	rcu_barrier();
	CHECK(atomic_load(&ran) == PENDING, "the parent ran its %d callbacks: %lu", PENDING,
	      atomic_load(&ran));
}

static void *flood(void *arg)
{
	struct item *pool = flood_pool[(uintptr_t)arg];

	atomic_fetch_add(&flooding, 1);
	for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
		if (!queue_item(&pool[i % POOL], &flood_ran))
			sched_yield();
	return NULL;
}

static void child_queues_and_exits(void *unused)
{
	atomic_store(&ran, 0);
	queue_items(0, 100);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 100, "the child ran its callbacks: %lu", atomic_load(&ran));
	exit(0);
}

static void test_fork_under_load(void)
{
	pthread_t t[2];
	uint64_t end = check_now_ns() + 1000000000u;
	int forks = 0;

	atomic_store(&stop, false);
	for (uintptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, flood, (void *)i);
	/*
	 * Fork only once both threads run their own code: a thread still
	 * starting may hold a lock of ASan's allocator (it allocates there),
	 * and a child that inherits that lock held hangs in its first thread.
	 */
	while (atomic_load(&flooding) < 2)
		check_sleep_us(100);
	while (check_now_ns() < end) {
		char err[4096];
		int status = check_run_child(child_queues_and_exits, NULL, err, sizeof(err));

		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child of a busy parent failed (status %#x): %s", status, err);
		forks++;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	rcu_barrier();
	fprintf(stderr, "%d forks under load\n", forks);
}

int main(void)
{
	test_pending_stay_in_parent();
	test_fork_under_load();
	printf("call_rcu fork: all checks passed\n");
	return 0;
}
