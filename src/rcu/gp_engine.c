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
 * No reader, no barrier.  When no thread but the caller is registered, a
 * grace period skips all three steps: the caller is outside any section
 * (checked), and an unregistered thread cannot be inside one, since its
 * first rcu_read_lock() registers it.  The look at the registry count
 * comes after the sequence number shows the grace period started, so it
 * follows every unlink that a cookie it satisfies covers: the updater
 * unlinked, fenced and then read the count still even (snapshot()); the
 * grace period stored it odd and then read the registry count, both
 * sequentially consistent.  A thread that registers meanwhile stores the
 * count, fences (quiesce_rcu_register_thread()), then makes its section's
 * loads: the store-buffer pattern, twice.  Either the grace period sees
 * the newcomer and waits for it, or the newcomer's fence follows the grace
 * period's accesses, which follow the updater's fence, and its section
 * sees the unlink.  A thread that unregistered stored the count with
 * release after its last section, so that section happens before the
 * grace period that reads the count.
 *
 * Normal and expedited.  Both issue the same barrier: membarrier
 * (PRIVATE_EXPEDITED), which interrupts only the CPUs that run a thread of
 * this process, the barrier liburcu's default flavor uses; a grace period
 * costs a microsecond, not the kernel's own grace period (membarrier
 * GLOBAL: milliseconds on a kernel with rcu_expedited = 0, the default of
 * most distributions).  GLOBAL, which interrupts no CPU, is for those who
 * ask for it with rcu_normal (QUIESCE_RCU_NORMAL=1, rcu_set_normal()),
 * and then serves every grace period.  What differs is the wait for
 * readers: a normal grace period polls for NORMAL_SPIN_NS, then sleeps
 * until the last reader leaves, leaving the CPU to the readers it waits
 * for (one of them may be preempted inside its section, and a waiter that
 * spins on a busy machine only delays it); an expedited one polls for
 * EXPEDITED_SPIN_NS first.  Either sleeps after a second barrier, which
 * makes the last reader's exit and its look at writer_sleeping meet (see
 * sleep_until_readers_leave()), so a sleep never waits for a timer.
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
static int gp_ended_waiters;		/* callers asleep (or about to be) on gp_ended */
static bool knob_normal, knob_expedited;

/*
 * Counters: the grace periods' are written by the holder of gp_lock only,
 * so a relaxed store of the next value does; the calls' are shared.
 */
static struct {
	uint64_t gp_normal, gp_expedited, gp_skipped;
	uint64_t sync_calls;
} stats;

#define COUNT_UNDER_GP_LOCK(counter) QUIESCE_STORE(&(counter), (counter) + 1)

/* Stalled readers reported at most per warning. */
#define STALL_REPORT_MAX 8
/* How long a grace period polls for readers before it sleeps. */
#define NORMAL_SPIN_NS 10000u
#define EXPEDITED_SPIN_NS 50000u

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
 * Sleeps until a reader leaves or the deadline passes.  The store-buffer
 * pattern: we store writer_sleeping, then rescan; rcu_read_unlock() stores
 * its counter, then loads writer_sleeping (and the phase word).  The
 * reader has no fence between the two, so the heavy barrier stands in for
 * it: a reader that passed its barrier point P before its counter store
 * has that store visible to the rescan; one that stores after P loads
 * writer_sleeping and the phase after P too, sees the flag set and the
 * phase flipped past its own, and wakes us.  Readers that entered with the
 * new phase do not hold us up and do not wake us.
 */
static void sleep_until_readers_leave(unsigned long phase, uint64_t deadline_ns)
{
	uint64_t now;

	QUIESCE_STORE(&quiesce_rcu_gp_word.writer_sleeping, 1);
	quiesce_gp_barrier(!QUIESCE_LOAD(&knob_normal));
	now = quiesce_now_ns();
	/* Woken by quiesce_rcu_wake_grace_period(), from the last reader out. */
	if (count_blocking_readers(phase) && now < deadline_ns)
		quiesce_futex_wait(&quiesce_rcu_gp_word.writer_sleeping, 1, deadline_ns - now);
	QUIESCE_STORE(&quiesce_rcu_gp_word.writer_sleeping, 0);
}

/*
 * Waits until no reader holds a section entered before the flip to phase:
 * polls for a while (see the top of this file), then sleeps, reporting the
 * readers that still hold it after the stall timeout and at doubling
 * intervals after that.
 */
static void wait_for_readers(unsigned long phase, bool expedited)
{
	uint64_t start = quiesce_now_ns();
	uint64_t spin_until = start + (expedited ? EXPEDITED_SPIN_NS : NORMAL_SPIN_NS);
	uint64_t warning_interval = quiesce_stall_timeout_ns();
	uint64_t next_warning = start + warning_interval;

	while (count_blocking_readers(phase)) {
		uint64_t now = quiesce_now_ns();

		if (now < spin_until) {
			quiesce_cpu_relax();
			continue;
		}
		if (now >= next_warning) {
			report_stalls(phase, now - start);
			warning_interval *= 2;
			next_warning = now + warning_interval;
		}
		sleep_until_readers_leave(phase, next_warning);
	}
}

void quiesce_rcu_wake_grace_period(void)
{
	if (__atomic_exchange_n(&quiesce_rcu_gp_word.writer_sleeping, 0, __ATOMIC_RELAXED))
		quiesce_futex_wake_all(&quiesce_rcu_gp_word.writer_sleeping);
}

/*
 * Whether no thread but the caller is registered (see "No reader, no
 * barrier" at the top of this file).
 */
static bool no_other_reader(void)
{
	/*
	 * Sequentially consistent, after the store that started the grace
	 * period: pairs with the fence in snapshot() and with the one after
	 * a newcomer's count store in registration.  Its acquire also pairs
	 * with the release of the count store of a thread that unregistered:
	 * that thread's last section happens before this grace period ends.
	 */
	unsigned long n = __atomic_load_n(&quiesce_registry_count, __ATOMIC_SEQ_CST);

	return n == 0 || (n == 1 && quiesce_rcu_reader_self.ctr != QUIESCE_RCU_UNREGISTERED);
}

static void run_one_grace_period(bool expedited)
{
	unsigned long phase;

	/*
	 * A child of fork() may inherit a grace period that was running.
	 * Sequentially consistent, before the barrier or the look at the
	 * registry: a cookie taken after this store names the next grace
	 * period (see "No reader, no barrier" at the top of this file).
	 */
	if (!quiesce_gp_seq_running(gp_seq))
		__atomic_store_n(&gp_seq, gp_seq + 1, __ATOMIC_SEQ_CST);
	if (QUIESCE_LOAD(&quiesce_test_busted_gp)) {
		/* The broken control: ends without waiting for anyone. */
	} else if (no_other_reader()) {
		COUNT_UNDER_GP_LOCK(stats.gp_skipped);
	} else {
		quiesce_gp_barrier(!QUIESCE_LOAD(&knob_normal));
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
	if (expedited)
		COUNT_UNDER_GP_LOCK(stats.gp_expedited);
	else
		COUNT_UNDER_GP_LOCK(stats.gp_normal);
}

void quiesce_gp_wait_for(unsigned long snap, bool expedited)
{
	/* rcu_normal holds for the library's own expedited requests too. */
	expedited = expedited && !QUIESCE_LOAD(&knob_normal);
	for (;;) {
		int ended = __atomic_load_n(&gp_ended, __ATOMIC_SEQ_CST);

		if (quiesce_gp_seq_done(quiesce_gp_seq_current(), snap))
			return;
		if (pthread_mutex_trylock(&gp_lock) == 0) {
			while (!quiesce_gp_seq_done(gp_seq, snap))
				run_one_grace_period(expedited);
			pthread_mutex_unlock(&gp_lock);
			/*
			 * After the unlock, so that a woken caller may take it.
			 * Sequentially consistent, with the load of the waiter
			 * count: pairs with a waiter's increment and its load
			 * of gp_ended in the futex wait.  Either we see the
			 * waiter, or its wait sees the bump and returns.
			 */
			__atomic_fetch_add(&gp_ended, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&gp_ended_waiters, __ATOMIC_SEQ_CST))
				quiesce_futex_wake_all(&gp_ended);
			return;
		}
		__atomic_fetch_add(&gp_ended_waiters, 1, __ATOMIC_SEQ_CST);
		/* Woken by the bump above, from whoever holds gp_lock now. */
		quiesce_futex_wait(&gp_ended, ended, 0);
		__atomic_fetch_sub(&gp_ended_waiters, 1, __ATOMIC_RELAXED);
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
	out->gp_skipped = __atomic_load_n(&stats.gp_skipped, __ATOMIC_RELAXED);
	out->sync_calls = __atomic_load_n(&stats.sync_calls, __ATOMIC_RELAXED);
	out->rseq_barriers = quiesce_rseq_barrier_count();
	out->stall_warnings = quiesce_stall_warnings();
	out->registered_threads = QUIESCE_LOAD(&quiesce_registry_count);
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
	gp_ended_waiters = 0;
	quiesce_rcu_gp_word.writer_sleeping = 0;
}

__attribute__((constructor)) static void gp_engine_init(void)
{
	knob_normal = quiesce_env_flag("QUIESCE_RCU_NORMAL");
	knob_expedited = quiesce_env_flag("QUIESCE_RCU_EXPEDITED");
	quiesce_gp_barrier_init();
	pthread_atfork(NULL, NULL, gp_child_after_fork);
}
