/*
 * fork() with callbacks pending: they run in the parent, exactly once, and
 * never in the child, which gets a callback thread of its own.  Then forks
 * while other threads flood call_rcu(), so that the child often copies the
 * library in mid-operation; each child must still queue, barrier and exit.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PENDING 100

static atomic_ulong ran;
static atomic_bool reader_inside, reader_release, stop;

struct item {
	struct rcu_head rcu;
};

static void count_and_free(struct rcu_head *head)
{
	atomic_fetch_add(&ran, 1);
	free(container_of(head, struct item, rcu));
}

static void queue_items(int n)
{
	for (int i = 0; i < n; i++)
		call_rcu(&((struct item *)malloc(sizeof(struct item)))->rcu, count_and_free);
}

static void *holding_reader(void *unused)
{
	rcu_read_lock();
	atomic_store(&reader_inside, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(1000);
	rcu_read_unlock();
	return NULL;
}

static void child_drops_parents_callbacks(void *unused)
{
	struct quiesce_rcu_stats s;

	alarm(10);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 0, "the parent's callbacks ran in the child: %lu",
	      atomic_load(&ran));
	quiesce_rcu_get_stats(&s);
	CHECK(s.cb_pending == 0, "the child counts %llu pending callbacks",
	      (unsigned long long)s.cb_pending);
	queue_items(10);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 10, "the child's own callbacks ran: %lu", atomic_load(&ran));
	_exit(0);
}

static void test_pending_stay_in_parent(void)
{
	char err[4096];
	pthread_t t;
	int status;

	pthread_create(&t, NULL, holding_reader, NULL);
	while (!atomic_load(&reader_inside))
		check_sleep_us(100);
	/* The reader holds these back: they are pending at fork(). */
	queue_items(PENDING);
	check_sleep_us(20000);
	CHECK(atomic_load(&ran) == 0, "callbacks ran while a reader from before was inside");
	status = check_run_child(child_drops_parents_callbacks, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status %#x): %s",
	      status, err);
	atomic_store(&reader_release, true);
	pthread_join(t, NULL);
	rcu_barrier();
	CHECK(atomic_load(&ran) == PENDING, "the parent ran its %d callbacks: %lu", PENDING,
	      atomic_load(&ran));
}

static void *flood(void *unused)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		queue_items(100);
	return NULL;
}

static void child_queues_and_exits(void *unused)
{
	alarm(10);
	atomic_store(&ran, 0);
	queue_items(100);
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
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, flood, NULL);
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
