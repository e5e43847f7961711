/*
 * Grace periods that end with no barrier (src/rcu/gp_engine.c, "No barrier
 * when the readers are busy"): one reader runs in and out of sections while
 * one updater replaces the object it reads and frees the old one after
 * each grace period (poisoned and quarantined, as in test_rcu_stress.c).
 * The run lasts until some grace periods ended with no barrier, so that
 * the check covers them, and no reader may see a freed object.  Under
 * valgrind, which runs one thread at a time, the reader never moves while
 * a grace period polls for it, so no grace period ends that way and the
 * run only checks the others.  The broken control, a poll that counts
 * every reader as past the flip whatever its counter says, must be caught.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_engine.h"

#define NO_BARRIER_WANTED 100u
#define BUSTED_UPDATES 20000

static struct check_record *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates;
static uint64_t no_barrier_at_start;
static unsigned reader_spin_max;

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (!check_record_read(&current, rand_r(&seed) % reader_spin_max,
				       rand_r(&seed) % 4 == 0))
			atomic_fetch_add(&violations, 1);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		++seq;
		check_record_replace(&current, seq, seq % 3 == 0);
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	return NULL;
}

/* The engine's own count (not in struct quiesce_rcu_stats, whose layout is ABI). */
static uint64_t no_barrier_grace_periods(void)
{
	return __atomic_load_n(&quiesce_rcu_domain.gp_no_barrier, __ATOMIC_RELAXED);
}

static bool under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload");
}

static bool enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 1000 &&
	       (under_valgrind() ||
		no_barrier_grace_periods() - no_barrier_at_start >= NO_BARRIER_WANTED);
}

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run(unsigned ms, bool (*until)(void), int readers)
{
	atomic_store(&reads, 0);
	atomic_store(&updates, 0);
	no_barrier_at_start = no_barrier_grace_periods();
	current = check_record_new(0);
	check_run_until(ms, until, &stop, readers, reader, 1, updater);
	fprintf(stderr, "%lu reads, %lu updates, %lu violations, %lu grace periods with no barrier\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&violations),
		(unsigned long)(no_barrier_grace_periods() - no_barrier_at_start));
	return atomic_load(&violations);
}

/* Readers stay a while in each section, so that a grace period catches some inside. */
static void busted_child(void *arg)
{
	(void)arg;
	quiesce_test_busted_past_flip = true;
	reader_spin_max = 2000;
	exit(run(1500, busted_enough, 2) ? 1 : 0);
}

int main(void)
{
	/* Short sections: the reader passes each flip soon after it. */
	reader_spin_max = 200;
	CHECK(run(1000, enough, 1) == 0, "the reader saw freed objects");
	check_child_detects_violation(busted_child, NULL);
	printf("rcu no-barrier grace periods: all checks passed\n");
	return 0;
}
