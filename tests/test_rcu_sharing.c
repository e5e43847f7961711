/*
 * Concurrent synchronize_rcu() callers share grace periods: many calls,
 * fewer grace periods.  A reader keeps each grace period busy for a while,
 * so that callers pile up behind it.
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
		check_sleep_us(50);
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

int main(void)
{
	pthread_t reader, callers[CALLERS];
	struct quiesce_rcu_stats before, after;
	uint64_t calls, gps;

	pthread_create(&reader, NULL, busy_reader, NULL);
	quiesce_rcu_get_stats(&before);
	for (uintptr_t i = 0; i < CALLERS; i++)
		pthread_create(&callers[i], NULL, caller, (void *)i);
	for (int i = 0; i < CALLERS; i++)
		pthread_join(callers[i], NULL);
	quiesce_rcu_get_stats(&after);
	atomic_store(&stop, true);
	pthread_join(reader, NULL);

	calls = after.sync_calls - before.sync_calls;
	gps = (after.gp_normal - before.gp_normal) + (after.gp_expedited - before.gp_expedited);
	fprintf(stderr, "%lu calls served by %lu grace periods\n", (unsigned long)calls,
		(unsigned long)gps);
	CHECK(calls == CALLERS * CALLS_EACH, "every call counted");
	CHECK(gps * 2 <= calls, "callers did not share grace periods (%lu for %lu calls)",
	      (unsigned long)gps, (unsigned long)calls);
	printf("rcu sharing: all checks passed\n");
	return 0;
}
