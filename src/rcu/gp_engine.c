/*
 * gp_engine.c - grace periods: one heavy barrier, one phase flip, one scan.
 *
 * Readers (include/quiesce/rcu.h) copy the global phase word into their own
 * counter on the outermost rcu_read_lock(), behind only a compiler barrier,
 * and store 0 with release semantics on the outermost rcu_read_unlock().
 * A grace period, after its caller has unlinked an object:
 *
 *   1. quiesce_gp_barrier(): every reader thread executes the equivalent of
 *      a full fence at some point P in its program order during the call.
 *   2. Flips the phase word to a new value NEW.
 *   3. Scans the registry until no reader is inside a critical section that
 *      it entered with an older phase.
 *
 * Why that suffices, for a reader R and an object unlinked before step 1:
 *
 *  - R's counter store came before P in program order.  Then it is
 *    visible by the end of step 1, so the scan sees R inside (unless R has
 *    already left, see below) and waits for it, unless R stored NEW.  R can
 *    only have loaded NEW after step 2, which follows P, so that load is
 *    after P in program order, and so are the section's loads: they see the
 *    unlink.
 *  - R's counter store came after P.  Then so do the section's loads (they
 *    follow the store in program order, and P is a full fence), and they
 *    see the unlink, whatever the scan saw.
 *  - The scan sees R leave (counter 0 or NEW) through an acquire load that
 *    reads R's release store in rcu_read_unlock(): every load R made in the
 *    section happened before the grace period ends, and so before the
 *    caller frees the object.  No second barrier is needed after the scan;
 *    liburcu's memb flavor issues one there, we do not.
 *
 * The phase only ensures progress: a reader that leaves and re-enters picks
 * up NEW and no longer holds the grace period.
 *
 * Sharing: grace periods are counted by a sequence number (gp_seq.h).  A
 * caller takes a snapshot and returns when the count passes it.  One caller
 * at a time (the holder of gp_lock) runs grace periods; the others sleep on
 * gp_ended and are all woken when the holder lets go, so every caller that
 * arrived while one grace period ran is released by the next one, and they
 * come back together to share the one after.
 */
#include "rcu/gp_engine.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "rcu/call_rcu.h"
#include "common/diag.h"
#include "common/futex.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_seq.h"
#include "rcu/registry.h"
#include "rcu/stall.h"

QUIESCE_CACHELINE_ALIGNED struct quiesce_rcu_gp_word quiesce_rcu_gp_word = {
	.ctr = 1,	/* phase 0, nesting depth 1 */
};

bool quiesce_test_busted_gp;

static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long gp_seq;		/* written under gp_lock */
static int gp_ended;			/* futex: bumped each time gp_lock is let go */
static bool knob_normal, knob_expedited;

static struct {
	uint64_t gp_normal, gp_expedited, sync_calls;
} stats;

/* Stalled readers reported at most per warning. */
#define STALL_REPORT_MAX 8
/* Busy polls of the registry before yielding, and yields before sleeping. */
#define EXPEDITED_SPINS 2000
#define EXPEDITED_YIELDS 50
#define NORMAL_YIELDS 4
#define FIRST_SLEEP_NS 200000u
#define MAX_SLEEP_NS 100000000u

unsigned long quiesce_gp_seq_current(void)
{
	/* Acquire: pairs with the release that ends a grace period. */
	return QUIESCE_LOAD_ACQUIRE(&gp_seq);
}

static bool reader_blocks(unsigned long ctr, unsigned long phase)
{
	return (ctr & QUIESCE_RCU_NEST_MASK) && ((ctr ^ phase) & ~QUIESCE_RCU_NEST_MASK);
}

/*
 * Counts the readers still inside a section entered before the flip to
 * phase; copies up to `cap` of them into `stalled` for a stall report.
 */
static unsigned scan_readers(unsigned long phase, struct quiesce_rcu_stall *stalled,
			     char names[][16], unsigned cap)
{
	unsigned blocking = 0;

	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		/* Acquire: pairs with the release store in rcu_read_unlock(). */
		if (!reader_blocks(QUIESCE_LOAD_ACQUIRE(&e->reader->ctr), phase))
			continue;
		if (blocking < cap) {
			stalled[blocking].tid = e->tid;
			if (pthread_getname_np(e->thread, names[blocking], 16))
				strcpy(names[blocking], "?");
			stalled[blocking].thread_name = names[blocking];
		}
		blocking++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return blocking;
}

static unsigned count_blocking_readers(unsigned long phase)
{
	return scan_readers(phase, NULL, NULL, 0);
}

static void report_stalls(unsigned long phase, uint64_t waited_ns)
{
	struct quiesce_rcu_stall stalled[STALL_REPORT_MAX];
	char names[STALL_REPORT_MAX][16];
	unsigned n = scan_readers(phase, stalled, names, STALL_REPORT_MAX);

	for (unsigned i = 0; i < n && i < STALL_REPORT_MAX; i++) {
		stalled[i].waited_ms = waited_ns / 1000000u;
		quiesce_stall_report(&stalled[i]);
	}
}

/*
 * Waits until no reader holds a section entered before the flip to phase.
 * Spins (expedited) or yields briefly, then sleeps on writer_sleeping: the
 * last reader to leave wakes it (quiesce_rcu_wake_grace_period()), and a
 * timeout bounds the sleep, both for the stall check and for the one race
 * in which a leaving reader misses the flag (see rcu_read_unlock()).
 */
static void wait_for_readers(unsigned long phase, bool expedited)
{
	uint64_t start = 0, next_warning = 0, warning_interval = 0;
	uint64_t sleep_ns = FIRST_SLEEP_NS;
	unsigned spins = 0, yields = 0;

	while (count_blocking_readers(phase)) {
		uint64_t now;

		if (expedited && spins < EXPEDITED_SPINS) {
			spins++;
			quiesce_cpu_relax();
			continue;
		}
		if (yields < (expedited ? EXPEDITED_YIELDS : NORMAL_YIELDS)) {
			yields++;
			sched_yield();
			continue;
		}
		QUIESCE_STORE(&quiesce_rcu_gp_word.writer_sleeping, 1);
		/*
		 * Orders the flag store before the rescan's loads.  Pairs with
		 * rcu_read_unlock(), which stores its counter and then loads
		 * the flag: one side or the other sees the other's store.
		 */
		quiesce_fence_store_load();
		if (count_blocking_readers(phase))
			quiesce_futex_wait(&quiesce_rcu_gp_word.writer_sleeping, 1, sleep_ns);
		QUIESCE_STORE(&quiesce_rcu_gp_word.writer_sleeping, 0);
		if (sleep_ns < MAX_SLEEP_NS)
			sleep_ns *= 2;

		now = quiesce_now_ns();
		if (!start) {
			start = now;
			warning_interval = quiesce_stall_timeout_ns();
			next_warning = start + warning_interval;
		} else if (now >= next_warning) {
			report_stalls(phase, now - start);
			warning_interval *= 2;
			next_warning = now + warning_interval;
		}
		if (sleep_ns > warning_interval)
			sleep_ns = warning_interval;
	}
}

void quiesce_rcu_wake_grace_period(void)
{
	if (__atomic_exchange_n(&quiesce_rcu_gp_word.writer_sleeping, 0, __ATOMIC_RELAXED))
		quiesce_futex_wake_all(&quiesce_rcu_gp_word.writer_sleeping);
}

static void run_one_grace_period(bool expedited)
{
	unsigned long phase;

	/* A child of fork() may inherit a grace period that was running. */
	if (!quiesce_gp_seq_running(gp_seq))
		QUIESCE_STORE(&gp_seq, gp_seq + 1);
	if (!QUIESCE_LOAD(&quiesce_test_busted_gp)) {
		quiesce_gp_barrier(expedited);
		phase = quiesce_rcu_gp_word.ctr + QUIESCE_RCU_PHASE_ONE;
		/* After the barrier: see the argument at the top of this file. */
		QUIESCE_STORE(&quiesce_rcu_gp_word.ctr, phase);
		wait_for_readers(phase, expedited);
	}
	/*
	 * Release: everything the scan observed (the readers' exits) happens
	 * before a caller that sees this count frees anything.
	 */
	QUIESCE_STORE_RELEASE(&gp_seq, gp_seq + 1);
	__atomic_fetch_add(expedited ? &stats.gp_expedited : &stats.gp_normal, 1,
			   __ATOMIC_RELAXED);
}

void quiesce_gp_wait_for(unsigned long snap, bool expedited)
{
	/* rcu_normal holds for the library's own expedited requests too. */
	expedited = expedited && !QUIESCE_LOAD(&knob_normal);
	for (;;) {
		int ended = QUIESCE_LOAD(&gp_ended);

		if (quiesce_gp_seq_done(quiesce_gp_seq_current(), snap))
			return;
		if (pthread_mutex_trylock(&gp_lock) == 0) {
			while (!quiesce_gp_seq_done(gp_seq, snap))
				run_one_grace_period(expedited);
			pthread_mutex_unlock(&gp_lock);
			/*
			 * After the unlock: a caller that found the lock taken
			 * sleeps until this bump, and then may take it.
			 */
			__atomic_fetch_add(&gp_ended, 1, __ATOMIC_RELAXED);
			quiesce_futex_wake_all(&gp_ended);
			return;
		}
		/* Woken by the bump above, from whoever holds gp_lock now. */
		quiesce_futex_wait(&gp_ended, ended, 0);
	}
}

static unsigned long snapshot(void)
{
	/*
	 * Orders the caller's unlink before reading the count, so that the
	 * grace period the snapshot names has its barrier after the unlink.
	 */
	quiesce_fence_store_load();
	return quiesce_gp_seq_snap(QUIESCE_LOAD(&gp_seq));
}

static void forbid_inside_reader(const char *call)
{
	if (quiesce_rcu_read_ongoing())
		quiesce_die("%s() called inside an RCU read-side critical section: "
			    "it would wait for itself forever", call);
}

void quiesce_synchronize_rcu(void)
{
	forbid_inside_reader("synchronize_rcu");
	__atomic_fetch_add(&stats.sync_calls, 1, __ATOMIC_RELAXED);
	quiesce_gp_wait_for(snapshot(), QUIESCE_LOAD(&knob_expedited));
}

void quiesce_synchronize_rcu_expedited(void)
{
	forbid_inside_reader("synchronize_rcu_expedited");
	__atomic_fetch_add(&stats.sync_calls, 1, __ATOMIC_RELAXED);
	quiesce_gp_wait_for(snapshot(), true);
}

unsigned long quiesce_get_state_synchronize_rcu(void)
{
	return snapshot();
}

bool quiesce_poll_state_synchronize_rcu(unsigned long cookie)
{
	return quiesce_gp_seq_done(quiesce_gp_seq_current(), cookie);
}

void quiesce_cond_synchronize_rcu(unsigned long cookie)
{
	if (!quiesce_poll_state_synchronize_rcu(cookie))
		quiesce_synchronize_rcu();
}

void quiesce_rcu_set_normal(bool on)
{
	QUIESCE_STORE(&knob_normal, on);
}

bool quiesce_gp_normal_only(void)
{
	return QUIESCE_LOAD(&knob_normal);
}

void quiesce_rcu_set_expedited(bool on)
{
	QUIESCE_STORE(&knob_expedited, on);
}

void quiesce_rcu_get_stats(struct quiesce_rcu_stats *out)
{
	out->gp_normal = __atomic_load_n(&stats.gp_normal, __ATOMIC_RELAXED);
	out->gp_expedited = __atomic_load_n(&stats.gp_expedited, __ATOMIC_RELAXED);
	out->sync_calls = __atomic_load_n(&stats.sync_calls, __ATOMIC_RELAXED);
	out->rseq_barriers = quiesce_rseq_barrier_count();
	out->stall_warnings = quiesce_stall_warnings();
	pthread_mutex_lock(&quiesce_registry_lock);
	out->registered_threads = quiesce_registry_count;
	pthread_mutex_unlock(&quiesce_registry_lock);
	quiesce_call_rcu_get_stats(out);
}

/*
 * fork(): a grace period that ran in the parent has no thread in the child.
 * Its lock is remade; its count stays odd, and the child's first grace
 * period finishes it properly (run_one_grace_period()).
 */
static void gp_child_after_fork(void)
{
	pthread_mutex_init(&gp_lock, NULL);
	quiesce_rcu_gp_word.writer_sleeping = 0;
}

__attribute__((constructor)) static void gp_engine_init(void)
{
	knob_normal = quiesce_env_flag("QUIESCE_RCU_NORMAL");
	knob_expedited = quiesce_env_flag("QUIESCE_RCU_EXPEDITED");
	quiesce_gp_barrier_init();
	pthread_atfork(NULL, NULL, gp_child_after_fork);
}
