/*
 * quiesce/percpu_rwsem.h - a reader-writer semaphore whose readers touch
 * only their own CPU's data, and whose writers pay a grace period (the
 * kernel's percpu_rw_semaphore).
 *
 * For data that is read very often and written very seldom.  While no
 * writer is around, percpu_down_read() and percpu_up_read() are one
 * per-CPU counter update each: no atomic instruction, no fence, no shared
 * cache line written.  They count in two counters, read_locks and
 * read_unlocks, whose difference is the number of readers: an up_read that
 * subtracted from the count its down_read added to would have to wait for
 * that add to reach it through the store buffer (a store-forwarding
 * latency: 2.4 ns a pair on the Intel Xeon of docs/BENCHMARKS.md); with
 * two counts each add waits only for the add of the pair before.
 *
 * On x86-64 with rseq (glibc 2.35+) and Linux 5.10+, the look at the gate
 * and the update are one restartable sequence, and a writer closes the
 * gate by aborting the sequences in flight
 * (membarrier(PRIVATE_EXPEDITED_RSEQ): it interrupts the CPUs running this
 * process's threads, once per burst of writers).  Elsewhere (other
 * architectures, ThreadSanitizer, valgrind, rseq disabled, or
 * QUIESCE_RCU_NORMAL set when the semaphore is initialized) they run inside
 * an RCU read-side critical section, and the writer waits for a grace
 * period.  Either way the closed gate sends readers to a slow path that
 * synchronizes with the writer through fences and a shared flag, and the
 * writer waits for the readers inside to leave.  A semaphore keeps the kind
 * of readers it was initialized with: rcu_set_normal() later does not stop
 * its writers' interrupts.
 *
 * Rules for callers
 * - Readers may sleep while holding the semaphore, may nest read locks only
 *   when no writer can queue in between (as with any fair rwsem), and may
 *   release it on another thread or CPU.
 * - Writers exclude readers and each other.  A writer that waits blocks new
 *   readers, so a flood of readers cannot starve it; waiters are served in
 *   arrival order (but for a writer that arrives just as another releases,
 *   which may go first), so a stream of writers cannot starve readers.
 *   Blocked threads sleep on a futex.
 * - It serves the threads of one process: its counters are per-CPU
 *   allocations of the process, its gate closes with grace periods and
 *   barriers of the process, and its waiters sleep on private futexes.
 * - fork(): the child may use a semaphore that no other thread of the
 *   parent held, waited for or was inside a call on at the fork.  What the
 *   forking thread held it still holds there, and releases as usual.  One
 *   that another thread held or waited for is unusable in the child, as
 *   any lock: a read hold of a vanished thread is never released there,
 *   and the child's next writer waits for it for ever.
 * - percpu_down_write() must not be called inside an RCU read-side
 *   critical section (it may wait for a grace period): it aborts with a
 *   message there, whatever the kind of readers.  The write side may be
 *   released by another thread than the one that took it.
 * - percpu_up_write() on a semaphore not held for write, and
 *   percpu_free_rwsem() on one that is held or has waiters, abort with a
 *   message.  So may a free made as soon as a lock is taken: a releaser
 *   may still be inside percpu_up_write() after handing the lock to the
 *   next writer (its rcu_sync_exit() comes last).  Free a semaphore
 *   after joining its users, as with the kernel's.  An unbalanced
 *   percpu_up_read() is reported by the next percpu_down_write() or
 *   percpu_free_rwsem() (the reader count is negative, or not zero).  Any
 *   use after percpu_free_rwsem() aborts with a message (until the memory
 *   is reused).
 * - A read hold that is never released (its thread exited holding it, or
 *   an up_read() was forgotten) makes the next writer wait for ever; one
 *   that has waited longer than the stall timeout (rcu.h) says so on
 *   stderr, naming how many readers it waits for, then again at doubling
 *   intervals.  These count in stall_warnings.
 *
 * Memory: the structure (176 bytes on x86-64 with glibc) plus two per-CPU
 * counters of 8 * (possible CPUs + 1) bytes each, packed with other
 * counters of the same CPU so that CPUs never share a line
 * (include/quiesce/percpu_count.h): 176 + 16 * (CPUs + 1) bytes, 1.2 KB on
 * a 64-CPU machine, so thousands of semaphores are practical.
 * Padding each CPU's slot to a cache line would cost 8 times as much for
 * nothing: the allocator already keeps CPUs apart.
 */
#ifndef QUIESCE_PERCPU_RWSEM_H
#define QUIESCE_PERCPU_RWSEM_H

#include <pthread.h>
#include <stdbool.h>

#include <quiesce/compiler.h>
#include <quiesce/percpu_count.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_sync.h>

#ifdef __cplusplus
extern "C" {
#endif

struct quiesce_percpu_rwsem_waiter;

/* What the fast path reads (the counters, the gate) shares the first line. */
struct quiesce_percpu_rwsem {
	long *read_locks;		/* per-CPU: down_reads (the top says why two) */
	long *read_unlocks;		/* per-CPU: up_reads; the difference is the readers */
	struct quiesce_rcu_sync rss;	/* idle: readers take the fast path */
	int block;			/* a writer holds or claims the lock */
	int writer_sleeping;		/* futex: the writer waits for readers */
	bool write_held;		/* a writer is inside (for assertions) */
	pthread_mutex_t wait_lock;	/* guards the waiter queue */
	struct quiesce_percpu_rwsem_waiter *head, *tail;
};

QUIESCE_API void quiesce_percpu_init_rwsem(struct quiesce_percpu_rwsem *sem);
QUIESCE_API void quiesce_percpu_free_rwsem(struct quiesce_percpu_rwsem *sem);
QUIESCE_API void quiesce_percpu_down_write(struct quiesce_percpu_rwsem *sem);
QUIESCE_API void quiesce_percpu_up_write(struct quiesce_percpu_rwsem *sem);
/* Aborts with a message unless a writer holds sem. */
QUIESCE_API void quiesce_percpu_rwsem_assert_held_write(struct quiesce_percpu_rwsem *sem);

QUIESCE_API void quiesce_percpu_down_read_slow(struct quiesce_percpu_rwsem *sem);
QUIESCE_API bool quiesce_percpu_down_read_trylock_slow(struct quiesce_percpu_rwsem *sem);
QUIESCE_API void quiesce_percpu_up_read_slow(struct quiesce_percpu_rwsem *sem);

/*
 * The fast path: adds one to this CPU's slot of read_locks (read_unlocks
 * when leaving) and returns true, or returns false having done nothing,
 * when a writer is around (or the thread lacks rseq).  With rseq readers
 * the gate check and the add are one restartable sequence, which the
 * writer aborts; otherwise they share an RCU read-side section, which the
 * writer's grace period waits for (src/locks/percpu_rwsem.c).
 */
static QUIESCE_ALWAYS_INLINE bool quiesce_percpu_rwsem_fast_add(struct quiesce_percpu_rwsem *sem,
								  bool leaving)
{
	long *count = leaving ? sem->read_unlocks : sem->read_locks;
	bool idle;

	if (QUIESCE_LIKELY(sem->rss.rseq_readers))
		return quiesce_percpu_count_add_if_open(count, &sem->rss.gp_state, 1);
	quiesce_rcu_read_lock();
	idle = quiesce_rcu_sync_is_idle(&sem->rss);
	/*
	 * Test-only: QUIESCE_TEST_PERCPU_READ_WINDOW(), defined before this
	 * header is included, runs between the look at the gate and the add,
	 * so that stress tests can stop readers there far more often than
	 * preemption does (a writer that closes the gate without waiting for
	 * readers in this window is what their busted controls are).
	 */
#ifdef QUIESCE_TEST_PERCPU_READ_WINDOW
	QUIESCE_TEST_PERCPU_READ_WINDOW();
#endif
	if (QUIESCE_LIKELY(idle))
		quiesce_percpu_count_add(count, 1);
	quiesce_rcu_read_unlock();
	return idle;
}

static QUIESCE_ALWAYS_INLINE void quiesce_percpu_down_read(struct quiesce_percpu_rwsem *sem)
{
	if (QUIESCE_UNLIKELY(!quiesce_percpu_rwsem_fast_add(sem, false)))
		quiesce_percpu_down_read_slow(sem);
}

static QUIESCE_ALWAYS_INLINE bool quiesce_percpu_down_read_trylock(struct quiesce_percpu_rwsem *sem)
{
	return QUIESCE_LIKELY(quiesce_percpu_rwsem_fast_add(sem, false)) ||
	       quiesce_percpu_down_read_trylock_slow(sem);
}

static QUIESCE_ALWAYS_INLINE void quiesce_percpu_up_read(struct quiesce_percpu_rwsem *sem)
{
	if (QUIESCE_UNLIKELY(!quiesce_percpu_rwsem_fast_add(sem, true)))
		quiesce_percpu_up_read_slow(sem);
}

#ifndef QUIESCE_NO_SHORT_NAMES
#define percpu_rw_semaphore quiesce_percpu_rwsem
#define percpu_init_rwsem quiesce_percpu_init_rwsem
#define percpu_free_rwsem quiesce_percpu_free_rwsem
#define percpu_down_read quiesce_percpu_down_read
#define percpu_down_read_trylock quiesce_percpu_down_read_trylock
#define percpu_up_read quiesce_percpu_up_read
#define percpu_down_write quiesce_percpu_down_write
#define percpu_up_write quiesce_percpu_up_write
#define percpu_rwsem_assert_held quiesce_percpu_rwsem_assert_held_write
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_PERCPU_RWSEM_H */
