/*
 * call_rcu under stress: readers check objects in a table of RCU-protected
 * slots while updaters replace them and retire the old ones with call_rcu(),
 * half of the time from inside a read-side critical section.  The callback
 * poisons the object and keeps it in quarantine a while before freeing it,
 * so a reader that still holds it sees the poison.  Some retirements go
 * through two callbacks (the first queues the second), some through
 * free_rcu(), and some through two callback workers
 * (<quiesce/call_rcu_worker.h>: one pinned to a CPU, one not), which
 * rcu_barrier() must wait for too.  The busted control (callbacks run
 * without a grace period, on the workers too) must be caught.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>

#include "rcu/cb_domain.h"
#include "check.h"

#define SLOTS 64
#define READERS 2
#define UPDATERS 2

struct elem {
	struct check_record rec;
	struct rcu_head rcu;
};

static struct elem *slots[SLOTS];
static struct quiesce_call_rcu_worker *workers[2];
static atomic_bool stop;
static atomic_ulong violations, reads, retired, invoked;
/* Touched only by callbacks, which run one at a time on the callback thread. */

static struct elem *new_elem(unsigned long seq)
{
	struct elem *e = malloc(sizeof(*e));

	check_record_init(&e->rec, seq);
	return e;
}

static void poison_and_quarantine(struct rcu_head *head)
{
	struct elem *e = container_of(head, struct elem, rcu);

	CHECK(!rcu_read_ongoing(), "a callback runs inside a read-side critical section");
	check_quarantine(e, offsetof(struct elem, rcu));
	atomic_fetch_add_explicit(&invoked, 1, memory_order_relaxed);
}

/* The first of two stages: a callback that queues the second. */
static void requeue(struct rcu_head *head)
{
	struct elem *e = container_of(head, struct elem, rcu);

	/* Callbacks may read under RCU, and queue callbacks from inside. */
	rcu_read_lock();
	CHECK(check_record_intact(&rcu_dereference(slots[e->rec.seq % SLOTS])->rec), "a live slot is intact");
	call_rcu(&e->rcu, poison_and_quarantine);
	rcu_read_unlock();
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned spin = rand_r(&seed) % 1000;
		struct elem *e;

		rcu_read_lock();
		e = rcu_dereference(slots[rand_r(&seed) % SLOTS]);
		for (unsigned i = 0; i < spin; i++)
			quiesce_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		rcu_read_unlock();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void retire(struct elem *old, unsigned r)
{
	switch (r % 8) {
	case 0:
		call_rcu(&old->rcu, requeue);
		break;
	case 1:
		/* Freed unpoisoned: ASan and the counts check this path. */
		free_rcu(old, rcu);
		atomic_fetch_add_explicit(&invoked, 1, memory_order_relaxed);
		break;
	case 2:
	case 3:
		quiesce_call_rcu_on(workers[r % 8 - 2], &old->rcu, poison_and_quarantine);
		break;
	default:
		call_rcu(&old->rcu, poison_and_quarantine);
	}
}

static void *updater(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	unsigned long seq = (uintptr_t)arg << 40;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned slot = rand_r(&seed) % SLOTS, r = (unsigned)rand_r(&seed);
		struct elem *fresh = new_elem(++seq * SLOTS + slot);
		struct elem *old;

		if (r % 2) {
			rcu_read_lock();
			old = rcu_xchg_pointer(&slots[slot], fresh);
			retire(old, r >> 1);
			rcu_read_unlock();
		} else {
			old = rcu_xchg_pointer(&slots[slot], fresh);
			retire(old, r >> 1);
		}
		atomic_fetch_add_explicit(&retired, 1, memory_order_relaxed);
		/* Leave the callback thread some CPU on a small machine. */
		if (seq % 64 == 0)
			check_sleep_us(50);
	}
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 1000 && atomic_load(&retired) >= 1000;
}

/*
 * For the busted control: caught, or given (after 1.5 s) at least this many
 * retirements, however long a slow machine takes for them.
 */
#define BUSTED_RETIRED 100000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&retired) >= BUSTED_RETIRED;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	workers[0] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, check_last_allowed_cpu());
	workers[1] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	CHECK(workers[0] && workers[1], "two callback workers");
	for (unsigned i = 0; i < SLOTS; i++)
		slots[i] = new_elem(i);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	fprintf(stderr, "%lu reads, %lu retired, %lu violations\n", atomic_load(&reads),
		atomic_load(&retired), atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	quiesce_test_busted_call_rcu = true;
	atomic_store(&retired, 0);
	check_child_exit(run_stress(1500, busted_enough) ? 1 : 0);
}

int main(void)
{
	struct quiesce_rcu_stats s;

	/* At least 1.5 s, and until readers and updaters made progress. */
	CHECK(run_stress(1500, stress_enough) == 0,
	      "readers saw objects that callbacks had poisoned");
	/* Two barriers: the first runs the first stages, which queue the second. */
	rcu_barrier();
	rcu_barrier();
	CHECK(atomic_load(&invoked) == atomic_load(&retired),
	      "every retired object went through its callbacks, on the workers too: %lu of %lu",
	      atomic_load(&invoked), atomic_load(&retired));
	quiesce_rcu_get_stats(&s);
	CHECK(s.cb_pending == 0 && s.cb_queued == s.cb_invoked,
	      "stats: %llu queued, %llu invoked, %llu pending",
	      (unsigned long long)s.cb_queued, (unsigned long long)s.cb_invoked,
	      (unsigned long long)s.cb_pending);
	fprintf(stderr, "%llu callbacks in %llu batches\n", (unsigned long long)s.cb_invoked,
		(unsigned long long)s.cb_batches);
	for (unsigned i = 0; i < SLOTS; i++)
		free(slots[i]);
	quiesce_call_rcu_worker_destroy(workers[0]);
	quiesce_call_rcu_worker_destroy(workers[1]);
	/* No running callback thread at the children's fork (check.h, check_fork()). */
	quiesce_call_rcu_shutdown();
	check_child_detects_violation(busted_child, NULL);
	printf("call_rcu stress: all checks passed\n");
	return 0;
}
