/*
 * fork() with many callback domains.  The prepare handlers must not hold
 * a lock per domain: a program may have a worker per CPU, and
 * ThreadSanitizer stops a thread that holds more than 64 locks (in that
 * build the first fork here fails if they do).  And the child gets every
 * domain usable, whatever the parent's other threads were doing in it at
 * fork(): two threads queue on the workers, wait for them with barriers
 * (a domain's lock and its condition) and ask for their threads (its
 * start_lock) while the main thread forks, and each child queues a
 * callback on every worker and waits for it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>

#include "check.h"

#define WORKERS 40	/* two locks each: 80, past ThreadSanitizer's 64 */
#define CHURNERS 2
#define FORK_MS 1000

struct probe {
	struct rcu_head rcu;
	atomic_ulong *ran;
};

static struct quiesce_call_rcu_worker *workers[WORKERS];
static struct probe churn_probes[CHURNERS][WORKERS];
static atomic_bool stop;
static atomic_int churning;	/* churn threads past their start */

static void count_run(struct rcu_head *head)
{
	struct probe *p = container_of(head, struct probe, rcu);

	atomic_fetch_add(p->ran, 1);
}

/* Queues one probe per worker on probes[] and waits until all have run. */
static unsigned long call_every_worker(struct probe *probes)
{
	atomic_ulong ran = 0;

	for (int i = 0; i < WORKERS; i++) {
		probes[i].ran = &ran;
		quiesce_call_rcu_on(workers[i], &probes[i].rcu, count_run);
	}
	for (int i = 0; i < WORKERS; i++)
		quiesce_call_rcu_worker_barrier(workers[i]);
	return atomic_load(&ran);
}

static void child_uses_every_worker(void *unused)
{
	(void)unused;
	static struct probe probes[WORKERS];
	unsigned long ran = call_every_worker(probes);

	CHECK(ran == WORKERS, "the child's callbacks ran on %lu of %d workers", ran, WORKERS);
}

static void fork_and_check(const char *parent_doing)
{
	char err[4096];
	int status = check_run_child(child_uses_every_worker, NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child of a parent %s failed (status %#x): %s", parent_doing, status, err);
}

static void *churn(void *arg)
{
	struct probe *probes = churn_probes[(uintptr_t)arg];
	atomic_ulong ran = 0;

	atomic_fetch_add(&churning, 1);
	for (unsigned n = 0; !atomic_load_explicit(&stop, memory_order_relaxed); n++) {
		struct quiesce_call_rcu_worker *w = workers[n % WORKERS];

		probes[n % WORKERS].ran = &ran;
		quiesce_call_rcu_on(w, &probes[n % WORKERS].rcu, count_run);
		quiesce_call_rcu_worker_barrier(w);	/* the probe is free again */
		(void)quiesce_call_rcu_worker_thread(w);	/* under its start_lock */
	}
	return NULL;
}

int main(void)
{
	static struct probe first[WORKERS];
	pthread_t t[CHURNERS];
	uint64_t end;
	int forks = 0;
	unsigned long ran;

	for (int i = 0; i < WORKERS; i++)
		workers[i] = quiesce_call_rcu_worker_create(i % 2 ? QUIESCE_CB_RCU_MB
								  : QUIESCE_CB_RCU, -1);
	ran = call_every_worker(first);
	CHECK(ran == WORKERS, "the parent's callbacks ran on %lu of %d workers", ran, WORKERS);
	fork_and_check("with idle workers");

	for (uintptr_t i = 0; i < CHURNERS; i++)
		pthread_create(&t[i], NULL, churn, (void *)i);
	/* Past their start: a thread starting may hold an allocator lock. */
	while (atomic_load(&churning) < CHURNERS)
		check_sleep_us(100);
	end = check_now_ns() + FORK_MS * 1000000ull;
	do {
		fork_and_check("inside its domains' locks");
		forks++;
	} while (check_now_ns() < end);
	atomic_store(&stop, true);
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < WORKERS; i++)
		quiesce_call_rcu_worker_destroy(workers[i]);
	printf("call_rcu fork with %d domains: %d forks under load; all checks passed\n", WORKERS,
	       forks);
	return 0;
}
