/*
 * A reader that holds a section while a grace period waits is reported
 * within the threshold plus one second, named by thread id and name, and
 * again only at growing intervals.  On the kernel backends (membarrier,
 * mprotect), a barrier call slower than the threshold (made slow by a test
 * hook) is reported once it returns, as the barrier phase's, for the kernel.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_barrier.h"

#define THRESHOLD_MS 300
#define HOLD_MS 2600

static atomic_int reports, stalled_tid;
static uint64_t first_report_ms, report_waits[16];
static char stalled_name[16];
static atomic_int reader_ready;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	int n = atomic_fetch_add(&reports, 1);

	if (n < 16)
		report_waits[n] = stall->waited_ms;
	if (n == 0) {
		first_report_ms = stall->waited_ms;
		atomic_store(&stalled_tid, stall->tid);
		snprintf(stalled_name, sizeof(stalled_name), "%s", stall->thread_name);
	}
}

static void *stuck_reader(void *arg)
{
	pthread_setname_np(pthread_self(), "stuck-reader");
	*(int *)arg = (int)syscall(SYS_gettid);
	rcu_read_lock();
	atomic_store(&reader_ready, 1);
	check_sleep_us(HOLD_MS * 1000);
	rcu_read_unlock();
	return NULL;
}

static atomic_int barrier_reports;
static uint64_t barrier_waited_ms;
static int barrier_tid = -1;
static char barrier_detail[256];

static void on_barrier_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->phase != QUIESCE_RCU_STALL_BARRIER)
		return;
	barrier_waited_ms = stall->waited_ms;
	barrier_tid = stall->tid;
	snprintf(barrier_detail, sizeof(barrier_detail), "%s", stall->detail);
	atomic_fetch_add(&barrier_reports, 1);
}

/* A kernel barrier call of 2.5 thresholds is reported once, after it returns. */
static void slow_kernel_barrier(void)
{
	quiesce_rcu_set_stall_handler(on_barrier_stall);
	quiesce_test_slow_barrier_ms = 5 * THRESHOLD_MS / 2;
	synchronize_rcu_expedited();
	quiesce_test_slow_barrier_ms = 0;
	quiesce_rcu_set_stall_handler(NULL);
	fprintf(stderr, "barrier stall: %s\n", barrier_detail);
	CHECK(atomic_load(&barrier_reports) == 1, "%d barrier stall reports for one slow call",
	      atomic_load(&barrier_reports));
	CHECK(barrier_tid == 0, "a kernel call's report names thread %d", barrier_tid);
	CHECK(barrier_waited_ms >= 5 * THRESHOLD_MS / 2, "reported after %lu ms",
	      (unsigned long)barrier_waited_ms);
	CHECK(strstr(barrier_detail, quiesce_rcu_backend_name()),
	      "the report does not name the call: %s", barrier_detail);
}

static void default_printer(void *arg)
{
	pthread_t t;
	int tid;

	quiesce_rcu_set_stall_timeout_ms(200);
	atomic_store(&reader_ready, 0);
	pthread_create(&t, NULL, stuck_reader, &tid);
	while (!atomic_load(&reader_ready))
		check_sleep_us(100);
	synchronize_rcu();
	pthread_join(t, NULL);
}

int main(void)
{
	pthread_t t;
	int tid = 0;
	uint64_t start, elapsed_ms;
	struct quiesce_rcu_stats stats;
	char err[4096];
	int status;

	quiesce_rcu_set_stall_timeout_ms(THRESHOLD_MS);
	quiesce_rcu_set_stall_handler(on_stall);
	pthread_create(&t, NULL, stuck_reader, &tid);
	while (!atomic_load(&reader_ready))
		check_sleep_us(100);
	start = check_now_ns();
	synchronize_rcu();
	elapsed_ms = (check_now_ns() - start) / 1000000u;
	pthread_join(t, NULL);

	fprintf(stderr, "grace period waited %lu ms; %d reports, first at %lu ms\n",
		(unsigned long)elapsed_ms, atomic_load(&reports), (unsigned long)first_report_ms);
	CHECK(atomic_load(&reports) >= 1, "no stall reported");
	CHECK(first_report_ms >= THRESHOLD_MS && first_report_ms <= THRESHOLD_MS + 1000,
	      "first report at %lu ms, threshold %d ms", (unsigned long)first_report_ms,
	      THRESHOLD_MS);
	CHECK(atomic_load(&stalled_tid) == tid, "report names tid %d, reader is %d",
	      atomic_load(&stalled_tid), tid);
	CHECK(!strcmp(stalled_name, "stuck-reader"), "report names \"%s\"", stalled_name);
	/* Doubling intervals: 300, 600, 1200 ms ... at most 4 in 2.6 s. */
	CHECK(atomic_load(&reports) <= 4, "stall reports flood: %d", atomic_load(&reports));
	for (int i = 1; i < atomic_load(&reports) && i < 16; i++)
		CHECK(report_waits[i] - report_waits[i - 1] >= report_waits[i - 1] / 2 + THRESHOLD_MS / 2,
		      "report %d came too soon after the previous one", i);
	quiesce_rcu_get_stats(&stats);
	CHECK(stats.stall_warnings == (uint64_t)atomic_load(&reports), "stall counter");

	quiesce_rcu_set_stall_handler(NULL);
	if (quiesce_rcu_backend() != QUIESCE_RCU_BACKEND_SIGNAL)
		slow_kernel_barrier();
	status = check_run_child(default_printer, NULL, err, sizeof(err));
	CHECK(status == 0, "child status %#x", status);
	CHECK(strstr(err, "RCU stall: thread") && strstr(err, "(\"stuck-reader\")"),
	      "the default printer names the thread: %s", err);
	printf("rcu stall: all checks passed\n");
	return 0;
}
