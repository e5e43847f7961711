/*
 * Misuse of QSBR aborts with a message that names the mistake and, where
 * there is one, the fix.  Built with QUIESCE_DEBUG, so that read_lock and
 * read_unlock count their nesting.
 */
#define QUIESCE_DEBUG 1

#include <pthread.h>
#include <string.h>

#include <quiesce/rcu_qsbr.h>

#include "check.h"

static void sync_while_online(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_synchronize_rcu();
}

static void barrier_while_online(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_barrier();
}

static void quiescent_state_inside_section(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_read_lock();
	rcu_qsbr_quiescent_state();
}

static void offline_inside_section(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_read_lock();
	rcu_qsbr_thread_offline();
}

static void unbalanced_unlock(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_read_unlock();
}

static void offline_while_offline(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_thread_offline();
	rcu_qsbr_thread_offline();
}

static void online_while_online(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_thread_online();
}

static void quiescent_state_offline(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_thread_offline();
	rcu_qsbr_quiescent_state();
}

static void quiescent_state_unregistered(void *arg)
{
	rcu_qsbr_quiescent_state();
}

static void unregister_inside_section(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_read_lock();
	rcu_qsbr_unregister_thread();
}

static void register_twice(void *arg)
{
	rcu_qsbr_register_thread();
	rcu_qsbr_register_thread();
}

static struct rcu_head leaky_head, later_head;

static void register_and_stay_online(struct rcu_head *head)
{
	(void)head;
	rcu_qsbr_register_thread();
}

static void nothing(struct rcu_head *head)
{
	(void)head;
}

/* The callback thread, left online, would hold the grace period it waits for. */
static void callback_returns_online(void *arg)
{
	rcu_qsbr_call_rcu(&leaky_head, register_and_stay_online);
	rcu_qsbr_barrier();
	rcu_qsbr_call_rcu(&later_head, nothing);
	rcu_qsbr_barrier();
}

static void *exit_inside_section(void *arg)
{
	pthread_setname_np(pthread_self(), "leaky-qsbr");
	rcu_qsbr_register_thread();
	rcu_qsbr_read_lock();
	return NULL;
}

static void thread_exits_inside_section(void *arg)
{
	pthread_t t;

	pthread_create(&t, NULL, exit_inside_section, NULL);
	pthread_join(t, NULL);
	rcu_qsbr_synchronize_rcu();	/* must not wait for the dead thread */
}

int main(void)
{
	char err[4096];
	int status;

	check_child_aborts(sync_while_online, NULL,
			   "quiesce_qsbr_synchronize_rcu() called by an online QSBR thread: it would "
			   "wait for itself forever; go offline around it");
	check_child_aborts(barrier_while_online, NULL,
			   "quiesce_qsbr_barrier() called by an online QSBR thread");
	check_child_aborts(quiescent_state_inside_section, NULL,
			   "quiesce_qsbr_quiescent_state() called inside a QSBR read-side critical section");
	check_child_aborts(offline_inside_section, NULL,
			   "quiesce_qsbr_thread_offline() called inside a QSBR read-side critical section");
	check_child_aborts(unbalanced_unlock, NULL,
			   "quiesce_qsbr_read_unlock() without a matching quiesce_qsbr_read_lock()");
	check_child_aborts(offline_while_offline, NULL,
			   "quiesce_qsbr_thread_offline() called by an offline QSBR thread");
	check_child_aborts(online_while_online, NULL,
			   "quiesce_qsbr_thread_online() called by a thread already online");
	check_child_aborts(quiescent_state_offline, NULL,
			   "quiesce_qsbr_quiescent_state() called by an offline QSBR thread");
	check_child_aborts(quiescent_state_unregistered, NULL,
			   "quiesce_qsbr_quiescent_state() called by a thread not registered with QSBR");
	check_child_aborts(unregister_inside_section, NULL,
			   "quiesce_qsbr_unregister_thread() called inside a QSBR read-side critical section");
	check_child_aborts(register_twice, NULL,
			   "quiesce_qsbr_register_thread() called by a thread already registered");
	check_child_aborts(callback_returns_online, NULL,
			   "returned holding its domain's grace periods (inside a read-side critical "
			   "section; QSBR: registered and online)");

	status = check_run_child(thread_exits_inside_section, NULL, err, sizeof(err));
	CHECK(status == 0, "exit inside a section: child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "thread \"leaky-qsbr\" exited inside a QSBR read-side critical section"),
	      "no message for a thread that exited inside a section: %s", err);
	printf("qsbr misuse: all checks passed\n");
	return 0;
}
