/*
 * defer.c - liburcu's defer_rcu(fct, p) on the flavor's callbacks.
 *
 * liburcu queues (fct, p) on a per-thread queue that a "defer" thread
 * drains after a grace period; when the queue is full, defer_rcu() waits
 * for a grace period itself and runs the queue.  Here each call allocates
 * a small record with an rcu_head and hands it to the domain's call_rcu():
 * fct(p) runs on the callback thread after a grace period, batched with
 * every other callback.  When no memory can be had, the caller waits for
 * a grace period and runs fct(p) itself, liburcu's full-queue path.  So,
 * as in liburcu, defer_rcu() must not be called inside a read-side
 * critical section, and rcu_defer_barrier() is the domain's barrier.
 */
#include <stdlib.h>

#include "overlay.h"

struct deferred {
	struct quiesce_rcu_head head;
	void (*fct)(void *p);
	void *p;
};

static void run_deferred(struct quiesce_rcu_head *head)
{
	struct deferred *d = quiesce_container_of(head, struct deferred, head);
	void (*fct)(void *p) = d->fct;
	void *p = d->p;

	free(d);
	fct(p);
}

void urcu_defer(struct urcu_flavor_domain *fd, void (*fct)(void *p), void *p)
{
	struct deferred *d = malloc(sizeof(*d));

	if (!d) {
		fd->synchronize_rcu();
		fct(p);
		return;
	}
	d->fct = fct;
	d->p = p;
	fd->call_rcu(&d->head, run_deferred);
}
