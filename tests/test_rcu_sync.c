/*
 * rcu_sync: the state machine step by step, grace periods counted through
 * the statistics (a burst of updaters pays one), the knob that makes them
 * normal, misuse, and a stress in which readers that see the gate idle
 * must never overlap an updater; the busted control (no grace periods)
 * must be caught.  Where a step needs the reopening callback still
 * pending, the callback thread is held (check_cb_hold()): the order is
 * certain, not a race that a fast grace period or a slow machine decides.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <quiesce/rcu_sync.h>

#include "check.h"
#include "locks/rcu_sync.h"

#define BURST 1000
#define READERS 3
#define UPDATERS 2

static struct rcu_sync gate;
static atomic_int inside;
static atomic_bool stop;
static atomic_ulong violations, idle_reads, updates;

static uint64_t grace_periods(bool expedited)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return expedited ? s.gp_expedited : s.gp_normal;
}

static int state(void)
{
	return __atomic_load_n(&gate.gp_state, __ATOMIC_ACQUIRE);
}

static bool gate_idle(void *unused)
{
	return state() == QUIESCE_RCU_SYNC_IDLE;
}

/*
 * Waits for the pending callbacks, and those they queue (REPLAY queues a
 * second one), to run and reopen the gate.
 */
static void settle(void)
{
	check_wait_until(gate_idle, NULL, "the gate never reopened");
}

static void test_transitions(void)
{
	rcu_sync_init(&gate);
	CHECK(rcu_sync_is_idle(&gate), "a new gate is idle");
	rcu_sync_enter(&gate);
	CHECK(state() == QUIESCE_RCU_SYNC_PASSED, "enter ends in PASSED, not %d", state());
	CHECK(!rcu_sync_is_idle(&gate), "closed while an updater is inside");
	rcu_sync_exit(&gate);
	CHECK(state() == QUIESCE_RCU_SYNC_EXIT || state() == QUIESCE_RCU_SYNC_IDLE,
	      "exit leaves EXIT until the callback runs, not %d", state());
	settle();
	CHECK(rcu_sync_is_idle(&gate), "idle again a grace period after exit");

	/*
	 * An updater that comes back before the gate reopens pays no grace
	 * period, and its exit asks for one more (REPLAY).  The held callback
	 * thread keeps the reopening callback pending throughout.  (Expedited
	 * grace periods are rcu_sync_enter()'s; the callbacks' are normal.)
	 */
	check_cb_hold();
	rcu_sync_enter(&gate);
	rcu_sync_exit(&gate);
	CHECK(state() == QUIESCE_RCU_SYNC_EXIT, "exit leaves EXIT, not %d", state());
	uint64_t before = grace_periods(true);

	rcu_sync_enter(&gate);
	CHECK(grace_periods(true) == before, "re-entry while closing paid a grace period");
	CHECK(state() == QUIESCE_RCU_SYNC_EXIT, "re-entry while closing left EXIT for %d",
	      state());
	rcu_sync_exit(&gate);
	CHECK(state() == QUIESCE_RCU_SYNC_REPLAY, "exit after re-entry left %d, not REPLAY",
	      state());
	check_cb_release();
	settle();
	CHECK(rcu_sync_is_idle(&gate), "idle after the replayed grace period");

	/* The same, with the updater still inside when the callback runs. */
	check_cb_hold();
	rcu_sync_enter(&gate);
	rcu_sync_exit(&gate);
	rcu_sync_enter(&gate);
	check_cb_release();
	rcu_barrier();
	CHECK(state() == QUIESCE_RCU_SYNC_PASSED, "the callback left %d under an updater, "
	      "not PASSED", state());
	rcu_sync_exit(&gate);
	settle();
	rcu_sync_dtor(&gate);
}

/*
 * A burst of updaters while the reopening callback is pending (held)
 * pays exactly one grace period: the first updater's.  A gate without the
 * EXIT/REPLAY states would pay one each.
 */
static void test_burst(void)
{
	uint64_t sync0, gp0;

	rcu_sync_init(&gate);
	check_cb_hold();
	sync0 = grace_periods(true);
	gp0 = grace_periods(false) + grace_periods(true);
	for (int i = 0; i < BURST; i++) {
		rcu_sync_enter(&gate);
		rcu_sync_exit(&gate);
	}
	uint64_t sync_delta = grace_periods(true) - sync0;
	uint64_t gp_delta = grace_periods(false) + grace_periods(true) - gp0;

	fprintf(stderr, "burst of %d updaters: %llu expedited grace period(s), %llu in all\n",
		BURST, (unsigned long long)sync_delta, (unsigned long long)gp_delta);
	CHECK(sync_delta == 1, "%llu expedited grace periods for a burst",
	      (unsigned long long)sync_delta);
	CHECK(gp_delta == 1, "%llu grace periods for %d updaters", (unsigned long long)gp_delta,
	      BURST);
	CHECK(state() == QUIESCE_RCU_SYNC_REPLAY, "the burst left %d, not REPLAY", state());
	check_cb_release();
	settle();
	rcu_sync_dtor(&gate);
}

static void test_knob(void)
{
	uint64_t exp0;

	rcu_sync_init(&gate);
	exp0 = grace_periods(true);
	rcu_sync_enter(&gate);
	CHECK(grace_periods(true) > exp0, "rcu_sync_enter() expedites by default");
	rcu_sync_exit(&gate);
	settle();

	rcu_set_normal(true);
	exp0 = grace_periods(true);
	uint64_t normal0 = grace_periods(false);

	rcu_sync_enter(&gate);
	CHECK(grace_periods(true) == exp0 && grace_periods(false) > normal0,
	      "rcu_set_normal(true) makes rcu_sync's grace periods normal");
	rcu_sync_exit(&gate);
	settle();
	rcu_set_normal(false);
	rcu_sync_dtor(&gate);
}

/*
 * Readers and updaters sometimes sleep inside their sections, so that the
 * two overlap (under the busted control) even when the machine does not
 * run them in parallel: a loaded machine must not hide the bug.
 */
static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		rcu_read_lock();
		if (rcu_sync_is_idle(&gate)) {
			bool nap = rand_r(&seed) % 32 == 0;

			/* No updater may get past rcu_sync_enter() until we leave. */
			for (int i = 0; i < 200; i++) {
				if (atomic_load_explicit(&inside, memory_order_relaxed)) {
					atomic_fetch_add(&violations, 1);
					break;
				}
				if (nap && i == 100)
					check_sleep_us(50);
				quiesce_cpu_relax();
			}
			atomic_fetch_add_explicit(&idle_reads, 1, memory_order_relaxed);
		}
		rcu_read_unlock();
	}
	return NULL;
}

static void *updater(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		rcu_sync_enter(&gate);
		atomic_fetch_add(&inside, 1);
		for (unsigned i = rand_r(&seed) % 500; i; i--)
			quiesce_cpu_relax();
		if (rand_r(&seed) % 32 == 0)
			check_sleep_us(100);
		atomic_fetch_sub(&inside, 1);
		rcu_sync_exit(&gate);
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
		/* Leave the gate time to reopen now and then. */
		if (rand_r(&seed) % 4 == 0)
			check_sleep_us(300 + rand_r(&seed) % 700);
		/*
		 * And now and then wait until a reader has found it open: once
		 * both updaters wait, nobody holds the gate closed, and it
		 * reopens however the machine schedules us (valgrind runs one
		 * thread at a time, and may never run a reader in the moments
		 * the gate is open between two updaters).  Polls.
		 */
		if (rand_r(&seed) % 16 == 0) {
			unsigned long seen = atomic_load(&idle_reads);

			while (atomic_load(&idle_reads) == seen &&
			       !atomic_load_explicit(&stop, memory_order_relaxed))
				check_sleep_us(100);
		}
	}
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&idle_reads) >= 10 && atomic_load(&updates) >= 100;
}

/*
 * For the busted control: caught, or given (after 1 s) at least this many
 * updates, however long a slow machine takes for them.
 */
#define BUSTED_UPDATES 2000

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	rcu_sync_init(&gate);
	check_run_until(ms, enough, &stop, READERS, reader, UPDATERS, updater);
	settle();
	rcu_sync_dtor(&gate);
	fprintf(stderr, "%lu idle reads, %lu updates, %lu violations\n", atomic_load(&idle_reads),
		atomic_load(&updates), atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	quiesce_test_busted_rcu_sync = true;
	atomic_store(&updates, 0);
	check_child_exit(run_stress(1000, busted_enough) ? 1 : 0);
}

static void exit_without_enter(void *arg)
{
	rcu_sync_init(&gate);
	rcu_sync_exit(&gate);
}

static void dtor_while_entered(void *arg)
{
	rcu_sync_init(&gate);
	rcu_sync_enter(&gate);
	rcu_sync_dtor(&gate);
}

static void dtor_inside_reader_while_closing(void *arg)
{
	static struct rcu_sync closing;

	rcu_sync_init(&closing);
	rcu_sync_enter(&closing);
	rcu_read_lock();	/* the reopening grace period now waits for us */
	rcu_sync_exit(&closing);
	rcu_sync_dtor(&closing);
}

/*
 * A gate used after its destructor: enter and exit went on on the
 * destroyed lock, and the exit queued a callback on a gate whose memory
 * the caller is about to free.
 */
static void enter_after_dtor(void *arg)
{
	static struct rcu_sync dead;

	rcu_sync_init(&dead);
	rcu_sync_enter(&dead);
	rcu_sync_exit(&dead);
	rcu_sync_dtor(&dead);
	rcu_sync_enter(&dead);
	rcu_sync_exit(&dead);
}

static void dtor_twice(void *arg)
{
	static struct rcu_sync dead;

	rcu_sync_init(&dead);
	rcu_sync_dtor(&dead);
	rcu_sync_dtor(&dead);
}

/*
 * A second updater inside a read-side section, while the first waits for
 * the grace period that closes the gate: the first's grace period began
 * after the section, so it waits for the second, which waits for it.
 */
static struct rcu_sync entering;

static void *first_updater(void *arg)
{
	rcu_sync_enter(&entering);
	rcu_sync_exit(&entering);
	return arg;
}

static void enter_inside_reader_while_entering(void *arg)
{
	pthread_t first;

	rcu_sync_init(&entering);
	rcu_read_lock();
	pthread_create(&first, NULL, first_updater, NULL);
	while (QUIESCE_LOAD_ACQUIRE(&entering.gp_state) != QUIESCE_RCU_SYNC_ENTER)
		check_sleep_us(100);
	rcu_sync_enter(&entering);
}

/*
 * A gate still closing at fork() reopens in the child too, although the
 * child drops the parent's callbacks, and its destructor returns there.
 */
static void child_of_closing_gate(void *arg)
{
	check_wait_until(gate_idle, NULL, "the gate never reopened in the child");
	rcu_sync_dtor(&gate);
}

static atomic_int parked_state;	/* 1: inside a reader; 2: asked to leave */

static void *parked_reader(void *arg)
{
	rcu_read_lock();
	atomic_store(&parked_state, 1);
	while (atomic_load(&parked_state) != 2)
		check_sleep_us(1000);
	rcu_read_unlock();
	return NULL;
}

static void test_fork_while_closing(void)
{
	pthread_t t;
	char err[2048];
	int status;

	rcu_sync_init(&gate);
	rcu_sync_enter(&gate);
	/* A reader in the parent holds the reopening grace period back. */
	pthread_create(&t, NULL, parked_reader, NULL);
	while (atomic_load(&parked_state) != 1)
		check_sleep_us(100);
	rcu_sync_exit(&gate);
	CHECK(!rcu_sync_is_idle(&gate), "closing: the reopening callback is pending");
	status = check_run_child(child_of_closing_gate, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a closing gate: status %#x, %s", status, err);
	atomic_store(&parked_state, 2);
	pthread_join(t, NULL);
	rcu_sync_dtor(&gate);
}

/*
 * A closing gate whose lock another thread of the parent holds at fork():
 * the child cannot use that gate, but its callback thread must not block
 * on it, so the child's own gates still open and close.
 */
static struct rcu_sync held_gate;
static atomic_int holder_state;	/* 1: holds held_gate's lock; 2: asked to let go */

static void *gate_lock_holder(void *arg)
{
	pthread_mutex_lock(&held_gate.lock);
	atomic_store(&holder_state, 1);
	while (atomic_load(&holder_state) != 2)
		check_sleep_us(1000);
	pthread_mutex_unlock(&held_gate.lock);
	return NULL;
}

static void child_with_held_gate(void *arg)
{
	struct rcu_sync own;

	rcu_sync_init(&own);
	rcu_sync_enter(&own);
	rcu_sync_exit(&own);
	/* Waits for the reopening callback, behind the held gate's if queued. */
	rcu_sync_dtor(&own);
	rcu_barrier();
	_exit(0);
}

static void test_fork_with_gate_held(void)
{
	pthread_t reader_thread, holder;
	char err[2048];
	int status;

	rcu_sync_init(&held_gate);
	rcu_sync_enter(&held_gate);
	atomic_store(&parked_state, 0);
	pthread_create(&reader_thread, NULL, parked_reader, NULL);
	while (atomic_load(&parked_state) != 1)
		check_sleep_us(100);
	rcu_sync_exit(&held_gate);	/* its reopening callback is pending */
	pthread_create(&holder, NULL, gate_lock_holder, NULL);
	while (atomic_load(&holder_state) != 1)
		check_sleep_us(100);
	status = check_run_child(child_with_held_gate, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a parent that held a closing gate: status %#x, %s", status,
	      err);
	atomic_store(&holder_state, 2);
	pthread_join(holder, NULL);
	atomic_store(&parked_state, 2);
	pthread_join(reader_thread, NULL);
	rcu_sync_dtor(&held_gate);
}

int main(void)
{
	test_transitions();
	test_burst();
	test_knob();
	/* At least 1 s, and until readers found the gate idle and updaters came. */
	CHECK(run_stress(1000, stress_enough) == 0,
	      "a reader that saw the gate idle overlapped an updater");
	check_child_detects_violation(busted_child, NULL);
	check_child_aborts(exit_without_enter, NULL, "without a matching rcu_sync_enter");
	check_child_aborts(dtor_while_entered, NULL, "rcu_sync_dtor() with 1 updater");
	check_child_aborts(dtor_inside_reader_while_closing, NULL,
			   "inside an RCU read-side critical section while the gate still closes");
	check_child_aborts(enter_after_dtor, NULL, "rcu_sync_enter() on a gate after rcu_sync_dtor()");
	check_child_aborts(dtor_twice, NULL, "rcu_sync_dtor() on a gate after rcu_sync_dtor()");
	check_child_aborts(enter_inside_reader_while_entering, NULL,
			   "rcu_sync_enter() called inside an RCU read-side critical section");
	test_fork_while_closing();
	test_fork_with_gate_held();
	printf("rcu_sync: all checks passed\n");
	return 0;
}
