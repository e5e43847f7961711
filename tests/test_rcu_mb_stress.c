/*
 * mb domain readers (include/quiesce/rcu_mb.h) dereference a shared
 * object inside their sections while updaters replace it and retire the
 * old one after an mb grace period: synchronize (normal or expedited), a
 * polled cookie, or call_rcu_mb.  A retired object is poisoned and kept in
 * quarantine for a while before it is freed, so a reader that still holds
 * it sees the poison.  One reader leaves the registry now and then and
 * registers again on its next section.  The busted control (grace periods
 * that wait for no reader) must be caught.  That the domain needs no heavy
 * barrier is test_rcu_mb_api's to check.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu_mb.h>

#include "check.h"
#include "rcu/rcu_mb.h"

#define READERS 3
#define UPDATERS 2

struct elem {
	struct check_record rec;
	struct rcu_head head;
};

static struct elem *current;
static atomic_bool stop;
static atomic_ulong violations, reads, updates, callbacks;

static struct elem *new_elem(unsigned long seq)
{
	struct elem *e = malloc(sizeof(*e));

	check_record_init(&e->rec, seq);
	return e;
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	bool leaves = (uintptr_t)arg == 1;

	pthread_setname_np(pthread_self(), "mb-reader");
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *e;
		unsigned spin = rand_r(&seed) % 2000;

		rcu_mb_read_lock();
		e = rcu_dereference(current);
		if (rand_r(&seed) % 4 == 0) {
			/* A nested section must not end the protection early. */
			rcu_mb_read_lock();
			rcu_mb_read_unlock();
		}
		for (unsigned i = 0; i < spin; i++)
			quiesce_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		rcu_mb_read_unlock();
		if (leaves && rand_r(&seed) % 256 == 0)
			rcu_mb_unregister_thread();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void retire(struct rcu_head *head)
{
	struct elem *e = container_of(head, struct elem, head);

	check_quarantine(e, sizeof(e->rec));
	atomic_fetch_add_explicit(&callbacks, 1, memory_order_relaxed);
}

static void *updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *old = rcu_xchg_pointer(&current, new_elem(++seq));

		switch (seq % 4) {
		case 0:
			call_rcu_mb(&old->head, retire);
			break;
		case 1: {
			unsigned long cookie = get_state_synchronize_rcu_mb();

			while (!poll_state_synchronize_rcu_mb(cookie))
				cond_synchronize_rcu_mb(cookie);
			check_quarantine(old, sizeof(old->rec));
			break;
		}
		case 2:
			synchronize_rcu_mb_expedited();
			check_quarantine(old, sizeof(old->rec));
			break;
		default:
			synchronize_rcu_mb();
			check_quarantine(old, sizeof(old->rec));
			break;
		}
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&updates) >= 100;
}

/* For the busted control: caught, or given (after 1.5 s) this many updates. */
#define BUSTED_UPDATES 20000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	current = new_elem(0);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	rcu_barrier_mb();
	fprintf(stderr, "%lu reads, %lu updates, %lu callbacks, %lu violations\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&callbacks),
		atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	(void)arg;
	quiesce_test_busted_rcu_mb = true;
	atomic_store(&updates, 0);
	exit(run_stress(1500, busted_enough) ? 1 : 0);
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	CHECK(run_stress(1500, stress_enough) == 0, "readers saw freed objects");
	CHECK(atomic_load(&callbacks) > 0, "no callback ran");
	check_child_detects_violation(busted_child, NULL);
	printf("rcu mb stress: all checks passed\n");
	return 0;
}
