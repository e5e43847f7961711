/*
 * shuffle.c - the affinity fault: moves readers and writers to random
 * subsets of the CPUs this process may use, so that a thread migrates in
 * the middle of a section and caches and CPU sets keep changing.  It
 * names its targets by pthread_t, so it stops with the writers and run.c
 * joins it before them.
 */
#include <sched.h>
#include <stdlib.h>

#include "faults.h"
#include "torture.h"

#define SHUFFLE_GAP_NS_MIN 5000000u
#define SHUFFLE_GAP_NS_SPAN 45000000u

static void random_subset(struct torture_thread *self, const cpu_set_t *allowed, cpu_set_t *out)
{
	do {
		CPU_ZERO(out);
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, allowed) && (torture_random(self) & 1))
				CPU_SET(cpu, out);
	} while (!CPU_COUNT(out));
}

/*
 * No thread this one names may have been joined: its pthread_t would point
 * into a stack that glibc may have unmapped or given to a new thread.  A
 * check of the shutdown order in run.c, not a guard: only that order
 * keeps the handles valid.
 */
static void check_targets_live(struct torture_run *run)
{
	for (unsigned i = 0; i < run->opt->readers + run->opt->writers; i++) {
		struct torture_thread *t = i < run->opt->readers ? &run->readers[i]
								 : &run->writers[i - run->opt->readers];

		if (QUIESCE_LOAD(&t->finished)) {
			fprintf(stderr, "quiesce-torture: internal error: the shuffle fault still "
				"runs after %s was joined\n", t->name);
			abort();
		}
	}
}

void *torture_shuffle_main(void *arg)
{
	struct torture_thread *self = arg;
	struct torture_run *run = self->run;
	unsigned n = run->opt->readers + run->opt->writers;
	cpu_set_t allowed, set;

	pthread_setname_np(pthread_self(), self->name);
	/*
	 * With one CPU to choose from nothing ever moves: no affinity change
	 * is counted, and the run fails as unchecked (evidence.c).
	 */
	if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) < 2) {
		fprintf(stderr, "quiesce-torture: shuffle: fewer than two CPUs to move threads "
			"between\n");
		return NULL;
	}
	/* Stops with the writers, which run.c joins only after this thread. */
	while (!QUIESCE_LOAD(&run->writers_stop)) {
		unsigned i = (unsigned)(torture_random(self) % n);
		struct torture_thread *t = i < run->opt->readers ? &run->readers[i]
								 : &run->writers[i - run->opt->readers];

		check_targets_live(run);
		random_subset(self, &allowed, &set);
		/* Workers are joined only after this thread: the target lives. */
		if (!pthread_setaffinity_np(t->thread, sizeof(set), &set))
			__atomic_fetch_add(&run->shuffles, 1, __ATOMIC_RELAXED);
		torture_sleep_ns(SHUFFLE_GAP_NS_MIN + torture_random(self) % SHUFFLE_GAP_NS_SPAN);
	}
	return NULL;
}
