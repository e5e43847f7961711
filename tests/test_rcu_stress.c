/*
 * Readers traverse an RCU-protected object while updaters replace it and
 * free the old one after a grace period.  A retired object is poisoned and
 * kept in quarantine for a while before it is really freed, so a reader
 * that still holds it sees the poison; the busted control (grace periods
 * that do not wait) must be caught.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_engine.h"

#define READERS 3
#define UPDATERS 2

static struct check_record *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates;

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned spin = rand_r(&seed) % 2000;

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

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 100;
}

/*
 * For the busted control: caught, or given (after 1.5 s) at least this many
 * updates, however long a slow machine takes for them.
 */
#define BUSTED_UPDATES 20000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	current = check_record_new(0);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	fprintf(stderr, "%lu reads, %lu updates, %lu violations\n", atomic_load(&reads),
		atomic_load(&updates), atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	quiesce_test_busted_gp = true;
	atomic_store(&updates, 0);
	exit(run_stress(1500, busted_enough) ? 1 : 0);
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	/* At least 1.5 s, and until readers and updaters made progress. */
	CHECK(run_stress(1500, stress_enough) == 0, "readers saw freed objects");
	check_child_detects_violation(busted_child, NULL);
	printf("rcu stress: all checks passed\n");
	return 0;
}
