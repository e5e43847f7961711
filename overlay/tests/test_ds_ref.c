/*
 * liburcu's urcu_ref through the overlay, as LTTng-tools uses it: a
 * release callback written against struct urcu_ref, lookups under RCU
 * that take a reference with urcu_ref_get_unless_zero() while another
 * thread drops the last one.
 *
 * A reader that got a reference must find the object intact (freed
 * objects are poisoned through call_rcu()), release() must run exactly
 * once per object, and misuse must abort with a message: a get on a
 * released count, a put below zero.  urcu_ref_get_safe() refuses at the
 * maximum instead of aborting.
 */
/* As LTTng-tools and BIND 9 build: rcu_dereference() and friends inline. */
#define _LGPL_SOURCE
#include <urcu.h>
#include <urcu/ref.h>

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define LIVE 0x4c495645u
#define ROUNDS 20000

struct obj {
	struct urcu_ref ref;
	unsigned magic;
	struct rcu_head rcu;
};

static struct obj *current;
static atomic_ulong releases, gets, violations;
static atomic_bool stop;

static void poison_obj(struct rcu_head *rcu)
{
	check_quarantine(caa_container_of(rcu, struct obj, rcu), offsetof(struct obj, rcu));
}

/* liburcu's release signature. */
static void release(struct urcu_ref *ref)
{
	struct obj *o = caa_container_of(ref, struct obj, ref);

	atomic_fetch_add(&releases, 1);
	call_rcu(&o->rcu, poison_obj);
}

static void *getter(void *arg)
{
	rcu_register_thread();
	while (!atomic_load(&stop)) {
		struct obj *o;

		rcu_read_lock();
		o = rcu_dereference(current);
		if (o && urcu_ref_get_unless_zero(&o->ref)) {
			rcu_read_unlock();
			if (__atomic_load_n(&o->magic, __ATOMIC_RELAXED) != LIVE)
				atomic_fetch_add(&violations, 1);
			atomic_fetch_add(&gets, 1);
			urcu_ref_put(&o->ref, release);
		} else {
			rcu_read_unlock();
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static void get_on_zero(void *arg)
{
	struct urcu_ref r;

	urcu_ref_set(&r, 0);
	urcu_ref_get(&r);
}

static void release_nothing(struct urcu_ref *ref)
{
}

static void put_below_zero(void *arg)
{
	struct urcu_ref r;

	urcu_ref_init(&r);
	urcu_ref_put(&r, release_nothing);
	urcu_ref_put(&r, release_nothing);
}

int main(void)
{
	struct urcu_ref r;
	pthread_t t[2];

	urcu_ref_init(&r);
	urcu_ref_get(&r);
	CHECK(r.refcount == 2 && urcu_ref_get_safe(&r) && r.refcount == 3, "get, get_safe");
	urcu_ref_set(&r, QUIESCE_REF_MAX);
	CHECK(!urcu_ref_get_safe(&r) && r.refcount == QUIESCE_REF_MAX,
	      "get_safe refuses at the maximum");

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, getter, NULL);
	rcu_register_thread();
	for (unsigned i = 0; i < ROUNDS; i++) {
		struct obj *o = calloc(1, sizeof(*o)), *old;

		o->magic = LIVE;
		urcu_ref_init(&o->ref);
		old = rcu_xchg_pointer(&current, o);
		if (old)
			urcu_ref_put(&old->ref, release);	/* the table's reference */
	}
	rcu_unregister_thread();
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		check_join_within(t[i], CHECK_HANG_MS, "getter");
	urcu_ref_put(&current->ref, release);
	rcu_barrier();
	CHECK(!atomic_load(&violations), "%lu gets found a released object",
	      atomic_load(&violations));
	CHECK(atomic_load(&releases) == ROUNDS, "%lu releases for %u objects",
	      atomic_load(&releases), ROUNDS);
	check_child_aborts(get_on_zero, NULL, "on a reference count of 0");
	check_child_aborts(put_below_zero, NULL, "one put too many");
	printf("urcu_ref: %u objects, %lu gets under RCU, each released once\n", ROUNDS,
	       atomic_load(&gets));
	return 0;
}
