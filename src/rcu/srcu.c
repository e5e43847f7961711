/*
 * srcu.c - sleepable RCU domains: per-CPU reader counts on two indexes,
 * grace periods run by the engine (gp_engine.c) as for every domain.
 *
 * Readers (include/quiesce/srcu.h).  srcu_read_lock() loads the domain's
 * index i, adds 1 to this CPU's slot of locks[i] and returns i, with a
 * compiler barrier after the add.  srcu_read_unlock(i) issues a release
 * fence (no instruction on x86-64), adds 1 to unlocks[i], then looks at
 * writer_sleeping and the index.  The four counters only grow.
 *
 * A grace period, after its caller has unlinked an object (the engine runs
 * the steps, the ops below say what they are for this domain):
 *
 *   1. quiesce_gp_barrier() (barrier_first): every reader thread executes
 *      the equivalent of a full fence at some point P in its program order
 *      during the call.
 *   2. start(): the first wait is for index w, the one readers are not
 *      taking.
 *   3. blocking(): counts w's readers until none is inside.
 *   4. next_wait(): flips the index to w, so that new readers take w; the
 *      second wait is for the old index c.
 *   5. blocking(): counts c's readers until none is inside.
 *
 * Counting index i (readers_inside()): sum unlocks[i] (U), acquire fence,
 * sum locks[i] (L).  Neither sum is a snapshot, but:
 *
 *  A. A reader whose unlock U saw has its lock in L.  Its lock add happens
 *     before its unlock add (program order, or the hand-off that srcu.h
 *     requires when another thread unlocks); the unlock add follows the
 *     release fence in srcu_read_unlock(); U read that add or a later one
 *     in the slot, and the acquire fence follows; so the lock add happens
 *     before L's loads, which see it.  Hence L - U is the number of
 *     readers whose lock L saw and whose unlock U did not: L == U means
 *     every reader whose lock the count saw has left, and (the same
 *     release/acquire pair) its section happened before the count.  U > L
 *     is impossible without an unlock that matches no lock: we abort.
 *     One signed counter per index, summed while a reader locks on one
 *     CPU and unlocks on another, would have no such meaning: its sum
 *     counts nothing.
 *
 *  B. Every count comes after the barrier.  A reader R whose lock add
 *     precedes P in program order has that add visible to every count.
 *     One whose add follows P makes the loads of its section after P too
 *     (the compiler barrier keeps them after the add), and they see the
 *     unlink: the grace period need not wait for R.
 *
 *  C. So a reader R that may hold the unlinked object added before P, on
 *     whichever index, and both indexes are waited for: the wait on R's
 *     index ends only at a count with L == U, which (A, B) has R's unlock
 *     in U, so R's section happened before that count, which precedes
 *     the engine's release of gp_seq, which precedes the caller's free.
 *
 * Why the two waits, in that order.  A wait ends at a count where L == U,
 * which readers that keep arriving on its index could postpone forever:
 * the flip sends new readers to the other index, and only readers that
 * loaded the old index before the flip still arrive on it (a few per
 * thread).  The first wait, on the index no reader should be taking, sees
 * the readers that the flips left behind: sleepers from before the last
 * flip, and readers that loaded an index before an earlier flip but added
 * to it after that grace period's count (preempted in between).  A grace
 * period that flipped and waited for the old index only would miss those
 * (the busted control below, quiesce_test_busted_srcu: C needs both).
 *
 * Sleeping (gp_engine.c): a grace period that sleeps stores
 * writer_sleeping, issues its heavy barrier, then counts again.  A reader
 * whose unlock add precedes its barrier point is in that count; one whose
 * add follows it loads writer_sleeping and the index after that point and
 * sees both the flag and the flip, which next_wait() made before the wait
 * began: a reader of the index being waited for (not the current one)
 * wakes the grace period; readers of the current one do not.
 *
 * The backends.  membarrier() and mprotect() reach every thread of the
 * process; the signal handshake reaches registered threads only.  So every
 * thread registers (as rcu_read_lock() does) before its first add, lock or
 * unlock: the check is one thread-local load on each.  A thread that
 * leaves the registry fences first (registry.c), after every add it made:
 * its open sections are in every later count (B's first case), and their
 * accesses precede their unlocks, which the grace period waits for.
 *
 * No reader, no barrier (no_reader()).  When no thread but the caller is
 * registered and both indexes count no reader, the grace period ends at
 * once.  Every add is made by a registered thread: the fast paths run
 * only while the thread's record has a level, which the slow paths give
 * it after registering it and unregistering takes away (registry.c).  A
 * thread registered now would be in the registry count, which is loaded
 * (sequentially consistent) after the engine stored gp_seq odd: a thread
 * that registers meanwhile stores the count and fences before its first
 * add, so either we see it or its section sees the unlink (the
 * store-buffer pattern, as rcu_domain.c argues).  A thread that
 * unregistered stored the count with release after its last add, so that
 * add happens before our counts (the acquire of our count load), and A
 * says its section, if U counted it, ended before them; if U did not,
 * L != U and we do not skip.  The caller's own adds precede its counts in
 * program order.
 *
 * The check that synchronize_srcu() and srcu_barrier() are not called
 * inside the domain's own section (rules in srcu.h): each thread's
 * quiesce_srcu_held_self records the innermost sections it opened; an
 * unlock that does not find its section on top of the unlocking thread's
 * record searches the record, and when the section is not there marks the
 * domain handed_off, which ends the check for it.
 *
 * Set-up: DEFINE_SRCU's domain starts with no counters; the first use sets
 * it up under setup_lock and publishes the counters with release, which
 * the readers' dependent loads pair with.
 */
#include <quiesce/srcu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "rcu/cb_domain.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_engine.h"
#include "rcu/gp_seq.h"
#include "rcu/registry.h"
#include "rcu/srcu.h"

bool quiesce_test_busted_srcu;

__thread struct quiesce_srcu_held quiesce_srcu_held_self __attribute__((tls_model("initial-exec")));

struct quiesce_srcu_state {
	struct quiesce_gp_domain gp;
	struct quiesce_srcu_struct *ss;
	unsigned wait_idx;		/* under gp_lock: the index waited for */
	bool second_wait;		/* under gp_lock: flipped, waiting for the old index */
	bool handed_off;		/* a section was closed by a thread that had no record of it */
	char stall_detail[192];		/* under gp_lock: the stall report's line */
	struct quiesce_cb_domain cb;	/* call_srcu(): its thread starts on first use */
};

#define LOCKS(ss, i) ((ss)->count[(i)])
#define UNLOCKS(ss, i) ((ss)->count[2 + (i)])

/* What a domain points to after cleanup_srcu_struct(). */
static struct quiesce_srcu_state cleaned_up;

/* Serializes DEFINE_SRCU domains' set-up on first use. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

static struct quiesce_srcu_state *state_of(struct quiesce_gp_domain *d)
{
	return quiesce_container_of(d, struct quiesce_srcu_state, gp);
}

/* init_srcu_struct(&ss) names the domain "&ss": messages say "ss". */
static const char *name_of(const struct quiesce_srcu_struct *ss)
{
	if (!ss->name)
		return "?";
	return ss->name + (ss->name[0] == '&');
}

/* The readers inside index i, as the top of this file counts them (A). */
static long readers_inside(struct quiesce_srcu_struct *ss, unsigned i)
{
	long unlocks = quiesce_percpu_count_sum(UNLOCKS(ss, i)), locks;

	/*
	 * Acquire: pairs with the release fence before each unlock's add, so
	 * that the lock of every unlock counted above is counted below.
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	locks = quiesce_percpu_count_sum(LOCKS(ss, i));
	if (unlocks > locks)
		quiesce_die("SRCU domain \"%s\": %ld more srcu_read_unlock() than srcu_read_lock() "
			    "on index %u: an unlock of an index that was not locked",
			    name_of(ss), unlocks - locks, i);
	return locks - unlocks;
}

static void srcu_start(struct quiesce_gp_domain *d)
{
	struct quiesce_srcu_state *st = state_of(d);
	unsigned current = st->ss->idx & 1;

	if (QUIESCE_LOAD(&quiesce_test_busted_srcu)) {
		/* The broken control: flip now, wait for the old index only. */
		QUIESCE_STORE(&st->ss->idx, st->ss->idx + 1);
		st->wait_idx = current;
		st->second_wait = true;
		return;
	}
	st->wait_idx = !current;
	st->second_wait = false;
}

/*
 * The flip.  A plain store: the argument at the top does not rest on it
 * (both indexes are waited for); readers pick it up for progress, and the
 * barrier before any sleep of the wait that follows orders it before the
 * readers' look at the index on their way out.
 */
static bool srcu_next_wait(struct quiesce_gp_domain *d)
{
	struct quiesce_srcu_state *st = state_of(d);
	unsigned old = st->ss->idx & 1;

	if (st->second_wait)
		return false;
	QUIESCE_STORE(&st->ss->idx, st->ss->idx + 1);
	st->wait_idx = old;
	st->second_wait = true;
	return true;
}

/*
 * Whether the index waited for still has readers inside.  Readers belong
 * to no thread, so one stall entry describes them all: the domain's name
 * and how many are inside.
 */
static unsigned srcu_blocking(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			      char names[][16], unsigned cap)
{
	struct quiesce_srcu_state *st = state_of(d);
	long inside = readers_inside(st->ss, st->wait_idx);

	if (!inside)
		return 0;
	if (cap) {
		snprintf(st->stall_detail, sizeof(st->stall_detail),
			 "SRCU stall: domain \"%s\": %ld reader%s inside a read-side critical section "
			 "(sections belong to no thread: one whose thread exited ends when another "
			 "calls srcu_read_unlock())",
			 name_of(st->ss), inside, inside == 1 ? "" : "s");
		snprintf(names[0], 16, "%s", name_of(st->ss));
		stalled[0] = (struct quiesce_rcu_stall){
			.tid = 0,
			.thread_name = names[0],
			.phase = QUIESCE_RCU_STALL_READER,
			.detail = st->stall_detail,
		};
	}
	return 1;
}

/* See "No reader, no barrier" at the top of this file. */
static bool srcu_no_reader(struct quiesce_gp_domain *d)
{
	struct quiesce_srcu_struct *ss = state_of(d)->ss;
	/*
	 * Sequentially consistent, after the store that started the grace
	 * period: pairs with the fence in quiesce_gp_snapshot() and the one
	 * after a newcomer's registration.  Its acquire pairs with the
	 * release of an unregistering thread's count store.
	 */
	unsigned long n = __atomic_load_n(&quiesce_registry_count, __ATOMIC_SEQ_CST);

	if (!(n == 0 || (n == 1 && quiesce_rcu_reader_self.ctr != QUIESCE_RCU_UNREGISTERED)))
		return false;
	return readers_inside(ss, 0) == 0 && readers_inside(ss, 1) == 0;
}

static const struct quiesce_gp_domain_ops srcu_ops = {
	.kind = "SRCU",
	.barrier_first = true,
	.no_reader = srcu_no_reader,
	.start = srcu_start,
	.blocking = srcu_blocking,
	.next_wait = srcu_next_wait,
};

static void set_up(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st = calloc(1, sizeof(*st));

	if (!st)
		quiesce_die("out of memory for SRCU domain \"%s\"", name_of(ss));
	quiesce_gp_domain_init(&st->gp, &srcu_ops, &ss->writer_sleeping);
	quiesce_cb_domain_init(&st->cb, &st->gp, "quiesce-srcu");
	st->ss = ss;
	for (unsigned i = 0; i < 4; i++)
		/* Release: the zeroed slots before the pointer (readers' dependent loads). */
		QUIESCE_STORE_RELEASE(&ss->count[i], quiesce_percpu_count_alloc());
	/* Release: the counters and the state before the pointer (ready()'s acquire). */
	QUIESCE_STORE_RELEASE(&ss->state, st);
}

int quiesce_init_srcu_struct_name(struct quiesce_srcu_struct *ss, const char *name)
{
	memset(ss, 0, sizeof(*ss));
	ss->name = name;
	set_up(ss);
	return 0;
}

/* The domain's state, set up now if it is a DEFINE_SRCU one never used. */
static struct quiesce_srcu_state *ready(struct quiesce_srcu_struct *ss, const char *call)
{
	/* Acquire: pairs with the release that ends set_up(). */
	struct quiesce_srcu_state *st = QUIESCE_LOAD_ACQUIRE(&ss->state);

	if (!st) {
		pthread_mutex_lock(&setup_lock);
		if (!ss->state)
			set_up(ss);
		st = ss->state;
		pthread_mutex_unlock(&setup_lock);
	}
	if (st == &cleaned_up)
		quiesce_die("%s() on SRCU domain \"%s\" after cleanup_srcu_struct()", call,
			    name_of(ss));
	return st;
}

/*
 * Registers the calling thread (rcu.h) if it is not yet, and brings its
 * record's level back from where unregistering parked it.  After this the
 * fast paths (srcu.h) take the thread: a level of 0 is what sent it here.
 */
static void register_self(void)
{
	struct quiesce_srcu_held *self = &quiesce_srcu_held_self;

	if (self->level)
		return;
	quiesce_rcu_register_thread();
	self->level = self->parked ? self->parked : 1;
	self->parked = 0;
}

void quiesce_srcu_park_self(void)
{
	struct quiesce_srcu_held *self = &quiesce_srcu_held_self;

	if (self->level)
		self->parked = self->level;
	self->level = 0;
}

/* How many sections the calling thread has open by its record. */
static unsigned open_sections(void)
{
	const struct quiesce_srcu_held *self = &quiesce_srcu_held_self;
	unsigned level = self->level ? self->level : self->parked;

	return level ? level - 1 : 0;
}

int quiesce_srcu_read_lock_slow(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_held *self = &quiesce_srcu_held_self;
	unsigned depth;
	int idx;

	register_self();
	ready(ss, "srcu_read_lock");
	idx = (int)(QUIESCE_LOAD(&ss->idx) & 1);
	quiesce_percpu_count_add(LOCKS(ss, idx), 1);
	depth = open_sections();
	if (depth < QUIESCE_SRCU_HELD)
		self->held[depth] = (uintptr_t)ss | (uintptr_t)idx;
	self->level++;
	/* As in srcu_read_lock(): the section's loads after the add. */
	quiesce_compiler_barrier();
	return idx;
}

/*
 * Takes the section (ss, idx) off this thread's record: the top entry, or
 * one below it (sections may end out of order), or none, when the thread
 * did not open it (a hand-off) or opened it too deep to be recorded.
 */
static void forget_section(struct quiesce_srcu_struct *ss, int idx)
{
	struct quiesce_srcu_held *self = &quiesce_srcu_held_self;
	uintptr_t key = (uintptr_t)ss | (uintptr_t)idx;
	unsigned depth = open_sections();
	unsigned recorded = depth < QUIESCE_SRCU_HELD ? depth : QUIESCE_SRCU_HELD;

	if (depth > QUIESCE_SRCU_HELD) {
		/* Deeper than the record: counted, not recorded. */
		self->level--;
		return;
	}
	for (unsigned j = recorded; j-- > 0;) {
		if (self->held[j] != key)
			continue;
		memmove(&self->held[j], &self->held[j + 1], (recorded - j - 1) * sizeof(key));
		self->level--;
		return;
	}
	QUIESCE_STORE(&ss->state->handed_off, true);
}

void quiesce_srcu_read_unlock_slow(struct quiesce_srcu_struct *ss, int idx)
{
	if ((unsigned)idx > 1)
		quiesce_die("srcu_read_unlock() on SRCU domain \"%s\" with index %d: not one "
			    "that srcu_read_lock() returns (0 or 1)", name_of(ss), idx);
	register_self();
	if (QUIESCE_LOAD_ACQUIRE(&ss->state) == NULL)
		quiesce_die("srcu_read_unlock() on SRCU domain \"%s\", which no srcu_read_lock() "
			    "has entered", name_of(ss));
	ready(ss, "srcu_read_unlock");
	forget_section(ss, idx);
	/* As in srcu_read_unlock(), and the same look afterwards. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	quiesce_percpu_count_add(UNLOCKS(ss, idx), 1);
	if (QUIESCE_LOAD(&ss->writer_sleeping) && (unsigned)idx != (QUIESCE_LOAD(&ss->idx) & 1))
		quiesce_srcu_wake_grace_period(ss);
}

void quiesce_srcu_wake_grace_period(struct quiesce_srcu_struct *ss)
{
	quiesce_gp_wake(&ss->writer_sleeping);
}

/* Aborts when the calling thread's record says it is inside a section of ss. */
static void forbid_inside_own_section(struct quiesce_srcu_struct *ss,
				      struct quiesce_srcu_state *st, const char *call)
{
	const struct quiesce_srcu_held *self = &quiesce_srcu_held_self;
	unsigned depth = open_sections();
	unsigned recorded = depth < QUIESCE_SRCU_HELD ? depth : QUIESCE_SRCU_HELD;

	if (QUIESCE_LOAD(&st->handed_off))
		return;
	for (unsigned j = 0; j < recorded; j++)
		if ((self->held[j] & ~(uintptr_t)1) == (uintptr_t)ss)
			quiesce_die("%s() called inside a read-side critical section of SRCU domain "
				    "\"%s\" that this thread opened: it would wait for itself forever",
				    call, name_of(ss));
}

void quiesce_synchronize_srcu(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st = ready(ss, "synchronize_srcu");

	forbid_inside_own_section(ss, st, "synchronize_srcu");
	quiesce_gp_synchronize(&st->gp, false);
}

void quiesce_synchronize_srcu_expedited(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st = ready(ss, "synchronize_srcu_expedited");

	forbid_inside_own_section(ss, st, "synchronize_srcu_expedited");
	quiesce_gp_synchronize(&st->gp, true);
}

unsigned long quiesce_get_state_synchronize_srcu(struct quiesce_srcu_struct *ss)
{
	return quiesce_gp_snapshot(&ready(ss, "get_state_synchronize_srcu")->gp);
}

bool quiesce_poll_state_synchronize_srcu(struct quiesce_srcu_struct *ss, unsigned long cookie)
{
	struct quiesce_srcu_state *st = ready(ss, "poll_state_synchronize_srcu");

	return quiesce_gp_seq_done(quiesce_gp_seq_current(&st->gp), cookie);
}

unsigned long quiesce_start_poll_synchronize_srcu(struct quiesce_srcu_struct *ss)
{
	return quiesce_cb_domain_start_poll(&ready(ss, "start_poll_synchronize_srcu")->cb);
}

void quiesce_call_srcu(struct quiesce_srcu_struct *ss, struct quiesce_rcu_head *head,
		       void (*func)(struct quiesce_rcu_head *head))
{
	quiesce_cb_domain_call(&ready(ss, "call_srcu")->cb, head, func);
}

void quiesce_srcu_barrier(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st = ready(ss, "srcu_barrier");

	/* The callbacks' grace period would wait for this thread. */
	forbid_inside_own_section(ss, st, "srcu_barrier");
	quiesce_cb_domain_barrier(&st->cb, "srcu_barrier");
}

void quiesce_cleanup_srcu_struct(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st = ready(ss, "cleanup_srcu_struct");
	long inside;

	/*
	 * The heavy barrier makes every add made before this call visible
	 * to the counts below, whichever thread made it.
	 */
	quiesce_gp_barrier(!quiesce_gp_normal_only());
	inside = readers_inside(ss, 0) + readers_inside(ss, 1);
	if (inside)
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" with %ld reader%s inside",
			    name_of(ss), inside, inside == 1 ? "" : "s");
	if (quiesce_cb_domain_pending(&st->cb))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" with callbacks pending: "
			    "call srcu_barrier() first", name_of(ss));
	/*
	 * The callback thread, if any, stops (nothing is pending, checked
	 * above) after the grace period it may run for start_poll.
	 */
	quiesce_cb_domain_destroy(&st->cb);
	if (pthread_mutex_trylock(&st->gp.gp_lock) ||
	    __atomic_load_n(&st->gp.gp_ended_waiters, __ATOMIC_SEQ_CST))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" while a grace period runs",
			    name_of(ss));
	pthread_mutex_unlock(&st->gp.gp_lock);
	quiesce_gp_domain_destroy(&st->gp);
	for (unsigned i = 0; i < 4; i++) {
		quiesce_percpu_count_free(ss->count[i]);
		QUIESCE_STORE(&ss->count[i], NULL);
	}
	QUIESCE_STORE(&ss->state, &cleaned_up);
	free(st);
}

/* setup_lock is held across fork(), so that the child's copy is free. */
static void setup_prepare_fork(void)
{
	pthread_mutex_lock(&setup_lock);
}

static void setup_after_fork(void)
{
	pthread_mutex_unlock(&setup_lock);
}

__attribute__((constructor)) static void srcu_init(void)
{
	pthread_atfork(setup_prepare_fork, setup_after_fork, setup_after_fork);
}
