/*
 * Misuse of RCU aborts with a message that names the mistake; a thread
 * that exits inside a section is reported, and a grace period asleep on
 * it is woken.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"

static void sync_inside_reader(void *arg)
{
	rcu_read_lock();
	synchronize_rcu();
}

static void expedited_inside_reader(void *arg)
{
	rcu_read_lock();
	rcu_read_lock();
	synchronize_rcu_expedited();
}

static void unbalanced_unlock(void *arg)
{
	rcu_read_lock();
	rcu_read_unlock();
	rcu_read_unlock();
}

/*
 * The deepest nesting the counter holds, then one more: the depth would
 * carry into the phase, and the thread would look outside any section to
 * grace periods.
 */
static void nesting_overflow(void *arg)
{
	for (unsigned long i = 0; i < QUIESCE_RCU_NEST_MASK; i++)
		rcu_read_lock();
	CHECK(rcu_read_ongoing(), "not inside a section at the deepest nesting");
	rcu_read_lock();
}

static void unregister_inside_reader(void *arg)
{
	rcu_read_lock();
	rcu_unregister_thread();
}

static void *exit_inside_reader(void *arg)
{
	pthread_setname_np(pthread_self(), "leaky-reader");
	rcu_read_lock();
	return NULL;
}

static void thread_exits_inside_reader(void *arg)
{
	pthread_t t;

	pthread_create(&t, NULL, exit_inside_reader, NULL);
	pthread_join(t, NULL);
	synchronize_rcu();	/* must not hang on the dead thread */
}

static atomic_bool inside;

static void *exit_inside_reader_later(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "leaky-sleeper");
	rcu_read_lock();
	atomic_store(&inside, true);
	/* Until the grace period has had the time to go to sleep on us. */
	check_sleep_us(50000);
	return NULL;
}

static void *sync_thread(void *arg)
{
	(void)arg;
	synchronize_rcu();
	return NULL;
}

static bool reader_inside(void *arg)
{
	(void)arg;
	return atomic_load(&inside);
}

static void thread_exits_inside_waited_for(void *arg)
{
	pthread_t reader, updater;

	(void)arg;
	/* Without the wake-up at exit the grace period would sleep past the hang limit. */
	quiesce_rcu_set_stall_timeout_ms(4 * CHECK_HANG_MS);
	rcu_register_thread();	/* another registered thread: the grace period does wait */
	pthread_create(&reader, NULL, exit_inside_reader_later, NULL);
	check_wait_until(reader_inside, NULL, "the reader to enter its section");
	pthread_create(&updater, NULL, sync_thread, NULL);
	check_join_within(reader, CHECK_HANG_MS, "the reader that exits inside its section");
	check_join_within(updater, CHECK_HANG_MS,
			  "a grace period that waited for a reader that exited inside it");
}

int main(void)
{
	char err[4096];
	int status;

	check_child_aborts(sync_inside_reader, NULL,
			   "synchronize_rcu() called inside an RCU read-side critical section");
	check_child_aborts(expedited_inside_reader, NULL,
			   "synchronize_rcu_expedited() called inside an RCU read-side critical section");
	check_child_aborts(unbalanced_unlock, NULL,
			   "rcu_read_unlock() without a matching rcu_read_lock()");
	check_child_aborts(unregister_inside_reader, NULL,
			   "rcu_unregister_thread() called inside an RCU read-side critical section");
	check_child_aborts(nesting_overflow, NULL,
			   "rcu_read_lock() nested more than 65535 deep");

	status = check_run_child(thread_exits_inside_reader, NULL, err, sizeof(err));
	CHECK(status == 0, "exit inside a reader: child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "thread \"leaky-reader\" exited inside an RCU read-side critical section"),
	      "no message for a thread that exited inside a reader: %s", err);
	status = check_run_child(thread_exits_inside_waited_for, NULL, err, sizeof(err));
	CHECK(status == 0, "exit inside a reader a grace period waits for: child status %#x, "
	      "stderr: %s", status, err);
	CHECK(strstr(err, "thread \"leaky-sleeper\" exited inside an RCU read-side critical section"),
	      "no message for a thread that exited inside a reader: %s", err);
	printf("rcu misuse: all checks passed\n");
	return 0;
}
