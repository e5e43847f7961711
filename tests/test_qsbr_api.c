/*
 * The QSBR API, one behaviour at a time: polled grace periods and
 * callbacks held by an online thread until it announces a quiescent state,
 * offline_while, a stalled thread reported by name, a thread that exits
 * online, exit() from an online thread with callbacks pending, and fork()
 * (the child has QSBR threads of its own and does not wait for the
 * parent's).  Orders that matter are made certain (a thread that holds the
 * grace period until told), never raced for.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <quiesce/rcu_qsbr.h>

#include "check.h"

/* A QSBR thread that stays online, announcing nothing, until released. */
static struct {
	pthread_t thread;
	atomic_int tid;
	atomic_bool ready, release;
	const char *name;
} holder;

static bool holder_released(void *arg)
{
	(void)arg;
	return atomic_load(&holder.release);
}

static bool holder_ready(void *arg)
{
	(void)arg;
	return atomic_load(&holder.ready);
}

static void *hold(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), holder.name);
	atomic_store(&holder.tid, (int)syscall(SYS_gettid));
	rcu_qsbr_register_thread();
	CHECK(rcu_qsbr_thread_online_p() && rcu_qsbr_read_ongoing(), "registered but not online");
	atomic_store(&holder.ready, true);
	check_wait_until(holder_released, NULL, "the holder was never released");
	rcu_qsbr_quiescent_state();
	rcu_qsbr_unregister_thread();
	return NULL;
}

static void holder_start(const char *name)
{
	holder.name = name;
	atomic_store(&holder.ready, false);
	atomic_store(&holder.release, false);
	pthread_create(&holder.thread, NULL, hold, NULL);
	check_wait_until(holder_ready, NULL, "the holder never registered");
}

static void holder_finish(void)
{
	atomic_store(&holder.release, true);
	check_join_within(holder.thread, CHECK_HANG_MS, "the holder");
}

static unsigned long poll_cookie;

static bool cookie_done(void *arg)
{
	(void)arg;
	return rcu_qsbr_poll_state_synchronize_rcu(poll_cookie);
}

static void test_polled(void)
{
	unsigned long cookie = rcu_qsbr_get_state_synchronize_rcu();

	CHECK(!rcu_qsbr_poll_state_synchronize_rcu(cookie), "a fresh cookie has passed");
	rcu_qsbr_synchronize_rcu();
	CHECK(rcu_qsbr_poll_state_synchronize_rcu(cookie), "cookie not passed after synchronize");

	/* start_poll: completes without anyone blocking, once the holder lets go. */
	holder_start("qsbr-holder");
	poll_cookie = rcu_qsbr_start_poll_synchronize_rcu();
	check_sleep_us(50000);
	CHECK(!rcu_qsbr_poll_state_synchronize_rcu(poll_cookie),
	      "a grace period passed while an online thread announced nothing");
	holder_finish();
	check_wait_until(cookie_done, NULL, "start_poll's grace period never passed");
}

static atomic_int cb_runs;

static void count_cb(struct rcu_head *head)
{
	(void)head;
	atomic_fetch_add(&cb_runs, 1);
}

static void test_call_rcu(void)
{
	static struct rcu_head heads[10];

	holder_start("qsbr-holder");
	for (int i = 0; i < 10; i++)
		rcu_qsbr_call_rcu(&heads[i], count_cb);
	check_sleep_us(50000);
	CHECK(atomic_load(&cb_runs) == 0, "a callback ran while an online thread held the grace period");
	holder_finish();
	rcu_qsbr_barrier();
	CHECK(atomic_load(&cb_runs) == 10, "%d of 10 callbacks ran by the barrier",
	      atomic_load(&cb_runs));
}

static atomic_bool synced;

static bool synced_done(void *arg)
{
	(void)arg;
	return atomic_load(&synced);
}

static void *offline_waiter(void *arg)
{
	(void)arg;
	rcu_qsbr_register_thread();
	atomic_store(&holder.ready, true);
	rcu_qsbr_offline_while(check_wait_until(synced_done, NULL, "synchronize never returned"));
	CHECK(rcu_qsbr_thread_online_p(), "offline_while left the thread offline");
	rcu_qsbr_unregister_thread();
	return NULL;
}

static void test_offline_while(void)
{
	pthread_t t;

	atomic_store(&holder.ready, false);
	pthread_create(&t, NULL, offline_waiter, NULL);
	check_wait_until(holder_ready, NULL, "the waiter never registered");
	/* Returns once the waiter is offline: it waits for this inside offline_while. */
	rcu_qsbr_synchronize_rcu();
	atomic_store(&synced, true);
	check_join_within(t, CHECK_HANG_MS, "the offline waiter");
}

static atomic_int reports, reported_tid;
static char reported_name[16];

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->phase != QUIESCE_RCU_STALL_QSBR_ONLINE || atomic_load(&reports))
		return;
	snprintf(reported_name, sizeof(reported_name), "%s", stall->thread_name);
	atomic_store(&reported_tid, stall->tid);
	atomic_store(&reports, 1);
	atomic_store(&holder.release, true);	/* the holder announces now */
}

static void test_stall(void)
{
	quiesce_rcu_set_stall_timeout_ms(200);
	quiesce_rcu_set_stall_handler(on_stall);
	holder_start("qsbr-stuck");
	rcu_qsbr_synchronize_rcu();	/* returns once the report released the holder */
	check_join_within(holder.thread, CHECK_HANG_MS, "the stuck thread");
	CHECK(atomic_load(&reports) == 1, "the stalled grace period was not reported");
	CHECK(atomic_load(&reported_tid) == atomic_load(&holder.tid) &&
	      strcmp(reported_name, "qsbr-stuck") == 0,
	      "the report named thread %d \"%s\", not %d \"qsbr-stuck\"",
	      atomic_load(&reported_tid), reported_name, atomic_load(&holder.tid));
	quiesce_rcu_set_stall_handler(NULL);
	quiesce_rcu_set_stall_timeout_ms(0);
}

static void *release_holder_later(void *arg)
{
	(void)arg;
	check_sleep_us(400000);	/* two reports at a 100 ms timeout */
	atomic_store(&holder.release, true);
	return NULL;
}

/* In a child: the default printer's message for a QSBR stall. */
static void child_prints_stall(void *arg)
{
	pthread_t t;

	(void)arg;
	quiesce_rcu_set_stall_timeout_ms(100);
	holder_start("qsbr-printed");
	pthread_create(&t, NULL, release_holder_later, NULL);
	rcu_qsbr_synchronize_rcu();
	_exit(0);
}

static void test_stall_printed(void)
{
	char err[4096];
	int status = check_run_child(child_prints_stall, NULL, err, sizeof(err));

	CHECK(status == 0, "child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "QSBR stall: thread ") && strstr(err, "(\"qsbr-printed\") has stayed "
							 "online without a quiescent state"),
	      "no QSBR stall message naming the thread: %s", err);
}

static void *exit_online(void *arg)
{
	(void)arg;
	rcu_qsbr_register_thread();
	return NULL;
}

static void test_thread_exit_online(void)
{
	pthread_t t;

	pthread_create(&t, NULL, exit_online, NULL);
	pthread_join(t, NULL);
	rcu_qsbr_synchronize_rcu();	/* must not wait for the dead thread */
}

static void say_ran(struct rcu_head *head)
{
	(void)head;
	fprintf(stderr, "qsbr callback ran\n");
}

static void exit_while_online(void *arg)
{
	static struct rcu_head head;

	(void)arg;
	rcu_qsbr_register_thread();
	rcu_qsbr_call_rcu(&head, say_ran);
	exit(0);
}

static void test_exit_online(void)
{
	char err[4096];
	int status = check_run_child(exit_while_online, NULL, err, sizeof(err));

	CHECK(status == 0, "exit while online: child status %#x, stderr: %s", status, err);
	CHECK(strstr(err, "qsbr callback ran") && !strstr(err, "still pending"),
	      "exit() from an online thread did not let the callbacks run: %s", err);
}

static atomic_bool child_stop;
static atomic_ulong child_reads;

static void *child_reader(void *arg)
{
	(void)arg;
	rcu_qsbr_register_thread();
	while (!atomic_load(&child_stop)) {
		rcu_qsbr_quiescent_state();
		atomic_fetch_add(&child_reads, 1);
	}
	rcu_qsbr_unregister_thread();
	return NULL;
}

static void fork_child(void *arg)
{
	static struct rcu_head head;
	pthread_t t[2];

	(void)arg;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, child_reader, NULL);
	/* The parent's holder is not here: nothing waits for it. */
	for (int i = 0; i < 100; i++)
		rcu_qsbr_synchronize_rcu();
	rcu_qsbr_call_rcu(&head, count_cb);
	rcu_qsbr_barrier();
	atomic_store(&child_stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	exit(atomic_load(&cb_runs) == 1 ? 0 : 2);
}

static void test_fork(void)
{
	char err[4096];
	int status;

	atomic_store(&cb_runs, 0);
	holder_start("qsbr-parent");
	status = check_run_child(fork_child, NULL, err, sizeof(err));
	CHECK(status == 0, "fork: child status %#x, stderr: %s", status, err);
	holder_finish();
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	CHECK(!rcu_qsbr_thread_online_p(), "main is online before registering");
	test_polled();
	test_call_rcu();
	test_offline_while();
	test_stall();
	test_thread_exit_online();
	test_exit_online();
	test_fork();
	test_stall_printed();
	printf("qsbr api: all checks passed\n");
	return 0;
}
