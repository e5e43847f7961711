/* Misuse of RCU aborts with a message that names the mistake. */
#include <pthread.h>
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

	status = check_run_child(thread_exits_inside_reader, NULL, err, sizeof(err));
	CHECK(status == 0, "exit inside a reader: child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "thread \"leaky-reader\" exited inside an RCU read-side critical section"),
	      "no message for a thread that exited inside a reader: %s", err);
	printf("rcu misuse: all checks passed\n");
	return 0;
}
