/*
 * domain_stress.c - the flavor domains' shared stress (domain_stress.h).
 * One domain a process: the state below is the running test's.
 */
#include "domain_stress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define READERS 3
#define UPDATERS 2
/* Sections spin up to this many times: long enough to catch a bad grace period. */
#define SECTION_SPIN 2000u
/* For the busted control: caught, or given (after 1.5 s) this many updates. */
#define BUSTED_UPDATES 20000

static const struct domain_stress *domain;
static struct domain_stress_elem *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates, callbacks;

static struct domain_stress_elem *new_elem(unsigned long seq)
{
	struct domain_stress_elem *e = malloc(sizeof(*e));

	CHECK(e, "out of memory");
	check_record_init(&e->rec, seq);
	return e;
}

void domain_stress_quarantine(struct domain_stress_elem *e)
{
	check_quarantine(e, sizeof(e->rec));
}

void domain_stress_callback(struct rcu_head *head)
{
	domain_stress_quarantine(container_of(head, struct domain_stress_elem, head));
	atomic_fetch_add_explicit(&callbacks, 1, memory_order_relaxed);
}

static void *reader(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	unsigned seed = (unsigned)i;
	char name[16];

	snprintf(name, sizeof(name), "%s-reader", domain->name);
	pthread_setname_np(pthread_self(), name);
	if (domain->reader_start)
		domain->reader_start(i);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (!domain->read(&current, rand_r(&seed) % SECTION_SPIN, &seed))
			atomic_fetch_add(&violations, 1);
		if (domain->after_read)
			domain->after_read(i, &seed);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	if (domain->reader_end)
		domain->reader_end(i);
	return NULL;
}

static void *updater(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	unsigned long seq = (unsigned long)i << 40;

	if (domain->updater_start)
		domain->updater_start(i);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		++seq;
		domain->retire(rcu_xchg_pointer(&current, new_elem(seq)), seq);
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	if (domain->updater_end)
		domain->updater_end(i);
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 100;
}

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	current = new_elem(0);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	domain->barrier();
	fprintf(stderr, "%lu reads, %lu updates, %lu callbacks, %lu violations\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&callbacks),
		atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	(void)arg;
	*domain->busted = true;
	atomic_store(&updates, 0);
	check_child_exit(run_stress(1500, busted_enough) ? 1 : 0);
}

int domain_stress_main(const struct domain_stress *d)
{
	domain = d;
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	CHECK(run_stress(1500, stress_enough) == 0, "%s readers saw freed objects", d->name);
	CHECK(atomic_load(&callbacks) > 0, "no %s callback ran", d->name);
	check_child_detects_violation(busted_child, NULL);
	printf("%s stress: all checks passed\n", d->name);
	return 0;
}
