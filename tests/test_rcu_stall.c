/*
 * A reader that holds a section while a grace period waits is reported, not
 * before the threshold, named by thread id, thread name and kind of domain
 * (the mb domain's too), and again only at doubling intervals.  The reader
 * holds its section until REPORTS reports have come, however late a loaded
 * machine makes them (CHECK_HANG_MS is the limit): the checks are on what the
 * reports say, never on how soon they come.  On the kernel backends
 * (membarrier, mprotect), a barrier call slower than the threshold (made slow
 * by a test hook) is reported once it returns, as the barrier phase's, for
 * the kernel; such reports from a loaded machine are counted apart from the
 * reader's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>

#include "check.h"
#include "rcu/gp_barrier.h"

#define THRESHOLD_MS 300
/* Reports the reader waits for: at 300, 900 and 2100 ms or later. */
#define REPORTS 3

static atomic_int reports, barrier_reports, stalled_tid;
static uint64_t first_report_ms, report_waits[16];
static char stalled_name[16], stalled_domain[16];
static atomic_int reader_ready;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	int n;

	if (stall->phase != QUIESCE_RCU_STALL_READER) {
		atomic_fetch_add(&barrier_reports, 1);
		return;
	}
	n = atomic_fetch_add(&reports, 1);

	if (n < 16)
		report_waits[n] = stall->waited_ms;
	if (n == 0) {
		first_report_ms = stall->waited_ms;
		atomic_store(&stalled_tid, stall->tid);
		snprintf(stalled_name, sizeof(stalled_name), "%s", stall->thread_name);
		snprintf(stalled_domain, sizeof(stalled_domain), "%s",
			 stall->domain ? stall->domain : "(null)");
	}
}

/* The reader leaves once the stall counter has grown by this much. */
static uint64_t warnings_before;
static unsigned warnings_wanted;

static bool warned_enough(void *unused)
{
	return check_stall_warnings() - warnings_before >= warnings_wanted;
}

/* Whether the next stuck reader holds an mb section, whose reports name that domain. */
static bool reader_in_mb;

static void *stuck_reader(void *arg)
{
	pthread_setname_np(pthread_self(), reader_in_mb ? "stuck-mb-reader" : "stuck-reader");
	*(int *)arg = (int)syscall(SYS_gettid);
	if (reader_in_mb)
		rcu_mb_read_lock();
	else
		rcu_read_lock();
	atomic_store(&reader_ready, 1);
	check_wait_until(warned_enough, NULL, "the stalled grace period was never reported");
	if (reader_in_mb)
		rcu_mb_read_unlock();
	else
		rcu_read_unlock();
	return NULL;
}

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

/* A registered thread outside any section: the barrier is issued for it. */
static atomic_bool idle_ready, idle_stop;

static void *idle_reader(void *unused)
{
	rcu_register_thread();
	atomic_store(&idle_ready, true);
	while (!atomic_load(&idle_stop))
		check_sleep_us(1000);
	return NULL;
}

/* A kernel barrier call of 2.5 thresholds is reported once, after it returns. */
static void slow_kernel_barrier(void)
{
	pthread_t t;

	pthread_create(&t, NULL, idle_reader, NULL);
	while (!atomic_load(&idle_ready))
		check_sleep_us(100);
	quiesce_rcu_set_stall_handler(on_barrier_stall);
	atomic_store(&barrier_reports, 0);
	quiesce_test_slow_barrier_ms = 5 * THRESHOLD_MS / 2;
	synchronize_rcu_expedited();
	quiesce_test_slow_barrier_ms = 0;
	quiesce_rcu_set_stall_handler(NULL);
	atomic_store(&idle_stop, true);
	pthread_join(t, NULL);
	fprintf(stderr, "barrier stall: %s\n", barrier_detail);
	CHECK(atomic_load(&barrier_reports) >= 1, "no barrier stall report for a slow call");
	CHECK(barrier_tid == 0, "a kernel call's report names thread %d", barrier_tid);
	CHECK(barrier_waited_ms >= 5 * THRESHOLD_MS / 2, "reported after %lu ms",
	      (unsigned long)barrier_waited_ms);
	CHECK(strstr(barrier_detail, quiesce_rcu_backend_name()),
	      "the report does not name the call: %s", barrier_detail);
}

/* Starts a stuck reader (an mb one if mb), which leaves after n reports. */
static void start_stuck_reader(bool mb, pthread_t *t, int *tid, unsigned n)
{
	reader_in_mb = mb;
	warnings_before = check_stall_warnings();
	warnings_wanted = n;
	atomic_store(&reader_ready, 0);
	pthread_create(t, NULL, stuck_reader, tid);
}

/* arg: whether the reader and the grace period are the mb domain's. */
static void default_printer(void *arg)
{
	bool mb = arg != NULL;
	pthread_t t;
	int tid;

	quiesce_rcu_set_stall_timeout_ms(200);
	start_stuck_reader(mb, &t, &tid, 1);
	while (!atomic_load(&reader_ready))
		check_sleep_us(100);
	if (mb)
		synchronize_rcu_mb();
	else
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
	start_stuck_reader(false, &t, &tid, REPORTS);
	while (!atomic_load(&reader_ready))
		check_sleep_us(100);
	start = check_now_ns();
	synchronize_rcu();
	elapsed_ms = (check_now_ns() - start) / 1000000u;
	pthread_join(t, NULL);

	fprintf(stderr, "grace period waited %lu ms; %d reports, first at %lu ms\n",
		(unsigned long)elapsed_ms, atomic_load(&reports), (unsigned long)first_report_ms);
	CHECK(atomic_load(&reports) >= REPORTS, "%d stall reports, %d expected",
	      atomic_load(&reports), REPORTS);
	CHECK(first_report_ms >= THRESHOLD_MS, "first report at %lu ms, before the %d ms threshold",
	      (unsigned long)first_report_ms, THRESHOLD_MS);
	CHECK(atomic_load(&stalled_tid) == tid, "report names tid %d, reader is %d",
	      atomic_load(&stalled_tid), tid);
	CHECK(!strcmp(stalled_name, "stuck-reader"), "report names \"%s\"", stalled_name);
	CHECK(!strcmp(stalled_domain, "RCU"), "report names the domain \"%s\"", stalled_domain);
	/*
	 * Doubling intervals: report i comes at least THRESHOLD_MS << i after
	 * report i - 1 (the interval counts from when that one was made, so a
	 * late report never shortens the next interval).
	 */
	for (int i = 1; i < atomic_load(&reports) && i < 16; i++)
		CHECK(report_waits[i] - report_waits[i - 1] >= (uint64_t)THRESHOLD_MS << i,
		      "report %d came %llu ms after the previous one, before %d ms", i,
		      (unsigned long long)(report_waits[i] - report_waits[i - 1]),
		      THRESHOLD_MS << i);
	quiesce_rcu_get_stats(&stats);
	CHECK(stats.stall_warnings ==
		      (uint64_t)atomic_load(&reports) + (uint64_t)atomic_load(&barrier_reports),
	      "stall counter");

	quiesce_rcu_set_stall_handler(NULL);
	if (quiesce_rcu_backend() != QUIESCE_RCU_BACKEND_SIGNAL)
		slow_kernel_barrier();
	status = check_run_child(default_printer, NULL, err, sizeof(err));
	CHECK(status == 0, "child status %#x", status);
	CHECK(strstr(err, "quiesce: RCU stall: thread") && strstr(err, "(\"stuck-reader\")"),
	      "the default printer names the thread: %s", err);
	status = check_run_child(default_printer, (void *)1, err, sizeof(err));
	CHECK(status == 0, "mb child status %#x", status);
	CHECK(strstr(err, "quiesce: RCU-mb stall: thread") && strstr(err, "(\"stuck-mb-reader\")"),
	      "the default printer names the mb domain and the thread: %s", err);
	printf("rcu stall: all checks passed\n");
	return 0;
}
