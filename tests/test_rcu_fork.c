/*
 * fork(): the child's registry holds only the forking thread, so grace
 * periods in the child do not wait for the parent's readers, even ones that
 * were inside a critical section at the fork, nor for a grace period that
 * another thread of the parent was running then.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

static atomic_int parked;
static atomic_bool release;
static atomic_bool parent_gp_done;

static void *parked_reader(void *arg)
{
	rcu_read_lock();
	atomic_store(&parked, 1);
	while (!atomic_load(&release))
		check_sleep_us(1000);
	rcu_read_unlock();
	return NULL;
}

/* Owns a grace period that waits for the parked reader. */
static void *parent_sync(void *arg)
{
	synchronize_rcu();
	atomic_store(&parent_gp_done, true);
	return NULL;
}

static uint64_t calls_before;

static bool sync_counted(void *unused)
{
	struct quiesce_rcu_stats stats;

	quiesce_rcu_get_stats(&stats);
	return stats.sync_calls > calls_before;
}

static bool cookie_done(void *cookie)
{
	return poll_state_synchronize_rcu(*(unsigned long *)cookie);
}

static void child_uses_rcu(void *arg)
{
	struct quiesce_rcu_stats stats;
	unsigned long cookie;

	quiesce_rcu_get_stats(&stats);
	CHECK(stats.registered_threads <= 1, "child inherited %lu registered threads",
	      (unsigned long)stats.registered_threads);
	synchronize_rcu();
	synchronize_rcu_expedited();
	rcu_read_lock();
	rcu_read_unlock();
	cookie = start_poll_synchronize_rcu();	/* the child's own worker */
	check_wait_until(cookie_done, &cookie, "the child's polled grace period never ended");
}

static void child_leaves_section_then_uses_rcu(void *arg)
{
	CHECK(rcu_read_ongoing(), "the child inherits the forking thread's section");
	rcu_read_unlock();
	child_uses_rcu(arg);
}

int main(void)
{
	pthread_t t, syncer;
	struct quiesce_rcu_stats stats;
	char err[2048];
	unsigned long cookie;
	int status;

	rcu_register_thread();
	/*
	 * The parent has a worker too, and it has run a grace period before
	 * any fork: a thread still starting holds ASan's allocator locks,
	 * which a child would inherit and hang on.
	 */
	cookie = start_poll_synchronize_rcu();
	check_wait_until(cookie_done, &cookie, "the parent's polled grace period never ended");
	pthread_create(&t, NULL, parked_reader, NULL);
	while (!atomic_load(&parked))
		check_sleep_us(100);

	status = check_run_child(child_uses_rcu, NULL, err, sizeof(err));
	CHECK(status == 0, "child failed (status %#x): %s", status, err);

	/* Forking from inside a read-side section works too. */
	rcu_read_lock();
	status = check_run_child(child_leaves_section_then_uses_rcu, NULL, err, sizeof(err));
	rcu_read_unlock();
	CHECK(status == 0, "child of a reader failed (status %#x): %s", status, err);

	/*
	 * A grace period of the parent runs, waiting for the parked reader,
	 * while we fork: its caller is counted once it owns it (or sleeps
	 * behind another owner, who waits for the same reader).
	 */
	quiesce_rcu_get_stats(&stats);
	calls_before = stats.sync_calls;
	pthread_create(&syncer, NULL, parent_sync, NULL);
	check_wait_until(sync_counted, NULL, "the parent's synchronize_rcu() never started");
	check_sleep_us(1000);
	CHECK(!atomic_load(&parent_gp_done), "grace period ended with a reader inside");
	status = check_run_child(child_uses_rcu, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a running grace period failed (status %#x): %s", status, err);

	atomic_store(&release, true);
	check_join_within(syncer, CHECK_HANG_MS, "the parent's grace period");
	pthread_join(t, NULL);
	synchronize_rcu();
	printf("rcu fork: all checks passed\n");
	return 0;
}
