/*
 * quiesce_defer_rcu() on each domain (default, mb, QSBR):
 *  - work deferred while a reader holds its section runs only after the
 *    reader leaves (the busted control, blocks run when handed over, must
 *    be caught);
 *  - a stress: updaters replace a record and defer its poisoning while
 *    readers check it, and defer one token per update, each of which must
 *    run exactly once; one updater calls the barrier now and then and
 *    checks that everything every updater had deferred before it has run;
 *  - a thread that defers a few entries and then idles gets them run with
 *    no further call (the flusher); one that exits with a partial block
 *    gets them run (its exit hands the block over);
 *  - deferring inside a read-side section aborts with a message.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/defer.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

#include "check.h"
#include "rcu/defer.h"

#define READERS 2
#define UPDATERS 2
#define UPDATES 6000		/* per updater: about 24 blocks of tokens */
#define FEW 10			/* entries of a partial block */

struct domain {
	const char *name;
	void (*defer)(void (*fn)(void *p), void *p);
	void (*barrier)(void);
	void (*reader_start)(void);	/* once per reader thread */
	void (*enter)(void);
	void (*leave)(void);		/* QSBR: a quiescent state */
	void (*reader_end)(void);
};

static void nothing(void) {}
static void qsbr_leave(void) { rcu_qsbr_quiescent_state(); }

static const struct domain domains[] = {
	{ "rcu", quiesce_defer_rcu, quiesce_defer_barrier, nothing, quiesce_rcu_read_lock,
	  quiesce_rcu_read_unlock, nothing },
	{ "mb", quiesce_defer_rcu_mb, quiesce_defer_barrier_mb, nothing,
	  quiesce_rcu_mb_read_lock, quiesce_rcu_mb_read_unlock, quiesce_rcu_mb_unregister_thread },
	{ "qsbr", quiesce_qsbr_defer_rcu, quiesce_qsbr_defer_barrier,
	  quiesce_qsbr_register_thread, nothing, qsbr_leave, quiesce_qsbr_unregister_thread },
};

static const struct domain *dom;

/* Deferred work held back by a reader. */

static atomic_bool reader_in, reader_release, marked;

static void mark(void *p)
{
	(void)p;
	CHECK(atomic_load(&reader_release), "%s: deferred work ran while a reader held its section",
	      dom->name);
	atomic_store(&marked, true);
}

static void *holding_reader(void *unused)
{
	dom->reader_start();
	dom->enter();
	atomic_store(&reader_in, true);
	/* Ended by waits_for_reader(). */
	while (!atomic_load(&reader_release))
		check_sleep_us(100);
	dom->leave();
	dom->reader_end();
	return NULL;
}

static void *barrier_thread(void *unused)
{
	dom->barrier();
	return NULL;
}

static bool reader_is_in(void *arg) { return atomic_load(&reader_in); }

/*
 * The barrier hands the one-entry block over while the reader holds its
 * section: it must wait for the reader, and so must the entry.
 */
static void waits_for_reader(void)
{
	pthread_t r, b;

	atomic_store(&reader_in, false);
	atomic_store(&reader_release, false);
	atomic_store(&marked, false);
	pthread_create(&r, NULL, holding_reader, NULL);
	check_wait_until(reader_is_in, NULL, "the reader entered");
	dom->defer(mark, NULL);
	pthread_create(&b, NULL, barrier_thread, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&marked), "%s: deferred work ran before the reader left", dom->name);
	atomic_store(&reader_release, true);
	check_join_within(r, CHECK_HANG_MS, "the reader");
	check_join_within(b, CHECK_HANG_MS, "the barrier");
	CHECK(atomic_load(&marked), "%s: the barrier returned before the deferred work ran",
	      dom->name);
}

static void busted_child(void *arg)
{
	dom = arg;
	quiesce_test_busted_defer = true;
	waits_for_reader();
	exit(0);
}

/* The stress. */

struct elem {
	struct check_record rec;
};

static struct elem *current;
static atomic_bool stop;
static atomic_ulong violations, reads, retired;
static atomic_uchar tokens[UPDATERS][UPDATES];
static atomic_ulong deferred[UPDATERS], ran[UPDATERS];
static atomic_int updaters_done;

static void retire(void *p)
{
	struct elem *e = p;

	check_quarantine(e, sizeof(e->rec));
	atomic_fetch_add_explicit(&retired, 1, memory_order_relaxed);
}

static void token(void *p)
{
	atomic_uchar *t = p;
	int u = (int)((t - &tokens[0][0]) / UPDATES);

	atomic_fetch_add(t, 1);
	atomic_fetch_add(&ran[u], 1);
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	dom->reader_start();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned spin = rand_r(&seed) % 1000;
		struct elem *e;

		dom->enter();
		e = rcu_dereference(current);
		for (unsigned i = 0; i < spin; i++)
			quiesce_cpu_relax();
		if (!check_record_intact(&e->rec))
			atomic_fetch_add(&violations, 1);
		dom->leave();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	dom->reader_end();
	return NULL;
}

/* Everything each updater had deferred before the barrier has run after it. */
static void check_barrier(void)
{
	unsigned long before[UPDATERS];

	for (int u = 0; u < UPDATERS; u++)
		before[u] = atomic_load(&deferred[u]);
	dom->barrier();
	for (int u = 0; u < UPDATERS; u++)
		CHECK(atomic_load(&ran[u]) >= before[u],
		      "%s: the barrier returned with %lu of updater %d's %lu tokens run", dom->name,
		      atomic_load(&ran[u]), u, before[u]);
}

static void *updater(void *arg)
{
	int u = (int)(uintptr_t)arg - 1;
	unsigned long seq = (uintptr_t)arg << 40;

	for (int i = 0; i < UPDATES; i++) {
		struct elem *e = malloc(sizeof(*e)), *old;

		check_record_init(&e->rec, ++seq);
		old = rcu_xchg_pointer(&current, e);
		dom->defer(retire, old);
		dom->defer(token, &tokens[u][i]);
		atomic_store(&deferred[u], (unsigned long)i + 1);
		if (u == 0 && i % 1000 == 999)
			check_barrier();
	}
	atomic_fetch_add(&updaters_done, 1);
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&updaters_done) == UPDATERS && atomic_load(&reads) > 0;
}

static void stress(void)
{
	memset(tokens, 0, sizeof(tokens));
	for (int u = 0; u < UPDATERS; u++) {
		atomic_store(&deferred[u], 0);
		atomic_store(&ran[u], 0);
	}
	atomic_store(&updaters_done, 0);
	atomic_store(&reads, 0);
	atomic_store(&retired, 0);
	atomic_store(&stop, false);
	current = malloc(sizeof(*current));
	check_record_init(&current->rec, 0);
	check_run_until(0, stress_enough, &stop, READERS, reader, UPDATERS, updater);
	dom->barrier();
	CHECK(atomic_load(&violations) == 0, "%s: readers saw %lu freed records", dom->name,
	      atomic_load(&violations));
	CHECK(atomic_load(&retired) == UPDATERS * UPDATES, "%s: %lu of %d retirements ran",
	      dom->name, atomic_load(&retired), UPDATERS * UPDATES);
	for (int u = 0; u < UPDATERS; u++)
		for (int i = 0; i < UPDATES; i++)
			CHECK(atomic_load(&tokens[u][i]) == 1, "%s: token %d of updater %d ran %d times",
			      dom->name, i, u, atomic_load(&tokens[u][i]));
	free(current);
}

/* A partial block of a thread that idles, and of one that exits. */

static atomic_ulong few_ran;
static atomic_bool idler_release;

static void count_few(void *p)
{
	(void)p;
	atomic_fetch_add(&few_ran, 1);
}

static void *idler(void *unused)
{
	for (int i = 0; i < FEW; i++)
		dom->defer(count_few, NULL);
	/* Ended by idle_thread_flushed(), once its entries ran. */
	while (!atomic_load(&idler_release))
		check_sleep_us(1000);
	return NULL;
}

static bool few_ran_all(void *arg) { return atomic_load(&few_ran) == FEW; }

static void idle_thread_flushed(void)
{
	pthread_t t;

	atomic_store(&few_ran, 0);
	atomic_store(&idler_release, false);
	pthread_create(&t, NULL, idler, NULL);
	/* No barrier, no further call: the flusher must hand the block over. */
	check_wait_until(few_ran_all, NULL, "the idle thread's partial block ran");
	atomic_store(&idler_release, true);
	check_join_within(t, CHECK_HANG_MS, "the idle thread");
}

static void *exiter(void *unused)
{
	for (int i = 0; i < FEW; i++)
		dom->defer(count_few, NULL);
	return NULL;
}

static void exit_hands_over(void)
{
	pthread_t t;

	atomic_store(&few_ran, 0);
	pthread_create(&t, NULL, exiter, NULL);
	check_join_within(t, CHECK_HANG_MS, "the exiting thread");
	/* The barrier finds only live threads' blocks: the exit handed it over. */
	dom->barrier();
	CHECK(atomic_load(&few_ran) == FEW, "%s: %lu of the exited thread's %d entries ran",
	      dom->name, atomic_load(&few_ran), FEW);
}

static void defer_in_reader(void *unused)
{
	rcu_read_lock();
	quiesce_defer_rcu(count_few, NULL);
}

/*
 * A deferred function that waits for the domain's deferred work: it runs
 * on the domain's callback thread, which the barrier waits for.  It died
 * as "rcu_barrier() called from an RCU callback", a call the program never
 * made.
 */
static void barrier_in_deferred(void *unused)
{
	quiesce_defer_barrier();
}

static void barrier_from_deferred(void *unused)
{
	quiesce_defer_rcu(barrier_in_deferred, NULL);
	quiesce_defer_barrier();
}

int main(void)
{
	for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
		dom = &domains[d];
		waits_for_reader();
		stress();
		idle_thread_flushed();
		exit_hands_over();
		check_child_detects_violation(busted_child, (void *)dom);
	}
	check_child_aborts(defer_in_reader, NULL, "read-side critical section");
	check_child_aborts(barrier_from_deferred, NULL,
			   "quiesce_defer_barrier() called on the domain's callback thread");
	printf("defer_rcu: all checks passed\n");
	return 0;
}
