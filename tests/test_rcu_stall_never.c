/*
 * The longest stall timeout, quiesce_rcu_set_stall_timeout_ms(UINT64_MAX)
 * (a caller's "never"), reports nothing while a reader holds a grace
 * period: the timeout in nanoseconds (ms times a million) must not wrap to
 * a deadline in the past, which reported at once and then on every turn of
 * the grace period's wait, with no sleep between.
 *
 * Deterministic: the grace period's wait looks at its warning deadline
 * before it first goes to sleep (writer_sleeping), so the test waits until
 * it sleeps, or until it reported, and then checks that it did not report.
 * The same for the report schedule the signal barrier uses
 * (quiesce_stall_clock), which must not be due at its start.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/stall.h"

static atomic_int reports;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	(void)stall;
	atomic_fetch_add(&reports, 1);
}

static void *synchronizer(void *unused)
{
	(void)unused;
	synchronize_rcu();
	return NULL;
}

static bool asleep_or_reported(void *unused)
{
	(void)unused;
	return QUIESCE_LOAD(&quiesce_rcu_gp_word.writer_sleeping) || atomic_load(&reports);
}

int main(void)
{
	struct quiesce_stall_clock clock;
	uint64_t waited_ns;
	pthread_t t;

	quiesce_rcu_set_stall_handler(on_stall);
	quiesce_rcu_set_stall_timeout_ms(UINT64_MAX);
	CHECK(quiesce_stall_timeout_ns() >= UINT64_C(21000) * 1000000u,
	      "the longest timeout is %llu ns", (unsigned long long)quiesce_stall_timeout_ns());

	check_hold_reader();
	CHECK(pthread_create(&t, NULL, synchronizer, NULL) == 0, "pthread_create");
	check_wait_until(asleep_or_reported, NULL, "the grace period going to sleep");
	CHECK(atomic_load(&reports) == 0,
	      "a grace period with the longest stall timeout reported %d stalls at once",
	      atomic_load(&reports));
	check_release_reader();
	check_join_within(t, CHECK_HANG_MS, "synchronize_rcu()");
	CHECK(atomic_load(&reports) == 0, "%d stall reports", atomic_load(&reports));
	quiesce_stall_clock_start(&clock);
	CHECK(!quiesce_stall_clock_due(&clock, &waited_ns),
	      "a report schedule of the longest timeout is due at its start");
	printf("rcu stall, longest timeout: all checks passed\n");
	return 0;
}
