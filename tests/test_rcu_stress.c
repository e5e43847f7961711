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
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_engine.h"

#define READERS 3
#define UPDATERS 2

struct elem {
	struct check_record rec;
};

static struct elem *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates;

static struct elem *new_elem(unsigned long seq)
{
	struct elem *e = malloc(sizeof(*e));

	check_record_init(&e->rec, seq);
	return e;
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *e;
		unsigned spin = rand_r(&seed) % 2000;

		rcu_read_lock();
		e = rcu_dereference(current);
		if (rand_r(&seed) % 4 == 0) {
			/* A nested section must not end protection early. */
			rcu_read_lock();
			rcu_read_unlock();
		}
		for (unsigned i = 0; i < spin; i++)
			quiesce_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		rcu_read_unlock();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *old = rcu_xchg_pointer(&current, new_elem(++seq));

		if (seq % 3 == 0)
			synchronize_rcu_expedited();
		else
			synchronize_rcu();
		check_quarantine(old, sizeof(*old));
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
	current = new_elem(0);
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
