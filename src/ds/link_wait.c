/*
 * link_wait.c - the wait of the wait-free queue's and stack's consumers for
 * an enqueuer (pusher) that has claimed its place but not yet linked it.
 *
 * The window is one store wide unless the enqueuer was preempted in it, so
 * the wait spins first, then yields (the enqueuer may be waiting for this
 * very CPU), then sleeps a millisecond at a time (it may be descheduled for
 * long, e.g. stopped by a debugger).  Nothing wakes the waiter: only the
 * enqueuer's link store ends the wait, because a wake-up would cost every
 * enqueue a look at a waiter flag, and the enqueue must stay wait-free.
 */
#include <sched.h>
#include <time.h>

#include <quiesce/wfqueue.h>

#define SPINS 128
#define YIELDS 64
#define SLEEP_NS 1000000L

void *quiesce_ds_wait_link(void *const *link)
{
	struct timespec nap = { 0, SLEEP_NS };
	void *next;

	/* Acquire: pairs with the release of the enqueuer's link store. */
	for (unsigned attempt = 0; (next = __atomic_load_n(link, __ATOMIC_ACQUIRE)) == NULL;
	     attempt++) {
		if (attempt < SPINS)
			quiesce_cpu_relax();
		else if (attempt < SPINS + YIELDS)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	return next;
}
