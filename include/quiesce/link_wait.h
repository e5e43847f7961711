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
 * A producer that never stores its link (a thread killed between its two
 * steps, or interrupted there by a signal handler that then waits on the
 * same queue or stack) leaves the wait without end.  So a wait that has
 * slept for the stall timeout says so on stderr, once: the grace periods'
 * timeout (quiesce/rcu.h), read at the wait's first sleep.  A program that
 * links libquiesce gets it from the library, where
 * quiesce_rcu_set_stall_timeout_ms() or QUIESCE_STALL_TIMEOUT_MS set it;
 * one that uses only these header-only structures links no library, and
 * its waits read QUIESCE_STALL_TIMEOUT_MS (21000 when unset or 0).  The
 * library's getter is reached through a weak reference, null where the
 * library is not linked (static, so the getter's own symbol stays strong
 * wherever this header is included).
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUIESCE_LINK_WAIT_SPINS 128U
#define QUIESCE_LINK_WAIT_YIELDS 64U
#define QUIESCE_LINK_WAIT_FIRST_SLEEP (QUIESCE_LINK_WAIT_SPINS + QUIESCE_LINK_WAIT_YIELDS)
#define QUIESCE_LINK_WAIT_WARN_MS_DEFAULT 21000UL

/* One wait: its steps so far, and the link it waits for. */
struct quiesce_link_wait {
	const void *link;
	unsigned long attempt;
	unsigned long warn_at;		/* the step that warns: set at the first sleep */
};

QUIESCE_HEADER_COLD void quiesce_link_wait_warn(const struct quiesce_link_wait *w,
						unsigned long ms)
{
	fprintf(stderr, "quiesce: a queue or stack consumer has waited %lu ms or more for the "
		"link at %p: a producer stopped between claiming its place and linking it, "
		"or an RCU consumer in the middle of its dequeue (a thread killed there, or "
		"interrupted there by a signal handler that waits on the same queue or "
		"stack); this wait ends only when that link is stored\n",
		ms, w->link);
}

QUIESCE_API uint64_t quiesce_rcu_stall_timeout_ms(void);
static __typeof__(quiesce_rcu_stall_timeout_ms) quiesce_link_wait_library_timeout_ms
	__attribute__((__weakref__("quiesce_rcu_stall_timeout_ms")));

/*
 * The library's timeout when it is linked; else QUIESCE_STALL_TIMEOUT_MS
 * as the library reads it: a number of ms, the default when unset, 0 or
 * not a number.
 */
static inline uint64_t quiesce_link_wait_timeout_ms(void)
{
	const char *env;
	char *end;
	unsigned long ms;

	if (quiesce_link_wait_library_timeout_ms)
		return quiesce_link_wait_library_timeout_ms();
	env = getenv("QUIESCE_STALL_TIMEOUT_MS");
	if (!env || !*env)
		return QUIESCE_LINK_WAIT_WARN_MS_DEFAULT;
	ms = strtoul(env, &end, 10);
	return *end || !ms ? QUIESCE_LINK_WAIT_WARN_MS_DEFAULT : ms;
}

/* One step of a wait: spin, yield, then sleep a millisecond; at the timeout, warn once. */
static inline void quiesce_link_wait_step(struct quiesce_link_wait *w)
{
	unsigned long attempt = w->attempt++;

	if (attempt < QUIESCE_LINK_WAIT_SPINS) {
		quiesce_cpu_relax();
	} else if (attempt < QUIESCE_LINK_WAIT_FIRST_SLEEP) {
		(void)sched_yield();
	} else {
		if (attempt == QUIESCE_LINK_WAIT_FIRST_SLEEP) {
			uint64_t ms = quiesce_link_wait_timeout_ms();

			/* A timeout past the step count's range: never reached. */
			w->warn_at = ms < ~0UL - attempt ? attempt + ms : ~0UL;
		} else if (attempt == w->warn_at) {
			quiesce_link_wait_warn(w, attempt - QUIESCE_LINK_WAIT_FIRST_SLEEP);
		}
		(void)poll(NULL, 0, 1);
	}
}

/* Waits until *link is non-NULL and returns it. */
QUIESCE_HEADER_COLD void *quiesce_ds_wait_link(void *const *link)
{
	struct quiesce_link_wait w = { link, 0, 0 };
	void *next;

	/* Acquire: pairs with the release of the producer's link store. */
	while ((next = __atomic_load_n(link, __ATOMIC_ACQUIRE)) == NULL)
		quiesce_link_wait_step(&w);
	return next;
}

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_LINK_WAIT_H */
