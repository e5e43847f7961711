/*
 * thread_exit.h - running a key's destructor when a caller's thread exits.
 *
 * The library links a thread's state (registry entries, callback queues,
 * defer blocks, counters) into lists that other threads walk, and unlinks
 * it from a pthread key destructor at the thread's exit.  A thread whose
 * key value could not be set would exit still linked, and the walkers
 * would read its freed TLS: so a failure to set it ends the process with
 * a message instead.
 */
#ifndef QUIESCE_THREAD_EXIT_H
#define QUIESCE_THREAD_EXIT_H

#include <pthread.h>

#include "common/diag.h"

/* Makes key's destructor run at the calling thread's exit, with value (not NULL). */
static inline void quiesce_on_thread_exit(pthread_key_t key, void *value, const char *what)
{
	if (pthread_setspecific(key, value))
		quiesce_die("%s: cannot arrange to unlink this thread at its exit "
			    "(pthread_setspecific failed)", what);
}

#endif
