/*
 * Freeze protection: levels close in order while work in flight drains
 * (work at a frozen level may still start work at a higher one), thaw
 * reopens and releases blocked starters, misuse is refused or aborts, and
 * a stress in which no work may be in flight while the freezer is frozen,
 * with a busted control (rcu_sync skips its grace periods) that must be
 * caught: RCU readers stop now and then between their look at the gate
 * and their count update (check_read_window()), where it shows.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

void check_read_window(void);
#define QUIESCE_TEST_PERCPU_READ_WINDOW() check_read_window()
#include <quiesce/freeze.h>

#include "check.h"
#include "locks/rcu_sync.h"

#define LEVELS 3
#define WORKERS 4

static struct freezer fz;
static atomic_int phase;	/* steps of the ordered scenario */
static atomic_bool freeze_done, started_after_thaw;

static void test_init_and_errors(void)
{
	struct freezer bad;

	CHECK(freezer_init(&bad, 0) == -EINVAL, "zero levels refused");
	CHECK(freezer_init(&bad, QUIESCE_FREEZER_MAX_LEVELS + 1) == -EINVAL, "too many refused");
	CHECK(freezer_init(&fz, LEVELS) == 0, "init");
	CHECK(freezer_thaw(&fz) == -EINVAL, "thawing an unfrozen freezer is refused");
	for (int l = 0; l < LEVELS; l++) {
		freezer_start(&fz, l);
		freezer_end(&fz, l);
	}
	CHECK(freezer_freeze(&fz) == 0, "freeze");
	CHECK(freezer_frozen(&fz), "frozen");
	CHECK(freezer_freeze(&fz) == -EBUSY, "freezing twice is refused");
	for (int l = 0; l < LEVELS; l++)
		CHECK(!freezer_trystart(&fz, l), "level %d closed while frozen", l);
	CHECK(freezer_thaw(&fz) == 0, "thaw");
	CHECK(!freezer_frozen(&fz), "thawed");
	CHECK(freezer_thaw(&fz) == -EINVAL, "thawing twice is refused");
	for (int l = 0; l < LEVELS; l++) {
		CHECK(freezer_trystart(&fz, l), "level %d open after thaw", l);
		freezer_end(&fz, l);
	}
	freezer_destroy(&fz);
}

static void wait_phase(int p)
{
	while (atomic_load(&phase) < p)
		check_sleep_us(200);
}

/* Work at level 0 that, once level 0 is closing, still starts level 1. */
static void *writer_in_flight(void *arg)
{
	freezer_start(&fz, 0);
	atomic_store(&phase, 1);
	wait_phase(2);
	/* The freeze in progress waits for this work: asking must not block. */
	CHECK(!freezer_frozen(&fz), "frozen before the work in flight ended");
	CHECK(freezer_trystart(&fz, 1), "level 1 stays open while level 0 drains");
	freezer_end(&fz, 1);
	freezer_end(&fz, 0);
	return NULL;
}

static void *freezing(void *arg)
{
	CHECK(freezer_freeze(&fz) == 0, "freeze");
	atomic_store(&freeze_done, true);
	return NULL;
}

static void *late_starter(void *arg)
{
	freezer_start(&fz, 0);
	CHECK(!freezer_frozen(&fz), "started while frozen");
	atomic_store(&started_after_thaw, true);
	freezer_end(&fz, 0);
	return NULL;
}

/* Whether level 0 refuses new work; ends the work it let in. */
static bool level0_closed(void *unused)
{
	if (!freezer_trystart(&fz, 0))
		return true;
	freezer_end(&fz, 0);
	return false;
}

static void test_order(void)
{
	pthread_t w, f, late;

	CHECK(freezer_init(&fz, LEVELS) == 0, "init");
	atomic_store(&phase, 0);
	pthread_create(&w, NULL, writer_in_flight, NULL);
	wait_phase(1);
	pthread_create(&f, NULL, freezing, NULL);
	/* Level 0 closes to new work, but the freeze waits for w. */
	check_wait_until(level0_closed, NULL, "level 0 never closed for the freeze");
	check_sleep_us(20000);
	CHECK(!atomic_load(&freeze_done), "the freeze did not wait for work in flight");
	atomic_store(&phase, 2);
	check_join_within(w, CHECK_HANG_MS,
			  "work in flight that asks freezer_frozen() during a freeze");
	pthread_join(f, NULL);
	CHECK(atomic_load(&freeze_done), "the freeze completes once the work ended");

	/* A starter blocked by the freeze goes on after the thaw, not before. */
	pthread_create(&late, NULL, late_starter, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&started_after_thaw), "a starter got through a frozen level");
	CHECK(freezer_thaw(&fz) == 0, "thaw");
	pthread_join(late, NULL);
	CHECK(atomic_load(&started_after_thaw), "the blocked starter went on after the thaw");
	freezer_destroy(&fz);
}

/* Stress: workers nest levels 0 < 1 < 2; a freezer freezes and thaws. */
static atomic_bool stop, stop_freezer;
static atomic_int frozen_flag;
static atomic_ulong violations, works, freezes;
static struct {
	atomic_int in_flight;
	unsigned long done;	/* relaxed atomic: the progress check reads it */
} QUIESCE_CACHELINE_ALIGNED worker_state[WORKERS];

static bool work_in_flight(void)
{
	for (int i = 0; i < WORKERS; i++)
		if (atomic_load_explicit(&worker_state[i].in_flight, memory_order_relaxed))
			return true;
	return false;
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id + 1;
	unsigned long done = 0;

	__atomic_store_n(&worker_state[id].done, 0, __ATOMIC_RELAXED);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int first = (int)(rand_r(&seed) % LEVELS), last = first + (int)(rand_r(&seed) % 2);

		if (last >= LEVELS)
			last = LEVELS - 1;
		for (int l = first; l <= last; l++)
			freezer_start(&fz, l);
		atomic_store_explicit(&worker_state[id].in_flight, 1, memory_order_relaxed);
		if (atomic_load_explicit(&frozen_flag, memory_order_relaxed))
			atomic_fetch_add(&violations, 1);
		atomic_store_explicit(&worker_state[id].in_flight, 0, memory_order_relaxed);
		for (int l = last; l >= first; l--)
			freezer_end(&fz, l);
		__atomic_store_n(&worker_state[id].done, ++done, __ATOMIC_RELAXED);
	}
	atomic_fetch_add(&works, done);
	return NULL;
}

static void *freezer_thread(void *arg)
{
	unsigned seed = 99;

	while (!atomic_load_explicit(&stop_freezer, memory_order_relaxed)) {
		CHECK(freezer_freeze(&fz) == 0, "freeze");
		atomic_store(&frozen_flag, 1);
		if (work_in_flight())
			atomic_fetch_add(&violations, 1);
		check_sleep_us(150 + rand_r(&seed) % 250);
		if (work_in_flight())
			atomic_fetch_add(&violations, 1);
		atomic_store(&frozen_flag, 0);
		CHECK(freezer_thaw(&fz) == 0, "thaw");
		atomic_fetch_add_explicit(&freezes, 1, memory_order_relaxed);
		/*
		 * Half the time, wait until level 0's gate has reopened, so
		 * that the next freeze closes it: the closing is what a busted
		 * control gets wrong, and the reopening comes a millisecond or
		 * more after the thaw.
		 */
		if (rand_r(&seed) % 2)
			while (!quiesce_rcu_sync_is_idle(&fz.level[0].rss) &&
			       !atomic_load_explicit(&stop_freezer, memory_order_relaxed))
				check_sleep_us(100);
		else
			check_sleep_us(rand_r(&seed) % 800);
	}
	return NULL;
}

static unsigned long min_works, min_freezes;	/* see run_stress() */

static bool stress_enough(void)
{
	unsigned long w = 0;

	for (int i = 0; i < WORKERS; i++)
		w += __atomic_load_n(&worker_state[i].done, __ATOMIC_RELAXED);
	return atomic_load(&violations) ||
	       (w >= min_works && atomic_load(&freezes) >= min_freezes);
}

/*
 * Runs the stress for at least ms, then until the workers have done `w`
 * works and the freezer `f` freezes, or a violation was seen.  A freezer
 * that completes no freeze for stuck_ms, or is still running stuck_ms after
 * it was told to stop, is stuck.
 */
static unsigned long run_stress(unsigned ms, unsigned long w_min, unsigned long f_min,
				unsigned stuck_ms)
{
	pthread_t w[WORKERS], f;
	unsigned long seen = 0;
	uint64_t stuck_ns = (uint64_t)stuck_ms * 1000000u, progress_at;

	CHECK(freezer_init(&fz, LEVELS) == 0, "init");
	min_works = w_min;
	min_freezes = f_min;
	atomic_store(&works, 0);
	atomic_store(&freezes, 0);
	atomic_store(&stop, false);
	atomic_store(&stop_freezer, false);
	for (int i = 0; i < WORKERS; i++)
		__atomic_store_n(&worker_state[i].done, 0, __ATOMIC_RELAXED);
	for (uintptr_t i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)i);
	pthread_create(&f, NULL, freezer_thread, NULL);
	check_preempt_start(w, WORKERS, 150);
	check_sleep_us(ms * 1000);
	progress_at = check_now_ns();
	while (!stress_enough()) {
		uint64_t now = check_now_ns();

		if (atomic_load(&freezes) != seen) {
			seen = atomic_load(&freezes);
			progress_at = now;
		}
		CHECK(now - progress_at < stuck_ns, "no freeze for %u ms: the freezer is stuck",
		      stuck_ms);
		check_sleep_us(1000);
	}
	/* The freezer stops first, so that no worker is left behind a freeze. */
	atomic_store(&stop_freezer, true);
	check_join_within(f, stuck_ms, "the freezer (waiting for work that has ended?)");
	atomic_store(&stop, true);
	check_preempt_stop();
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	freezer_destroy(&fz);
	fprintf(stderr, "%lu works, %lu freezes, %lu violations\n", atomic_load(&works),
		atomic_load(&freezes), atomic_load(&violations));
	return atomic_load(&violations);
}

#define BUSTED_ROUNDS 60
#define BUSTED_STUCK_MS 5000

static void busted_child(void *arg)
{
	quiesce_test_busted_rcu_sync = true;
	/*
	 * Caught when a worker stops inside its fast path (or, with rseq
	 * readers, runs in parallel with the freezer inside the widened
	 * window), by the invariant or by a freeze left waiting for a count
	 * that the fast path changed without waking it (stuck for
	 * BUSTED_STUCK_MS): rounds until then, usually within a few, at most
	 * BUSTED_ROUNDS.  A round ends at the first violation, or after 0.7 s
	 * and 100 freezes, however long a slow machine takes for them; a
	 * loaded machine runs our threads in parallel less often and needs
	 * more rounds.  Each round has its own hang limit (the alarm of
	 * check_run_child()).
	 */
	for (int round = 0; round < BUSTED_ROUNDS; round++) {
		alarm(CHECK_HANG_MS / 1000);
		if (run_stress(700, 0, 100, BUSTED_STUCK_MS))
			check_child_exit(1);
	}
	check_child_exit(0);
}

static void end_without_start(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_end(&fz, 1);
}

/* Work started at one level and ended at another: both levels' counts would be off for good. */
static void end_at_another_level(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_start(&fz, 0);
	freezer_end(&fz, 1);
}

/* Levels past the freezer's, within the array (closed gate) or beyond it. */
static void level_out_of_range(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_start(&fz, LEVELS);
}

static void trystart_level_out_of_range(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_trystart(&fz, QUIESCE_FREEZER_MAX_LEVELS - 1);
}

static void end_level_out_of_range(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_start(&fz, 0);
	freezer_end(&fz, LEVELS + 1);
}

/*
 * The bad levels come from memory, as a program's would: a constant one
 * makes gcc's ASan build warn about the access that the check before it
 * never lets happen.
 */
static volatile int bad_level;

static void level_past_array(void *arg)
{
	freezer_init(&fz, LEVELS);
	bad_level = QUIESCE_FREEZER_MAX_LEVELS;
	freezer_start(&fz, bad_level);
}

static void negative_level(void *arg)
{
	freezer_init(&fz, LEVELS);
	bad_level = -1;
	freezer_trystart(&fz, bad_level);
}

static void freeze_inside_work(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_start(&fz, 0);
	freezer_freeze(&fz);
}

static void freeze_inside_reader(void *arg)
{
	freezer_init(&fz, LEVELS);
	rcu_read_lock();
	freezer_freeze(&fz);
}

static void destroy_frozen(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_freeze(&fz);
	freezer_destroy(&fz);
}

static void destroy_busy(void *arg)
{
	freezer_init(&fz, LEVELS);
	freezer_start(&fz, 2);
	freezer_destroy(&fz);
}

/* fork() by the thread that froze a freezer: the child thaws it and uses it (freeze.h). */
static struct freezer fork_f;

static void thaw_after_fork(void *arg)
{
	(void)arg;
	CHECK(freezer_frozen(&fork_f), "the child's freezer is not frozen");
	CHECK(freezer_thaw(&fork_f) == 0, "the child cannot thaw");
	for (int i = 0; i < 3; i++) {
		freezer_start(&fork_f, 0);
		freezer_start(&fork_f, 1);
		freezer_end(&fork_f, 1);
		freezer_end(&fork_f, 0);
		CHECK(freezer_freeze(&fork_f) == 0 && freezer_thaw(&fork_f) == 0,
		      "the child cannot freeze");
	}
	freezer_destroy(&fork_f);
}

static void test_fork_frozen(void)
{
	char err[4096];
	int status;

	CHECK(freezer_init(&fork_f, 2) == 0, "init");
	CHECK(freezer_freeze(&fork_f) == 0, "freeze");
	status = check_run_child(thaw_after_fork, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a freezer's freezer: status %#x, %s", status, err);
	CHECK(freezer_thaw(&fork_f) == 0, "thaw");
	freezer_destroy(&fork_f);
}

int main(void)
{
	test_init_and_errors();
	test_order();
	test_fork_frozen();
	/* At least 1 s, and until both sides made progress. */
	CHECK(run_stress(1000, 1000, 10, CHECK_HANG_MS) == 0,
	      "work ran while the freezer was frozen");
	if (check_busted_rcu_sync_catchable())
		check_child_detects_violation(busted_child, NULL);
	else
		fprintf(stderr, "rseq readers: the busted control runs in the _rseq_window build\n");
	check_child_aborts(end_without_start, NULL, "without a matching freezer_start()");
	check_child_aborts(end_at_another_level, NULL,
			   "freezer_end(level 1) without a matching freezer_start() of that level");
	check_child_aborts(level_out_of_range, NULL, "freezer_start(level 3) on a freezer with 3 level(s)");
	check_child_aborts(trystart_level_out_of_range, NULL, "freezer_trystart(level 7) on a freezer");
	check_child_aborts(end_level_out_of_range, NULL, "freezer_end(level 4) on a freezer");
	check_child_aborts(level_past_array, NULL, "freezer_start(level 8) on a freezer");
	check_child_aborts(negative_level, NULL, "freezer_trystart(level -1) on a freezer");
	check_child_aborts(freeze_inside_work, NULL, "it would wait for itself");
	check_child_aborts(freeze_inside_reader, NULL,
			   "freezer_freeze() called inside an RCU read-side critical section");
	check_child_aborts(destroy_frozen, NULL, "on a frozen freezer");
	check_child_aborts(destroy_busy, NULL, "reader count of 1");
	printf("freeze: all checks passed\n");
	return 0;
}
