/*
 * quiesce/rwsem.h - a reader-writer semaphore after the Linux kernel's.
 *
 *   static DECLARE_RWSEM(table_sem);
 *   down_read(&table_sem);  ... look up ...  up_read(&table_sem);
 *   down_write(&table_sem); ... update ...   up_write(&table_sem);
 *
 * The lock for data that is read often but written too often, or held too
 * long, for RCU.  Uncontended acquire and release cost one atomic operation
 * each; contended waiters queue in FIFO order and sleep on futexes.
 *
 * Behaviour
 * - A writer that finds the lock held spins for a bounded time (a few
 *   microseconds; never on a one-CPU machine) and takes the lock the moment
 *   it is free, even ahead of sleeping waiters: a running thread gets more
 *   done than one that must first be woken.  While spinning it only reads
 *   the count, and tries its compare-and-swap only when that can succeed.
 * - A reader that finds a writer holding the lock and nobody queued spins
 *   the same way for the writer to leave; a queued waiter spins briefly
 *   on its own futex word before it sleeps.
 * - A waiter that has waited longer than QUIESCE_RWSEM_HANDOFF_NS (4 ms)
 *   sets a hand-off bit: from then on the lock goes to it next, and nobody
 *   can steal it.  Neither writers nor readers starve.
 * - Readers at the head of the queue are woken together, as one batch.
 * - Readers arriving while anyone waits queue behind the waiters, so a
 *   stream of readers does not hold off a writer.
 *
 * Rules for callers
 * - The write lock belongs to the thread that took it: only that thread may
 *   call up_write() or downgrade_write().  Read holds may be released by
 *   any thread.
 * - No recursion: down_write() or down_read() while this thread holds the
 *   write lock aborts with a message.  Taking the read lock twice in one
 *   thread can deadlock when a writer queues in between (as in the kernel);
 *   that case is not detected.
 * - Releasing a lock that is not held, up_read() by the writer and
 *   up_write() on a read hold abort with a message naming the mistake.
 *   So do up_write() and downgrade_write() by the owner when the count
 *   does not show the write lock (the semaphore overwritten while held),
 *   rather than wrap the count into a lock that nobody can take again.
 *   These checks are always on: they cost no atomic operation.  Read
 *   holds are counted, not named: an up_read() without a hold while other
 *   threads hold read locks releases one of theirs, unnoticed.
 * - A holder that never releases (a thread that exited holding the lock,
 *   a down without its up) cannot be detected as such; its waiters say on
 *   stderr that they have waited the stall timeout (QUIESCE_STALL_TIMEOUT_MS,
 *   21 s by default), and what for, then again at doubling intervals.  The
 *   owner check knows the writer by its thread pointer, which a thread
 *   started after the writer exited may reuse: that thread's down_read()
 *   or down_write() then aborts, its message naming both causes.
 * - As with the kernel's rwsem, the memory of a semaphore may be reused
 *   only when no thread can still be inside a call on it: a releaser may
 *   touch the semaphore's wait queue after its release let another thread
 *   in.  Free it after joining its users, or after an RCU grace period.
 * - A semaphore must not be copied, and a fork() child may use one only if
 *   no other thread held or waited for it at the time of the fork.
 * - It serves the threads of one process: its waiters sleep on private
 *   futexes, so a semaphore in memory shared between processes does not
 *   wake a waiter of another process.
 *
 * The count word and the correctness argument are described in
 * src/locks/rwsem.c.
 */
#ifndef QUIESCE_RWSEM_H
#define QUIESCE_RWSEM_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The count: the number of readers holding (or trying to take) the lock
 * in the bits from QUIESCE_RWSEM_READER_SHIFT up, and three flags below.
 */
#define QUIESCE_RWSEM_WRITER_LOCKED (1UL << 0)	/* a writer holds the lock */
#define QUIESCE_RWSEM_WAITERS (1UL << 1)	/* the wait queue is not empty */
#define QUIESCE_RWSEM_HANDOFF (1UL << 2)	/* the first waiter is owed the lock */
#define QUIESCE_RWSEM_WRITER_WOKEN (1UL << 3)	/* the first waiter, a writer, was woken */
#define QUIESCE_RWSEM_READER_SHIFT 8
#define QUIESCE_RWSEM_READER_BIAS (1UL << QUIESCE_RWSEM_READER_SHIFT)
#define QUIESCE_RWSEM_READ_BLOCKED \
	(QUIESCE_RWSEM_WRITER_LOCKED | QUIESCE_RWSEM_WAITERS | QUIESCE_RWSEM_HANDOFF)

/* A waiter that has waited this long is handed the lock next. */
#define QUIESCE_RWSEM_HANDOFF_NS 4000000u

struct quiesce_rwsem_waiter;

struct quiesce_rwsem {
	unsigned long count;			/* atomic, see above */
	uintptr_t owner;			/* the writer's thread pointer, or 0 */
	int queue_lock;				/* futex lock for the wait queue */
	struct quiesce_rwsem_waiter *first;	/* the wait queue, under queue_lock */
	struct quiesce_rwsem_waiter *last;
};

#define QUIESCE_RWSEM_INITIALIZER { 0, 0, 0, NULL, NULL }
#define QUIESCE_DECLARE_RWSEM(name) struct quiesce_rwsem name = QUIESCE_RWSEM_INITIALIZER

/* Slow paths and misuse reports, in src/locks/rwsem.c. */
QUIESCE_API int quiesce_rwsem_read_slowpath(struct quiesce_rwsem *sem, unsigned long count,
					    uint64_t timeout_ns);
QUIESCE_API int quiesce_rwsem_write_slowpath(struct quiesce_rwsem *sem, uint64_t timeout_ns);
QUIESCE_API QUIESCE_COLD void quiesce_rwsem_up_read_slowpath(struct quiesce_rwsem *sem,
							     unsigned long old);
QUIESCE_API QUIESCE_COLD void quiesce_rwsem_wake(struct quiesce_rwsem *sem);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_rwsem_bad_up_write(struct quiesce_rwsem *sem);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_rwsem_write_bit_lost(const char *op,
									   unsigned long old);
QUIESCE_API void quiesce_downgrade_write(struct quiesce_rwsem *sem);

/* Passed as timeout_ns to the slow paths: wait as long as it takes. */
#define QUIESCE_RWSEM_NO_TIMEOUT UINT64_MAX

#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define QUIESCE_RWSEM_HAVE_THREAD_POINTER 1
#endif
#endif

/*
 * Names the calling thread for the owner field: the thread pointer, unique
 * among live threads and one instruction to read where the compiler knows it.
 */
static inline uintptr_t quiesce_rwsem_thread_id(void)
{
#ifdef QUIESCE_RWSEM_HAVE_THREAD_POINTER
	return (uintptr_t)__builtin_thread_pointer();
#else
	return (uintptr_t)pthread_self();
#endif
}

static inline void quiesce_init_rwsem(struct quiesce_rwsem *sem)
{
	*sem = (struct quiesce_rwsem)QUIESCE_RWSEM_INITIALIZER;
}

static inline void quiesce_down_read(struct quiesce_rwsem *sem)
{
	/*
	 * Acquire: pairs with the release in up_write() and downgrade_write(),
	 * so the section sees what the last writer stored.  The bias is added
	 * unconditionally; the slow path keeps it or takes it back.
	 */
	unsigned long count = __atomic_add_fetch(&sem->count, QUIESCE_RWSEM_READER_BIAS,
						 __ATOMIC_ACQUIRE);

	if (QUIESCE_UNLIKELY(count & QUIESCE_RWSEM_READ_BLOCKED))
		quiesce_rwsem_read_slowpath(sem, count, QUIESCE_RWSEM_NO_TIMEOUT);
}

/* Returns 0 with the read lock held, or -ETIMEDOUT after timeout_ns. */
__attribute__((__warn_unused_result__))
static inline int quiesce_down_read_timeout(struct quiesce_rwsem *sem, uint64_t timeout_ns)
{
	/* Acquire: as in down_read(). */
	unsigned long count = __atomic_add_fetch(&sem->count, QUIESCE_RWSEM_READER_BIAS,
						 __ATOMIC_ACQUIRE);

	if (QUIESCE_LIKELY(!(count & QUIESCE_RWSEM_READ_BLOCKED)))
		return 0;
	return quiesce_rwsem_read_slowpath(sem, count, timeout_ns);
}

/* Returns true with the read lock held; never waits, never queues. */
static inline bool quiesce_down_read_trylock(struct quiesce_rwsem *sem)
{
	unsigned long count = QUIESCE_LOAD(&sem->count);

	while (!(count & QUIESCE_RWSEM_READ_BLOCKED)) {
		/* Acquire: as in down_read(). */
		if (__atomic_compare_exchange_n(&sem->count, &count,
						count + QUIESCE_RWSEM_READER_BIAS, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static inline void quiesce_up_read(struct quiesce_rwsem *sem)
{
	/*
	 * Release: the section's loads complete before a writer can see the
	 * reader count drop; pairs with the acquire of the writer's
	 * compare-and-swap.
	 */
	unsigned long old = __atomic_fetch_sub(&sem->count, QUIESCE_RWSEM_READER_BIAS,
					       __ATOMIC_RELEASE);

	/* Waiters to wake, or a release without a read hold to report. */
	if (QUIESCE_UNLIKELY((old & (QUIESCE_RWSEM_WRITER_LOCKED | QUIESCE_RWSEM_WAITERS)) ||
			     old < QUIESCE_RWSEM_READER_BIAS))
		quiesce_rwsem_up_read_slowpath(sem, old);
}

static inline void quiesce_down_write(struct quiesce_rwsem *sem)
{
	unsigned long unlocked = 0;

	/* Acquire: pairs with the release in up_read() and up_write(). */
	if (QUIESCE_LIKELY(__atomic_compare_exchange_n(&sem->count, &unlocked,
						       QUIESCE_RWSEM_WRITER_LOCKED, false,
						       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		QUIESCE_STORE(&sem->owner, quiesce_rwsem_thread_id());
	else
		quiesce_rwsem_write_slowpath(sem, QUIESCE_RWSEM_NO_TIMEOUT);
}

/* Returns 0 with the write lock held, or -ETIMEDOUT after timeout_ns. */
__attribute__((__warn_unused_result__))
static inline int quiesce_down_write_timeout(struct quiesce_rwsem *sem, uint64_t timeout_ns)
{
	unsigned long unlocked = 0;

	/* Acquire: as in down_write(). */
	if (QUIESCE_LIKELY(__atomic_compare_exchange_n(&sem->count, &unlocked,
						       QUIESCE_RWSEM_WRITER_LOCKED, false,
						       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))) {
		QUIESCE_STORE(&sem->owner, quiesce_rwsem_thread_id());
		return 0;
	}
	return quiesce_rwsem_write_slowpath(sem, timeout_ns);
}

/*
 * Returns true with the write lock held; never waits, never queues.  It
 * may take a free lock ahead of sleeping waiters, as a spinning writer
 * does, unless one of them is owed it.
 */
static inline bool quiesce_down_write_trylock(struct quiesce_rwsem *sem)
{
	unsigned long count = QUIESCE_LOAD(&sem->count);

	while (!(count & ~(QUIESCE_RWSEM_WAITERS | QUIESCE_RWSEM_WRITER_WOKEN))) {
		/* Acquire: as in down_write(). */
		if (__atomic_compare_exchange_n(&sem->count, &count,
						count | QUIESCE_RWSEM_WRITER_LOCKED, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			QUIESCE_STORE(&sem->owner, quiesce_rwsem_thread_id());
			return true;
		}
	}
	return false;
}

static inline void quiesce_up_write(struct quiesce_rwsem *sem)
{
	unsigned long old;

	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&sem->owner) != quiesce_rwsem_thread_id()))
		quiesce_rwsem_bad_up_write(sem);
	/* Cleared before the release below, so no later writer's value is lost. */
	QUIESCE_STORE(&sem->owner, (uintptr_t)0);
	/*
	 * Release: the section's stores are visible to whoever takes the lock
	 * next; pairs with the acquire in down_read() and down_write().
	 */
	old = __atomic_fetch_sub(&sem->count, QUIESCE_RWSEM_WRITER_LOCKED, __ATOMIC_RELEASE);
	/*
	 * The owner check passed, yet the count may not show the write lock:
	 * the subtraction has then borrowed from the readers' bits or wrapped
	 * past zero, and later callers would wait forever on a lock that
	 * nobody holds.  Stop here instead.
	 */
	if (QUIESCE_UNLIKELY(!(old & QUIESCE_RWSEM_WRITER_LOCKED)))
		quiesce_rwsem_write_bit_lost("up_write()", old);
	/* A writer already woken will see this release when it tries the lock. */
	if (QUIESCE_UNLIKELY((old & (QUIESCE_RWSEM_WAITERS | QUIESCE_RWSEM_WRITER_WOKEN)) ==
			     QUIESCE_RWSEM_WAITERS))
		quiesce_rwsem_wake(sem);
}

/* Held by anyone, for assertions; a reader backing off may show briefly. */
static inline bool quiesce_rwsem_is_locked(struct quiesce_rwsem *sem)
{
	return (QUIESCE_LOAD(&sem->count) &
		(QUIESCE_RWSEM_WRITER_LOCKED | ~(QUIESCE_RWSEM_READER_BIAS - 1))) != 0;
}

/* Someone waits in the queue. */
static inline bool quiesce_rwsem_is_contended(struct quiesce_rwsem *sem)
{
	return (QUIESCE_LOAD(&sem->count) & QUIESCE_RWSEM_WAITERS) != 0;
}

/*
 * Tuning for measurement: on by default, a writer reads the count and tries
 * its compare-and-swap only when it can succeed.  Off, it tries blindly, as
 * the kernel did before 2013; quiesce-bench switches it to show what the
 * check buys.  Process-wide; read only in the writer's slow path.
 */
QUIESCE_API void quiesce_rwsem_set_writer_precheck(bool on);

#ifndef QUIESCE_NO_SHORT_NAMES
#define rw_semaphore quiesce_rwsem
#define RWSEM_INITIALIZER QUIESCE_RWSEM_INITIALIZER
#define DECLARE_RWSEM QUIESCE_DECLARE_RWSEM
#define init_rwsem quiesce_init_rwsem
#define down_read quiesce_down_read
#define down_read_timeout quiesce_down_read_timeout
#define down_read_trylock quiesce_down_read_trylock
#define up_read quiesce_up_read
#define down_write quiesce_down_write
#define down_write_timeout quiesce_down_write_timeout
#define down_write_trylock quiesce_down_write_trylock
#define up_write quiesce_up_write
#define downgrade_write quiesce_downgrade_write
#define rwsem_is_locked quiesce_rwsem_is_locked
#define rwsem_is_contended quiesce_rwsem_is_contended
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RWSEM_H */
