/*
 * The library's own threads after the program's own constructor used the
 * library first, then pinned itself.  Tests link the static library, whose
 * constructors have priorities (src/common/init_order.h); this one has the
 * first priority, as a program's may, so it runs before them.  The CPU set
 * the library's threads get is the one the process had when the library
 * was first used (src/common/lib_thread.c), not the pinned set its
 * constructor would read afterwards: every "quiesce-" thread, the ones
 * started in main() included, must have the set the process started with.
 */
#include <sched.h>
#include <string.h>

#include <quiesce/defer.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>

#include "check.h"

static struct rcu_head head, mb_head;
static cpu_set_t start;
static bool pinned;

static void nothing(struct rcu_head *h)
{
	(void)h;
}

static void nothing_deferred(void *p)
{
	(void)p;
}

__attribute__((constructor(101))) static void use_then_pin(void)
{
	cpu_set_t one;
	int cpu = 0;

	CHECK(sched_getaffinity(0, sizeof(start), &start) == 0, "sched_getaffinity");
	call_rcu(&head, nothing);	/* first use: the default callback thread */
	if (CPU_COUNT(&start) < 2)
		return;
	while (!CPU_ISSET(cpu, &start))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "pinning the main thread");
	pinned = true;
}

/* A library thread runs on the start set. */
static void check_lib_thread(const char *tid, const char *name, void *arg)
{
	cpu_set_t cpus;

	(void)arg;
	CHECK(sched_getaffinity(atoi(tid), sizeof(cpus), &cpus) == 0, "sched_getaffinity(%s)",
	      name);
	CHECK(CPU_EQUAL(&cpus, &start),
	      "%s runs on %d CPUs, not the process's %d: the set was read after the program "
	      "pinned itself", name, CPU_COUNT(&cpus), CPU_COUNT(&start));
}

int main(void)
{
	int found;

	if (!pinned) {
		printf("lib_threads_early: one allowed CPU, nothing to tell apart\n");
		return 0;
	}
	quiesce_call_rcu_mb(&mb_head, nothing);
	quiesce_defer_rcu(nothing_deferred, NULL);
	found = check_each_lib_thread(check_lib_thread, NULL);
	CHECK(found >= 3, "found %d library threads, expected the callback threads and "
	      "the flusher", found);
	quiesce_defer_barrier();
	rcu_barrier();
	quiesce_rcu_barrier_mb();
	printf("lib_threads_early: %d library threads on the process's %d CPUs\n", found,
	       CPU_COUNT(&start));
	return 0;
}
