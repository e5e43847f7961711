/*
 * Callbacks of a domain other than the default one's per-thread queues
 * (src/rcu/cb_domain.c, shared-queue domains as SRCU and QSBR use them),
 * here over the default grace-period domain: a callback waits for a reader
 * that was inside when it was queued; the barrier waits for every callback
 * queued before it, from many threads, on many domains at once; the domain's
 * thread drives polled grace periods; pending() and destroy() tell the
 * truth; misuse aborts; a child of fork() uses the domain on its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/cb_domain.h"
#include "rcu/gp_seq.h"

#ifdef QUIESCE_TSAN
#define QUIESCE_TSAN_ON 1
#else
#define QUIESCE_TSAN_ON 0
#endif

struct counted {
	struct rcu_head rcu;
	atomic_ulong *counter;
};

static void count_and_free(struct rcu_head *head)
{
	struct counted *c = container_of(head, struct counted, rcu);

	atomic_fetch_add(c->counter, 1);
	check_poison(c, sizeof(*c));
	free(c);
}

static void queue_counted(struct quiesce_cb_domain *cbd, atomic_ulong *counter)
{
	struct counted *c = malloc(sizeof(*c));

	c->counter = counter;
	quiesce_cb_domain_call(cbd, &c->rcu, count_and_free);
}

static atomic_bool reader_inside, reader_release;

static void *holding_reader(void *unused)
{
	rcu_read_lock();
	atomic_store(&reader_inside, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(1000);
	rcu_read_unlock();
	return NULL;
}

static void test_waits_for_reader(void)
{
	struct quiesce_cb_domain cbd;
	atomic_ulong ran = 0;
	pthread_t t;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-cb");
	pthread_create(&t, NULL, holding_reader, NULL);
	while (!atomic_load(&reader_inside))
		check_sleep_us(100);
	queue_counted(&cbd, &ran);
	check_sleep_us(50000);
	CHECK(atomic_load(&ran) == 0, "a callback ran while a reader from before it was inside");
	CHECK(quiesce_cb_domain_pending(&cbd), "pending() misses a callback not yet run");
	atomic_store(&reader_release, true);
	pthread_join(t, NULL);
	quiesce_cb_domain_barrier(&cbd, "test_barrier");
	CHECK(atomic_load(&ran) == 1, "the callback ran once the reader left");
	CHECK(!quiesce_cb_domain_pending(&cbd), "pending() after the barrier");
	quiesce_cb_domain_destroy(&cbd);
}

/* Many domains, each fed by several threads, each barrier exact. */
#define DOMAINS 200
#define ENQUEUERS 4
#define PER_THREAD 50
static struct quiesce_cb_domain domains[DOMAINS];
static atomic_ulong counts[DOMAINS];

static void *enqueue_everywhere(void *unused)
{
	for (int d = 0; d < DOMAINS; d++)
		for (int i = 0; i < PER_THREAD; i++)
			queue_counted(&domains[d], &counts[d]);
	return NULL;
}

static void test_many_domains(void)
{
	pthread_t t[ENQUEUERS];

	for (int d = 0; d < DOMAINS; d++)
		quiesce_cb_domain_init(&domains[d], &quiesce_rcu_domain, "test-many");
	for (int i = 0; i < ENQUEUERS; i++)
		pthread_create(&t[i], NULL, enqueue_everywhere, NULL);
	for (int i = 0; i < ENQUEUERS; i++)
		pthread_join(t[i], NULL);
	for (int d = 0; d < DOMAINS; d++) {
		quiesce_cb_domain_barrier(&domains[d], "test_barrier");
		CHECK(atomic_load(&counts[d]) == ENQUEUERS * PER_THREAD,
		      "domain %d: the barrier returned after %lu of %d callbacks", d,
		      atomic_load(&counts[d]), ENQUEUERS * PER_THREAD);
		quiesce_cb_domain_destroy(&domains[d]);
	}
}

static bool cookie_passed(void *cookie)
{
	return quiesce_gp_seq_done(quiesce_gp_seq_current(&quiesce_rcu_domain),
				   *(unsigned long *)cookie);
}

/* Nobody calls synchronize: the domain's thread runs the grace period. */
static void test_start_poll(void)
{
	struct quiesce_cb_domain cbd;
	unsigned long cookie;

	quiesce_cb_domain_init(&cbd, &quiesce_rcu_domain, "test-poll");
	rcu_read_lock();	/* registers this thread: no shortcut */
	rcu_read_unlock();
	cookie = quiesce_cb_domain_start_poll(&cbd);
	check_wait_until(cookie_passed, &cookie, "the polled grace period");
	quiesce_cb_domain_destroy(&cbd);
}

static struct quiesce_cb_domain misuse;

static void barrier_from_callback(struct rcu_head *head)
{
	quiesce_cb_domain_barrier(&misuse, "test_barrier");
}

static void child_barrier_from_callback(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	quiesce_cb_domain_call(&misuse, &head, barrier_from_callback);
	quiesce_cb_domain_barrier(&misuse, "test_barrier");
}

static void child_destroy_pending(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	rcu_read_lock();	/* holds the callback back */
	quiesce_cb_domain_call(&misuse, &head, barrier_from_callback);
	rcu_read_unlock();
	quiesce_cb_domain_destroy(&misuse);
}

static void child_null_func(void *unused)
{
	static struct rcu_head head;

	quiesce_cb_domain_init(&misuse, &quiesce_rcu_domain, "test-misuse");
	quiesce_cb_domain_call(&misuse, &head, NULL);
}

/* The child has no callback thread of its parent's; it starts its own. */
static struct quiesce_cb_domain forked;
static atomic_ulong forked_count;

static void child_uses_domain(void *unused)
{
	queue_counted(&forked, &forked_count);
	quiesce_cb_domain_barrier(&forked, "test_barrier");
	exit(atomic_load(&forked_count) == 2 ? 0 : 1);
}

static void test_fork(void)
{
	char err[256];
	int status;

	quiesce_cb_domain_init(&forked, &quiesce_rcu_domain, "test-fork");
	queue_counted(&forked, &forked_count);
	quiesce_cb_domain_barrier(&forked, "test_barrier");
	status = check_run_child(child_uses_domain, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's barrier on an inherited domain (status %d): %s", status, err);
	quiesce_cb_domain_destroy(&forked);
}

int main(void)
{
	test_waits_for_reader();
	test_many_domains();
	test_start_poll();
	/* ThreadSanitizer cannot follow a child that starts threads again. */
	if (!QUIESCE_TSAN_ON)
		test_fork();
	check_child_aborts(child_barrier_from_callback, NULL, "called from an RCU callback");
	check_child_aborts(child_destroy_pending, NULL, "with callbacks pending");
	check_child_aborts(child_null_func, NULL, "a callback function is required");
	return 0;
}
