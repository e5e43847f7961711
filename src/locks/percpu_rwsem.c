/*
 * percpu_rwsem.c - the slow paths of the per-CPU reader-writer semaphore
 * (fast paths in include/quiesce/percpu_rwsem.h).
 *
 * Readers and the writer meet in two ways.
 *
 *  - Fast path, gate idle.  A reader adds one to its CPU's slot of
 *    read_locks (read_unlocks when it leaves; the reader count is their
 *    difference) in a restartable sequence that saw the gate idle (rseq
 *    readers), or inside an RCU read-side section that saw it idle.  A
 *    writer closes the gate (rcu_sync_enter()): it aborts the sequences in
 *    flight, or waits a grace period, which waits for every such section
 *    with release/acquire.  Either way the writer then sees every
 *    fast-path count made before it, and no reader takes the fast path
 *    afterwards (src/rcu_sync.c has the argument): the per-CPU slots hold
 *    still.  A reader's critical section precedes its fast-path unlock
 *    count in program order: for rseq readers (x86-64 only) that add is a
 *    store, which x86 orders after every earlier access, so a writer that
 *    sees it and then issues the acquire fence C below sees the section
 *    complete.
 *  - Slow path, gate closed.  The reader adds to read_locks' shared slot,
 *    then looks at `block`; the writer sets `block`, then sums the counts.
 *    Each side has a store-load fence between its store and its load:
 *
 *        reader_trylock():  add 1 to locks;  fence A;  load block
 *        down_write():      xchg block = 1;  fence D;  sum unlocks, locks
 *
 *    so at least one sees the other: the reader backs off, or the writer
 *    waits for it.  A reader that backs off adds to read_unlocks' shared
 *    slot, a release, after its add to read_locks (a release too).  The
 *    writer sums read_unlocks first, then, after an acquire fence (C),
 *    read_locks (readers_inside()): an unlock it counts comes with its
 *    lock, so the difference never runs below the true count.  (A holder
 *    may count its unlock on another CPU's slot than its lock: that is
 *    harmless, its lock was already visible to the writer.)  This path
 *    needs no gate: a thread without rseq takes it even while the gate is
 *    open, when the semaphore's readers are rseq readers.
 *  - Leaving.  A slow-path reader's unlock count is a release (B) and the
 *    writer's sum of the unlock counts is followed by an acquire fence
 *    (C): the readers' critical sections happen before the writer's.  The
 *    writer's release of `block` pairs with the acquire in
 *    reader_trylock(): its critical section happens before the next
 *    readers'.
 *  - Sleeping.  The writer waiting for readers sets writer_sleeping, fence
 *    F, sums; a leaving reader counts itself out, fence E, loads
 *    writer_sleeping: one of them sees the other, so the last reader
 *    cannot leave unseen.  A writer that has waited longer than the stall
 *    timeout (rcu.h) says so on stderr, then at doubling intervals: a
 *    reader that exited, or forgot percpu_up_read(), would otherwise hang
 *    it in silence.
 *
 * Waiters (readers blocked by a writer, writers blocked by one another)
 * queue in arrival order under wait_lock, each sleeping on its own futex
 * word.  percpu_up_write() takes the lock for them before waking them: the
 * next writer in line inherits `block` directly; readers at the head are
 * counted in, then a writer behind them may claim `block` and wait for
 * them.  Readers therefore get their turn between writers, and a waiting
 * writer keeps new readers out.
 */
#include <quiesce/percpu_rwsem.h>

#include <inttypes.h>
#include <string.h>

#include "common/diag.h"
#include "common/futex.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_engine.h"
#include "locks/percpu_rwsem_dead.h"
#include "locks/rcu_sync.h"
#include "rcu/stall.h"

/* Sums of the counter a writer polls before it sleeps. */
#define DRAIN_SPINS 200

struct quiesce_percpu_rwsem_waiter {
	struct quiesce_percpu_rwsem_waiter *next;
	bool reader;
	int granted;	/* futex: set by grant() */
};

/*
 * Whether readers may use the gate-checking restartable sequence: the
 * sequence exists in this build (x86-64, not ThreadSanitizer), this
 * process's threads run rseq, the kernel can abort sequences on demand, and
 * rcu_normal does not forbid the interrupts that takes.
 */
static bool rseq_readers_possible(void)
{
#ifdef QUIESCE_PERCPU_RSEQ_X86
	return quiesce_percpu_thread_has_rseq() && quiesce_rseq_barrier_ready() &&
	       !quiesce_gp_normal_only();
#else
	return false;
#endif
}

void quiesce_percpu_init_rwsem(struct quiesce_percpu_rwsem *sem)
{
	quiesce_rcu_sync_init(&sem->rss);
	sem->rss.rseq_readers = rseq_readers_possible();
	sem->read_locks = quiesce_percpu_count_alloc();
	sem->read_unlocks = quiesce_percpu_count_alloc();
	sem->block = 0;
	sem->writer_sleeping = 0;
	sem->write_held = false;
	pthread_mutex_init(&sem->wait_lock, NULL);
	sem->head = sem->tail = NULL;
}

void quiesce_percpu_init_dead(struct quiesce_percpu_rwsem *sem)
{
	memset(sem, 0, sizeof(*sem));
	sem->rss.rseq_readers = true;
	sem->rss.gp_state = QUIESCE_RCU_SYNC_PASSED;
}

static void check_live(struct quiesce_percpu_rwsem *sem, const char *call)
{
	if (QUIESCE_UNLIKELY(!QUIESCE_LOAD(&sem->read_locks)))
		quiesce_die("%s() on percpu_rw_semaphore %p after percpu_free_rwsem()", call,
			    (void *)sem);
}

void quiesce_percpu_free_rwsem(struct quiesce_percpu_rwsem *sem)
{
	long readers;

	check_live(sem, "percpu_free_rwsem");
	if (QUIESCE_LOAD(&sem->block) || sem->head)
		quiesce_die("percpu_free_rwsem() on a semaphore held for write or waited for");
	readers = quiesce_percpu_count_sum(sem->read_locks) -
		  quiesce_percpu_count_sum(sem->read_unlocks);
	if (readers)
		quiesce_die("percpu_free_rwsem() with a reader count of %ld: a reader still "
			    "holds it, or percpu_up_read() was called without percpu_down_read()",
			    readers);
	quiesce_rcu_sync_dtor(&sem->rss);
	quiesce_percpu_count_free(sem->read_locks);
	quiesce_percpu_count_free(sem->read_unlocks);
	pthread_mutex_destroy(&sem->wait_lock);
	quiesce_percpu_init_dead(sem);
}

/*
 * A reader's unlock count on the slow path, then the wake-up of a writer that
 * sleeps in wait_for_readers().  Both inside a read-side section: the
 * writer may see the count drop, finish, and free the semaphore before the
 * wake-up has touched it; percpu_free_rwsem() waits for the gate's grace
 * period, which waits for this section.
 */
static void reader_leave_slow(struct quiesce_percpu_rwsem *sem)
{
	quiesce_rcu_read_lock();
	quiesce_percpu_count_add_shared(sem->read_unlocks, 1);
	/* E: orders the count before the flag load; pairs with F. */
	quiesce_fence_store_load();
	if (QUIESCE_LOAD(&sem->writer_sleeping) &&
	    __atomic_exchange_n(&sem->writer_sleeping, 0, __ATOMIC_RELAXED))
		quiesce_futex_wake_all(&sem->writer_sleeping);
	quiesce_rcu_read_unlock();
}

static bool reader_trylock(struct quiesce_percpu_rwsem *sem)
{
	quiesce_percpu_count_add_shared(sem->read_locks, 1);
	/* A: the count before the load of block; pairs with D. */
	quiesce_fence_store_load();
	/* Acquire: pairs with the release of block in percpu_up_write(). */
	if (QUIESCE_LIKELY(!QUIESCE_LOAD_ACQUIRE(&sem->block)))
		return true;
	reader_leave_slow(sem);
	return false;
}

static bool writer_trylock(struct quiesce_percpu_rwsem *sem)
{
	/* Acquire: pairs with the release of block in percpu_up_write(). */
	return !QUIESCE_LOAD(&sem->block) && !__atomic_exchange_n(&sem->block, 1, __ATOMIC_ACQUIRE);
}

/* Called with wait_lock held.  Release: pairs with the waiter's acquire. */
static void grant(struct quiesce_percpu_rwsem *sem, struct quiesce_percpu_rwsem_waiter *w)
{
	sem->head = w->next;
	if (!sem->head)
		sem->tail = NULL;
	QUIESCE_STORE_RELEASE(&w->granted, 1);
	quiesce_futex_wake_all(&w->granted);
}

/* Takes the lock, or queues and sleeps until percpu_up_write() grants it. */
static void wait_for_grant(struct quiesce_percpu_rwsem *sem, bool reader)
{
	struct quiesce_percpu_rwsem_waiter w = { .reader = reader };

	pthread_mutex_lock(&sem->wait_lock);
	/*
	 * Retried under the lock: percpu_up_write() clears block and grants
	 * the queue under the same lock, so either we see block clear or it
	 * finds us queued.
	 */
	if (reader ? reader_trylock(sem) : writer_trylock(sem)) {
		pthread_mutex_unlock(&sem->wait_lock);
		return;
	}
	if (sem->tail)
		sem->tail->next = &w;
	else
		sem->head = &w;
	sem->tail = &w;
	pthread_mutex_unlock(&sem->wait_lock);

	/* Woken by grant(); acquire pairs with its release. */
	while (!QUIESCE_LOAD_ACQUIRE(&w.granted))
		quiesce_futex_wait(&w.granted, 0, 0);
	/* grant() wakes us under the lock: once we hold it, it is done with w. */
	pthread_mutex_lock(&sem->wait_lock);
	pthread_mutex_unlock(&sem->wait_lock);
}

void quiesce_percpu_down_read_slow(struct quiesce_percpu_rwsem *sem)
{
	check_live(sem, "percpu_down_read");
	if (!reader_trylock(sem))
		wait_for_grant(sem, true);
}

bool quiesce_percpu_down_read_trylock_slow(struct quiesce_percpu_rwsem *sem)
{
	check_live(sem, "percpu_down_read_trylock");
	return reader_trylock(sem);
}

void quiesce_percpu_up_read_slow(struct quiesce_percpu_rwsem *sem)
{
	check_live(sem, "percpu_up_read");
	/* B: release, the critical section before the count; pairs with C. */
	reader_leave_slow(sem);
}

/*
 * Called once the gate is closed: from then on every reader adds to the
 * shared slots only (the per-CPU slots hold still).  The unlocks are summed
 * first: a reader's lock count precedes its unlock count (program order;
 * on the slow path both are release adds), so the locks summed after them
 * include the lock of every unlock they include, and the difference never
 * drops below the number of holders.  A negative one is an unbalanced
 * percpu_up_read().
 */
static long readers_inside(struct quiesce_percpu_rwsem *sem)
{
	long unlocks = quiesce_percpu_count_sum(sem->read_unlocks), sum;

	/*
	 * C: acquire, pairing with B, the release of each slow-path unlock
	 * count just summed: those readers' critical sections happen before
	 * ours, and the locks summed next include their locks.  For readers
	 * that left on the fast path the grace period's release/acquire does
	 * the same.
	 */
	quiesce_fence_acquire();
	sum = quiesce_percpu_count_sum(sem->read_locks) - unlocks;
	if (sum < 0)
		quiesce_die("percpu_down_write() found a reader count of %ld: "
			    "percpu_up_read() was called without percpu_down_read()", sum);
	return sum;
}

static void wait_for_readers(struct quiesce_percpu_rwsem *sem)
{
	struct quiesce_stall_clock clock;
	uint64_t waited_ns;
	long inside;

	for (unsigned spins = 0; spins < DRAIN_SPINS; spins++) {
		if (!readers_inside(sem))
			return;
		quiesce_cpu_relax();
	}
	quiesce_stall_clock_start(&clock);
	for (;;) {
		QUIESCE_STORE(&sem->writer_sleeping, 1);
		/* F: the flag before the sum; pairs with E in reader_leave_slow(). */
		quiesce_fence_store_load();
		inside = readers_inside(sem);
		if (!inside)
			break;
		if (quiesce_stall_clock_due(&clock, &waited_ns))
			quiesce_stall_warn("percpu_down_write() has waited %" PRIu64 " ms for %ld "
					   "reader%s of a percpu_rw_semaphore to leave (a reader "
					   "thread that exited, or a percpu_down_read() without "
					   "percpu_up_read()?)",
					   waited_ns / 1000000u, inside, inside == 1 ? "" : "s");
		/*
		 * Woken by reader_leave_slow() when a reader leaves, or when
		 * the next report is due.
		 */
		quiesce_futex_wait(&sem->writer_sleeping, 1, quiesce_stall_clock_sleep_ns(&clock));
	}
	QUIESCE_STORE(&sem->writer_sleeping, 0);
}

void quiesce_percpu_down_write(struct quiesce_percpu_rwsem *sem)
{
	check_live(sem, "percpu_down_write");
	/* From here on, readers take the slow path (argument at the top). */
	quiesce_rcu_sync_enter_from(&sem->rss, "percpu_down_write");
	if (!writer_trylock(sem))
		wait_for_grant(sem, false);
	/* D: block (ours, or handed over by grant()) before the sum; pairs with A. */
	quiesce_fence_store_load();
	wait_for_readers(sem);
	QUIESCE_STORE(&sem->write_held, true);
}

void quiesce_percpu_up_write(struct quiesce_percpu_rwsem *sem)
{
	struct quiesce_percpu_rwsem_waiter *w;

	if (!QUIESCE_LOAD(&sem->write_held))
		quiesce_die("percpu_up_write() on a semaphore not held for write");
	QUIESCE_STORE(&sem->write_held, false);

	pthread_mutex_lock(&sem->wait_lock);
	w = sem->head;
	if (w && !w->reader) {
		/* The next writer inherits block: no reader slips in between. */
		grant(sem, w);
	} else {
		/* Release: pairs with the acquire in reader_trylock(). */
		QUIESCE_STORE_RELEASE(&sem->block, 0);
		while ((w = sem->head) && w->reader && reader_trylock(sem))
			grant(sem, w);
		if (w && !w->reader && writer_trylock(sem))
			grant(sem, w);
	}
	pthread_mutex_unlock(&sem->wait_lock);
	quiesce_rcu_sync_exit(&sem->rss);
}

void quiesce_percpu_rwsem_assert_held_write(struct quiesce_percpu_rwsem *sem)
{
	if (!QUIESCE_LOAD(&sem->write_held))
		quiesce_die("percpu_rw_semaphore %p is not held for write", (void *)sem);
}
