/*
 * Misuse of the mb domain aborts with a message that names the mistake;
 * a thread that exits inside an mb section is reported, and a grace period
 * asleep waiting for it is woken, not left to its stall timeout.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <quiesce/rcu_mb.h>

#include "check.h"

static void sync_inside_reader(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	synchronize_rcu_mb();
}

static void expedited_inside_reader(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_mb_read_lock();
	synchronize_rcu_mb_expedited();
}

static void barrier_inside_reader(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_barrier_mb();
}

static void unbalanced_unlock(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_mb_read_unlock();
	rcu_mb_read_unlock();
}

/* As the default domain's (test_rcu_misuse.c). */
static void nesting_overflow(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < QUIESCE_RCU_NEST_MASK; i++)
		rcu_mb_read_lock();
	CHECK(rcu_mb_read_ongoing(), "not inside a section at the deepest nesting");
	rcu_mb_read_lock();
}

static void unlock_before_any_lock(void *arg)
{
	(void)arg;
	rcu_mb_read_unlock();
}

/* The default domain's unlock does not end an mb section, nor the reverse. */
static void default_unlock_in_mb_section(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_read_unlock();
}

static void mb_unregister_inside_reader(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_mb_unregister_thread();
}

static void unregister_inside_reader(void *arg)
{
	(void)arg;
	rcu_mb_read_lock();
	rcu_unregister_thread();
}

static struct rcu_head leaky_head, later_head;

static void enter_and_return(struct rcu_head *head)
{
	(void)head;
	rcu_mb_read_lock();
}

static void nothing(struct rcu_head *head)
{
	(void)head;
}

/* The callback thread, left inside a section, would hold the grace period it waits for. */
static void callback_returns_inside(void *arg)
{
	(void)arg;
	call_rcu_mb(&leaky_head, enter_and_return);
	rcu_barrier_mb();
	call_rcu_mb(&later_head, nothing);
	rcu_barrier_mb();
}

static atomic_bool inside;

static void *exit_inside_reader(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "leaky-mb-reader");
	rcu_mb_read_lock();
	atomic_store(&inside, true);
	/* Until the grace period has had the time to go to sleep on us. */
	check_sleep_us(50000);
	return NULL;
}

static void *sync_thread(void *arg)
{
	(void)arg;
	synchronize_rcu_mb();
	return NULL;
}

static bool reader_inside(void *arg)
{
	(void)arg;
	return atomic_load(&inside);
}

static void thread_exits_inside_reader(void *arg)
{
	pthread_t reader, updater;

	(void)arg;
	/* Without the wake-up at exit the grace period would sleep past the hang limit. */
	quiesce_rcu_set_stall_timeout_ms(4 * CHECK_HANG_MS);
	pthread_create(&reader, NULL, exit_inside_reader, NULL);
	check_wait_until(reader_inside, NULL, "the reader to enter its section");
	pthread_create(&updater, NULL, sync_thread, NULL);
	check_join_within(reader, CHECK_HANG_MS, "the reader that exits inside its section");
	check_join_within(updater, CHECK_HANG_MS,
			  "a grace period that waited for a reader that exited inside it");
	synchronize_rcu_mb();	/* and later ones do not wait for the dead thread */
}

int main(void)
{
	char err[4096];
	int status;

	check_child_aborts(sync_inside_reader, NULL,
			   "quiesce_synchronize_rcu_mb() called inside an RCU-mb read-side "
			   "critical section");
	check_child_aborts(expedited_inside_reader, NULL,
			   "quiesce_synchronize_rcu_mb_expedited() called inside an RCU-mb "
			   "read-side critical section");
	check_child_aborts(barrier_inside_reader, NULL,
			   "quiesce_rcu_barrier_mb() called inside an RCU-mb read-side critical section");
	check_child_aborts(unbalanced_unlock, NULL,
			   "quiesce_rcu_mb_read_unlock() without a matching quiesce_rcu_mb_read_lock()");
	check_child_aborts(nesting_overflow, NULL,
			   "quiesce_rcu_mb_read_lock() nested more than 65535 deep");
	check_child_aborts(unlock_before_any_lock, NULL,
			   "quiesce_rcu_mb_read_unlock() without a matching quiesce_rcu_mb_read_lock()");
	check_child_aborts(default_unlock_in_mb_section, NULL,
			   "rcu_read_unlock() without a matching rcu_read_lock()");
	check_child_aborts(mb_unregister_inside_reader, NULL,
			   "quiesce_rcu_mb_unregister_thread() called inside an RCU-mb read-side "
			   "critical section");
	check_child_aborts(unregister_inside_reader, NULL,
			   "rcu_unregister_thread() called inside an RCU-mb read-side critical section");
	check_child_aborts(callback_returns_inside, NULL,
			   "returned holding its domain's grace periods (inside a read-side critical "
			   "section");

	status = check_run_child(thread_exits_inside_reader, NULL, err, sizeof(err));
	CHECK(status == 0, "exit inside an mb reader: child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "thread \"leaky-mb-reader\" exited inside an RCU-mb read-side "
			  "critical section"),
	      "no message for a thread that exited inside an mb reader: %s", err);
	printf("rcu mb misuse: all checks passed\n");
	return 0;
}
