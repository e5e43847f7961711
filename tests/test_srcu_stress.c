/*
 * Readers traverse an SRCU-protected object, some sleeping inside their
 * sections and some handing their section to another thread to close,
 * while updaters replace the object and free the old one after
 * synchronize_srcu().  A retired object is poisoned and kept in quarantine
 * for a while, so a reader that still holds it sees the poison.
 *
 * Readers stop now and then between their look at the domain's index and
 * their add (QUIESCE_TEST_SRCU_LOCK_WINDOW), as a preempted reader would,
 * far more often: such a reader adds to an index that grace periods may
 * have flipped away from.  Two busted controls must be caught: grace
 * periods that do not wait at all (quiesce_test_busted_gp), and ones that
 * skip their first wait, for the index readers are not taking, and wait
 * for the old index only after the flip (quiesce_test_busted_srcu).  For
 * the second the stop is made likely ("late" readers, one updater): a
 * reader outside any section stops until a grace period that starts after
 * its look at the index has ended, polling for it so that it adds (to the
 * index that grace period flipped away from) and loads the object before
 * the updater replaces it again (the updater waits for it: late_cookie);
 * then it holds its section until a grace period from then has ended
 * and, for LATE_POISON_MS more, the updater had time to poison what it
 * replaced; or until it finds the object poisoned; or, as a correct grace
 * period waits for it, until late_hold_ms have passed.  The busted grace
 * period right after ignores it and frees the object.  Correct grace
 * periods must pass that workload too (with short holds: each holds every
 * grace period up).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void stress_lock_window(void);
#define QUIESCE_TEST_SRCU_LOCK_WINDOW() stress_lock_window()
#include <quiesce/srcu.h>

#include "check.h"
#include "rcu/gp_engine.h"
#include "rcu/srcu.h"

#define READERS 4
#define UPDATERS 2

struct elem {
	struct check_record rec;
};

static struct srcu_struct ss;
static struct elem *current;
static atomic_bool stop, late_readers;
static atomic_ulong violations, reads, updates, handoffs, lates;
static __thread unsigned window_seed, reader_id;
static __thread bool late;
/* Between a reader's outermost lock and its unlock or hand-over. */
static __thread bool in_section;
/*
 * A late reader's cookie while it waits for its grace period and until it
 * has loaded the object (0: none).  After each grace period the updater
 * waits (at most LATE_WINDOW_MS) for the late readers whose grace period
 * has passed to load, so that they load before it replaces the object.
 */
static atomic_ulong late_cookie[READERS + 1];
/* One late reader at a time, never one of the hand-off pair. */
static atomic_bool late_active;

/* The longest a late reader waits for a grace period, outside its section. */
#define LATE_WINDOW_MS 200
/* How long it looks for poison once a grace period from its load has ended. */
#define LATE_POISON_MS 20
static unsigned late_hold_ms;

/* Returns once a grace period from now has passed, or after LATE_WINDOW_MS. */
static void wait_grace_period(void)
{
	unsigned long cookie = get_state_synchronize_srcu(&ss);
	uint64_t deadline = check_now_ns() + LATE_WINDOW_MS * 1000000ull;

	while (!poll_state_synchronize_srcu(&ss, cookie) && check_now_ns() < deadline &&
	       !atomic_load_explicit(&stop, memory_order_relaxed))
		sched_yield();
}

/*
 * One lock in 8 stops between the index and the add: for 0.1-1 ms, or,
 * one in 4 of those with late_readers, outside any section and when no
 * other reader is late, for a grace period.
 */
static void stress_lock_window(void)
{
	unsigned r = (unsigned)rand_r(&window_seed);

	if (r % 8)
		return;
	if (atomic_load_explicit(&late_readers, memory_order_relaxed) && r / 8 % 4 == 0 &&
	    reader_id > 2 && !in_section &&
	    !atomic_exchange(&late_active, true)) {
		late = true;
		atomic_store(&late_cookie[reader_id], get_state_synchronize_srcu(&ss));
		wait_grace_period();
	} else {
		usleep(100 + rand_r(&window_seed) % 900);
	}
}

static struct elem *new_elem(unsigned long seq)
{
	struct elem *e = malloc(sizeof(*e));

	check_record_init(&e->rec, seq);
	return e;
}

static void check_elem(const struct elem *e)
{
	if (!check_record_intact(&e->rec))
		atomic_fetch_add(&violations, 1);
}

/* The hand-off: reader 1 opens sections that reader 2 checks and closes. */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool full;
	int idx;
	struct elem *e;
} slot;

static bool hand_over(int idx, struct elem *e)
{
	bool taken;

	pthread_mutex_lock(&slot_lock);
	taken = !slot.full;
	if (taken)
		slot.full = true, slot.idx = idx, slot.e = e;
	pthread_mutex_unlock(&slot_lock);
	return taken;
}

static void close_handed_over(void)
{
	pthread_mutex_lock(&slot_lock);
	if (slot.full) {
		check_elem(slot.e);
		srcu_read_unlock(&ss, slot.idx);
		slot.full = false;
		atomic_fetch_add_explicit(&handoffs, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&slot_lock);
}

static void *reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id;

	window_seed = id * 7919u;
	reader_id = id;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int idx = srcu_read_lock(&ss), inner;
		struct elem *e = srcu_dereference(current, &ss);
		unsigned r = rand_r(&seed);

		in_section = true;

		if (late)
			atomic_store(&late_cookie[id], 0);
		check_elem(e);
		if (r % 4 == 0) {
			/* A nested section must not end protection early. */
			inner = srcu_read_lock(&ss);
			srcu_read_unlock(&ss, inner);
		}
		if (late) {
			unsigned long cookie = get_state_synchronize_srcu(&ss);
			uint64_t until = check_now_ns() + late_hold_ms * 1000000ull;

			late = false;
			while (check_now_ns() < until && check_record_intact(&e->rec) &&
			       !poll_state_synchronize_srcu(&ss, cookie))
				usleep(100);
			until = check_now_ns() + LATE_POISON_MS * 1000000ull;
			while (check_now_ns() < until && check_record_intact(&e->rec))
				usleep(100);
			atomic_fetch_add_explicit(&lates, 1, memory_order_relaxed);
			atomic_store(&late_active, false);
		} else if (r % 3 == 0) {
			usleep(r % 500);	/* readers may sleep */
		}
		else
			for (unsigned i = r % 2000; i > 0; i--)
				quiesce_cpu_relax();
		check_elem(e);
		in_section = false;
		if (id == 1 && r % 5 == 0 && hand_over(idx, e))
			;	/* reader 2 checks e again and closes the section */
		else
			srcu_read_unlock(&ss, idx);
		if (id == 2)
			close_handed_over();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	/* Reader 1 closes what it left in the slot: updaters may wait for it. */
	if (id == 1)
		close_handed_over();
	return NULL;
}

/* Lets the late readers whose grace period has passed load the object. */
static void wait_for_late_readers(void)
{
	uint64_t deadline = check_now_ns() + LATE_WINDOW_MS * 1000000ull;

	for (int i = 1; i <= READERS; i++) {
		unsigned long cookie;

		while ((cookie = atomic_load(&late_cookie[i])) &&
		       poll_state_synchronize_srcu(&ss, cookie) && check_now_ns() < deadline)
			usleep(20);
	}
}

static void *updater(void *arg)
{
	unsigned long seq = (uintptr_t)arg << 40;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct elem *old = rcu_xchg_pointer(&current, new_elem(++seq));

		if (seq % 3 == 0)
			synchronize_srcu_expedited(&ss);
		else
			synchronize_srcu(&ss);
		check_quarantine(old, sizeof(*old));
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
		wait_for_late_readers();
	}
	return NULL;
}

static bool stress_enough(void)
{
	return atomic_load(&reads) >= 2000 && atomic_load(&updates) >= 200 &&
	       atomic_load(&handoffs) >= 20;
}

/* Late readers hold grace periods up: fewer updates. */
static bool late_stress_enough(void)
{
	return atomic_load(&reads) >= 2000 && atomic_load(&updates) >= 20 &&
	       atomic_load(&handoffs) >= 5 && atomic_load(&lates) >= 20;
}

/*
 * For the busted controls: caught, or given (after 1 s) at least this
 * many updates (quiesce_test_busted_gp) or late readers
 * (quiesce_test_busted_srcu), however long a slow machine takes for them.
 */
#define BUSTED_UPDATES 20000
#define BUSTED_LATES 500

static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= BUSTED_UPDATES ||
	       atomic_load(&lates) >= BUSTED_LATES;
}

static unsigned long run_stress(unsigned ms, bool (*enough)(void))
{
	init_srcu_struct(&ss);
	current = new_elem(0);
	check_run_until(ms, enough, &stop, READERS, reader,
			atomic_load(&late_readers) ? 1 : UPDATERS, updater);
	free(current);	/* every thread has stopped */
	fprintf(stderr, "%lu reads, %lu updates, %lu hand-offs, %lu late readers, %lu violations\n",
		atomic_load(&reads), atomic_load(&updates), atomic_load(&handoffs),
		atomic_load(&lates), atomic_load(&violations));
	return atomic_load(&violations);
}

static void busted_child(void *arg)
{
	bool *busted = arg;

	*busted = true;
	atomic_store(&late_readers, busted == &quiesce_test_busted_srcu);
	late_hold_ms = 200;
	atomic_store(&updates, 0);
	atomic_store(&lates, 0);
	check_child_exit(run_stress(1000, busted_enough) ? 1 : 0);
}

static void reset_counts(void)
{
	atomic_store(&reads, 0);
	atomic_store(&updates, 0);
	atomic_store(&handoffs, 0);
	atomic_store(&lates, 0);
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	/* At least 1.5 s, and until readers and updaters made progress. */
	CHECK(run_stress(1500, stress_enough) == 0, "readers saw freed objects");
	cleanup_srcu_struct(&ss);
	/* With late readers too: the workload that catches the second control. */
	reset_counts();
	atomic_store(&late_readers, true);
	late_hold_ms = 20;
	CHECK(run_stress(1000, late_stress_enough) == 0, "readers saw freed objects (late readers)");
	cleanup_srcu_struct(&ss);
	atomic_store(&late_readers, false);
	check_child_detects_violation(busted_child, &quiesce_test_busted_gp);
	check_child_detects_violation(busted_child, &quiesce_test_busted_srcu);
	printf("srcu stress: all checks passed\n");
	return 0;
}
