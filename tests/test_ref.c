/*
 * The reference count: its conventions on one thread; concurrent gets and
 * puts that must release the object exactly once, after the last put; RCU
 * lookups with quiesce_ref_get_unless_zero() racing with the removal of
 * the object, which must never hand out a released (poisoned) object; and
 * misuse that must abort with a message, in child processes.
 */
#include <quiesce/ref.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "check.h"

#define THREADS 3
#define GETS_PER_THREAD 100000
#define LOOKUP_MS 1000
#define OBJ_LIVE 0x52454631u

struct obj {
	struct quiesce_ref ref;
	unsigned magic;
	unsigned long seq;
	struct rcu_head rcu;
};

static atomic_ulong released, violations, lookups, lookups_failed, replaced;
static struct obj *slot;
static atomic_bool stop;

static void count_release(struct quiesce_ref *ref)
{
	atomic_fetch_add(&released, 1);
}

static void conventions(void)
{
	struct quiesce_ref r;

	quiesce_ref_init(&r);
	quiesce_ref_get(&r);
	CHECK(r.refcount == 2, "init then get: 2, not %ld", r.refcount);
	CHECK(!quiesce_ref_put(&r, count_release) && atomic_load(&released) == 0,
	      "a put that is not the last releases nothing");
	CHECK(quiesce_ref_get_unless_zero(&r) && r.refcount == 2, "get_unless_zero on a live count");
	quiesce_ref_put(&r, count_release);
	CHECK(quiesce_ref_put(&r, count_release) && atomic_load(&released) == 1,
	      "the last put releases, once");
	CHECK(!quiesce_ref_get_unless_zero(&r) && r.refcount == 0,
	      "get_unless_zero refuses a released count");
	quiesce_ref_set(&r, 5);
	CHECK(r.refcount == 5, "set");
	CHECK(quiesce_ref_get_safe(&r) && r.refcount == 6, "get_safe below the maximum takes one");
	quiesce_ref_set(&r, QUIESCE_REF_MAX);
	CHECK(!quiesce_ref_get_safe(&r) && r.refcount == QUIESCE_REF_MAX,
	      "get_safe at the maximum refuses and leaves the count");
	atomic_store(&released, 0);
}

static struct quiesce_ref shared;

static void *getter(void *arg)
{
	for (int i = 0; i < GETS_PER_THREAD; i++) {
		if (i % 2)
			quiesce_ref_get(&shared);
		else if (!quiesce_ref_get_unless_zero(&shared))
			atomic_fetch_add(&violations, 1);
		quiesce_ref_put(&shared, count_release);
	}
	return NULL;
}

static void concurrent_gets(void)
{
	pthread_t t[THREADS];

	quiesce_ref_init(&shared);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, getter, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&released) == 0 && atomic_load(&violations) == 0,
	      "released %lu times while the creator's reference was held; %lu failed gets",
	      atomic_load(&released), atomic_load(&violations));
	CHECK(shared.refcount == 1, "balanced gets and puts leave 1, not %ld", shared.refcount);
	quiesce_ref_put(&shared, count_release);
	CHECK(atomic_load(&released) == 1, "released once by the last put");
}

static void obj_free(struct rcu_head *head)
{
	check_quarantine(container_of(head, struct obj, rcu), sizeof(struct obj));
}

/* The last reference is gone: free after the lookups that may see it. */
static void obj_release(struct quiesce_ref *ref)
{
	call_rcu(&container_of(ref, struct obj, ref)->rcu, obj_free);
}

static struct obj *obj_new(unsigned long seq)
{
	struct obj *o = malloc(sizeof(*o));

	quiesce_ref_init(&o->ref);	/* the slot's reference */
	o->magic = OBJ_LIVE;
	o->seq = seq;
	return o;
}

/* Looks the object up under RCU, then uses it outside, by its reference. */
static void *lookup(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct obj *o;

		rcu_read_lock();
		o = rcu_dereference(slot);
		if (!quiesce_ref_get_unless_zero(&o->ref))
			o = NULL;
		rcu_read_unlock();
		if (!o) {
			atomic_fetch_add_explicit(&lookups_failed, 1, memory_order_relaxed);
			continue;
		}
		for (int i = 0; i < 100; i++)
			quiesce_cpu_relax();
		if (o->magic != OBJ_LIVE)
			atomic_fetch_add(&violations, 1);
		quiesce_ref_put(&o->ref, obj_release);
		atomic_fetch_add_explicit(&lookups, 1, memory_order_relaxed);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Replaces the object and drops the slot's reference to the old one. */
static void *replacer(void *arg)
{
	unsigned long seq = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct obj *old = rcu_xchg_pointer(&slot, obj_new(++seq));

		quiesce_ref_put(&old->ref, obj_release);
		atomic_fetch_add_explicit(&replaced, 1, memory_order_relaxed);
		if (seq % 16 == 0)
			check_sleep_us(20);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Progress, not time: both sides have done enough to meet each other. */
static bool enough_lookups(void)
{
	return atomic_load(&lookups) >= 10000 && atomic_load(&replaced) >= 1000;
}

static void rcu_lookups(void)
{
	atomic_store(&violations, 0);
	slot = obj_new(0);
	check_run_until(LOOKUP_MS, enough_lookups, &stop, THREADS - 1, lookup, 1, replacer);
	quiesce_ref_put(&slot->ref, obj_release);
	rcu_barrier();
	CHECK(atomic_load(&violations) == 0, "%lu lookups used a released object",
	      atomic_load(&violations));
	fprintf(stderr, "%lu lookups (%lu found the object released), %lu replacements\n",
		atomic_load(&lookups), atomic_load(&lookups_failed), atomic_load(&replaced));
}

static void get_on_zero(void *arg)
{
	struct quiesce_ref r;

	quiesce_ref_set(&r, 0);
	quiesce_ref_get(&r);
}

static void get_safe_on_zero(void *arg)
{
	struct quiesce_ref r;

	quiesce_ref_set(&r, 0);
	quiesce_ref_get_safe(&r);
}

static void put_below_zero(void *arg)
{
	struct quiesce_ref r;

	quiesce_ref_init(&r);
	quiesce_ref_put(&r, count_release);
	quiesce_ref_put(&r, count_release);
}

static void overflow(void *arg)
{
	struct quiesce_ref r;

	quiesce_ref_set(&r, QUIESCE_REF_MAX);
	quiesce_ref_get(&r);
}

static void overflow_unless_zero(void *arg)
{
	struct quiesce_ref r;

	quiesce_ref_set(&r, QUIESCE_REF_MAX);
	quiesce_ref_get_unless_zero(&r);
}

static void set_negative(void *arg)
{
	struct quiesce_ref r = { 0 };	/* the misuse message prints it */

	quiesce_ref_set(&r, -1);
}

int main(void)
{
	conventions();
	concurrent_gets();
	rcu_lookups();
	quiesce_call_rcu_shutdown();
	check_child_aborts(get_on_zero, NULL, "quiesce_ref_get() on a reference count of 0");
	check_child_aborts(get_safe_on_zero, NULL, "quiesce_ref_get() on a reference count of 0");
	check_child_aborts(put_below_zero, NULL, "dropped below zero (it held 0): one put too many");
	check_child_aborts(overflow, NULL, "would exceed QUIESCE_REF_MAX");
	check_child_aborts(overflow_unless_zero, NULL, "would exceed QUIESCE_REF_MAX");
	check_child_aborts(set_negative, NULL, "quiesce_ref_set() of the reference count");
	printf("ref: all checks passed\n");
	return 0;
}
