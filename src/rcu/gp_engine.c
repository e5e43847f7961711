/*
 * gp_engine.c - grace periods for every domain: counted, shared, waited for.
 *
 * A domain (gp_engine.h) says how its grace period starts and which readers
 * hold it; this file does the rest, the same way for each.  The argument
 * that a domain's readers are safe is the domain's own (rcu_domain.c for
 * the default one).
 *
 * One grace period (run_one_grace_period(), by the caller that owns it):
 *   1. The sequence number goes odd: the caller's compare-exchange from
 *      even (own_next_grace_period()) made it so, and made the caller the
 *      grace period's owner, the one thread that runs it and touches the
 *      domain's grace-period state, until step 6.
 *   2. If the domain says no reader can exist, it ends here.
 *   3. The heavy barrier, if the domain's readers need it (barrier_first).
 *   4. The domain's start(): its phase flip.
 *   5. wait_for_readers(): until the domain's blocking() counts none;
 *      again after each next_wait() that starts another wait (SRCU's
 *      second index).
 *   6. The sequence number goes even, with release.
 *
 * No barrier when the readers are busy.  The barrier interrupts every CPU
 * that runs a thread of the process, and a reader pays for it with its
 * time (about 9 us a barrier on our test machine, a virtual one).  A
 * domain that can tell a reader that has seen its flip
 * (unseen_past_flip(), the default RCU domain's argument in
 * rcu_domain.c) has steps 3 and 4 swapped: it flips first, then polls for
 * up to PAST_FLIP_POLL_NS until every other registered reader has been
 * seen inside a section entered with the new phase, and if so, the grace
 * period ends there, with no barrier and no interrupt.  Readers that run
 * flat out in and out of sections pass that test within a few cache-line
 * transfers.  An idle reader never does: the poll gives up, the barrier
 * follows and step 5 runs as usual (the flip stays where it is; the
 * domain's argument covers that order).  After a poll in vain, the grace
 * periods of the next while skip it (NO_BARRIER_BACKOFF_*), so that a
 * process whose readers idle pays one poll in 64 grace periods, and at
 * most one a millisecond.
 *
 * Normal and expedited.  Both issue the same barrier: membarrier
 * (PRIVATE_EXPEDITED), which interrupts only the CPUs that run a thread of
 * this process, the barrier liburcu's default flavor uses; a grace period
 * costs a microsecond, not the kernel's own grace period (membarrier
 * GLOBAL: milliseconds on a kernel with rcu_expedited = 0, the default of
 * most distributions).  GLOBAL, which interrupts no CPU, is for those who
 * ask for it with rcu_normal (QUIESCE_RCU_NORMAL=1, rcu_set_normal()),
 * and then serves every grace period of every domain.  What differs is the
 * wait for readers: a normal grace period polls for NORMAL_SPIN_NS, then
 * sleeps until the last reader leaves, leaving the CPU to the readers it
 * waits for (one of them may be preempted inside its section, and a waiter
 * that spins on a busy machine only delays it); an expedited one polls for
 * EXPEDITED_SPIN_NS first.  Either sleeps after a second barrier (unless
 * the domain's readers fence), which makes the last reader's exit and its
 * look at writer_sleeping meet (see sleep_until_readers_leave()), so a
 * sleep never waits for a timer.
 *
 * Sharing: grace periods are counted by a sequence number (gp_seq.h).  A
 * caller takes a snapshot and returns when the count passes it.  One caller
 * at a time (the owner, whose compare-exchange made the count odd) runs
 * grace periods, as many in a row as its snapshot needs; the others sleep
 * on gp_ended and are all woken when the owner is done, so every caller
 * that arrived while one grace period ran is released by the next one, and
 * they come back together to share the one after.  While they wait, the
 * domain may count them out of its grace periods (wait_begins(): the
 * default domain's need no barrier for a thread asleep in a wait).  The
 * count is the lock: a caller that finds no grace period running takes the
 * next one with the one atomic instruction that also starts it (a mutex
 * beside the count cost two more, a fifth of a grace period with no
 * reader).
 *
 * Sleeping on gp_ended.  Its low bit (GP_ENDED_SLEEPERS) says that a caller
 * went to sleep on it since the last bump; the rest counts the owners that
 * were done.  A caller reads the word, then the sequence number, and if it
 * still has to wait, sets the bit with a compare-exchange from the value it
 * read and sleeps on the result.  An owner, once done, adds GP_ENDED_STEP
 * and clears the bit in one compare-exchange, and wakes the sleepers only
 * if the bit was set.  Every step is on the one word, so they fall in one
 * order: an owner done before the caller's read changed the value read, and
 * the caller saw its grace period end (the owner's count store precedes
 * its bump); one done between the read and the caller's compare-exchange
 * makes that fail, and the caller looks again; one done after it finds the
 * bit and wakes, or changes the word before the caller's futex wait, which
 * then returns at once.  So a sleeper is never missed, and owners skip the
 * wake-up system call while nobody has gone to sleep since the last one
 * (woken callers may take a while to get a CPU, and grace periods run
 * meanwhile).
 *
 * fork(): every domain that ever ran a grace period is on a list, whose
 * lock is held across fork() so that the child copies it whole; a caller
 * lists the domain before the compare-exchange that may make it an owner,
 * so that a domain whose count is odd is always on it.  A grace period
 * that ran in the parent has no thread in the child: the child's count
 * goes back to even, to before it started, and the child's first caller
 * runs it again from the start.
 */
#include "rcu/gp_engine.h"

#include <pthread.h>
#include <string.h>

#include "common/diag.h"
#include "common/futex.h"
#include "common/init_order.h"
#include "rcu/fork_handlers.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_seq.h"
#include "rcu/stall.h"

bool quiesce_test_busted_gp;
bool quiesce_test_busted_past_flip;
bool quiesce_test_busted_cookie;
void (*quiesce_test_gp_hook)(struct quiesce_gp_domain *d, int where);

/* gp_ended: a caller sleeps on it (low bit), and each owner's bump (see the top). */
#define GP_ENDED_SLEEPERS 1
#define GP_ENDED_STEP 2

/* rcu_normal and rcu_expedited: from the environment, set up on first use (set_up_engine()). */
static bool knob_normal, knob_expedited;
static pthread_once_t engine_set_up = PTHREAD_ONCE_INIT;

/* The domains that ever ran a grace period (see fork() at the top). */
static pthread_mutex_t domains_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quiesce_gp_domain *domains;

/* For the owner of the running grace period only. */
#define COUNT_BY_OWNER(counter) QUIESCE_STORE(&(counter), (counter) + 1)

/* Stalled readers reported at most per warning. */
#define STALL_REPORT_MAX 8
/*
 * How long a grace period polls for readers before it sleeps.  Normal:
 * long enough for a reader that has a CPU to leave a short section or
 * announce a quiescent state, short enough not to keep a reader that
 * waits for a CPU from running (2 us: QSBR's median with 2 readers on 2
 * CPUs 0.77x liburcu's, where 10 us gave 1.85x; RCU's unchanged).
 */
#define NORMAL_SPIN_NS 2000u
#define EXPEDITED_SPIN_NS 50000u
/*
 * How long a grace period polls for readers past its flip before it
 * issues the barrier: the flip's line to the reader, the reader's counter
 * back, and the reader's way out of its section and into the next.  A
 * cache line takes 0.1 or 0.5 us between the two CPUs of our test machine
 * (a virtual one), from run to run: with 2 us, one reader and one updater
 * pinned to the two CPUs had 0-2 % of their grace periods end with no
 * barrier in 8 runs of 12 and 35-82 % in the others; with 5 us, 53-98 %
 * in all 12.
 */
#define PAST_FLIP_POLL_NS 5000u
/*
 * After a poll in vain, the grace periods that go without one: the next
 * 1, then 2, 4, ... up to 64 while polls stay in vain, and all those of
 * the next 10 us, then 20, 40, ... up to 1 ms.  The count spares a
 * process whose readers idle and whose grace periods are rare (each would
 * otherwise pay the poll); the time spares one whose readers are stopped
 * for a while (an interrupt; a virtual CPU its host runs something else
 * on), which fails every poll of that while, however many grace periods
 * it holds.
 */
#define NO_BARRIER_BACKOFF_MAX 64u
#define NO_BARRIER_BACKOFF_MIN_NS 10000u
#define NO_BARRIER_BACKOFF_MAX_NS 1000000u

void quiesce_gp_domain_init(struct quiesce_gp_domain *d, const struct quiesce_gp_domain_ops *ops,
			    int *writer_sleeping)
{
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->writer_sleeping = writer_sleeping;
}

/*
 * The knobs from the environment and the heavy barrier's backend, from the
 * constructor below or on first use, whichever comes first: a constructor
 * of the program may run before the library's (init_order.h) and already
 * run grace periods or set a knob (that the environment must not then
 * overwrite).  First use is a domain's listing, which precedes its first
 * grace period, or a knob's setter or reader.
 */
static void read_environment(void)
{
	knob_normal = quiesce_env_flag("QUIESCE_RCU_NORMAL");
	knob_expedited = quiesce_env_flag("QUIESCE_RCU_EXPEDITED");
	quiesce_gp_barrier_init();
}

static void set_up_engine(void)
{
	pthread_once(&engine_set_up, read_environment);
}

static void list_domain(struct quiesce_gp_domain *d)
{
	set_up_engine();
	pthread_mutex_lock(&domains_lock);
	if (!d->listed) {
		d->next_listed = domains;
		domains = d;
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_gp_hook)))
			quiesce_test_gp_hook(d, QUIESCE_GP_HOOK_LISTING);
		QUIESCE_STORE(&d->listed, true);
	}
	pthread_mutex_unlock(&domains_lock);
}

void quiesce_gp_domain_destroy(struct quiesce_gp_domain *d)
{
	pthread_mutex_lock(&domains_lock);
	for (struct quiesce_gp_domain **p = &domains; *p; p = &(*p)->next_listed) {
		if (*p == d) {
			*p = d->next_listed;
			break;
		}
	}
	QUIESCE_STORE(&d->listed, false);
	pthread_mutex_unlock(&domains_lock);
}

unsigned long quiesce_gp_seq_current(struct quiesce_gp_domain *d)
{
	/* Acquire: pairs with the release that ends a grace period. */
	return QUIESCE_LOAD_ACQUIRE(&d->gp_seq);
}

static unsigned count_blocking_readers(struct quiesce_gp_domain *d)
{
	return d->ops->blocking(d, NULL, NULL, 0);
}

static void report_stalls(struct quiesce_gp_domain *d, uint64_t waited_ns)
{
	/* Zeroed: a domain that names threads leaves detail NULL. */
	struct quiesce_rcu_stall stalled[STALL_REPORT_MAX] = { 0 };
	char names[STALL_REPORT_MAX][16];
	unsigned n = d->ops->blocking(d, stalled, names, STALL_REPORT_MAX);

	for (unsigned i = 0; i < n && i < STALL_REPORT_MAX; i++) {
		stalled[i].waited_ms = waited_ns / 1000000u;
		stalled[i].domain = d->ops->kind;
		quiesce_stall_report(&stalled[i]);
	}
}

/*
 * Sleeps until a reader leaves or the deadline passes.  The store-buffer
 * pattern: we store writer_sleeping, then rescan; a leaving reader stores
 * its exit, then loads writer_sleeping (and the domain's phase).  A reader
 * without a fence between the two has the heavy barrier stand in for it:
 * a reader that passed its barrier point P before its exit store has that
 * store visible to the rescan; one that stores after P loads
 * writer_sleeping and the phase after P too, sees the flag set and the
 * phase flipped past its own, and wakes us.  Readers that entered with the
 * new phase do not hold us up and do not wake us.
 */
static void sleep_until_readers_leave(struct quiesce_gp_domain *d, uint64_t deadline_ns)
{
	uint64_t now;

	QUIESCE_STORE(d->writer_sleeping, 1);
	if (d->ops->readers_fence)
		quiesce_fence_store_load();	/* pairs with the readers' fence on exit */
	else
		quiesce_gp_barrier(!QUIESCE_LOAD(&knob_normal));
	now = quiesce_now_ns();
	/* Woken by quiesce_gp_wake(), from the last reader out. */
	if (count_blocking_readers(d) && now < deadline_ns)
		quiesce_futex_wait(d->writer_sleeping, 1, deadline_ns - now);
	QUIESCE_STORE(d->writer_sleeping, 0);
}

/*
 * Waits until no reader holds the grace period: polls for a while (see the
 * top of this file), then sleeps, reporting the readers that still hold it
 * after the stall timeout and at doubling intervals after that.
 */
static void wait_for_readers(struct quiesce_gp_domain *d, bool expedited)
{
	uint64_t start = quiesce_now_ns();
	uint64_t spin_until = start + (expedited ? EXPEDITED_SPIN_NS : NORMAL_SPIN_NS);
	uint64_t warning_interval = quiesce_stall_timeout_ns();
	uint64_t next_warning = start + warning_interval;

	while (count_blocking_readers(d)) {
		uint64_t now = quiesce_now_ns();

		if (now < spin_until) {
			quiesce_cpu_relax();
			continue;
		}
		if (now >= next_warning) {
			report_stalls(d, now - start);
			warning_interval *= 2;
			next_warning = now + warning_interval;
		}
		sleep_until_readers_leave(d, next_warning);
	}
}

void quiesce_gp_wake(int *writer_sleeping)
{
	if (__atomic_exchange_n(writer_sleeping, 0, __ATOMIC_RELAXED))
		quiesce_futex_wake_all(writer_sleeping);
}

/* Whether this grace period should try to end with no barrier (see the top). */
static bool no_barrier_worth_trying(struct quiesce_gp_domain *d)
{
	if (!d->ops->unseen_past_flip)
		return false;
	if (d->no_barrier_skip) {
		d->no_barrier_skip--;
		return false;
	}
	return !d->no_barrier_backoff_ns || quiesce_now_ns() >= d->no_barrier_retry_ns;
}

/* After a poll in vain: doubles both waits before the next (see the top). */
static void back_off(struct quiesce_gp_domain *d)
{
	d->no_barrier_backoff = d->no_barrier_backoff ? 2 * d->no_barrier_backoff : 1;
	if (d->no_barrier_backoff > NO_BARRIER_BACKOFF_MAX)
		d->no_barrier_backoff = NO_BARRIER_BACKOFF_MAX;
	d->no_barrier_skip = d->no_barrier_backoff;
	d->no_barrier_backoff_ns = d->no_barrier_backoff_ns ? 2 * d->no_barrier_backoff_ns
						    : NO_BARRIER_BACKOFF_MIN_NS;
	if (d->no_barrier_backoff_ns > NO_BARRIER_BACKOFF_MAX_NS)
		d->no_barrier_backoff_ns = NO_BARRIER_BACKOFF_MAX_NS;
	d->no_barrier_retry_ns = quiesce_now_ns() + d->no_barrier_backoff_ns;
}

/*
 * After the flip: polls until every reader was seen past it (true) or
 * PAST_FLIP_POLL_NS passed (false, and the grace periods of the next
 * while skip the poll).  Nothing wakes this loop: readers do not know it
 * runs.
 */
static bool readers_seen_past_flip(struct quiesce_gp_domain *d)
{
	uint64_t give_up = quiesce_now_ns() + PAST_FLIP_POLL_NS;

	for (;;) {
		/*
		 * The time before the look: it gives up only after a look
		 * that began past the deadline, so that a poller stopped
		 * between two looks looks once more when it runs again.
		 */
		uint64_t now = quiesce_now_ns();

		if (!d->ops->unseen_past_flip(d) || QUIESCE_LOAD(&quiesce_test_busted_past_flip))
			break;
		if (now >= give_up) {
			back_off(d);
			return false;
		}
		quiesce_cpu_relax();
	}
	d->no_barrier_backoff = 0;
	d->no_barrier_backoff_ns = 0;
	return true;
}

/*
 * Takes the next grace period if none runs: the count goes from seq, even,
 * to odd, and the caller owns the grace period (see the top).  Sequentially
 * consistent, before the barrier or the domain's look for readers: a cookie
 * taken after it names the next grace period (the no-reader argument of
 * rcu_domain.c relies on it).  Its acquire pairs with the release that
 * ended the previous grace period, so that the new owner finds the domain's
 * state as the previous owner left it.
 */
static bool own_next_grace_period(struct quiesce_gp_domain *d, unsigned long seq)
{
	if (quiesce_gp_seq_running(seq) ||
	    !__atomic_compare_exchange_n(&d->gp_seq, &seq, seq + 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return false;
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_gp_hook)))
		quiesce_test_gp_hook(d, QUIESCE_GP_HOOK_OWNED);
	return true;
}

/*
 * Runs the grace period the caller owns, which its compare-exchange started
 * from the count `from` (even), and ends it.
 */
static void run_one_grace_period(struct quiesce_gp_domain *d, unsigned long from, bool expedited)
{
	if (QUIESCE_LOAD(&quiesce_test_busted_gp)) {
		/* The broken control: ends without waiting for anyone. */
	} else if (d->ops->no_reader && d->ops->no_reader(d)) {
		COUNT_BY_OWNER(d->gp_skipped);
	} else {
		bool flip_first = no_barrier_worth_trying(d);

		if (flip_first)
			d->ops->start(d);
		if (flip_first && readers_seen_past_flip(d)) {
			COUNT_BY_OWNER(d->gp_no_barrier);
		} else {
			if (d->ops->barrier_first)
				quiesce_gp_barrier(!QUIESCE_LOAD(&knob_normal));
			/* After the barrier, unless flipped first: the domain's argument says why. */
			if (!flip_first)
				d->ops->start(d);
			wait_for_readers(d, expedited);
			while (d->ops->next_wait && d->ops->next_wait(d))
				wait_for_readers(d, expedited);
		}
	}
	if (expedited)
		COUNT_BY_OWNER(d->gp_expedited);
	else
		COUNT_BY_OWNER(d->gp_normal);
	/*
	 * Release: everything the scan observed (the readers' exits) happens
	 * before a caller that sees this count frees anything, and the
	 * domain's state as this owner leaves it before the next owner's
	 * compare-exchange.  The grace period is no longer ours.  From the
	 * count we started from, not a reload: a child of fork() called from
	 * a signal handler that interrupted us took the count back to it.
	 */
	QUIESCE_STORE_RELEASE(&d->gp_seq, from + 2);
}

/*
 * For a caller that may own grace periods, before its first
 * compare-exchange, and before it reads a knob: lists the domain (see
 * fork() at the top), which sets the engine up on first use.
 */
static void before_owning(struct quiesce_gp_domain *d)
{
	if (!QUIESCE_LOAD(&d->listed))
		list_domain(d);
}

/*
 * Whether an owner's grace periods are expedited: rcu_normal holds for the
 * library's own requests too.
 */
static bool owner_expedites(bool expedited)
{
	return expedited && !QUIESCE_LOAD(&knob_normal);
}

/*
 * Runs the grace period the caller owns, which its compare-exchange started
 * from seq, and those after it that snap needs while no other caller takes
 * them, then wakes the callers asleep on gp_ended.  Returns whether snap
 * has passed.
 */
static bool run_owned(struct quiesce_gp_domain *d, unsigned long seq, unsigned long snap,
		      bool expedited)
{
	bool done;

	do {
		run_one_grace_period(d, seq, expedited);
		seq += 2;
		done = quiesce_gp_seq_done(seq, snap);
	} while (!done && own_next_grace_period(d, seq));
	/*
	 * After the last grace period ended, so that a woken caller may take
	 * the next; clears the sleepers' bit in the same step ("Sleeping on
	 * gp_ended" at the top).  Sequentially consistent: pairs with a
	 * caller's load of gp_ended before its look at the count and with its
	 * compare-exchange that sets the bit.
	 */
	int ended = __atomic_load_n(&d->gp_ended, __ATOMIC_RELAXED);

	/* Unsigned arithmetic: the count wraps. */
	while (!__atomic_compare_exchange_n(&d->gp_ended, &ended,
					    (int)(((unsigned)ended + GP_ENDED_STEP) &
						  ~(unsigned)GP_ENDED_SLEEPERS), true,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_gp_hook)))
		quiesce_test_gp_hook(d, QUIESCE_GP_HOOK_ENDED_BUMPED);
	if (ended & GP_ENDED_SLEEPERS)
		quiesce_futex_wake_all(&d->gp_ended);
	return done;
}

/*
 * Returns once the grace period named by snap has passed.  count_call:
 * counts the call as a synchronize call, before it runs a grace period or
 * sleeps (the owner's count takes no atomic instruction).
 */
static void wait_for(struct quiesce_gp_domain *d, unsigned long snap, bool expedited,
		     bool count_call)
{
	bool noted = d->ops->wait_begins && d->ops->wait_begins(d);

	before_owning(d);
	expedited = owner_expedites(expedited);
	for (;;) {
		int ended = __atomic_load_n(&d->gp_ended, __ATOMIC_SEQ_CST);
		unsigned long seq = quiesce_gp_seq_current(d);

		if (quiesce_gp_seq_done(seq, snap))
			break;
		if (own_next_grace_period(d, seq)) {
			if (count_call) {
				COUNT_BY_OWNER(d->sync_calls_owner);
				count_call = false;
			}
			if (run_owned(d, seq, snap, expedited))
				break;
			continue;	/* another caller owns the next one */
		}
		if (count_call) {
			__atomic_fetch_add(&d->sync_calls_shared, 1, __ATOMIC_RELAXED);
			count_call = false;
		}
		/*
		 * Sequentially consistent: pairs with the owner's bump in
		 * run_owned(); from the value read above, or it looks again
		 * ("Sleeping on gp_ended" at the top).
		 */
		if (!(ended & GP_ENDED_SLEEPERS) &&
		    !__atomic_compare_exchange_n(&d->gp_ended, &ended, ended | GP_ENDED_SLEEPERS,
						 false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			continue;
		__atomic_fetch_add(&d->gp_ended_waiters, 1, __ATOMIC_SEQ_CST);
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_gp_hook)))
			quiesce_test_gp_hook(d, QUIESCE_GP_HOOK_ENDED_SLEEPING);
		/* Woken by the bump in run_owned(), from the owner of the running grace period. */
		quiesce_futex_wait(&d->gp_ended, ended | GP_ENDED_SLEEPERS, 0);
		__atomic_fetch_sub(&d->gp_ended_waiters, 1, __ATOMIC_RELAXED);
	}
	if (count_call)
		__atomic_fetch_add(&d->sync_calls_shared, 1, __ATOMIC_RELAXED);
	if (noted)
		d->ops->wait_ends(d);
}

void quiesce_gp_wait_for(struct quiesce_gp_domain *d, unsigned long snap, bool expedited)
{
	wait_for(d, snap, expedited, false);
}

unsigned long quiesce_gp_snapshot(struct quiesce_gp_domain *d)
{
	unsigned long snap;

	/*
	 * Orders the caller's unlink before reading the count, so that the
	 * grace period the snapshot names has its barrier after the unlink.
	 */
	quiesce_fence_store_load();
	snap = quiesce_gp_seq_snap(QUIESCE_LOAD(&d->gp_seq));
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_cookie)))
		snap += 2;
	return snap;
}

void quiesce_gp_synchronize(struct quiesce_gp_domain *d, bool expedited)
{
	/*
	 * Noted from here, so that the grace periods of other callers see it
	 * until it returns, owner or not (wait_for() then notes nothing).
	 */
	bool noted = d->ops->wait_begins && d->ops->wait_begins(d);
	bool owner_expedited;
	unsigned long seq;

	before_owning(d);
	expedited = expedited || QUIESCE_LOAD(&knob_expedited);
	owner_expedited = owner_expedites(expedited);
	seq = QUIESCE_LOAD(&d->gp_seq);
	/*
	 * No grace period running: the caller takes the next one, with no
	 * snapshot.  The snapshot's fence orders the caller's unlink before
	 * its look at the count; the compare-exchange that takes the grace
	 * period does that too (sequentially consistent), and succeeds only
	 * if the count still is seq, so the grace period it starts is the
	 * first to start after the unlink, the one a snapshot would name.
	 */
	if (own_next_grace_period(d, seq)) {
		COUNT_BY_OWNER(d->sync_calls_owner);
		run_owned(d, seq, seq + 2, owner_expedited);
	} else {
		wait_for(d, quiesce_gp_snapshot(d), expedited, true);
	}
	if (noted)
		d->ops->wait_ends(d);
}

void quiesce_gp_call_begins(struct quiesce_gp_domain *d)
{
	before_owning(d);	/* listed, so that a fork() child's count is reset */
	__atomic_fetch_add(&d->calls, 1, __ATOMIC_SEQ_CST);
}

void quiesce_gp_call_ends(struct quiesce_gp_domain *d)
{
	__atomic_fetch_sub(&d->calls, 1, __ATOMIC_SEQ_CST);
}

unsigned long quiesce_gp_calls_under_way(struct quiesce_gp_domain *d)
{
	return __atomic_load_n(&d->calls, __ATOMIC_SEQ_CST);
}

uint64_t quiesce_gp_sync_calls(struct quiesce_gp_domain *d)
{
	return __atomic_load_n(&d->sync_calls_owner, __ATOMIC_RELAXED) +
	       __atomic_load_n(&d->sync_calls_shared, __ATOMIC_RELAXED);
}

bool quiesce_gp_poll(struct quiesce_gp_domain *d, unsigned long cookie)
{
	return quiesce_gp_seq_done(quiesce_gp_seq_current(d), cookie);
}

void quiesce_gp_forbid_inside_reader(struct quiesce_gp_domain *d, const char *call)
{
	if (d->ops->caller_holds(d))
		quiesce_die("%s() called inside an %s read-side critical section: "
			    "it would wait for itself forever", call, d->ops->kind);
}

void quiesce_rcu_set_normal(bool on)
{
	set_up_engine();
	QUIESCE_STORE(&knob_normal, on);
}

bool quiesce_gp_normal_only(void)
{
	set_up_engine();
	return QUIESCE_LOAD(&knob_normal);
}

void quiesce_rcu_set_expedited(bool on)
{
	set_up_engine();
	QUIESCE_STORE(&knob_expedited, on);
}

/* The list's lock across fork() (see the top). */
static void gp_prepare_fork(void)
{
	pthread_mutex_lock(&domains_lock);
}

static void gp_parent_after_fork(void)
{
	pthread_mutex_unlock(&domains_lock);
}

static void gp_child_after_fork(void)
{
	for (struct quiesce_gp_domain *d = domains; d; d = d->next_listed) {
		/*
		 * Its owner is not here (see the top), or is the forking
		 * thread, in a signal handler, and ends it as usual.
		 */
		if (quiesce_gp_seq_running(d->gp_seq))
			d->gp_seq--;
		d->gp_ended &= ~GP_ENDED_SLEEPERS;
		d->gp_ended_waiters = 0;
		d->calls = 0;
		*d->writer_sleeping = 0;
	}
	pthread_mutex_unlock(&domains_lock);
}

/* Early too, so that no grace period of a dynamically linked program pays for the set-up. */
QUIESCE_CONSTRUCTOR(GP_ENGINE) static void gp_engine_init(void)
{
	set_up_engine();
}

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(gp_prepare_fork, gp_parent_after_fork, gp_child_after_fork);
}

/*
 * Registered before the library's other fork handlers (init_order.h), so
 * that this prepare handler runs after theirs:
 * the list's lock is the last the forking thread takes, and whoever holds
 * it waits for nothing.  By the constructor below, or earlier by a part
 * that registers its own on first use (fork_handlers.h).
 */
void quiesce_gp_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(GP_ENGINE_FORK) static void gp_engine_fork_handlers(void)
{
	quiesce_gp_fork_handlers();
}
