/*
 * lib_thread.c - starting the library's own threads: each domain's callback
 * thread (cb_domain.c) and the deferral flusher (defer.c).
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
 *   in the common case), read by a constructor.  A process started under
 *   `taskset` keeps its threads inside its set.  If that set cannot be read,
 *   or the kernel no longer accepts it (a cpuset changed since), the thread
 *   inherits its creator's set, as any thread would.
 */
#include "common/lib_thread.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>

#include "common/diag.h"

static cpu_set_t load_cpus;
static bool load_cpus_known;	/* written by the constructor only */

__attribute__((constructor)) static void lib_thread_init(void)
{
	load_cpus_known = sched_getaffinity(0, sizeof(load_cpus), &load_cpus) == 0;
}

pthread_t quiesce_lib_thread_start(void *(*fn)(void *), void *arg, bool detached,
				   const char *name, const char *what)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t thread;
	int err;

	pthread_attr_init(&attr);
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (load_cpus_known)
		pthread_attr_setaffinity_np(&attr, sizeof(load_cpus), &load_cpus);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&thread, &attr, fn, arg);
	if (err == EINVAL && load_cpus_known) {
		/* The load-time set is no longer allowed: inherit instead. */
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		if (detached)
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&thread, &attr, fn, arg);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		quiesce_die("cannot start %s (pthread_create: error %d)", what, err);
	pthread_setname_np(thread, name);
	return thread;
}
