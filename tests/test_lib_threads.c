/*
 * The library's own threads (the callback threads, the deferral flusher)
 * serve the whole process, so they must not inherit what belongs to the
 * program thread that happened to start them (src/common/lib_thread.c):
 * here that thread is pinned to one CPU before its first call_rcu() and
 * defer_rcu(), and every "quiesce-" thread must still have the CPU set the
 * process started with, and the program's signals blocked.
 *
 * The control: a plain thread created by the same pinned thread is pinned,
 * so the check below does see an inherited set.  On a process with one
 * allowed CPU there is nothing to tell apart, and the test says so.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/defer.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>

#include "check.h"

static struct rcu_head head, mb_head;

static void nothing(struct rcu_head *h)
{
}

static void nothing_deferred(void *p)
{
}

static void *pinned_child(void *arg)
{
	cpu_set_t *out = arg;

	CHECK(sched_getaffinity(0, sizeof(*out), out) == 0, "sched_getaffinity");
	return NULL;
}

/* Whether /proc/self/task/<tid>/status shows the usual signals blocked. */
static bool all_signals_blocked(const char *tid)
{
	char path[300], line[256];
	bool all = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", tid);
	f = fopen(path, "r");
	CHECK(f, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "SigBlk:", 7) == 0) {
			/*
			 * The signals a program handles (the C library keeps
			 * two of its own unblocked, and SIGKILL and SIGSTOP
			 * cannot be blocked).
			 */
			const int sigs[] = { SIGHUP, SIGINT, SIGALRM, SIGTERM, SIGCHLD,
						    SIGUSR1, SIGUSR2, SIGPIPE, SIGRTMIN + 4 };
			unsigned long long mask = strtoull(line + 7, NULL, 16);

			all = true;
			for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
				all &= (mask >> (sigs[i] - 1)) & 1;
		}
	}
	fclose(f);
	return all;
}

/* A library thread runs on the start set and blocks the process's signals. */
static void check_lib_thread(const char *tid, const char *name, void *start)
{
	cpu_set_t cpus;

	CHECK(sched_getaffinity(atoi(tid), sizeof(cpus), &cpus) == 0, "sched_getaffinity(%s)",
	      name);
	CHECK(CPU_EQUAL(&cpus, (cpu_set_t *)start),
	      "%s runs on %d CPUs, not the process's %d: it inherited its starter's set", name,
	      CPU_COUNT(&cpus), CPU_COUNT((cpu_set_t *)start));
	CHECK(all_signals_blocked(tid), "%s does not block the process's signals", name);
}

int main(void)
{
	cpu_set_t start, one, inherited;
	pthread_t child;
	int cpu = 0, found;

	CHECK(sched_getaffinity(0, sizeof(start), &start) == 0, "sched_getaffinity");
	if (CPU_COUNT(&start) < 2) {
		printf("lib_threads: one allowed CPU, nothing to tell apart\n");
		return 0;
	}
	while (!CPU_ISSET(cpu, &start))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "pinning the main thread");

	/* The control: a thread started the ordinary way inherits the pin. */
	pthread_create(&child, NULL, pinned_child, &inherited);
	pthread_join(child, NULL);
	CHECK(CPU_EQUAL(&inherited, &one), "a plain thread did not inherit the pin");

	call_rcu(&head, nothing);
	quiesce_call_rcu_mb(&mb_head, nothing);
	quiesce_defer_rcu(nothing_deferred, NULL);
	found = check_each_lib_thread(check_lib_thread, &start);
	CHECK(found >= 3, "found %d library threads, expected the callback threads and "
	      "the flusher", found);
	quiesce_defer_barrier();
	rcu_barrier();
	quiesce_rcu_barrier_mb();
	printf("lib_threads: %d library threads on the process's %d CPUs, signals blocked\n",
	       found, CPU_COUNT(&start));
	return 0;
}
