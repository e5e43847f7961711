/*
 * srcu.c - sleepable RCU domains: per-CPU reader counts on two indexes,
 * grace periods run by the engine (gp_engine.c) as for every domain.
 *
 * Readers (include/quiesce/srcu.h).  srcu_read_lock() loads the domain's
 * index i, adds 1 to locks[i] and returns i, with a compiler barrier
 * after the add.  srcu_read_unlock(i) issues a release fence (no
 * instruction on x86-64), adds 1 to unlocks[i], then looks at
 * writer_sleeping and the index.  An add goes to the calling thread's own
 * count of the domain (its slot, srcu.h) or, when that slot holds another
 * domain, to this CPU's slot of the domain's per-CPU counter.  Only the
 * slot's thread writes a slot's counts.
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
 * Counting index i (readers_inside()): under the registry lock, sum
 * unlocks[i] (U) over the per-CPU counter and the slots of the domain in
 * every registered thread, acquire fence, sum locks[i] (L) the same way.
 * Counts leave slots only under that lock (quiesce_srcu_move_slots() and
 * cleanup), so during a count every counter only grows.  A thread claims
 * a free slot (all its counts 0) without the lock: a slot that joins
 * between the sums adds to L only, which errs toward waiting.  Neither
 * sum is a snapshot, but:
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
 * unlock: the fast paths run only on a slot the thread claimed, which the
 * slow paths do after registering it, and unregistering frees the slots.
 * A thread that leaves the registry fences first (registry.c), after every
 * add it made, and moves its slots' counts to the per-CPU counters under
 * the registry lock: what it left open is in every later count (B's first
 * case), and what it closed happened before those counts.
 *
 * Moving counts (quiesce_srcu_move_slots()): a thread that unregisters or
 * exits, and in a child of fork() every thread but the forking one, gives
 * up its slots.  For each index, locks minus unlocks of the slot is added
 * to the domain's per-CPU count of locks, so that every later count's L -
 * U is what it would have been; the slot's counts are then zeroed and the
 * slot freed with release, which a claim's acquire pairs with.
 *
 * No reader, no barrier (no_reader()).  When no thread but the caller is
 * registered and both indexes count no reader, the grace period ends at
 * once; the count then reads the per-CPU counters and the caller's slots
 * only, without the lock.  A thread registered now would be in the
 * registry count, which is loaded (sequentially consistent) after the
 * engine made gp_seq odd: a thread that registers meanwhile stores the
 * count and fences before its first add, so either we see it or its
 * section sees the unlink (the store-buffer pattern, as rcu_domain.c
 * argues).  A thread that unregistered moved its counts and then stored
 * the registry count with release, under the lock: our acquire of the
 * count makes its moved counts and its last adds visible to our counts,
 * and A says its sections, if U counted them, ended before them; if U did
 * not, L != U and we do not skip.  The caller's own adds precede its
 * counts in program order.
 *
 * The check that synchronize_srcu() and srcu_barrier() are not called
 * inside the domain's own section (rules in srcu.h): the caller's slot,
 * when it holds the domain, says how many sections the caller opened and
 * did not close there; for sections counted per-CPU, each thread's record
 * (record_self) holds the first four it opened, and an unlock counted
 * per-CPU that the unlocking thread's record lacks marks the domain
 * handed_off.  A check that finds an open section looks for a hand-off
 * among the slots before it aborts: a slot with more unlocks than locks on
 * an index marks the domain handed_off, and so does moving such a slot's
 * counts; handed_off ends the check for the domain.  A section that
 * another thread closed stays on its opener's record, so an entry names
 * the set-up of its domain too (its generation): a domain set up again at
 * the same address, after cleanup_srcu_struct(), is not taken for it.
 *
 * Set-up: DEFINE_SRCU's domain starts with no counters; the first use sets
 * it up under setup_lock and publishes the state with release, which the
 * acquire in ready() pairs with.  Every call reaches the counters through
 * ready() (the fast paths only through a slot, which is claimed after it).
 */
#include <quiesce/srcu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/init_order.h"
#include "rcu/cb_domain.h"
#include "rcu/fork_handlers.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_engine.h"
#include "rcu/gp_seq.h"
#include "rcu/registry.h"
#include "rcu/srcu.h"

bool quiesce_test_busted_srcu;

__thread struct quiesce_srcu_slot quiesce_srcu_slots_self[QUIESCE_SRCU_SLOTS]
	__attribute__((tls_model("initial-exec")));

/*
 * The sections a thread counted per-CPU (its slot held another domain) and
 * has not closed: `depth` of them, the domain of each of the first
 * RECORDED with its index in bit 0, and the set-up of the domain they
 * were opened in (its generation): a section that another thread closed
 * stays on the opener's record, and must not be taken for one of a domain
 * set up later at the same address.
 *
 * Signal handlers.  An update of the record takes several stores, and a
 * handler may take a section on the same thread between two of them: its
 * own update would then mix with the one it interrupted (the handler's
 * entry written over the thread's, the thread's depth++ after the
 * handler's open and close, leaving the handler's domain recorded for
 * good).  So an update marks the record `updating` first, and a handler
 * that finds it marked leaves its section off the record: both its open
 * and its close find the mark, since the thread's update cannot go on
 * while the handler runs.  Such a section is not checked, like one past
 * the first RECORDED.  Compiler barriers only: the handler runs on this
 * thread.
 */
#define RECORDED 4
struct per_cpu_record {
	struct {
		uintptr_t key;
		unsigned long generation;
	} held[RECORDED];
	unsigned depth;
	bool updating;
};

void (*quiesce_test_srcu_record_hook)(void);
static __thread struct per_cpu_record record_self __attribute__((tls_model("initial-exec")));

struct quiesce_srcu_state {
	struct quiesce_gp_domain gp;
	struct quiesce_srcu_struct *ss;
	unsigned wait_idx;		/* by the grace period's owner: the index waited for */
	bool second_wait;		/* by the owner: flipped, waiting for the old index */
	bool handed_off;		/* a thread closed a section it did not open (srcu.h) */
	unsigned long generation;	/* which set-up this is, for the records */
	char stall_detail[192];		/* by the owner: the stall report's line */
	struct quiesce_cb_domain cb;	/* call_srcu(): its thread starts on first use */
};

#define LOCKS(ss, i) ((ss)->count[(i)])
#define UNLOCKS(ss, i) ((ss)->count[2 + (i)])

/* What a domain points to after cleanup_srcu_struct(). */
static struct quiesce_srcu_state cleaned_up;

/* Serializes DEFINE_SRCU domains' set-up on first use. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set-ups so far: each domain's gets the next (per_cpu_record). */
static unsigned long generations;

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

/* Count c (locks on index 0, 1, unlocks on 0, 1) of ss in one thread's slots. */
static unsigned long slot_count(const struct quiesce_srcu_slot *slots,
				const struct quiesce_srcu_struct *ss, unsigned c)
{
	const struct quiesce_srcu_slot *slot = &slots[quiesce_srcu_slot_index(ss)];

#ifdef QUIESCE_TSAN
	/* The acquire that the fences around the counts stand for (srcu.h). */
	return QUIESCE_LOAD(&slot->ss) == ss ? QUIESCE_LOAD_ACQUIRE(&slot->count[c]) : 0;
#else
	return QUIESCE_LOAD(&slot->ss) == ss ? QUIESCE_LOAD(&slot->count[c]) : 0;
#endif
}

/* Count c of ss over the per-CPU counter and the registered threads' slots. */
static long count_of(struct quiesce_srcu_struct *ss, unsigned c, bool all_threads)
{
	long sum = quiesce_percpu_count_sum(ss->count[c]);

	if (!all_threads)
		return sum + (long)slot_count(quiesce_srcu_slots_self, ss, c);
	quiesce_registry_for_each(e)
		sum += (long)slot_count(e->srcu_slots, ss, c);
	return sum;
}

/*
 * The readers inside index i, as the top of this file counts them (A);
 * all_threads false: the calling thread is the only one registered, if
 * any (no_reader()), and the count needs no lock.
 */
static long readers_inside(struct quiesce_srcu_struct *ss, unsigned i, bool all_threads)
{
	long unlocks, locks;

	if (all_threads)
		pthread_mutex_lock(&quiesce_registry_lock);
	unlocks = count_of(ss, 2 + i, all_threads);
	/*
	 * Acquire: pairs with the release fence before each unlock's add, so
	 * that the lock of every unlock counted above is counted below.
	 */
	quiesce_fence_acquire();
	locks = count_of(ss, i, all_threads);
	if (all_threads)
		pthread_mutex_unlock(&quiesce_registry_lock);
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
	long inside = readers_inside(st->ss, st->wait_idx, true);

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
	return readers_inside(ss, 0, false) == 0 && readers_inside(ss, 1, false) == 0;
}

static bool srcu_caller_holds(struct quiesce_gp_domain *d);

static const struct quiesce_gp_domain_ops srcu_ops = {
	.kind = "SRCU",
	.barrier_first = true,
	.no_reader = srcu_no_reader,
	.caller_holds = srcu_caller_holds,
	.sections_handed_off = true,
	.start = srcu_start,
	.blocking = srcu_blocking,
	.next_wait = srcu_next_wait,
};

/*
 * A domain's four counters, allocated before setup_lock is taken: the
 * allocator's lock is taken around fork() before setup_lock, in whichever
 * order the two fork handlers were registered, so it must never be taken
 * under setup_lock.
 */
static void alloc_counters(long *counters[4])
{
	for (unsigned i = 0; i < 4; i++)
		counters[i] = quiesce_percpu_count_alloc();
}

static void set_up(struct quiesce_srcu_struct *ss, long *const counters[4])
{
	struct quiesce_srcu_state *st = calloc(1, sizeof(*st));

	if (!st)
		quiesce_die("out of memory for SRCU domain \"%s\"", name_of(ss));
	quiesce_gp_domain_init(&st->gp, &srcu_ops, &ss->writer_sleeping);
	quiesce_cb_domain_init(&st->cb, &st->gp, "quiesce-srcu");
	st->ss = ss;
	st->generation = __atomic_add_fetch(&generations, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < 4; i++)
		QUIESCE_STORE(&ss->count[i], counters[i]);
	/* Release: the counters and the state before the pointer (ready()'s acquire). */
	QUIESCE_STORE_RELEASE(&ss->state, st);
}

int quiesce_init_srcu_struct_name(struct quiesce_srcu_struct *ss, const char *name)
{
	long *counters[4];

	alloc_counters(counters);
	memset(ss, 0, sizeof(*ss));
	ss->name = name;
	set_up(ss, counters);
	return 0;
}

/* The domain's state, set up now if it is a DEFINE_SRCU one never used. */
static struct quiesce_srcu_state *ready(struct quiesce_srcu_struct *ss, const char *call)
{
	/* Acquire: pairs with the release that ends set_up(). */
	struct quiesce_srcu_state *st = QUIESCE_LOAD_ACQUIRE(&ss->state);

	if (!st) {
		long *counters[4];
		bool used = false;

		alloc_counters(counters);
		pthread_mutex_lock(&setup_lock);
		if (!ss->state) {
			set_up(ss, counters);
			used = true;
		}
		st = ss->state;
		pthread_mutex_unlock(&setup_lock);
		for (unsigned i = 0; i < 4 && !used; i++)
			quiesce_percpu_count_free(counters[i]);
	}
	if (st == &cleaned_up)
		quiesce_die("%s() on SRCU domain \"%s\" after cleanup_srcu_struct()", call,
			    name_of(ss));
	return st;
}

static uintptr_t record_key(const struct quiesce_srcu_struct *ss, int idx)
{
	return (uintptr_t)ss | (uintptr_t)idx;
}

/* Marks the record for an update, or says that a handler must leave it alone (see the top). */
static bool record_begin(struct per_cpu_record *self)
{
	if (QUIESCE_LOAD(&self->updating))
		return false;
	QUIESCE_STORE(&self->updating, true);
	quiesce_compiler_barrier();	/* the mark before the update, for a handler */
	return true;
}

static void record_end(struct per_cpu_record *self)
{
	quiesce_compiler_barrier();	/* the update before the mark's removal */
	QUIESCE_STORE(&self->updating, false);
}

/* A section the calling thread opened and counted per-CPU. */
static void record_open(struct quiesce_srcu_struct *ss, const struct quiesce_srcu_state *st,
			int idx)
{
	struct per_cpu_record *self = &record_self;

	if (!record_begin(self))
		return;
	if (self->depth < RECORDED) {
		self->held[self->depth].key = record_key(ss, idx);
		self->held[self->depth].generation = st->generation;
	}
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_srcu_record_hook)))
		quiesce_test_srcu_record_hook();
	self->depth++;
	record_end(self);
}

/*
 * Takes the section (ss, idx) off the calling thread's record: the last
 * entry, or one before it (sections may end out of order).  False when
 * the record lacks it: the thread did not open it (a hand-off), or had the
 * section counted on its slot before unregistering.  A thread deeper than
 * the record takes its deepest section off, recorded or not.  A signal
 * handler's section left off the record (see the top) is taken off as
 * found.
 */
static bool record_close(struct quiesce_srcu_struct *ss, const struct quiesce_srcu_state *st,
			 int idx)
{
	struct per_cpu_record *self = &record_self;
	uintptr_t key = record_key(ss, idx);
	bool found = false;

	if (!record_begin(self))
		return true;
	if (self->depth > RECORDED) {
		self->depth--;
		found = true;
	}
	for (unsigned j = self->depth; !found && j-- > 0;) {
		if (self->held[j].key != key || self->held[j].generation != st->generation)
			continue;
		memmove(&self->held[j], &self->held[j + 1],
			(self->depth - j - 1) * sizeof(self->held[0]));
		self->depth--;
		found = true;
	}
	record_end(self);
	return found;
}

static bool record_holds(const struct quiesce_srcu_struct *ss, const struct quiesce_srcu_state *st)
{
	const struct per_cpu_record *self = &record_self;
	unsigned recorded = self->depth < RECORDED ? self->depth : RECORDED;

	for (unsigned j = 0; j < recorded; j++)
		if ((self->held[j].key & ~(uintptr_t)1) == (uintptr_t)ss &&
		    self->held[j].generation == st->generation)
			return true;
	return false;
}

/* Whether the calling thread may count its sections of ss on its slot. */
static bool claim_slot(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_slot *slot = quiesce_srcu_slot_of(ss);
	struct quiesce_srcu_struct *free_slot = NULL;

	/*
	 * A compare-exchange: a signal handler taking a section on this
	 * thread may claim the slot meanwhile.  Acquire: pairs with the
	 * release that freed the slot, after its counts were zeroed.
	 */
	__atomic_compare_exchange_n(&slot->ss, &free_slot, ss, false, __ATOMIC_ACQUIRE,
				    __ATOMIC_ACQUIRE);
	return QUIESCE_LOAD(&slot->ss) == ss;
}

int quiesce_srcu_read_lock_slow(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_state *st;
	int idx;

	/* Registered before the first add (the top of this file says why). */
	quiesce_rcu_register_thread();
	st = ready(ss, "srcu_read_lock");
	idx = (int)(QUIESCE_LOAD(&ss->idx) & 1);
	if (claim_slot(ss)) {
		quiesce_srcu_count_inc(&quiesce_srcu_slot_of(ss)->count[idx]);
	} else {
		quiesce_percpu_count_add(LOCKS(ss, idx), 1);
		record_open(ss, st, idx);
	}
	/* As in srcu_read_lock(): the section's loads after the add. */
	quiesce_compiler_barrier();
	return idx;
}

void quiesce_srcu_read_unlock_slow(struct quiesce_srcu_struct *ss, int idx)
{
	struct quiesce_srcu_slot *slot = quiesce_srcu_slot_of(ss);
	struct quiesce_srcu_state *st;

	if ((unsigned)idx > 1)
		quiesce_die("srcu_read_unlock() on SRCU domain \"%s\" with index %d: not one "
			    "that srcu_read_lock() returns (0 or 1)", name_of(ss), idx);
	quiesce_rcu_register_thread();
	if (QUIESCE_LOAD_ACQUIRE(&ss->state) == NULL)
		quiesce_die("srcu_read_unlock() on SRCU domain \"%s\", which no srcu_read_lock() "
			    "has entered", name_of(ss));
	st = ready(ss, "srcu_read_unlock");
	/* As in srcu_read_unlock(), and the same look afterwards. */
	if (QUIESCE_LOAD(&slot->ss) == ss) {
		/* A signal handler claimed the slot since the fast path looked. */
		quiesce_fence_release();
		quiesce_srcu_count_inc(&slot->count[2 + idx]);
	} else {
		if (!record_close(ss, st, idx))
			QUIESCE_STORE(&st->handed_off, true);
		quiesce_fence_release();
		quiesce_percpu_count_add(UNLOCKS(ss, idx), 1);
	}
	if (QUIESCE_LOAD(&ss->writer_sleeping) && (unsigned)idx != (QUIESCE_LOAD(&ss->idx) & 1))
		quiesce_srcu_wake_grace_period(ss);
}

/* Under the registry lock: zeroes the slot's counts and frees it. */
static void free_slot(struct quiesce_srcu_slot *slot)
{
	for (unsigned c = 0; c < 4; c++)
		QUIESCE_STORE(&slot->count[c], 0UL);
	/* Release: the zeroed counts before the free slot (claim_slot()'s acquire). */
	QUIESCE_STORE_RELEASE(&slot->ss, NULL);
}

void quiesce_srcu_move_slots(struct quiesce_srcu_slot *slots, bool own)
{
	for (unsigned k = 0; k < QUIESCE_SRCU_SLOTS; k++) {
		struct quiesce_srcu_slot *slot = &slots[k];
		struct quiesce_srcu_struct *ss = slot->ss;

		if (!ss)
			continue;
		for (int i = 0; i < 2; i++) {
			long open = (long)(slot->count[i] - slot->count[2 + i]);

			if (open < 0)
				QUIESCE_STORE(&ss->state->handed_off, true);
			if (open)
				quiesce_percpu_count_add_shared(LOCKS(ss, i), open);
			/* The sections still open stay visible to this thread's check. */
			for (; own && open > 0; open--)
				record_open(ss, ss->state, i);
		}
		free_slot(slot);
	}
}

/* Frees every thread's slot of ss, which has no reader left (cleanup). */
static void free_slots_of(struct quiesce_srcu_struct *ss)
{
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		struct quiesce_srcu_slot *slot = &e->srcu_slots[quiesce_srcu_slot_index(ss)];

		if (QUIESCE_LOAD(&slot->ss) == ss)
			free_slot(slot);
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
}

/* Whether some thread's slot of ss shows more unlocks than locks on an index. */
static bool slots_show_hand_off(struct quiesce_srcu_struct *ss)
{
	bool shown = false;

	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		for (unsigned i = 0; i < 2; i++) {
			unsigned long unlocks = slot_count(e->srcu_slots, ss, 2 + i);

			/*
			 * Acquire: pairs with the release fence before each
			 * unlock's add, so that the slot's own locks that
			 * precede those unlocks are in the load below.
			 */
			quiesce_fence_acquire();
			if (unlocks > slot_count(e->srcu_slots, ss, i))
				shown = true;
		}
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return shown;
}

void quiesce_srcu_wake_grace_period(struct quiesce_srcu_struct *ss)
{
	quiesce_gp_wake(&ss->writer_sleeping);
}

/*
 * Whether the calling thread's counts say it is inside a section of ss,
 * which ss shows no hand-off for (srcu.h): a wait for ss's grace periods
 * would wait for itself.
 */
static bool inside_own_section(struct quiesce_srcu_struct *ss, struct quiesce_srcu_state *st)
{
	bool inside = record_holds(ss, st);

	for (unsigned i = 0; i < 2; i++)
		if (slot_count(quiesce_srcu_slots_self, ss, i) >
		    slot_count(quiesce_srcu_slots_self, ss, 2 + i))
			inside = true;
	if (!inside || QUIESCE_LOAD(&st->handed_off))
		return false;
	if (slots_show_hand_off(ss)) {
		QUIESCE_STORE(&st->handed_off, true);
		return false;
	}
	return true;
}

/* Aborts when the calling thread's counts say it is inside a section of ss. */
static void forbid_inside_own_section(struct quiesce_srcu_struct *ss,
				      struct quiesce_srcu_state *st, const char *call)
{
	if (inside_own_section(ss, st))
		quiesce_die("%s() called inside a read-side critical section of SRCU domain "
			    "\"%s\" that this thread opened: it would wait for itself forever",
			    call, name_of(ss));
}

/*
 * The callback thread's throttle and exit wait ask this (cb_domain.c,
 * cb_lifecycle.c):
 * exit() inside a section of the domain does not wait for the domain's
 * callbacks, as inside any other section.  Not the check after each
 * callback (sections_handed_off): a callback may hand a section it opened
 * to another thread, and this says yes until that thread has ended it.
 */
static bool srcu_caller_holds(struct quiesce_gp_domain *d)
{
	struct quiesce_srcu_state *st = state_of(d);

	return inside_own_section(st->ss, st);
}

/*
 * Calls that wait for the domain's grace periods or callbacks are counted
 * (the engine's quiesce_gp_call_begins()) from before they wait until
 * after their last touch of the state, so that a cleanup_srcu_struct() called
 * meanwhile (misuse) aborts with a message instead of freeing what the
 * wait still writes: an owner bumps gp_ended after its last grace period,
 * which then no longer counts as running.
 */
static void synchronize(struct quiesce_srcu_struct *ss, bool expedited, const char *call)
{
	struct quiesce_srcu_state *st = ready(ss, call);

	forbid_inside_own_section(ss, st, call);
	quiesce_gp_call_begins(&st->gp);
	quiesce_gp_synchronize(&st->gp, expedited);
	quiesce_gp_call_ends(&st->gp);
}

void quiesce_synchronize_srcu(struct quiesce_srcu_struct *ss)
{
	synchronize(ss, false, "synchronize_srcu");
}

void quiesce_synchronize_srcu_expedited(struct quiesce_srcu_struct *ss)
{
	synchronize(ss, true, "synchronize_srcu_expedited");
}

unsigned long quiesce_get_state_synchronize_srcu(struct quiesce_srcu_struct *ss)
{
	return quiesce_gp_snapshot(&ready(ss, "get_state_synchronize_srcu")->gp);
}

bool quiesce_poll_state_synchronize_srcu(struct quiesce_srcu_struct *ss, unsigned long cookie)
{
	struct quiesce_srcu_state *st = ready(ss, "poll_state_synchronize_srcu");

	return quiesce_cb_domain_poll(&st->cb, cookie);
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
	quiesce_gp_call_begins(&st->gp);
	quiesce_cb_domain_barrier(&st->cb, "srcu_barrier");
	quiesce_gp_call_ends(&st->gp);
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
	inside = readers_inside(ss, 0, true) + readers_inside(ss, 1, true);
	if (inside)
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" with %ld reader%s inside",
			    name_of(ss), inside, inside == 1 ? "" : "s");
	/*
	 * Before the pending callbacks, which count the running one: the
	 * advice there, srcu_barrier(), would abort from a callback too.
	 */
	if (quiesce_cb_domain_on_worker(&st->cb))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" from one of its own "
			    "callbacks: its callback thread cannot stop itself", name_of(ss));
	if (quiesce_cb_domain_pending(&st->cb))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" with callbacks pending: "
			    "call srcu_barrier() first", name_of(ss));
	if (quiesce_gp_calls_under_way(&st->gp))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" while another thread is "
			    "inside synchronize_srcu() or srcu_barrier() on it", name_of(ss));
	/*
	 * The callback thread, if any, stops (nothing is pending, checked
	 * above) after the grace period it may run for start_poll.
	 */
	quiesce_cb_domain_destroy(&st->cb);
	free_slots_of(ss);
	if (quiesce_gp_seq_running(quiesce_gp_seq_current(&st->gp)) ||
	    __atomic_load_n(&st->gp.gp_ended_waiters, __ATOMIC_SEQ_CST))
		quiesce_die("cleanup_srcu_struct() on SRCU domain \"%s\" while a grace period runs",
			    name_of(ss));
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

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(setup_prepare_fork, setup_after_fork, setup_after_fork);
}

void quiesce_srcu_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(SRCU) static void srcu_init(void)
{
	quiesce_srcu_fork_handlers();
}
