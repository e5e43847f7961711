/* lib_thread.h - starting the library's own threads (callbacks, deferral). */
#ifndef QUIESCE_LIB_THREAD_H
#define QUIESCE_LIB_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/*
 * Starts fn(arg) on a thread named name, detached or not, and returns its
 * handle; dies with a message naming `what` if it cannot.  cpu >= 0 (below
 * CPU_SETSIZE) asks for that one CPU, -1 for the process's set at load.
 * lib_thread.c says what the thread inherits and what it does not.
 */
pthread_t quiesce_lib_thread_start(void *(*fn)(void *), void *arg, bool detached, int cpu,
				   const char *name, const char *what);

#endif
