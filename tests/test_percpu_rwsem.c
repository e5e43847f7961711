/*
 * percpu_rw_semaphore: mutual exclusion under stress on many semaphores
 * (readers and writers check each other's absence and the data's
 * consistency), with a busted control (rcu_sync skips its grace periods)
 * that must be caught; writers not starved by a relay of readers that
 * never lets the count drop to zero; readers not starved by a stream of
 * writers; a burst of writers closes the gate exactly once; release on
 * another thread; misuse.  tests/percpu.cmake runs it again without rseq.
 *
 * Readers run under the preemption injector (check.h), and RCU readers
 * also stop now and then between their look at the gate and their count
 * update (check_read_window()): the busted control only shows when a
 * reader stops there.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void check_read_window(void);
#define QUIESCE_TEST_PERCPU_READ_WINDOW() check_read_window()
#include <quiesce/percpu_rwsem.h>

#include "check.h"
#include "locks/rcu_sync.h"

#define SEMS 16
#define READERS 4
#define WRITERS 2
#define WORDS 4

struct guarded {
	struct percpu_rw_semaphore sem;
	atomic_int writers;
	unsigned long data[WORDS];
};

/*
 * Which semaphore each reader holds (-1: none), one line per reader so
 * that readers share no written line: their fast path stays fast, and a
 * writer scans them for its own.
 */
static struct {
	atomic_int holds;
	unsigned long reads;
} QUIESCE_CACHELINE_ALIGNED reader_state[READERS];

static struct guarded g[SEMS];
static unsigned nr_sems;	/* how many of g the stress uses */
static unsigned read_spin;	/* longest read-side critical section */
static atomic_bool stop, stop_writers;
static atomic_ulong violations, reads, writes;

static void check_rseq_mode(void)
{
	const char *tunables = getenv("GLIBC_TUNABLES");

	fprintf(stderr, "this thread %s rseq\n",
		quiesce_percpu_thread_has_rseq() ? "has" : "lacks");
	if (tunables && strstr(tunables, "glibc.pthread.rseq=0"))
		CHECK(!quiesce_percpu_thread_has_rseq(), "rseq disabled, yet in use");
}

static void test_basics(void)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_down_read(&sem);
	CHECK(percpu_down_read_trylock(&sem), "readers share");
	percpu_up_read(&sem);
	percpu_up_read(&sem);
	percpu_down_write(&sem);
	percpu_rwsem_assert_held(&sem);
	CHECK(!percpu_down_read_trylock(&sem), "trylock fails while a writer holds");
	percpu_up_write(&sem);
	CHECK(percpu_down_read_trylock(&sem), "trylock succeeds once the writer left");
	percpu_up_read(&sem);
	percpu_free_rwsem(&sem);
}

/* Thousands of semaphores, each independent of the others. */
#define MANY 3000

static void test_many(void)
{
	struct percpu_rw_semaphore *many = calloc(MANY, sizeof(*many));

	for (int i = 0; i < MANY; i++) {
		percpu_init_rwsem(&many[i]);
		percpu_down_read(&many[i]);
	}
	for (int i = 0; i < MANY; i += 500) {
		CHECK(percpu_down_read_trylock(&many[i]), "readers share semaphore %d", i);
		percpu_up_read(&many[i]);
		percpu_up_read(&many[i]);
		percpu_down_write(&many[i]);
		percpu_up_write(&many[i]);
		percpu_down_read(&many[i]);
	}
	for (int i = 0; i < MANY; i++) {
		percpu_up_read(&many[i]);
		percpu_free_rwsem(&many[i]);
	}
	free(many);
}

static void spin(unsigned n)
{
	while (n--)
		quiesce_cpu_relax();
}

static bool reader_inside(int sem)
{
	for (int i = 0; i < READERS; i++)
		if (atomic_load_explicit(&reader_state[i].holds, memory_order_relaxed) == sem)
			return true;
	return false;
}

static void *stress_reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id + 1;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int k = (int)(rand_r(&seed) % nr_sems);
		struct guarded *x = &g[k];

		if (rand_r(&seed) % 8 == 0) {
			if (!percpu_down_read_trylock(&x->sem))
				continue;
		} else {
			percpu_down_read(&x->sem);
		}
		atomic_store_explicit(&reader_state[id].holds, k, memory_order_relaxed);
		if (atomic_load_explicit(&x->writers, memory_order_relaxed))
			atomic_fetch_add(&violations, 1);
		for (int i = 1; i < WORDS; i++)
			if (x->data[i] != x->data[0])
				atomic_fetch_add(&violations, 1);
		if (rand_r(&seed) % 20000 == 0)
			check_sleep_us(100);	/* readers may sleep holding it */
		else
			spin(rand_r(&seed) % read_spin);
		if (atomic_load_explicit(&x->writers, memory_order_relaxed))
			atomic_fetch_add(&violations, 1);
		atomic_store_explicit(&reader_state[id].holds, -1, memory_order_relaxed);
		percpu_up_read(&x->sem);
		/* Relaxed atomic: stress_enough() reads it. */
		__atomic_store_n(&reader_state[id].reads, reader_state[id].reads + 1,
				 __ATOMIC_RELAXED);
	}
	atomic_fetch_add(&reads, reader_state[id].reads);
	return NULL;
}

static void *stress_writer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed)) {
		int k = (int)(rand_r(&seed) % nr_sems);
		struct guarded *x = &g[k];

		percpu_down_write(&x->sem);
		percpu_rwsem_assert_held(&x->sem);
		if (atomic_fetch_add(&x->writers, 1) || reader_inside(k))
			atomic_fetch_add(&violations, 1);
		for (int i = 0; i < WORDS; i++) {
			x->data[i]++;
			spin(20);
		}
		/*
		 * Sometimes hold the lock for a while: blocked readers sleep,
		 * and a reader preempted on its fast path gets its CPU back
		 * while we are still inside.
		 */
		if (rand_r(&seed) % 2 == 0)
			check_sleep_us(150 + rand_r(&seed) % 250);
		if (reader_inside(k))
			atomic_fetch_add(&violations, 1);
		atomic_fetch_sub(&x->writers, 1);
		percpu_up_write(&x->sem);
		atomic_fetch_add_explicit(&writes, 1, memory_order_relaxed);
		/*
		 * Half the time, wait until the gate has reopened (readers on
		 * their fast path again), so that the next write closes it:
		 * the closing is what a busted control gets wrong, and the
		 * callback that reopens the gate comes a millisecond or more
		 * after the last writer, longer than the pause below.
		 */
		if (rand_r(&seed) % 2)
			while (!quiesce_rcu_sync_is_idle(&x->sem.rss) &&
			       !atomic_load_explicit(&stop_writers, memory_order_relaxed))
				check_sleep_us(100);
		else
			check_sleep_us(rand_r(&seed) % 800);
	}
	return NULL;
}

/* The progress a stress run waits for (see run_stress()). */
static unsigned long min_reads, min_writes;

static bool stress_enough(void)
{
	/* A reader adds its reads to `reads` only as it ends: count its own. */
	unsigned long r = 0;

	for (int i = 0; i < READERS; i++)
		r += __atomic_load_n(&reader_state[i].reads, __ATOMIC_RELAXED);
	return atomic_load(&violations) ||
	       (r >= min_reads && atomic_load(&writes) >= min_writes);
}

/*
 * Runs the stress for at least ms, then until the readers have made `r`
 * reads and the writers `w` writes, or a violation was seen.  Writers that
 * complete no write for stuck_ms, or one still running stuck_ms after they
 * were told to stop, are stuck.
 */
static unsigned long run_stress(unsigned ms, unsigned long r, unsigned long w, unsigned sems,
				unsigned spin_max, unsigned stuck_ms)
{
	pthread_t rt[READERS], wt[WRITERS];
	unsigned long seen = 0;
	uint64_t stuck_ns = (uint64_t)stuck_ms * 1000000u, progress_at;

	nr_sems = sems;
	read_spin = spin_max;
	min_reads = r;
	min_writes = w;
	for (unsigned i = 0; i < nr_sems; i++)
		percpu_init_rwsem(&g[i].sem);
	atomic_store(&stop, false);
	atomic_store(&stop_writers, false);
	atomic_store(&reads, 0);
	atomic_store(&writes, 0);
	/*
	 * Before any thread starts: a writer may run before a reader does, and
	 * must not take a stale or zero-initialized slot for a reader inside
	 * semaphore 0.
	 */
	for (int i = 0; i < READERS; i++) {
		atomic_store(&reader_state[i].holds, -1);
		__atomic_store_n(&reader_state[i].reads, 0, __ATOMIC_RELAXED);
	}
	for (uintptr_t i = 0; i < READERS; i++)
		pthread_create(&rt[i], NULL, stress_reader, (void *)i);
	for (uintptr_t i = 0; i < WRITERS; i++)
		pthread_create(&wt[i], NULL, stress_writer, (void *)(i + 100));
	check_preempt_start(rt, READERS, 150);
	check_sleep_us(ms * 1000);
	progress_at = check_now_ns();
	while (!stress_enough()) {
		uint64_t now = check_now_ns();

		if (atomic_load(&writes) != seen) {
			seen = atomic_load(&writes);
			progress_at = now;
		}
		CHECK(now - progress_at < stuck_ns, "no write for %u ms: the writers are stuck",
		      stuck_ms);
		check_sleep_us(1000);
	}
	/*
	 * Writers stop first, while readers still arrive: under the busted
	 * control a writer may wait for a count that the fast path changed
	 * without waking it, and the readers' failed attempts wake it to
	 * recheck; if none does, the timed join reports it.
	 */
	atomic_store(&stop_writers, true);
	for (int i = 0; i < WRITERS; i++)
		check_join_within(wt[i], stuck_ms, "a writer (waiting for readers that left?)");
	atomic_store(&stop, true);
	check_preempt_stop();
	for (int i = 0; i < READERS; i++)
		pthread_join(rt[i], NULL);
	for (unsigned i = 0; i < nr_sems; i++)
		percpu_free_rwsem(&g[i].sem);
	fprintf(stderr, "%lu reads, %lu writes, %lu violations\n", atomic_load(&reads),
		atomic_load(&writes), atomic_load(&violations));
	return atomic_load(&violations);
}

#define BUSTED_ROUNDS 60
#define BUSTED_STUCK_MS 5000

static void busted_child(void *arg)
{
	quiesce_test_busted_rcu_sync = true;
	/*
	 * One semaphore and empty read sections: readers spend much of their
	 * time in the fast path, where the missing grace period matters.  A
	 * reader must be stopped between its look at the gate and its count
	 * update (or, with rseq readers, run in parallel with a writer that
	 * closes the gate inside the widened window), which is rare: rounds
	 * until it is caught, usually within a few, at most BUSTED_ROUNDS.  A
	 * round ends at the first violation, or after 0.7 s and 300 writes,
	 * however long a slow machine takes for them; a loaded machine runs
	 * our threads in parallel less often and needs more rounds.  A writer
	 * stuck for BUSTED_STUCK_MS (waiting for a count that the fast path
	 * changed without waking it) is caught too.  Each round has its own
	 * hang limit (the alarm of check_run_child()).
	 */
	for (int round = 0; round < BUSTED_ROUNDS; round++) {
		alarm(CHECK_HANG_MS / 1000);
		if (run_stress(700, 0, 300, 1, 1, BUSTED_STUCK_MS))
			check_child_exit(1);
	}
	check_child_exit(0);
}

/*
 * A relay of readers: each holds the lock until another reader has come in
 * (or 2 ms have passed), so without writer preference the reader count
 * would never reach zero.  A writer must still get in, again and again: a
 * starved one is stuck, which the timed join reports.  The longest wait is
 * printed, not checked: speed is quiesce-bench's business.
 */
static struct percpu_rw_semaphore relay_sem;
static atomic_int relay_holders;

static void *relay_reader(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		percpu_down_read(&relay_sem);
		uint64_t deadline = check_now_ns() + 2000000;

		atomic_fetch_add(&relay_holders, 1);
		while (atomic_load(&relay_holders) < 2 && check_now_ns() < deadline &&
		       !atomic_load_explicit(&stop, memory_order_relaxed))
			spin(50);
		atomic_fetch_sub(&relay_holders, 1);
		percpu_up_read(&relay_sem);
	}
	return NULL;
}

static uint64_t worst_wait;

static void *relay_writer(void *arg)
{
	for (int i = 0; i < 20; i++) {
		uint64_t t0 = check_now_ns();

		percpu_down_write(&relay_sem);
		uint64_t waited = check_now_ns() - t0;

		CHECK(atomic_load(&relay_holders) == 0, "a reader inside with the writer");
		percpu_up_write(&relay_sem);
		if (waited > worst_wait)
			worst_wait = waited;
		check_sleep_us(5000);
	}
	return NULL;
}

static void test_writer_not_starved(void)
{
	pthread_t r[3], w;

	percpu_init_rwsem(&relay_sem);
	atomic_store(&stop, false);
	for (int i = 0; i < 3; i++)
		pthread_create(&r[i], NULL, relay_reader, NULL);
	check_sleep_us(20000);
	worst_wait = 0;
	pthread_create(&w, NULL, relay_writer, NULL);
	check_join_within(w, CHECK_HANG_MS, "a writer behind a relay of readers (starved?)");
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		pthread_join(r[i], NULL);
	percpu_free_rwsem(&relay_sem);
	fprintf(stderr, "writer under a reader relay: 20 writes, worst wait %.1f ms\n",
		worst_wait / 1e6);
}

/*
 * A stream of writers, back to back: a reader must still get in, again and
 * again (a starved one is stuck, which the timed join reports).
 */
static struct percpu_rw_semaphore stream_sem;

static void *streaming_writer(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		percpu_down_write(&stream_sem);
		spin(200);
		percpu_up_write(&stream_sem);
	}
	return NULL;
}

#define STREAM_READS 200

static void *stream_reader(void *arg)
{
	for (int i = 0; i < STREAM_READS; i++) {
		uint64_t t0 = check_now_ns();

		percpu_down_read(&stream_sem);
		uint64_t waited = check_now_ns() - t0;

		percpu_up_read(&stream_sem);
		if (waited > worst_wait)
			worst_wait = waited;
	}
	return NULL;
}

static void test_readers_not_starved(void)
{
	pthread_t w[2], r;

	percpu_init_rwsem(&stream_sem);
	atomic_store(&stop, false);
	worst_wait = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, streaming_writer, NULL);
	pthread_create(&r, NULL, stream_reader, NULL);
	check_join_within(r, CHECK_HANG_MS, "a reader behind a stream of writers (starved?)");
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	percpu_free_rwsem(&stream_sem);
	fprintf(stderr, "reader under a writer stream: %d reads, worst wait %.1f ms\n",
		STREAM_READS, worst_wait / 1e6);
}

/*
 * A burst of back-to-back writers closes the gate once: one membarrier with
 * rseq readers, one synchronize_rcu_expedited() call with RCU readers.
 * Every writer after the first comes back while the gate's reopening
 * callback is pending, and pays nothing.  The callback thread is held
 * (check_cb_hold()) for the burst, so that the callback is certainly
 * pending however slow the machine: then exactly one closing, where a gate
 * without the EXIT/REPLAY states would close 1000 times.  Released, the
 * gate reopens, and the next writer closes it again.
 */
#define BURST 1000

static uint64_t gate_closings(bool rseq)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return rseq ? s.rseq_barriers : s.sync_calls;
}

static bool gate_open(void *sem)
{
	struct percpu_rw_semaphore *p = sem;

	return __atomic_load_n(&p->rss.gp_state, __ATOMIC_ACQUIRE) == QUIESCE_RCU_SYNC_IDLE;
}

static void test_burst_closes_once(void)
{
	struct percpu_rw_semaphore sem;
	uint64_t before;
	bool rseq;

	percpu_init_rwsem(&sem);
	rseq = sem.rss.rseq_readers;
	check_cb_hold();
	before = gate_closings(rseq);
	for (int i = 0; i < BURST; i++) {
		percpu_down_write(&sem);
		percpu_up_write(&sem);
	}
	uint64_t closings = gate_closings(rseq) - before;

	fprintf(stderr, "%d writers in a burst: %" PRIu64 " gate closing(s), %s readers\n", BURST,
		closings, rseq ? "rseq" : "RCU");
	CHECK(closings == 1, "%d writers closed the gate %" PRIu64 " times", BURST, closings);
	CHECK(!gate_open(&sem), "the gate reopened while its callback could not run");
	check_cb_release();
	check_wait_until(gate_open, &sem, "the gate never reopened after the burst");
	before = gate_closings(rseq);
	percpu_down_write(&sem);
	percpu_up_write(&sem);
	CHECK(gate_closings(rseq) - before == 1, "a writer after the reopening closed the gate %"
	      PRIu64 " times", gate_closings(rseq) - before);
	percpu_free_rwsem(&sem);
}

/* A read lock taken on one thread and released on another. */
static struct percpu_rw_semaphore handoff_sem;

static void *release_elsewhere(void *arg)
{
	percpu_up_read(&handoff_sem);
	return NULL;
}

static void test_release_on_other_thread(void)
{
	pthread_t t;

	percpu_init_rwsem(&handoff_sem);
	for (int i = 0; i < 50; i++) {
		percpu_down_read(&handoff_sem);
		pthread_create(&t, NULL, release_elsewhere, NULL);
		pthread_join(t, NULL);
		percpu_down_write(&handoff_sem);
		percpu_up_write(&handoff_sem);
	}
	percpu_free_rwsem(&handoff_sem);
}

static void up_write_unheld(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_up_write(&sem);
}

static void assert_unheld(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_down_read(&sem);
	percpu_rwsem_assert_held(&sem);
}

static void unbalanced_up_read(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_up_read(&sem);
	percpu_free_rwsem(&sem);
}

static void unbalanced_up_read_then_write(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_down_read(&sem);
	percpu_up_read(&sem);
	percpu_up_read(&sem);
	percpu_down_write(&sem);
}

static void read_after_free(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_free_rwsem(&sem);
	percpu_down_read(&sem);
}

static void write_after_free(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_free_rwsem(&sem);
	percpu_down_write(&sem);
}

static void free_twice(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	percpu_free_rwsem(&sem);
	percpu_free_rwsem(&sem);
}

/*
 * Inside an RCU read-side section: with RCU readers the writer's grace
 * period waits for the section; rseq readers need none, but the rule is
 * the same for both kinds.
 */
static void down_write_inside_reader(void *arg)
{
	struct percpu_rw_semaphore sem;

	percpu_init_rwsem(&sem);
	rcu_read_lock();
	percpu_down_write(&sem);
}

/*
 * fork() by a thread that holds the semaphore (for write, then for read):
 * the child releases the hold it inherited and uses the semaphore as the
 * parent does (percpu_rwsem.h, fork()).
 */
static struct percpu_rw_semaphore fork_sem;

static void use_after_fork(void *held_for_write)
{
	if (held_for_write)
		percpu_up_write(&fork_sem);
	else
		percpu_up_read(&fork_sem);
	for (int i = 0; i < 3; i++) {
		percpu_down_read(&fork_sem);
		percpu_up_read(&fork_sem);
		percpu_down_write(&fork_sem);
		percpu_up_write(&fork_sem);
	}
	percpu_free_rwsem(&fork_sem);
}

static void test_fork_holding(void)
{
	char err[4096];
	int status;

	percpu_init_rwsem(&fork_sem);
	percpu_down_write(&fork_sem);
	status = check_run_child(use_after_fork, &fork_sem, err, sizeof(err));
	CHECK(status == 0, "child of a writer: status %#x, %s", status, err);
	percpu_up_write(&fork_sem);
	percpu_down_read(&fork_sem);
	status = check_run_child(use_after_fork, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a reader: status %#x, %s", status, err);
	percpu_up_read(&fork_sem);
	percpu_free_rwsem(&fork_sem);
}

/*
 * fork() while the callback that reopens the gate holds the gate's lock
 * (held there CALLBACK_HOLD_MS by the test hook; the main thread forks as
 * soon as the callback is inside): the child has no callback thread to
 * release the lock, and its writer must still get in.  fork() waits for
 * the callback to finish (rcu_sync.c, callback_lock); without that wait
 * the child's writer waited for ever, and this test's child got SIGALRM.
 */
#define CALLBACK_HOLD_MS 100
#define CHILD_WRITER_S 30
static atomic_bool callback_inside;

static void hold_reopening(struct quiesce_rcu_sync *rss)
{
	if (rss != &fork_sem.rss)
		return;
	atomic_store(&callback_inside, true);
	check_sleep_us(CALLBACK_HOLD_MS * 1000);
}

static bool reopening_inside(void *unused)
{
	(void)unused;
	return atomic_load(&callback_inside);
}

static void write_in_child(void *unused)
{
	(void)unused;
	alarm(CHILD_WRITER_S);	/* SIGALRM's default action ends a writer that waits for ever */
	percpu_down_write(&fork_sem);
	percpu_up_write(&fork_sem);
	percpu_free_rwsem(&fork_sem);
}

static void test_fork_while_gate_reopens(void)
{
	char err[4096];
	int status;

	percpu_init_rwsem(&fork_sem);
	QUIESCE_STORE(&quiesce_test_rcu_sync_hook, hold_reopening);
	percpu_down_write(&fork_sem);
	percpu_up_write(&fork_sem);	/* queues the callback that reopens the gate */
	check_wait_until(reopening_inside, NULL, "the gate's reopening callback");
	status = check_run_child(write_in_child, NULL, err, sizeof(err));
	QUIESCE_STORE(&quiesce_test_rcu_sync_hook, NULL);
	CHECK(status == 0, "child forked while the gate reopened: status %#x%s, %s", status,
	      WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
		      ? " (SIGALRM: its writer waited for the gate's lock)" : "", err);
	percpu_free_rwsem(&fork_sem);
}

/*
 * A reader thread that exits holding its read lock (bad use): the writer
 * waits until the hold is released, and says so once it has waited the
 * stall timeout.  Its stderr goes to a file meanwhile; the hold is then
 * released from here (a read hold may be released on another thread).
 */
static struct percpu_rw_semaphore orphan_sem;
static uint64_t warnings_at_start;

static void *read_and_exit(void *unused)
{
	(void)unused;
	percpu_down_read(&orphan_sem);
	return NULL;
}

static void *orphaned_writer(void *unused)
{
	(void)unused;
	percpu_down_write(&orphan_sem);
	return NULL;
}

static void test_writer_reports_stuck_reader(void)
{
	uint64_t hang = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u;
	FILE *log = tmpfile();
	int saved = dup(STDERR_FILENO);
	char text[4096];
	size_t n;
	pthread_t t;

	CHECK(log && saved >= 0, "a file for the writer's stderr");
	warnings_at_start = check_stall_warnings();
	quiesce_rcu_set_stall_timeout_ms(200);
	percpu_init_rwsem(&orphan_sem);
	pthread_create(&t, NULL, read_and_exit, NULL);
	pthread_join(t, NULL);
	fflush(stderr);
	dup2(fileno(log), STDERR_FILENO);
	pthread_create(&t, NULL, orphaned_writer, NULL);
	while (check_stall_warnings() == warnings_at_start && check_now_ns() < hang)
		check_sleep_us(100);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	CHECK(check_stall_warnings() > warnings_at_start,
	      "a writer behind a reader that exited holding its lock: no report after %u ms",
	      CHECK_HANG_MS);
	percpu_up_read(&orphan_sem);
	pthread_join(t, NULL);
	percpu_up_write(&orphan_sem);
	percpu_free_rwsem(&orphan_sem);
	quiesce_rcu_set_stall_timeout_ms(0);
	rewind(log);
	n = fread(text, 1, sizeof(text) - 1, log);
	text[n] = '\0';
	fclose(log);
	CHECK(strstr(text, "percpu_down_write() has waited") &&
		      strstr(text, "for 1 reader of a percpu_rw_semaphore to leave"),
	      "the report of a writer behind a reader that exited: \"%s\"", text);
}

int main(void)
{
	check_rseq_mode();
	test_basics();
	test_many();
	/* At least 1 s, and until both sides made progress. */
	CHECK(run_stress(1000, 1000, 50, SEMS, 300, CHECK_HANG_MS) == 0,
	      "mutual exclusion violated");
	if (check_busted_rcu_sync_catchable())
		check_child_detects_violation(busted_child, NULL);
	else
		fprintf(stderr, "rseq readers: the busted control runs in the _rseq_window build\n");
	test_writer_not_starved();
	test_readers_not_starved();
	test_release_on_other_thread();
	test_burst_closes_once();
	test_fork_holding();
	test_fork_while_gate_reopens();
	test_writer_reports_stuck_reader();
	check_child_aborts(up_write_unheld, NULL, "not held for write");
	check_child_aborts(assert_unheld, NULL, "is not held for write");
	check_child_aborts(unbalanced_up_read, NULL, "reader count of -1");
	check_child_aborts(unbalanced_up_read_then_write, NULL, "found a reader count of -1");
	check_child_aborts(read_after_free, NULL, "percpu_down_read() on percpu_rw_semaphore");
	check_child_aborts(write_after_free, NULL, "percpu_down_write() on percpu_rw_semaphore");
	check_child_aborts(down_write_inside_reader, NULL,
			   "percpu_down_write() called inside an RCU read-side critical section");
	check_child_aborts(free_twice, NULL, "percpu_free_rwsem() on percpu_rw_semaphore");
	printf("percpu_rw_semaphore: all checks passed\n");
	return 0;
}
