/*
 * lib_thread.c - starting the library's own threads: each domain's callback
 * thread (cb_lifecycle.c) and the deferral flusher (defer.c).
 *
 * They start lazily, from whichever program thread first needs them, and a
 * new thread inherits its creator's signal mask and CPU affinity.  Neither
 * is right for a thread that serves the whole process:
 * - Signals: the thread starts with every signal blocked, so that the
 *   process's signals go to the program's own threads.
 * - CPUs: servers pin their worker threads, one to a CPU, and the first
 *   worker that calls call_rcu() would pin the callback thread to its own
 *   CPU for good, where it takes its time from that worker (and from no
 *   other CPU, however idle).  So the thread gets the CPU set the process
 *   had when the library was loaded (before the program pinned anything,
 *   in the common case), read by a constructor, or on first use when a
 *   constructor of the program comes first (init_order.h), before it may
 *   pin itself.  A process started under
 *   `taskset` keeps its threads inside its set.  If that set cannot be read,
 *   or the kernel no longer accepts it (a cpuset changed since), the thread
 *   inherits its creator's set, as any thread would.
 * - A callback worker made for one CPU (cb_worker.c) asks for that CPU
 *   alone.  If the kernel refuses it (the CPU is offline, or outside the
 *   process's cpuset), the worker runs where any library thread would, as
 *   liburcu's per-CPU workers carry on when their CPU is unplugged.
 */
#include "common/lib_thread.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>

#include "common/diag.h"
#include "common/init_order.h"

static cpu_set_t load_cpus;
static bool load_cpus_known;	/* written once, by read_load_cpus() */
static pthread_once_t load_cpus_read = PTHREAD_ONCE_INIT;

static void read_load_cpus(void)
{
	load_cpus_known = sched_getaffinity(0, sizeof(load_cpus), &load_cpus) == 0;
}

QUIESCE_CONSTRUCTOR(LIB_THREAD) static void lib_thread_init(void)
{
	pthread_once(&load_cpus_read, read_load_cpus);
}

/*
 * pthread_create() with the CPU set cpus (NULL: inherit); EINVAL when the
 * kernel refuses the set.
 */
static int create_on(pthread_t *thread, bool detached, const cpu_set_t *cpus,
		     void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (cpus)
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	err = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

pthread_t quiesce_lib_thread_start(void *(*fn)(void *), void *arg, bool detached, int cpu,
				   const char *name, const char *what)
{
	sigset_t all, old;
	pthread_t thread;
	cpu_set_t one;
	int err = EINVAL;

	pthread_once(&load_cpus_read, read_load_cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (cpu >= 0 && cpu < CPU_SETSIZE) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		err = create_on(&thread, detached, &one, fn, arg);
	}
	/* No CPU asked for, or the kernel refused it: the load-time set. */
	if (err == EINVAL && load_cpus_known)
		err = create_on(&thread, detached, &load_cpus, fn, arg);
	/* That set is no longer allowed either: inherit. */
	if (err == EINVAL)
		err = create_on(&thread, detached, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		quiesce_die("cannot start %s (pthread_create: error %d)", what, err);
	pthread_setname_np(thread, name);
	return thread;
}
