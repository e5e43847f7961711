/*
 * QSBR readers traverse a protected object, announce quiescent states and
 * go offline around short sleeps, while updaters replace the object and
 * retire the old one after a QSBR grace period (synchronize, a polled
 * cookie, or call_rcu).  A retired object is poisoned and kept in
 * quarantine for a while before it is freed, so a reader that still holds
 * it sees the poison.  The busted control (grace periods that do not wait
 * for one of the threads holding them) must be caught.  Run on the signal
 * backend too (tests/qsbr.cmake), whose barrier does not reach QSBR
 * threads: their grace periods must not need it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu_qsbr.h>

#include "check.h"
#include "rcu/qsbr.h"

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

	pthread_setname_np(pthread_self(), "qsbr-reader");
	rcu_qsbr_register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *e;
		unsigned spin = rand_r(&seed) % 2000;

		rcu_qsbr_read_lock();
		e = rcu_dereference(current);
		for (unsigned i = 0; i < spin; i++)
			quiesce_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		rcu_qsbr_read_unlock();
		/* Now and then several sections between two quiescent states. */
		if (rand_r(&seed) % 3)
			rcu_qsbr_quiescent_state();
		if (rand_r(&seed) % 64 == 0)
			rcu_qsbr_offline_while(check_sleep_us(rand_r(&seed) % 200));
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	rcu_qsbr_unregister_thread();
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
	bool registered = (uintptr_t)arg == 1;

	/* One updater is a QSBR thread, offline while it updates. */
	if (registered) {
		rcu_qsbr_register_thread();
		rcu_qsbr_thread_offline();
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *old = rcu_xchg_pointer(&current, new_elem(++seq));

		switch (seq % 4) {
		case 0:
			rcu_qsbr_call_rcu(&old->head, retire);
			break;
		case 1: {
			unsigned long cookie = rcu_qsbr_get_state_synchronize_rcu();

			while (!rcu_qsbr_poll_state_synchronize_rcu(cookie))
				rcu_qsbr_synchronize_rcu();
			check_quarantine(old, sizeof(old->rec));
			break;
		}
		default:
			rcu_qsbr_synchronize_rcu();
			check_quarantine(old, sizeof(old->rec));
			break;
		}
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	if (registered)
		rcu_qsbr_unregister_thread();
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
	rcu_qsbr_barrier();
	fprintf(stderr, "%lu reads, %lu updates, %lu callbacks, %lu violations\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&callbacks),
		atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	(void)arg;
	quiesce_test_busted_qsbr = true;
	atomic_store(&updates, 0);
	exit(run_stress(1500, busted_enough) ? 1 : 0);
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	CHECK(run_stress(1500, stress_enough) == 0, "readers saw freed objects");
	CHECK(atomic_load(&callbacks) > 0, "no callback ran");
	check_child_detects_violation(busted_child, NULL);
	printf("qsbr stress: all checks passed\n");
	return 0;
}
