/*
 * flavor_stress.h - the body of each flavor's test (test_flavor_*.c),
 * written against liburcu's API as its users write it: the including file
 * picks the flavor header and the linking mode (_LGPL_SOURCE or not), and
 * defines URCU_TEST_QSBR for the qsbr flavor.
 *
 * First the API on one thread: nesting, rcu_read_ongoing, the polled
 * grace period, the flavor table.  Then the poisoning stress: readers
 * (registered, reporting quiescent states, going offline now and then)
 * check an object that updaters replace with rcu_xchg_pointer,
 * rcu_cmpxchg_pointer or rcu_assign_pointer under a lock and retire with
 * synchronize_rcu, call_rcu, defer_rcu, a polled grace period, or the
 * flavor table's call_rcu; a retired object is poisoned and quarantined,
 * so a reader that still holds one sees the poison.  The busted control
 * (quiesce's grace periods that do not wait) must be caught.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

/* libquiesce's test hook (src/rcu/gp_engine.h): grace periods that do not wait. */
extern bool quiesce_test_busted_gp;

#define READERS 3
#define UPDATERS 2

struct elem {
	struct check_record rec;
	struct rcu_head head;
};

/* current is swapped atomically; assigned is written under assign_lock only. */
static struct elem *current, *assigned;
static pthread_mutex_t assign_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static atomic_ulong violations, reads, updates;

static struct elem *new_elem(unsigned long seq)
{
	struct elem *e = malloc(sizeof(*e));

	check_record_init(&e->rec, seq);
	return e;
}

static void retire(struct elem *e)
{
	check_quarantine(e, sizeof(*e));
}

static void retire_cb(struct rcu_head *head)
{
	retire(caa_container_of(head, struct elem, head));
}

static void retire_deferred(void *p)
{
	retire(p);
}

static void api_checks(void)
{
	struct urcu_gp_poll_state state;

	rcu_register_thread();
	rcu_read_lock();
	CHECK(rcu_read_ongoing(), "rcu_read_ongoing() false inside a section");
	rcu_read_lock();
	rcu_read_unlock();
	CHECK(rcu_read_ongoing(), "a nested unlock ended the section");
	rcu_read_unlock();
#ifdef URCU_TEST_QSBR
	CHECK(rcu_read_ongoing(), "an online QSBR thread is a reader");
	rcu_thread_offline();
	CHECK(!rcu_read_ongoing(), "an offline QSBR thread is no reader");
	rcu_thread_online();
	rcu_quiescent_state();
#else
	CHECK(!rcu_read_ongoing(), "rcu_read_ongoing() true outside a section");
	rcu_quiescent_state();
	rcu_thread_offline();
	rcu_thread_online();
#endif
	/* From an online QSBR thread too: liburcu goes offline around the wait. */
	state = start_poll_synchronize_rcu();
	synchronize_rcu();
	CHECK(poll_state_synchronize_rcu(state), "a grace period since the cookie");

	rcu_flavor.read_lock();
	CHECK(rcu_flavor.read_ongoing(), "the flavor table's read_lock");
	rcu_flavor.read_unlock();
	rcu_flavor.read_quiescent_state();
	rcu_flavor.update_synchronize_rcu();
	state = rcu_flavor.update_start_poll_synchronize_rcu();
	rcu_flavor.update_synchronize_rcu();
	CHECK(rcu_flavor.update_poll_state_synchronize_rcu(state), "the flavor table's poll");
	rcu_unregister_thread();
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	rcu_register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *e;
		unsigned spin = rand_r(&seed) % 2000;

		rcu_read_lock();
		e = rcu_dereference(current);
		if (!check_record_intact(&rcu_dereference(assigned)->rec))
			atomic_fetch_add(&violations, 1);
		if (rand_r(&seed) % 4 == 0) {
			rcu_read_lock();
			rcu_read_unlock();
		}
		for (unsigned i = 0; i < spin; i++)
			caa_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		rcu_read_unlock();
		rcu_quiescent_state();
		if (rand_r(&seed) % 64 == 0) {
			rcu_thread_offline();
			check_sleep_us(10);
			rcu_thread_online();
		}
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	rcu_unregister_thread();
	return NULL;
}

static void *updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;

	rcu_register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *fresh = new_elem(++seq), *old, *seen;
		struct urcu_gp_poll_state state;

		switch (seq % 5) {
		case 0:
			old = rcu_xchg_pointer(&current, fresh);
			synchronize_rcu();
			retire(old);
			break;
		case 1:
			rcu_read_lock();
			old = rcu_dereference(current);
			rcu_read_unlock();
			while ((seen = rcu_cmpxchg_pointer(&current, old, fresh)) != old)
				old = seen;
			call_rcu(&old->head, retire_cb);
			break;
		case 2:
			old = rcu_xchg_pointer(&current, fresh);
			defer_rcu(retire_deferred, old);
			break;
		case 3:
			pthread_mutex_lock(&assign_lock);
			old = assigned;
			rcu_assign_pointer(assigned, fresh);
			pthread_mutex_unlock(&assign_lock);
			state = start_poll_synchronize_rcu();
			while (!poll_state_synchronize_rcu(state)) {
				rcu_quiescent_state();
				check_sleep_us(50);
			}
			retire(old);
			break;
		default:
			old = rcu_xchg_pointer(&current, fresh);
			rcu_flavor.update_call_rcu(&old->head, retire_cb);
			break;
		}
		rcu_quiescent_state();
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	rcu_unregister_thread();
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 100;
}

/* For the busted control: caught, or given this many updates. */
#define BUSTED_UPDATES 20000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	current = new_elem(0);
	assigned = new_elem(1);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	rcu_barrier();
	fprintf(stderr, "%lu reads, %lu updates, %lu violations\n", atomic_load(&reads),
		atomic_load(&updates), atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	quiesce_test_busted_gp = true;
	atomic_store(&updates, 0);
	check_child_exit(run_stress(1000, busted_enough) ? 1 : 0);
}

int main(void)
{
	api_checks();
	CHECK(run_stress(500, stress_enough) == 0, "readers saw retired objects");
	check_child_detects_violation(busted_child, NULL);
	printf("%s: all checks passed\n", URCU_TEST_NAME);
	return 0;
}
