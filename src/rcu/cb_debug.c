/*
 * cb_debug.c - catching an rcu_head queued twice (cb_debug.h).
 *
 * liburcu and the kernel (without CONFIG_DEBUG_OBJECTS_RCU_HEAD) let a
 * second call_rcu() on a head whose callback has not run corrupt the
 * queue in silence.  Two checks here:
 *
 * - In every build, for nothing: a head that is still the last one its
 *   queue holds (the calling thread's own queue for the default domain,
 *   the shared one for the others) is being queued again.  A queue's tail
 *   stops naming a head when the callback thread takes the queue, before
 *   the callback runs, so this never misfires, but it sees only the
 *   repeat that comes before anything else is queued behind the head
 *   (call_rcu(h) twice in a row, or two threads racing on one head).
 * - With QUIESCE_DEBUG_CALLBACKS=1 (read once, when the library is
 *   loaded): every queued head, in every domain, is recorded in a set
 *   until its callback is about to run, and queuing a recorded head dies
 *   naming both callbacks.  The set is a hash table of open addressing
 *   under one mutex: correct and simple, and slow (each call_rcu() takes
 *   the lock), which is what a debugging switch may cost.  Heads queued
 *   before the library's constructor ran are not recorded (their run
 *   finds nothing to forget).
 *
 * The mutex is a leaf: nothing else is taken under it.  Around fork() it
 * is held, so the child never copies the set in mid-update; the child
 * empties it, as it drops the parent's callbacks (cb_domain.c: "Exit and
 * fork").
 */
#include "rcu/cb_debug.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/init_order.h"

bool quiesce_cb_debug_on;

struct recorded {
	struct quiesce_rcu_head *head;	/* NULL: a free slot */
	void (*func)(struct quiesce_rcu_head *);
};

static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static struct recorded *slots;		/* under set_lock; a power of 2 of them */
static size_t capacity, used;		/* under set_lock */

QUIESCE_CONSTRUCTOR(STATS_AND_CALL_RCU) static void cb_debug_init(void)
{
	quiesce_cb_debug_on = quiesce_env_flag("QUIESCE_DEBUG_CALLBACKS");
}

static size_t home_of(const struct quiesce_rcu_head *head, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)head;

	/* Heads are aligned: mix the high bits into the low ones. */
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

/* The slot of head, or the free slot where it would go. */
static struct recorded *find(struct quiesce_rcu_head *head)
{
	size_t i = home_of(head, capacity);

	while (slots[i].head && slots[i].head != head)
		i = (i + 1) & (capacity - 1);
	return &slots[i];
}

/* Keeps the table at most half full. */
static void make_room(void)
{
	struct recorded *old = slots;
	size_t old_cap = capacity;

	if (2 * (used + 1) <= capacity)
		return;
	capacity = old_cap ? 2 * old_cap : 1024;
	slots = calloc(capacity, sizeof(*slots));
	if (!slots)
		quiesce_die("QUIESCE_DEBUG_CALLBACKS: out of memory recording %zu queued callbacks",
			    used);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].head)
			*find(old[i].head) = old[i];
	free(old);
}

void quiesce_cb_queued_twice(struct quiesce_rcu_head *head,
			     void (*old_func)(struct quiesce_rcu_head *), const char *kind)
{
	char old[96];

	if ((uintptr_t)old_func < QUIESCE_FREE_RCU_OFFSET_LIMIT)
		snprintf(old, sizeof(old), "by free_rcu(), for the object %lu bytes before the head",
			 (unsigned long)(uintptr_t)old_func - 1);
	else
		snprintf(old, sizeof(old), "callback %p", (void *)(uintptr_t)old_func);
	quiesce_die("%s callback queued twice: rcu_head %p is already queued (%s) and its "
		    "callback has not run; queued again, its queue would lose callbacks or run "
		    "one on freed memory", kind, (void *)head, old);
}

void quiesce_cb_debug_queue(struct quiesce_rcu_head *head,
			    void (*func)(struct quiesce_rcu_head *), const char *kind)
{
	struct recorded *r;

	pthread_mutex_lock(&set_lock);
	make_room();
	r = find(head);
	if (r->head) {
		void (*old_func)(struct quiesce_rcu_head *) = r->func;

		pthread_mutex_unlock(&set_lock);
		quiesce_cb_queued_twice(head, old_func, kind);
	}
	r->head = head;
	r->func = func;
	used++;
	pthread_mutex_unlock(&set_lock);
}

void quiesce_cb_debug_run(struct quiesce_rcu_head *head)
{
	size_t hole, i;

	pthread_mutex_lock(&set_lock);
	if (!capacity || !find(head)->head) {
		pthread_mutex_unlock(&set_lock);
		return;
	}
	/*
	 * Linear probing deletes by shifting back: each later entry of the
	 * run moves into the hole unless its home lies cyclically after the
	 * hole and up to its own slot (then the hole does not break its probe).
	 */
	hole = (size_t)(find(head) - slots);
	slots[hole].head = NULL;
	used--;
	for (i = (hole + 1) & (capacity - 1); slots[i].head; i = (i + 1) & (capacity - 1)) {
		size_t home = home_of(slots[i].head, capacity);

		if (((i - home) & (capacity - 1)) < ((i - hole) & (capacity - 1)))
			continue;
		slots[hole] = slots[i];
		slots[i].head = NULL;
		hole = i;
	}
	pthread_mutex_unlock(&set_lock);
}

void quiesce_cb_debug_prepare_fork(void)
{
	pthread_mutex_lock(&set_lock);
}

void quiesce_cb_debug_parent_after_fork(void)
{
	pthread_mutex_unlock(&set_lock);
}

void quiesce_cb_debug_child_after_fork(void)
{
	if (capacity)
		memset(slots, 0, capacity * sizeof(*slots));
	used = 0;
	pthread_mutex_unlock(&set_lock);
}
