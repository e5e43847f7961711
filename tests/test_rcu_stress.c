/*
 * Readers traverse an RCU-protected object while updaters replace it and
 * free the old one after a grace period.  A retired object is poisoned and
 * kept in quarantine for a while before it is really freed, so a reader
 * that still holds it sees the poison; the busted control (grace periods
 * that do not wait) must be caught.
 *
 * Then grace periods that end with no barrier (src/rcu/gp_engine.c, "No
 * barrier when the readers are busy"): one reader in short sections, one
 * updater, until some grace periods ended that way, so that the check
 * covers them.  On one CPU, or under valgrind, which runs one thread at
 * a time, the reader never moves while a grace period polls for it, so
 * none does and that run checks only the others.  Its broken control, a
 * poll that counts every reader as past the flip whatever its counter
 * says, must be caught.
 *
 * Then updaters that read too, and no other thread: while one runs a grace
 * period the other is often asleep in synchronize_rcu(), which the poll
 * counts as past the flip (src/rcu/rcu_domain.c, "Callers that wait"), so
 * that grace periods end with no barrier on one CPU too.  The same broken
 * control must be caught there.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_engine.h"

#define READERS 3
#define UPDATERS 2
/* Sections spin up to this many times: long enough to catch a bad grace period. */
#define LONG_SECTIONS 2000u
/* Short enough that a busy reader passes each flip soon after it. */
#define SHORT_SECTIONS 200u
#define NO_BARRIER_WANTED 100u

static struct check_record *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates;
static unsigned section_spin = LONG_SECTIONS;
static uint64_t no_barrier_at_start;
/*
 * Whether the reader can run while a grace period polls for it: two CPUs,
 * and not valgrind, which runs one thread at a time.
 */
static bool no_barrier_possible;

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned spin = rand_r(&seed) % section_spin;

		if (!check_record_read(&current, spin, rand_r(&seed) % 4 == 0))
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

/* A section, then a replacement: an updater that reads, as most do. */
static void *reading_updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;
	unsigned seed = (unsigned)seq;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (!check_record_read(&current, rand_r(&seed) % section_spin, rand_r(&seed) % 4 == 0))
			atomic_fetch_add(&violations, 1);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
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

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 100;
}

static bool no_barrier_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 1000 &&
	       (!no_barrier_possible ||
		no_barrier_grace_periods() - no_barrier_at_start >= NO_BARRIER_WANTED);
}

/*
 * For the busted controls: caught, or given (after 1.5 s) at least this
 * many updates, however long a slow machine takes for them.
 */
#define BUSTED_UPDATES 20000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

/* The stage's updaters, and the readers beside them in its broken control. */
static void *(*updater_fn)(void *) = updater;
static int busted_readers = READERS;

static unsigned long run_stress(unsigned ms, bool (*enough)(void), int readers, int updaters)
{
	atomic_store(&reads, 0);
	atomic_store(&updates, 0);
	no_barrier_at_start = no_barrier_grace_periods();
	current = check_record_new(0);
	check_run_until(ms, enough, &stop, readers, reader, updaters, updater_fn);
	fprintf(stderr, "%lu reads, %lu updates, %lu violations, %lu grace periods with no barrier\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&violations),
		(unsigned long)(no_barrier_grace_periods() - no_barrier_at_start));
	free(current);	/* every thread was joined: no reader holds it */
	current = NULL;
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	*(bool *)arg = true;
	section_spin = LONG_SECTIONS;
	check_child_exit(run_stress(1500, busted_enough, busted_readers, UPDATERS) ? 1 : 0);
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	/* At least 1.5 s, and until readers and updaters made progress. */
	CHECK(run_stress(1500, stress_enough, READERS, UPDATERS) == 0, "readers saw freed objects");
	check_child_detects_violation(busted_child, &quiesce_test_busted_gp);
	section_spin = SHORT_SECTIONS;
	no_barrier_possible = check_allowed_cpus() >= 2 && !check_under_valgrind();
	CHECK(run_stress(1000, no_barrier_enough, 1, 1) == 0,
	      "the reader saw freed objects (grace periods with no barrier)");
	check_child_detects_violation(busted_child, &quiesce_test_busted_past_flip);
	updater_fn = reading_updater;
	busted_readers = 0;
	CHECK(run_stress(1000, no_barrier_enough, 0, UPDATERS) == 0,
	      "an updater saw freed objects (grace periods past threads that wait)");
	check_child_detects_violation(busted_child, &quiesce_test_busted_past_flip);
	printf("rcu stress: all checks passed\n");
	return 0;
}
