/*
 * quiesce/link_wait.h - the wait of the wait-free queue's and stack's
 * consumers for a producer that has claimed its place but not yet linked
 * it (quiesce/wfqueue.h, quiesce/stack.h), and of the queue's RCU
 * consumers for one another.
 *
 * The window is one store wide unless the producer was preempted in it, so
 * a wait spins first, then yields (the producer may be waiting for this
 * very CPU), then sleeps a millisecond at a time (it may be descheduled for
 * long, e.g. stopped by a debugger).  Nothing wakes the waiter: only the
 * store it waits for ends the wait, because a wake-up would cost every
 * enqueue a look at a waiter flag, and the enqueue must stay wait-free.
 *
 * Header-only, as liburcu's queues and stacks are, so that a program using
 * only these structures links no quiesce library; the waits are cold and
 * out of the callers' line.  The sleep is poll(), which every POSIX
 * <poll.h> declares whatever the feature-test macros.
 */
#ifndef QUIESCE_LINK_WAIT_H
#define QUIESCE_LINK_WAIT_H

#include <poll.h>
#include <sched.h>
#include <stddef.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUIESCE_LINK_WAIT_SPINS 128U
#define QUIESCE_LINK_WAIT_YIELDS 64U

/* One step of a wait: spin, then yield, then sleep a millisecond. */
static inline void quiesce_link_wait_back_off(unsigned attempt)
{
	if (attempt < QUIESCE_LINK_WAIT_SPINS)
		quiesce_cpu_relax();
	else if (attempt < QUIESCE_LINK_WAIT_SPINS + QUIESCE_LINK_WAIT_YIELDS)
		sched_yield();
	else
		(void)poll(NULL, 0, 1);
}

/* Waits until *link is non-NULL and returns it. */
QUIESCE_HEADER_COLD void *quiesce_ds_wait_link(void *const *link)
{
	void *next;

	/* Acquire: pairs with the release of the producer's link store. */
	for (unsigned attempt = 0; (next = __atomic_load_n(link, __ATOMIC_ACQUIRE)) == NULL;
	     attempt++)
		quiesce_link_wait_back_off(attempt);
	return next;
}

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_LINK_WAIT_H */
