/*
 * cb_debug.c - catching an rcu_head queued twice (cb_debug.h).
 *
 * liburcu and the kernel (without CONFIG_DEBUG_OBJECTS_RCU_HEAD) let a
 * second call_rcu() on a head whose callback has not run corrupt the
 * queue in silence.  Two checks here:
 *
 * - In every build, for next to nothing: a head that is still the last
 *   one its queue holds is being queued again.  For the default domain's
 *   per-thread queues a load of the tail tells, a line that only the
 *   calling thread and the callback thread write; for a shared queue the
 *   append's exchange tells, as it returns the head itself.  A queue's
 *   tail stops naming a head when the callback thread takes the queue,
 *   before the callback runs, so this never misfires, but it sees only
 *   the repeat that comes before anything else is queued behind the head
 *   (call_rcu(h) twice in a row; on a shared queue, also two threads
 *   racing on one head).
 * - With QUIESCE_DEBUG_CALLBACKS=1 (read once, when the library is
 *   loaded): every queued head, in every domain, is recorded in a set
 *   until its callback is about to run, and queuing a recorded head dies
 *   naming the callback it was queued with first.  The set is SHARDS
 *   hash tables of open addressing, each under its own mutex, a head's
 *   shard chosen by its hash: the callers and the callback threads,
 *   which forget heads as they run them, meet on one lock an eighth of
 *   the time.  Still a lock and a likely cache miss per call and per
 *   callback, which is what a debugging switch may cost.  Heads queued
 *   before the library's constructor ran are not recorded (their run
 *   finds nothing to forget).
 *
 * The mutexes are leaves: nothing else is taken under one, and only the
 * fork handler holds more than one (all, in index order), so that the
 * child never copies a table in mid-update.  The child empties them, as
 * it drops the parent's callbacks (cb_lifecycle.c: "Exit and fork").  Few
 * shards, then: the fork handler holds them all beside the library's
 * other fork locks, and ThreadSanitizer tracks at most 64 held by one
 * thread.
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

#define SHARD_BITS 3
#define SHARDS (1u << SHARD_BITS)

struct shard {
	pthread_mutex_t lock;
	struct recorded *slots;		/* under lock; a power of 2 of them */
	size_t capacity, used;		/* under lock */
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {
	[0 ... SHARDS - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};

QUIESCE_CONSTRUCTOR(STATS_AND_CALL_RCU) static void cb_debug_init(void)
{
	QUIESCE_STORE(&quiesce_cb_debug_on, quiesce_env_flag("QUIESCE_DEBUG_CALLBACKS"));
}

/* Heads are aligned: every bit of the address is mixed into the hash. */
static uint64_t hash_of(const struct quiesce_rcu_head *head)
{
	uint64_t h = (uint64_t)(uintptr_t)head;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}

/* The shard takes the hash's top bits, the slots its low ones. */
static struct shard *shard_of(const struct quiesce_rcu_head *head)
{
	return &shards[hash_of(head) >> (64 - SHARD_BITS)];
}

static size_t home_of(const struct shard *sh, const struct quiesce_rcu_head *head)
{
	return (size_t)hash_of(head) & (sh->capacity - 1);
}

/* The slot of head, or the free slot where it would go. */
static struct recorded *find(struct shard *sh, struct quiesce_rcu_head *head)
{
	size_t i = home_of(sh, head);

	while (sh->slots[i].head && sh->slots[i].head != head)
		i = (i + 1) & (sh->capacity - 1);
	return &sh->slots[i];
}

/* Keeps the table at most half full. */
static void make_room(struct shard *sh)
{
	struct recorded *old = sh->slots;
	size_t old_cap = sh->capacity;

	if (2 * (sh->used + 1) <= sh->capacity)
		return;
	sh->capacity = old_cap ? 2 * old_cap : 64;
	sh->slots = calloc(sh->capacity, sizeof(*sh->slots));
	if (!sh->slots)
		quiesce_die("QUIESCE_DEBUG_CALLBACKS: out of memory recording %zu queued callbacks",
			    sh->used * SHARDS);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].head)
			*find(sh, old[i].head) = old[i];
	free(old);
}

void quiesce_cb_queued_twice(struct quiesce_rcu_head *head,
			     void (*old_func)(struct quiesce_rcu_head *), const char *kind)
{
	char old[96];

	if (!old_func)
		snprintf(old, sizeof(old), "QUIESCE_DEBUG_CALLBACKS=1 names its callback");
	else if ((uintptr_t)old_func < QUIESCE_FREE_RCU_OFFSET_LIMIT)
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
	struct shard *sh = shard_of(head);
	struct recorded *r;

	pthread_mutex_lock(&sh->lock);
	make_room(sh);
	r = find(sh, head);
	if (r->head) {
		void (*old_func)(struct quiesce_rcu_head *) = r->func;

		pthread_mutex_unlock(&sh->lock);
		quiesce_cb_queued_twice(head, old_func, kind);
	}
	r->head = head;
	r->func = func;
	sh->used++;
	pthread_mutex_unlock(&sh->lock);
}

void quiesce_cb_debug_run(struct quiesce_rcu_head *head)
{
	struct shard *sh = shard_of(head);
	size_t mask, hole, i;

	pthread_mutex_lock(&sh->lock);
	if (!sh->capacity || !find(sh, head)->head) {
		pthread_mutex_unlock(&sh->lock);
		return;
	}
	/*
	 * Linear probing deletes by shifting back: each later entry of the
	 * run moves into the hole unless its home lies cyclically after the
	 * hole and up to its own slot (then the hole does not break its probe).
	 */
	mask = sh->capacity - 1;
	hole = (size_t)(find(sh, head) - sh->slots);
	sh->slots[hole].head = NULL;
	sh->used--;
	for (i = (hole + 1) & mask; sh->slots[i].head; i = (i + 1) & mask) {
		size_t home = home_of(sh, sh->slots[i].head);

		if (((i - home) & mask) < ((i - hole) & mask))
			continue;
		sh->slots[hole] = sh->slots[i];
		sh->slots[i].head = NULL;
		hole = i;
	}
	pthread_mutex_unlock(&sh->lock);
}

void quiesce_cb_debug_prepare_fork(void)
{
	for (unsigned i = 0; i < SHARDS; i++)
		pthread_mutex_lock(&shards[i].lock);
}

void quiesce_cb_debug_parent_after_fork(void)
{
	for (unsigned i = 0; i < SHARDS; i++)
		pthread_mutex_unlock(&shards[i].lock);
}

void quiesce_cb_debug_child_after_fork(void)
{
	for (unsigned i = 0; i < SHARDS; i++) {
		struct shard *sh = &shards[i];

		if (sh->capacity)
			memset(sh->slots, 0, sh->capacity * sizeof(*sh->slots));
		sh->used = 0;
		pthread_mutex_unlock(&sh->lock);
	}
}
