/*
 * Concurrent synchronize_rcu() callers share grace periods: callers that
 * arrive while one grace period waits for a long reader are all released
 * by the next one.  The reader holds its section until every caller has
 * entered synchronize_rcu() (the sync_calls count), whatever the time
 * that takes, and a while longer for the last to take its snapshot.  Then
 * under load (a reader keeps each grace period busy for a while) every
 * call completes and is counted; how many grace periods they share there
 * depends on timing, so it is printed, not checked.
 */
#include <pthread.h>
#include <stdatomic.h>

#include <quiesce/rcu.h>

#include "check.h"

#define CALLERS 8
#define CALLS_EACH 40

static atomic_bool stop;

static void *busy_reader(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		rcu_read_lock();
		check_sleep_us(1000);
		rcu_read_unlock();
	}
	return NULL;
}

static void *caller(void *arg)
{
	bool expedited = (uintptr_t)arg & 1;

	for (int i = 0; i < CALLS_EACH; i++) {
		if (expedited)
			synchronize_rcu_expedited();
		else
			synchronize_rcu();
	}
	return NULL;
}

static atomic_int long_reader_inside;
static uint64_t calls_before;	/* sync_calls before the callers start */

static bool all_callers_inside(void *unused)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return s.sync_calls - calls_before >= CALLERS;
}

static void *long_reader(void *arg)
{
	rcu_read_lock();
	atomic_store(&long_reader_inside, 1);
	check_wait_until(all_callers_inside, NULL, "callers never entered synchronize_rcu()");
	/* From its count to its snapshot, a caller runs a few instructions. */
	check_sleep_us(300000);
	rcu_read_unlock();
	return NULL;
}

static void *single_caller(void *arg)
{
	if ((uintptr_t)arg & 1)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
	return NULL;
}

static void test_exact_sharing(void)
{
	pthread_t reader, callers[CALLERS];
	struct quiesce_rcu_stats before, after;
	uint64_t gps;

	/* Before the reader starts: nothing runs a grace period until the callers. */
	quiesce_rcu_get_stats(&before);
	calls_before = before.sync_calls;
	pthread_create(&reader, NULL, long_reader, NULL);
	while (!atomic_load(&long_reader_inside))
		check_sleep_us(100);
	for (uintptr_t i = 0; i < CALLERS; i++)
		pthread_create(&callers[i], NULL, single_caller, (void *)i);
	for (int i = 0; i < CALLERS; i++)
		check_join_within(callers[i], CHECK_HANG_MS, "a caller behind a long reader");
	pthread_join(reader, NULL);
	quiesce_rcu_get_stats(&after);
	gps = (after.gp_normal - before.gp_normal) + (after.gp_expedited - before.gp_expedited);
	fprintf(stderr, "%d callers behind a long reader: %lu grace periods\n", CALLERS,
		(unsigned long)gps);
	/*
	 * The one the first caller started, and the one that serves the rest
	 * (or only the first, had every caller taken its snapshot before the
	 * first grace period began).
	 */
	CHECK(gps >= 1 && gps <= 2, "%lu grace periods for %d callers that overlapped",
	      (unsigned long)gps, CALLERS);
}

int main(void)
{
	pthread_t reader, callers[CALLERS];
	struct quiesce_rcu_stats before, after;
	uint64_t calls, gps;

	test_exact_sharing();

	pthread_create(&reader, NULL, busy_reader, NULL);
	quiesce_rcu_get_stats(&before);
	for (uintptr_t i = 0; i < CALLERS; i++)
		pthread_create(&callers[i], NULL, caller, (void *)i);
	for (int i = 0; i < CALLERS; i++)
		check_join_within(callers[i], CHECK_HANG_MS, "a caller under load");
	quiesce_rcu_get_stats(&after);
	atomic_store(&stop, true);
	pthread_join(reader, NULL);

	calls = after.sync_calls - before.sync_calls;
	gps = (after.gp_normal - before.gp_normal) + (after.gp_expedited - before.gp_expedited);
	fprintf(stderr, "%lu calls served by %lu grace periods\n", (unsigned long)calls,
		(unsigned long)gps);
	CHECK(calls == CALLERS * CALLS_EACH, "every call counted");
	printf("rcu sharing: all checks passed\n");
	return 0;
}
