/*
 * cancel.h - the library's calls are not cancellation points.
 *
 * A thread cancelled (pthread_cancel(), deferred: the default) inside a
 * wait of the library would unwind with what only the rest of the call
 * undoes: a mutex held (a cancelled pthread_cond_wait() takes its mutex
 * back first), a waiter counted, a grace period owned, the registry locked
 * during a stall report.  The process's next barrier, grace period or
 * fork() would then wait for it for ever.  So every cancellation point the
 * library reaches on a caller's thread runs with cancellation disabled:
 * the condition-variable waits and joins of barriers, throttling and
 * shutdown, their sleeps, and the I/O of messages, stall reports (a stall
 * handler included) and /proc and /sys reads.  A cancellation requested
 * meanwhile stays pending and acts at the thread's next cancellation point
 * after the call returns.  (The futex waits of grace periods are raw
 * system calls, never cancellation points.)
 *
 * pthread_setcancelstate() is not a cancellation point and makes no system
 * call (glibc updates a word of the thread's own); the pair is paid only
 * on paths about to sleep or print, never on a read side or a grace
 * period's fast path.
 */
#ifndef QUIESCE_CANCEL_H
#define QUIESCE_CANCEL_H

#include <pthread.h>

/* Disables cancellation for the calling thread; returns the state to restore. */
static inline int quiesce_cancel_off(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

/* Restores the state quiesce_cancel_off() returned. */
static inline void quiesce_cancel_restore(int old)
{
	pthread_setcancelstate(old, NULL);
}

#endif
