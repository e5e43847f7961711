/*
 * rwsem.c - the slow paths of the reader-writer semaphore.
 *
 * The design is the Linux kernel's kernel/locking/rwsem.c (Michel
 * Lespinasse's lock stealing, Davidlohr Bueso's check before cmpxchg,
 * Waiman Long's hand-off bit), moved to user space: waiters sleep on a
 * futex word of their own, the wait queue is guarded by a futex lock
 * rather than a spinlock, and a spinning writer cannot see whether the
 * holder is running, so its spin has a fixed bound instead.
 *
 * The count (include/quiesce/rwsem.h)
 *   bit 0  WRITER_LOCKED  a writer holds the lock
 *   bit 1  WAITERS        the wait queue is not empty
 *   bit 2  HANDOFF        the first waiter is owed the lock
 *   bit 3  WRITER_WOKEN   the first waiter is a writer, woken and not yet
 *                         back from its next try for the lock
 *   8..    readers        one READER_BIAS per reader holding the lock, or
 *                         in down_read() on the way to the queue
 *
 * Invariants
 *  (1) WRITER_LOCKED is set only by a compare-and-swap from a value with
 *      no reader bias and no WRITER_LOCKED, so a writer never shares the
 *      lock: a reader's bias, even one it is about to take back, keeps
 *      writers out while it is in the count.
 *  (2) A reader holds the lock only with its bias in a count that had no
 *      WRITER_LOCKED when the bias went in (fast path) or later showed
 *      none (a reader spinning for a writer to leave), or when it was
 *      granted: the waker added the bias itself, after checking (with
 *      its own bias in place) that no writer held the lock.
 *  (3) WAITERS and HANDOFF change only under queue_lock.  WAITERS is set
 *      while the queue is not empty.  HANDOFF is set only by (or for) the
 *      first waiter, which then has handoff_set; it is cleared when that
 *      waiter gets the lock or leaves.  With HANDOFF set nobody else can
 *      take a free lock: readers see it in the fast path and steal only
 *      without it, spinning and queued writers check it, and new fast-path
 *      writers need a zero count.
 *  (4) WRITER_WOKEN is set only under queue_lock, by the waker of a writer
 *      at the head (its woken flag says so), and cleared only by that
 *      writer's own compare-and-swap when it next tries the lock, whether
 *      the try takes the lock or fails.  A try is the compare-and-swap of
 *      the count it judged, so it sees every release before it.
 *
 * Who wakes whom
 *  - A waiter queues with queue_lock held and WAITERS set, then looks at
 *    the count once more (cond_wake): a release that came before it set
 *    WAITERS saw no waiters and woke nobody, so the waiter wakes the queue
 *    itself.  A release that comes after sees WAITERS and wakes the queue
 *    (quiesce_rwsem_wake), taking queue_lock, so it acts after the waiter
 *    is in place.
 *  - up_write() wakes when WAITERS was set; up_read() when its release
 *    left no holder and WAITERS set.  A reader that took its bias back on
 *    the way to the queue does the same check for the value it left.
 *  - Neither wakes when WRITER_WOKEN was set: the writer at the head has
 *    been woken and will try the lock after this release (invariant 4).
 *    Without the bit, every release while a woken writer waits for a CPU
 *    (milliseconds, with more threads than CPUs) took queue_lock to wake
 *    it again, and every reader stealing the lock took it to find no
 *    readers at the head.
 *  - Wake-up: a writer at the head is signalled and takes the lock itself
 *    (or finds it stolen and sleeps again); readers at the head are
 *    granted the lock together: the waker adds their biases to the count
 *    and removes them from the queue before signalling any of them.
 *  - A waiter also wakes when a stall report is due: one that has waited
 *    the stall timeout (QUIESCE_STALL_TIMEOUT_MS) says so on stderr, then
 *    at doubling intervals, and sleeps again.  A holder that exited, or a
 *    down without its up, would otherwise hang its waiters in silence.
 *
 * Hand-off
 *   A writer at the head that fails to take the lock after waiting
 *   HANDOFF_NS sets HANDOFF, or its waker does, so that nobody steals the
 *   lock while it wakes up; a waker that finds a writer holding the lock
 *   ahead of readers at the head sets it for them once they have waited
 *   as long.  From then on the lock goes to the head when it is released,
 *   so every waiter's wait is bounded by the hand-off time, plus the
 *   sections of the holders it found, per waiter ahead of it.
 *
 * Lifetimes
 *   A waiter lives on its thread's stack and may return as soon as it sees
 *   its word signalled, so the waker signals it under queue_lock and only
 *   then, after unlocking, issues the FUTEX_WAKE.  That wake-up may reach
 *   memory the waiter has already reused; futex(2) tells every futex user
 *   to expect such spurious wake-ups, and all of ours recheck their word.
 *   Readers granted but not yet signalled are off the queue and cannot
 *   leave: a reader whose timeout expires takes queue_lock and, if it is
 *   no longer queued, has the lock.
 *
 * Memory ordering
 *   Taking the lock is an acquire on the count (fast paths, the reader's
 *   check in the queue, the writer's compare-and-swap), or for a granted
 *   reader, the acquire of its signalled word, paired with the release of
 *   the signal; the waker acquired the count first, so the chain carries
 *   the last writer's stores.  Releasing is a release on the count.
 *   queue_lock orders the queue and the waiters' fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include <quiesce/rwsem.h>

#include "common/diag.h"
#include "common/futex.h"
#include "locks/rwsem_internal.h"
#include "locks/rwsem_queue_lock.h"
#include "rcu/stall.h"

#define WRITER_LOCKED QUIESCE_RWSEM_WRITER_LOCKED
#define WAITERS QUIESCE_RWSEM_WAITERS
#define HANDOFF QUIESCE_RWSEM_HANDOFF
#define WRITER_WOKEN QUIESCE_RWSEM_WRITER_WOKEN
#define READER_BIAS QUIESCE_RWSEM_READER_BIAS
/* Held, by a writer or by readers (or a reader on its way to the queue). */
#define LOCKED_MASK (WRITER_LOCKED | ~(READER_BIAS - 1))
#define NO_DEADLINE UINT64_MAX

/*
 * Spin budgets, about what a futex sleep and wake-up cost: a writer's
 * reads of a held lock before it queues, a reader's wait for a writer to
 * leave when nobody is queued, a queued waiter's reads of its own word
 * before it sleeps.  The clock is read every SPIN_CLOCK_EVERY rounds.
 */
#define WRITER_SPIN_NS 4000u
#define READER_SPIN_NS 2000u
#define WAITER_SPIN_NS 2000u
#define SPIN_CLOCK_EVERY 16
/* Futex words a waker collects before waking them. */
#define WAKE_BATCH 16

bool quiesce_rwsem_test_busted_writer;
bool quiesce_rwsem_test_busted_writers_share;

static bool writer_precheck = true;
static int online_cpus;

enum waiter_kind { WAITER_READER, WAITER_WRITER };

/* A waiter's futex word. */
enum { WORD_PENDING, WORD_SLEEPING, WORD_SIGNALLED };

struct quiesce_rwsem_waiter {
	struct quiesce_rwsem_waiter *next, *prev;	/* under queue_lock */
	uint64_t queued_at;				/* monotonic ns */
	enum waiter_kind kind;
	bool queued;					/* under queue_lock */
	bool handoff_set;				/* under queue_lock */
	bool woken;					/* under queue_lock, see (4) */
	int word;					/* atomic */
};

/* Which waiters a wake-up may let in. */
enum wake_kind {
	WAKE_ANY,		/* a writer or readers at the head */
	WAKE_READERS,		/* readers at the head only: readers hold the lock */
	WAKE_READ_OWNED,	/* readers, and the caller holds a read lock */
};

struct wake_batch {
	int *words[WAKE_BATCH];
	int n;
};

void quiesce_rwsem_set_writer_precheck(bool on)
{
	QUIESCE_STORE(&writer_precheck, on);
}

static bool spinning_pays(void)
{
	int cpus = QUIESCE_LOAD(&online_cpus);

	if (!cpus) {
		cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
		QUIESCE_STORE(&online_cpus, cpus);
	}
	return cpus > 1;
}

/*
 * What keeps a writer out: in the busted test variants, only another
 * writer, or only readers.
 */
static unsigned long writer_blockers(void)
{
	if (QUIESCE_LOAD(&quiesce_rwsem_test_busted_writer))
		return WRITER_LOCKED;
	if (QUIESCE_LOAD(&quiesce_rwsem_test_busted_writers_share))
		return LOCKED_MASK & ~WRITER_LOCKED;
	return LOCKED_MASK;
}

/*
 * A spin's time budget.  The clock is first read after SPIN_CLOCK_EVERY
 * rounds, when the budget starts: a spin that ends at once, as most do on
 * a lock held for nanoseconds at a time, reads no clock at all.
 */
struct spin_budget {
	uint64_t until;		/* 0 until the clock is first read */
	uint32_t ns;
	unsigned rounds;
};

static bool spin_budget_spent(struct spin_budget *b)
{
	if (++b->rounds % SPIN_CLOCK_EVERY)
		return false;
	if (!b->until) {
		b->until = quiesce_now_ns() + b->ns;
		return false;
	}
	return quiesce_now_ns() > b->until;
}

static uint64_t deadline_after(uint64_t timeout_ns)
{
	uint64_t now;

	if (timeout_ns == QUIESCE_RWSEM_NO_TIMEOUT)
		return NO_DEADLINE;
	now = quiesce_now_ns();
	return timeout_ns >= NO_DEADLINE - now ? NO_DEADLINE : now + timeout_ns;
}

static bool waited_too_long(const struct quiesce_rwsem_waiter *w)
{
	return quiesce_now_ns() - w->queued_at >= QUIESCE_RWSEM_HANDOFF_NS;
}

static void enqueue(struct quiesce_rwsem *sem, struct quiesce_rwsem_waiter *w)
{
	w->next = NULL;
	w->prev = sem->last;
	if (sem->last)
		sem->last->next = w;
	else
		sem->first = w;
	sem->last = w;
	w->queued = true;
}

static void dequeue(struct quiesce_rwsem *sem, struct quiesce_rwsem_waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		sem->first = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		sem->last = w->prev;
	w->queued = false;
}

static void wake_batch_flush(struct wake_batch *batch)
{
	for (int i = 0; i < batch->n; i++)
		quiesce_futex_wake_all(batch->words[i]);
	batch->n = 0;
}

/* Under queue_lock.  The waiter may be gone once this returns. */
static void signal_waiter(struct quiesce_rwsem_waiter *w, struct wake_batch *batch)
{
	/*
	 * Release: pairs with the acquire in wait_for_signal(); a granted
	 * reader sees what this thread saw when it checked the count.
	 */
	if (__atomic_exchange_n(&w->word, WORD_SIGNALLED, __ATOMIC_RELEASE) != WORD_SLEEPING)
		return;
	if (batch->n == WAKE_BATCH)
		wake_batch_flush(batch);
	batch->words[batch->n++] = &w->word;
}

/* Under queue_lock: lets in the waiters at the head that can go now. */
static void mark_wake(struct quiesce_rwsem *sem, enum wake_kind kind, struct wake_batch *batch)
{
	struct quiesce_rwsem_waiter *first = sem->first, *end, *w, *next;
	unsigned long readers = 0, add;

	if (!first)
		return;
	if (first->kind == WAITER_WRITER) {
		unsigned long bits = WRITER_WOKEN;

		if (kind != WAKE_ANY)
			return;
		/*
		 * A writer owed the lock gets it even if it is slow to run:
		 * nobody can steal it in the meantime.  Relaxed: the writer
		 * reads the bits under queue_lock, and releasers act on them
		 * only through their own operations on the count.
		 */
		if (!first->handoff_set && waited_too_long(first)) {
			bits |= HANDOFF;
			first->handoff_set = true;
		}
		if (!first->woken || (bits & HANDOFF))
			__atomic_fetch_or(&sem->count, bits, __ATOMIC_RELAXED);
		first->woken = true;
		signal_waiter(first, batch);
		return;
	}
	if (kind != WAKE_READ_OWNED) {
		/*
		 * One bias on the batch's behalf keeps writers out from here
		 * on (invariant 1).  Acquire: pairs with the release of the
		 * last writer, whose stores the batch must see.
		 */
		unsigned long old = __atomic_fetch_add(&sem->count, READER_BIAS, __ATOMIC_ACQUIRE);

		if (old & WRITER_LOCKED) {
			/* A writer stole the lock; its release will wake us again. */
			unsigned long undo = READER_BIAS;

			if (!first->handoff_set && waited_too_long(first)) {
				undo -= HANDOFF;
				first->handoff_set = true;
			}
			__atomic_fetch_sub(&sem->count, undo, __ATOMIC_RELAXED);
			return;
		}
	}
	for (w = first; w && w->kind == WAITER_READER; w = w->next)
		readers++;
	end = w;
	sem->first = end;
	if (end)
		end->prev = NULL;
	else
		sem->last = NULL;
	/*
	 * Every granted reader's bias is in the count before any of them runs
	 * and can release.  Relaxed: the readers' ordering comes from their
	 * signals, and writers are already kept out by a bias.
	 */
	add = readers * READER_BIAS;
	if (kind != WAKE_READ_OWNED)
		add -= READER_BIAS;
	if (!end)
		add -= WAITERS;
	if (first->handoff_set)
		add -= HANDOFF;
	__atomic_fetch_add(&sem->count, add, __ATOMIC_RELAXED);
	for (w = first; w != end; w = next) {
		next = w->next;
		w->queued = false;
		signal_waiter(w, batch);
	}
}

/* Under queue_lock: wakes what the count, as last seen, lets in. */
static void cond_wake(struct quiesce_rwsem *sem, unsigned long count, struct wake_batch *batch)
{
	if (count & (WRITER_LOCKED | WRITER_WOKEN))
		return;
	mark_wake(sem, (count & LOCKED_MASK) ? WAKE_READERS : WAKE_ANY, batch);
}

/* Under queue_lock: a waiter gives up; the flags follow the queue. */
static void leave_queue(struct quiesce_rwsem *sem, struct quiesce_rwsem_waiter *w,
			struct wake_batch *batch)
{
	bool was_first = sem->first == w;

	dequeue(sem, w);
	if (!sem->first)
		__atomic_fetch_and(&sem->count, ~(WAITERS | HANDOFF), __ATOMIC_RELAXED);
	else if (w->handoff_set)
		__atomic_fetch_and(&sem->count, ~HANDOFF, __ATOMIC_RELAXED);
	/* The new head may be able to go where this one could not. */
	if (was_first && sem->first)
		cond_wake(sem, QUIESCE_LOAD(&sem->count), batch);
}

void quiesce_rwsem_wake(struct quiesce_rwsem *sem)
{
	struct wake_batch batch = { .n = 0 };

	quiesce_rwsem_queue_lock(&sem->queue_lock);
	mark_wake(sem, WAKE_ANY, &batch);
	quiesce_rwsem_queue_unlock(&sem->queue_lock);
	wake_batch_flush(&batch);
}

/* A waiter that has waited the stall timeout, and what it waits for. */
static void report_stuck_waiter(const struct quiesce_rwsem *sem,
				const struct quiesce_rwsem_waiter *w, uint64_t waited_ns)
{
	const char *call = w->kind == WAITER_WRITER ? "down_write" : "down_read";
	unsigned long count = QUIESCE_LOAD(&sem->count);
	unsigned long readers = count >> QUIESCE_RWSEM_READER_SHIFT;
	uint64_t ms = waited_ns / 1000000u;

	if (count & WRITER_LOCKED)
		quiesce_stall_warn("%s() has waited %" PRIu64 " ms for an rw_semaphore at %p held "
				   "for writing (a writer thread that exited, or a down_write() "
				   "without up_write()?)", call, ms, (const void *)sem);
	else if (readers)
		quiesce_stall_warn("%s() has waited %" PRIu64 " ms for an rw_semaphore at %p held "
				   "by %lu reader%s (a reader thread that exited, or a "
				   "down_read() without up_read()?)", call, ms, (const void *)sem,
				   readers, readers == 1 ? "" : "s");
	else
		quiesce_stall_warn("%s() has waited %" PRIu64 " ms for an rw_semaphore at %p that "
				   "nobody holds at this moment (being handed over)", call, ms,
				   (const void *)sem);
}

/* Returns true once signalled, false at the deadline. */
static bool wait_for_signal(const struct quiesce_rwsem *sem, struct quiesce_rwsem_waiter *w,
			    uint64_t deadline)
{
	struct spin_budget spin = { .ns = WAITER_SPIN_NS };
	struct quiesce_stall_clock clock;
	int pending = WORD_PENDING;
	uint64_t waited_ns;

	if (spinning_pays()) {
		do {
			/* Acquire: pairs with the release in signal_waiter(). */
			if (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE) == WORD_SIGNALLED)
				return true;
			quiesce_cpu_relax();
		} while (!spin_budget_spent(&spin));
	}
	__atomic_compare_exchange_n(&w->word, &pending, WORD_SLEEPING, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	quiesce_stall_clock_start(&clock);
	for (;;) {
		uint64_t now, sleep_ns;

		/* Acquire: pairs with the release in signal_waiter(). */
		if (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE) == WORD_SIGNALLED)
			return true;
		now = quiesce_now_ns();
		if (now >= deadline)
			return false;
		if (quiesce_stall_clock_due(&clock, &waited_ns))
			report_stuck_waiter(sem, w, waited_ns);
		sleep_ns = quiesce_stall_clock_sleep_ns(&clock);
		if (deadline != NO_DEADLINE && deadline - now < sleep_ns)
			sleep_ns = deadline - now;
		/*
		 * Woken by signal_waiter() and the waker's FUTEX_WAKE, or when
		 * the deadline or the next stall report is due; the word
		 * changes first, so a signal before we sleep fails the wait.
		 */
		quiesce_futex_wait(&w->word, WORD_SLEEPING, sleep_ns);
	}
}

/*
 * A writer holds the lock and nobody is queued: its section is likely
 * short.  Waits for it to leave with this reader's bias still in the
 * count, where it keeps the next writers out; once the writer is gone the
 * bias holds the lock.  Returns false, with the count last seen, when a
 * waiter queues or the budget runs out.
 */
static bool spin_for_read(struct quiesce_rwsem *sem, unsigned long *count)
{
	struct spin_budget spin = { .ns = READER_SPIN_NS };

	if (!spinning_pays())
		return false;
	for (;;) {
		quiesce_cpu_relax();
		/* Acquire: pairs with the release in up_write() and downgrade_write(). */
		*count = __atomic_load_n(&sem->count, __ATOMIC_ACQUIRE);
		if (!(*count & QUIESCE_RWSEM_READ_BLOCKED))
			return true;
		if (!(*count & WRITER_LOCKED) || (*count & (WAITERS | HANDOFF)))
			return false;
		if (spin_budget_spent(&spin))
			return false;
	}
}

int quiesce_rwsem_read_slowpath(struct quiesce_rwsem *sem, unsigned long count,
				uint64_t timeout_ns)
{
	struct quiesce_rwsem_waiter w = { .kind = WAITER_READER, .word = WORD_PENDING };
	struct wake_batch batch = { .n = 0 };
	unsigned long adjust = -READER_BIAS;
	uint64_t deadline;

	if ((count & WRITER_LOCKED) && QUIESCE_LOAD(&sem->owner) == quiesce_rwsem_thread_id())
		quiesce_die("down_read() on an rw_semaphore this thread holds for writing (or a "
			    "thread exited holding it): it would wait for itself");
	if ((count & QUIESCE_RWSEM_READ_BLOCKED) == WRITER_LOCKED && spin_for_read(sem, &count))
		return 0;
	/*
	 * Lock stealing: the lock is free but for sleeping waiters, none of
	 * which is owed it, and ours is the only bias.  Keep it; the readers
	 * at the head may join.  (A reader that finds other readers queues,
	 * so that a stream of readers cannot keep a writer waiting.)
	 */
	if (!(count & (WRITER_LOCKED | HANDOFF)) && (count >> QUIESCE_RWSEM_READER_SHIFT) == 1) {
		/* With a writer woken at the head there are no readers to let in. */
		if ((count & (WAITERS | WRITER_WOKEN)) == WAITERS) {
			quiesce_rwsem_queue_lock(&sem->queue_lock);
			mark_wake(sem, WAKE_READ_OWNED, &batch);
			quiesce_rwsem_queue_unlock(&sem->queue_lock);
			wake_batch_flush(&batch);
		}
		return 0;
	}

	deadline = deadline_after(timeout_ns);
	quiesce_rwsem_queue_lock(&sem->queue_lock);
	if (!sem->first) {
		/*
		 * No waiters, so no WAITERS or HANDOFF (invariant 3): if the
		 * writer has gone too, our bias holds the lock.  Acquire:
		 * pairs with the release in up_write().
		 */
		if (!(__atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) & WRITER_LOCKED)) {
			quiesce_rwsem_queue_unlock(&sem->queue_lock);
			return 0;
		}
		adjust += WAITERS;
	}
	w.queued_at = quiesce_now_ns();
	enqueue(sem, &w);
	/* Relaxed: this reader held nothing, so its bias orders nothing. */
	count = __atomic_add_fetch(&sem->count, adjust, __ATOMIC_RELAXED);
	cond_wake(sem, count, &batch);
	quiesce_rwsem_queue_unlock(&sem->queue_lock);
	wake_batch_flush(&batch);

	if (wait_for_signal(sem, &w, deadline))
		return 0;
	quiesce_rwsem_queue_lock(&sem->queue_lock);
	if (!w.queued) {
		/* Granted after the deadline: the lock is ours, signal and all. */
		quiesce_rwsem_queue_unlock(&sem->queue_lock);
		wait_for_signal(sem, &w, NO_DEADLINE);
		return 0;
	}
	leave_queue(sem, &w, &batch);
	quiesce_rwsem_queue_unlock(&sem->queue_lock);
	wake_batch_flush(&batch);
	return -ETIMEDOUT;
}

/*
 * A running writer takes a free lock ahead of sleeping waiters unless the
 * first of them is owed it.  With the precheck it reads the count and
 * tries its compare-and-swap only when that can succeed; without it, the
 * compare-and-swap itself is the read, as in the kernel before 2013.
 */
static bool spin_for_write(struct quiesce_rwsem *sem, uintptr_t self, bool precheck)
{
	unsigned long blockers = writer_blockers() | HANDOFF;
	unsigned long count = QUIESCE_LOAD(&sem->count);
	struct spin_budget spin = { .ns = WRITER_SPIN_NS };

	if (!spinning_pays())
		return false;
	for (;;) {
		if (precheck) {
			/* Acquire: pairs with the release in up_read() and up_write(). */
			if (!(count & blockers) &&
			    __atomic_compare_exchange_n(&sem->count, &count, count | WRITER_LOCKED,
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				goto acquired;
		} else {
			unsigned long expected = count & ~blockers;

			/* Acquire: as above. */
			if (__atomic_compare_exchange_n(&sem->count, &expected,
							expected | WRITER_LOCKED, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				goto acquired;
			count = expected;
		}
		if ((count & HANDOFF) || spin_budget_spent(&spin))
			return false;
		quiesce_cpu_relax();
		if (precheck)
			count = QUIESCE_LOAD(&sem->count);
	}
acquired:
	QUIESCE_STORE(&sem->owner, self);
	return true;
}

/*
 * Under queue_lock: a queued writer takes the lock, or, at the head of
 * the queue after waiting too long, sets HANDOFF.  A woken writer's try
 * clears WRITER_WOKEN in the same compare-and-swap, either way.
 */
static bool write_lock_queued(struct quiesce_rwsem *sem, struct quiesce_rwsem_waiter *w,
			      uintptr_t self, bool precheck)
{
	unsigned long blockers = writer_blockers();
	unsigned long woken = w->woken ? WRITER_WOKEN : 0;
	bool first = sem->first == w, alone = first && !w->next, take;
	unsigned long count, next;

	if (!precheck) {
		count = WAITERS | woken | (w->handoff_set ? HANDOFF : 0);
		/* Acquire: pairs with the release in up_read() and up_write(). */
		if (__atomic_compare_exchange_n(&sem->count, &count,
						WRITER_LOCKED | (alone ? 0 : WAITERS), false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			goto acquired;
	} else {
		count = QUIESCE_LOAD(&sem->count);
	}
	do {
		/* Owed to the head; a woken writer is the head (invariant 4). */
		if ((count & HANDOFF) && !w->handoff_set)
			return false;
		take = !(count & blockers);
		if (!take) {
			next = count & ~woken;
			if (!(count & HANDOFF) && first && waited_too_long(w))
				next |= HANDOFF;
			if (next == count)
				return false;
		} else {
			next = (count | WRITER_LOCKED) & ~(HANDOFF | woken);
			if (alone)
				next &= ~WAITERS;
		}
		/* Acquire: as above. */
	} while (!__atomic_compare_exchange_n(&sem->count, &count, next, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	if (!take) {
		w->woken = false;
		if (next & HANDOFF)
			w->handoff_set = true;
		return false;
	}
acquired:
	w->woken = false;
	dequeue(sem, w);
	QUIESCE_STORE(&sem->owner, self);
	return true;
}

int quiesce_rwsem_write_slowpath(struct quiesce_rwsem *sem, uint64_t timeout_ns)
{
	struct quiesce_rwsem_waiter w = { .kind = WAITER_WRITER, .word = WORD_PENDING };
	struct wake_batch batch = { .n = 0 };
	uintptr_t self = quiesce_rwsem_thread_id();
	bool precheck = QUIESCE_LOAD(&writer_precheck);
	uint64_t deadline;

	if (QUIESCE_LOAD(&sem->owner) == self)
		quiesce_die("down_write() on an rw_semaphore this thread already holds for writing "
			    "(recursive write locking, or a thread exited holding it)");
	deadline = deadline_after(timeout_ns);
	if (spin_for_write(sem, self, precheck))
		return 0;

	quiesce_rwsem_queue_lock(&sem->queue_lock);
	w.queued_at = quiesce_now_ns();
	enqueue(sem, &w);
	if (sem->first == &w)
		__atomic_fetch_or(&sem->count, WAITERS, __ATOMIC_RELAXED);
	else
		cond_wake(sem, QUIESCE_LOAD(&sem->count), &batch);
	for (;;) {
		/* Under queue_lock, as every signal is: none is lost before the try. */
		QUIESCE_STORE(&w.word, WORD_PENDING);
		if (write_lock_queued(sem, &w, self, precheck))
			break;
		quiesce_rwsem_queue_unlock(&sem->queue_lock);
		wake_batch_flush(&batch);
		/* Woken by mark_wake() when the lock is released. */
		if (!wait_for_signal(sem, &w, deadline)) {
			quiesce_rwsem_queue_lock(&sem->queue_lock);
			if (write_lock_queued(sem, &w, self, precheck))
				break;
			leave_queue(sem, &w, &batch);
			quiesce_rwsem_queue_unlock(&sem->queue_lock);
			wake_batch_flush(&batch);
			return -ETIMEDOUT;
		}
		quiesce_rwsem_queue_lock(&sem->queue_lock);
	}
	quiesce_rwsem_queue_unlock(&sem->queue_lock);
	wake_batch_flush(&batch);
	return 0;
}

void quiesce_rwsem_up_read_slowpath(struct quiesce_rwsem *sem, unsigned long old)
{
	if ((old & WRITER_LOCKED) && QUIESCE_LOAD(&sem->owner) == quiesce_rwsem_thread_id())
		quiesce_die("up_read() on an rw_semaphore this thread holds for writing: "
			    "use up_write()");
	/*
	 * No read hold can exist beside a writer (invariant 1), so this
	 * caller holds none; a bias in the count is a reader's on its way
	 * in, and taking it would let that reader in beside the next writer.
	 * The busted test writer shares the lock with readers on purpose.
	 */
	if ((old & WRITER_LOCKED) && !QUIESCE_LOAD(&quiesce_rwsem_test_busted_writer))
		quiesce_die("up_read() on an rw_semaphore that another thread holds for writing: "
			    "this thread holds no read lock on it");
	if (old < READER_BIAS)
		quiesce_die("up_read() on an rw_semaphore that is not read-locked");
	if (((old - READER_BIAS) & (LOCKED_MASK | WAITERS | WRITER_WOKEN)) == WAITERS)
		quiesce_rwsem_wake(sem);
}

void quiesce_rwsem_bad_up_write(struct quiesce_rwsem *sem)
{
	unsigned long count = QUIESCE_LOAD(&sem->count);

	if (count & WRITER_LOCKED)
		quiesce_die("up_write() by a thread that does not hold the write lock");
	if (count & LOCKED_MASK)
		quiesce_die("up_write() on an rw_semaphore that is read-locked: use up_read()");
	quiesce_die("up_write() on an rw_semaphore that is not locked");
}

void quiesce_rwsem_write_bit_lost(const char *op, unsigned long old)
{
	quiesce_die("%s by the thread that holds an rw_semaphore for writing, but its count "
		    "(%#lx) did not show the write lock: the count was overwritten, or a second "
		    "writer was let in and released it", op, old);
}

void quiesce_downgrade_write(struct quiesce_rwsem *sem)
{
	struct wake_batch batch = { .n = 0 };
	unsigned long old;

	if (QUIESCE_LOAD(&sem->owner) != quiesce_rwsem_thread_id()) {
		if (QUIESCE_LOAD(&sem->count) & WRITER_LOCKED)
			quiesce_die("downgrade_write() by a thread that does not hold the write lock");
		quiesce_die("downgrade_write() on an rw_semaphore that is not write-locked");
	}
	QUIESCE_STORE(&sem->owner, (uintptr_t)0);
	/*
	 * Release: readers let in from here on see the section's stores;
	 * pairs with the acquire in down_read() and mark_wake().
	 */
	old = __atomic_fetch_add(&sem->count, READER_BIAS - WRITER_LOCKED, __ATOMIC_RELEASE);
	/* As in up_write(): a count without the write lock is now wrong. */
	if (!(old & WRITER_LOCKED))
		quiesce_rwsem_write_bit_lost("downgrade_write()", old);
	if ((old & (WAITERS | WRITER_WOKEN)) == WAITERS) {
		quiesce_rwsem_queue_lock(&sem->queue_lock);
		mark_wake(sem, WAKE_READ_OWNED, &batch);
		quiesce_rwsem_queue_unlock(&sem->queue_lock);
		wake_batch_flush(&batch);
	}
}
