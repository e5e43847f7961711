/*
 * A reader that holds a section while a grace period waits is reported,
 * not before the threshold, named by thread id and name, and again only at
 * doubling intervals.  The reader holds its section until REPORTS reports
 * have come, however late a loaded machine makes them (CHECK_HANG_MS is
 * the limit): the checks are on what the reports say, never on how soon
 * they come.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define THRESHOLD_MS 300
/* Reports the reader waits for: at 300, 900 and 2100 ms or later. */
#define REPORTS 3

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

static uint64_t stall_warnings(void)
{
	struct quiesce_rcu_stats stats;

	quiesce_rcu_get_stats(&stats);
	return stats.stall_warnings;
}

/* The reader leaves once the stall counter has grown by this much. */
static uint64_t warnings_before;
static unsigned warnings_wanted;

static bool warned_enough(void *unused)
{
	return stall_warnings() - warnings_before >= warnings_wanted;
}

static void *stuck_reader(void *arg)
{
	pthread_setname_np(pthread_self(), "stuck-reader");
	*(int *)arg = (int)syscall(SYS_gettid);
	rcu_read_lock();
	atomic_store(&reader_ready, 1);
	check_wait_until(warned_enough, NULL, "the stalled grace period was never reported");
	rcu_read_unlock();
	return NULL;
}

/* Starts the stuck reader, which leaves after n reports. */
static void start_stuck_reader(pthread_t *t, int *tid, unsigned n)
{
	warnings_before = stall_warnings();
	warnings_wanted = n;
	atomic_store(&reader_ready, 0);
	pthread_create(t, NULL, stuck_reader, tid);
}

static void default_printer(void *arg)
{
	pthread_t t;
	int tid;

	quiesce_rcu_set_stall_timeout_ms(200);
	start_stuck_reader(&t, &tid, 1);
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
	start_stuck_reader(&t, &tid, REPORTS);
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
	CHECK(stats.stall_warnings == (uint64_t)atomic_load(&reports), "stall counter");

	quiesce_rcu_set_stall_handler(NULL);
	status = check_run_child(default_printer, NULL, err, sizeof(err));
	CHECK(status == 0, "child status %#x", status);
	CHECK(strstr(err, "RCU stall: thread") && strstr(err, "(\"stuck-reader\")"),
	      "the default printer names the thread: %s", err);
	printf("rcu stall: all checks passed\n");
	return 0;
}
