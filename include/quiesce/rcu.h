/*
 * quiesce/rcu.h - read-copy update for user space.
 *
 * Readers:   rcu_read_lock(); p = rcu_dereference(gp); ... rcu_read_unlock();
 * Updaters:  rcu_assign_pointer(gp, new); synchronize_rcu(); free(old);
 *
 * Rules for callers
 * - A read-side critical section may nest (65535 deep at most: one level
 *   more aborts with a message), may not block for long (a stalled reader
 *   delays every grace period and is reported after the stall timeout),
 *   and may not call synchronize_rcu() or its expedited form: that would
 *   wait for itself, so it aborts with a message instead.
 * - Threads register on their first rcu_read_lock(); rcu_register_thread()
 *   does it ahead of time.  A thread that exits while registered is
 *   unregistered by a thread-exit destructor; one that exits inside a
 *   critical section is reported on stderr and unregistered.
 * - Sections may be taken in signal handlers of a thread registered
 *   already, this domain's and the mb domain's (rcu_mb.h) alike.
 *   Registering takes a lock, which the interrupted thread may hold: a
 *   handler must not be the first to enter a section on a thread that is
 *   not registered.
 * - After fork() the child's registry holds only the forking thread.
 * - No call of the library is a cancellation point: a thread cancelled
 *   (pthread_cancel()) while it waits in one (a barrier, a throttled
 *   call_rcu(), a stall report and the stall handler) finishes the call,
 *   and the cancellation acts at its next cancellation point after it.
 *
 * Grace periods
 * - synchronize_rcu() waits for a normal grace period: one heavy barrier
 *   (membarrier(PRIVATE_EXPEDITED), which interrupts only the CPUs that
 *   run a thread of this process, the barrier liburcu's default flavor
 *   uses), a phase flip and a wait for the readers that saw the old phase,
 *   during which it sleeps once a few microseconds of polling have not
 *   sufficed, leaving the CPU to the readers.  A microsecond or so when the
 *   readers' sections are short, on any kernel; when no thread but the
 *   caller is registered, no barrier at all (tens of nanoseconds).
 * - synchronize_rcu_expedited() issues the same barrier and polls for the
 *   readers ten times longer before it sleeps: for callers that would
 *   rather spend CPU than wait for a wake-up.
 * - Concurrent callers share grace periods: every caller that arrives while
 *   one runs is released together by the next one.  call_rcu() batches
 *   further: its thread lets callbacks gather for a millisecond before a
 *   normal grace period, so it runs at most about a thousand a second.
 * - QUIESCE_RCU_NORMAL=1 (or rcu_set_normal(true)) is for those who want no
 *   interrupt at all, as real-time users do: every grace period, expedited
 *   or not, then gets its barrier from membarrier(GLOBAL), which rides on
 *   the kernel's own grace period.  That takes milliseconds on most
 *   kernels (those with /sys/kernel/rcu_expedited = 0, the default), and
 *   batching updates under one grace period, or call_rcu(), matters then.
 *   QUIESCE_RCU_EXPEDITED=1 (rcu_set_expedited(true)) makes every request
 *   expedited.
 *
 * The reader fast path is inline: a thread-local load and store, a compiler
 * barrier and, on the outermost unlock, a load of one read-mostly shared
 * word.  The ordering argument is in src/rcu/gp_engine.c.
 */
#ifndef QUIESCE_RCU_H
#define QUIESCE_RCU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A reader's counter: 0 outside any critical section; inside, the phase of
 * the grace-period counter at the outermost rcu_read_lock() in the high
 * bits, and the nesting depth in the low QUIESCE_RCU_NEST_BITS bits.  A
 * thread that is not registered holds QUIESCE_RCU_UNREGISTERED (depth 0,
 * never a phase), and one that waits for a grace period another value of
 * depth 0 (src/rcu/registry.h), so that one test of the counter sends
 * rcu_read_lock() to its slow path in either case.
 */
#define QUIESCE_RCU_NEST_BITS 16
#define QUIESCE_RCU_NEST_MASK ((1UL << QUIESCE_RCU_NEST_BITS) - 1)
#define QUIESCE_RCU_PHASE_ONE (1UL << QUIESCE_RCU_NEST_BITS)
#define QUIESCE_RCU_UNREGISTERED (~0UL & ~QUIESCE_RCU_NEST_MASK)

struct quiesce_rcu_reader {
	unsigned long ctr;	/* read by the grace-period engine */
} QUIESCE_CACHELINE_ALIGNED;

/* Read-mostly: written once per grace period, read by every reader. */
struct quiesce_rcu_gp_word {
	unsigned long ctr;	/* current phase, nesting depth 1 */
	int writer_sleeping;	/* a grace period sleeps, waiting for readers */
} QUIESCE_CACHELINE_ALIGNED;

QUIESCE_API extern __thread struct quiesce_rcu_reader quiesce_rcu_reader_self
	__attribute__((__tls_model__("initial-exec")));
QUIESCE_API extern struct quiesce_rcu_gp_word quiesce_rcu_gp_word;

QUIESCE_API void quiesce_rcu_register_thread(void);
QUIESCE_API void quiesce_rcu_unregister_thread(void);
QUIESCE_API QUIESCE_COLD void quiesce_rcu_read_lock_first_use(void);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_rcu_unbalanced_unlock(void);
QUIESCE_API QUIESCE_COLD void quiesce_rcu_wake_grace_period(void);

static QUIESCE_ALWAYS_INLINE void quiesce_rcu_read_lock(void)
{
	struct quiesce_rcu_reader *self = &quiesce_rcu_reader_self;
	unsigned long ctr = self->ctr;

	/*
	 * Acquire: pairs with the release store of the grace period's phase
	 * flip, so that a section entered with the new phase sees what the
	 * updater did before the flip (a grace period that sees every reader
	 * past its flip needs no barrier; src/rcu/rcu_domain.c).  A plain
	 * load on x86-64.
	 */
	if (QUIESCE_LIKELY(ctr == 0))
		QUIESCE_STORE(&self->ctr, QUIESCE_LOAD_ACQUIRE(&quiesce_rcu_gp_word.ctr));
	else if (QUIESCE_LIKELY(((ctr + 1) & QUIESCE_RCU_NEST_MASK) > 1))
		QUIESCE_STORE(&self->ctr, ctr + 1);	/* nested: depth 1 to NEST_MASK - 1 */
	else
		quiesce_rcu_read_lock_first_use();	/* registers, enters during a wait, or nests too deep */
	/*
	 * Keeps the section's loads after the counter store in program order.
	 * The CPU may still reorder them (store-load); the grace period's
	 * membarrier() pairs with this point and acts as the missing fence.
	 */
	quiesce_compiler_barrier();
}

static QUIESCE_ALWAYS_INLINE void quiesce_rcu_read_unlock(void)
{
	struct quiesce_rcu_reader *self = &quiesce_rcu_reader_self;
	unsigned long ctr = self->ctr;

	if (QUIESCE_UNLIKELY(!(ctr & QUIESCE_RCU_NEST_MASK)))
		quiesce_rcu_unbalanced_unlock();
	if (QUIESCE_LIKELY((ctr & QUIESCE_RCU_NEST_MASK) == 1)) {
		/*
		 * Release: the section's loads complete before the grace
		 * period can see the reader leave.  Pairs with the acquire
		 * load in the grace period's reader scan, so no second
		 * membarrier is needed after the scan.
		 */
		QUIESCE_STORE_RELEASE(&self->ctr, 0UL);
		/*
		 * A sleeping grace period flipped the phase and set
		 * writer_sleeping, then issued its heavy barrier, then
		 * rescanned.  If our store above precedes our barrier point,
		 * the rescan sees it; if not, these loads follow that point
		 * and see both of its stores (the barrier stands in for the
		 * fence we do not execute; src/rcu/gp_engine.c).  Only a
		 * reader that entered before the flip holds the grace period
		 * up, so only such a reader wakes it: wakes from the others
		 * would send it back to its barrier and rescan for nothing,
		 * over and over while the reader it waits for is preempted.
		 */
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_rcu_gp_word.writer_sleeping)) &&
		    ((ctr ^ QUIESCE_LOAD(&quiesce_rcu_gp_word.ctr)) & ~QUIESCE_RCU_NEST_MASK))
			quiesce_rcu_wake_grace_period();
	} else {
		QUIESCE_STORE(&self->ctr, ctr - 1);
	}
}

static inline bool quiesce_rcu_read_ongoing(void)
{
	return (quiesce_rcu_reader_self.ctr & QUIESCE_RCU_NEST_MASK) != 0;
}

/*
 * Publishing and reading pointers.  rcu_dereference() relies on the address
 * dependency from the pointer load to the loads through it, as the kernel's
 * READ_ONCE() does; under ThreadSanitizer, which cannot see dependencies,
 * it is an acquire load.
 */
#ifdef QUIESCE_TSAN
#define QUIESCE_DEREFERENCE_ORDER __ATOMIC_ACQUIRE
#else
#define QUIESCE_DEREFERENCE_ORDER __ATOMIC_RELAXED
#endif
/* Statement expressions: a load whose value is dropped does not warn. */
#define quiesce_rcu_dereference(p)                                             \
	__extension__({ __atomic_load_n(&(p), QUIESCE_DEREFERENCE_ORDER); })
/* Release: the new object's initialization is visible before the pointer. */
#define quiesce_rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define quiesce_rcu_access_pointer(p) __extension__({ __atomic_load_n(&(p), __ATOMIC_RELAXED); })
/*
 * Returns the previous pointer.  A full barrier both ways, as liburcu's
 * (its uatomic_xchg()) and the kernel's: the fence after the exchange
 * orders the plain accesses after it on arm64 too.
 */
#define quiesce_rcu_xchg_pointer(pp, v)                                        \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(pp)) quiesce_previous_ =                \
			__atomic_exchange_n((pp), (v), __ATOMIC_SEQ_CST);       \
		quiesce_fence_after_rmw();                                     \
		quiesce_previous_;                                              \
	})
/*
 * Returns the pointer found; the store happened when that equals old.  A
 * full barrier both ways, whether it stored or not, as the exchange.
 */
#define quiesce_rcu_cmpxchg_pointer(pp, old, v)                                \
	__extension__({                                                        \
		QUIESCE_UNQUAL_TYPEOF(*(pp)) quiesce_expected_ = (old);         \
		__atomic_compare_exchange_n((pp), &quiesce_expected_, (v), 0,   \
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		quiesce_fence_after_rmw();                                     \
		quiesce_expected_;                                              \
	})
#define QUIESCE_RCU_INITIALIZER(v) (v)

/* Grace periods. */
QUIESCE_API void quiesce_synchronize_rcu(void);
QUIESCE_API void quiesce_synchronize_rcu_expedited(void);

/*
 * Polled grace periods.  A cookie names a grace period: poll_state returns
 * true once a full grace period has elapsed since the cookie was taken.
 * start_poll also asks the callback thread (quiesce-cb) to run one, so the
 * cookie completes without anyone blocking.  A callback that waits for a
 * cookie by polling it would wait forever (the thread that drives the
 * grace period is the one running the callback); cond_synchronize_rcu()
 * and synchronize_rcu() run the grace period themselves and may be used.
 */
QUIESCE_API unsigned long quiesce_get_state_synchronize_rcu(void);
QUIESCE_API unsigned long quiesce_start_poll_synchronize_rcu(void);
QUIESCE_API bool quiesce_poll_state_synchronize_rcu(unsigned long cookie);
QUIESCE_API void quiesce_cond_synchronize_rcu(unsigned long cookie);

/*
 * Callbacks: call_rcu(head, func) returns at once; func(head) runs on the
 * background thread "quiesce-cb" after a full grace period has elapsed since
 * the call.  Embed a struct rcu_head in the object and find the object again
 * with container_of() (quiesce_container_of()).  The thread starts at the
 * first call_rcu(), with every signal blocked and on the CPUs the process
 * had when the library was loaded, not on those of the thread that started
 * it (a worker pinned to one CPU does not pin it too).  Callbacks that need
 * threads of their own (one per CPU, say) go to a callback worker:
 * <quiesce/call_rcu_worker.h>.
 *
 * Rules for callers
 * - call_rcu() may be called from any thread, inside a read-side critical
 *   section, and from a callback.  It takes no lock.  It may sleep (at most
 *   about 20 ms a call) when more than 100000 callbacks are pending, so that
 *   a flood cannot exhaust memory, but never inside a read-side critical
 *   section and never on the callback thread.
 * - Callbacks run one at a time, outside any read-side critical section, in
 *   the order each thread queued them.  A callback may call call_rcu(),
 *   synchronize_rcu() and rcu_read_lock(); it must return outside any
 *   critical section (checked) and must not call rcu_barrier() (it would
 *   wait for itself: checked) or fork() (the child would run on a copy of
 *   the callback thread: checked, the child dies with a message when the
 *   callback returns in it).
 * - A head may be queued again once its callback has started (a callback
 *   may queue its own head), never before.  Queued twice in a row, before
 *   anything else is queued behind it, it aborts with a message in every
 *   build; with QUIESCE_DEBUG_CALLBACKS=1 in the environment at load, any
 *   head queued again early aborts, naming the callback queued first, at
 *   the price of a lock on every call.  The same holds for every domain's
 *   calls (call_srcu(), workers' callbacks, ...).
 * - rcu_barrier() returns after every callback queued before it has run,
 *   including callbacks of threads that have exited since and those queued
 *   on the flavor's workers.  Callbacks that those callbacks queue are not
 *   waited for.
 * - free_rcu(ptr, field) frees ptr with free() after a grace period; field is
 *   its struct rcu_head member, at most 4095 bytes into the object.
 * - quiesce_call_rcu_shutdown() waits for the callbacks queued on the
 *   callback thread, as rcu_barrier() does for them, and stops the thread; a
 *   later call_rcu() starts it again.  Workers' callbacks are not waited for
 *   (quiesce_call_rcu_worker_destroy() runs them, call_rcu_worker.h).  At
 *   exit(), after the atexit handlers the program registered from main() on
 *   (and, with the library a shared object, after the destructors), the
 *   library waits (at most one second for every callback thread
 *   together, workers included, and not at all when exit() is called inside
 *   a critical section or from a callback) for the pending callbacks to run,
 *   then stops the threads so that no callback runs during the rest of exit;
 *   one whose callbacks still wait for a grace period then (a reader holds
 *   it up) is left to end with the process, and one line on stderr counts
 *   them.  What is queued after that (by an atexit handler registered
 *   before the library's constructor ran, or, linked statically, by a
 *   destructor) never runs: a barrier that would wait for it returns at
 *   once, with a message.  The library's threads (callback threads, the defer
 *   flusher) are threads of the process, as liburcu's are: a program whose
 *   main() leaves by pthread_exit() lives on after its own last thread unless
 *   one of them calls exit().
 * - After fork() the child drops the parent's pending callbacks (they run in
 *   the parent) and starts its own callback thread when it first needs one.
 *
 * Backpressure: past 10000 pending callbacks the callback thread expedites
 * its grace periods; past 100000, call_rcu() callers wait (as above) until
 * the callbacks queued before them have run.
 */
#define quiesce_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct quiesce_rcu_head {
	struct quiesce_rcu_head *next;		/* owned by the library */
	void (*func)(struct quiesce_rcu_head *head);
};

QUIESCE_API void quiesce_call_rcu(struct quiesce_rcu_head *head,
				  void (*func)(struct quiesce_rcu_head *head));
QUIESCE_API void quiesce_rcu_barrier(void);
QUIESCE_API void quiesce_call_rcu_shutdown(void);

/*
 * free_rcu() hands call_rcu() the rcu_head's offset in the object, plus one,
 * in place of a function, as the kernel's kfree_rcu(): a "function" below
 * QUIESCE_FREE_RCU_OFFSET_LIMIT is an offset, and the object is freed.
 */
#define QUIESCE_FREE_RCU_OFFSET_LIMIT 4096
#define quiesce_free_rcu(ptr, field)                                            \
	({                                                                      \
		__typeof__(ptr) quiesce_free_ptr_ = (ptr);                      \
		_Static_assert(offsetof(__typeof__(*quiesce_free_ptr_), field) <  \
				       QUIESCE_FREE_RCU_OFFSET_LIMIT - 1,        \
			       "free_rcu: the rcu_head lies too far into the object"); \
		if (quiesce_free_ptr_)                                          \
			quiesce_call_rcu(&quiesce_free_ptr_->field,             \
					 (void (*)(struct quiesce_rcu_head *))(uintptr_t) \
					 (offsetof(__typeof__(*quiesce_free_ptr_), field) + 1)); \
	})

/* Global knobs, as the kernel's rcu_normal and rcu_expedited. */
QUIESCE_API void quiesce_rcu_set_normal(bool on);
QUIESCE_API void quiesce_rcu_set_expedited(bool on);

/*
 * The heavy barrier that orders a grace period against readers, chosen once
 * at start-up, the first that works of: membarrier(); a change of page
 * protection whose TLB shootdown interrupts every CPU running one of this
 * process's threads (x86 only: src/rcu/gp_barrier_mprotect.c says why); a
 * signal handshake with each registered thread.  QUIESCE_RCU_BACKEND=
 * membarrier, mprotect or signal forces one (for tests; one that does not
 * work here is reported and the automatic choice made).
 */
enum quiesce_rcu_backend {
	QUIESCE_RCU_BACKEND_MEMBARRIER,	/* the kernel's membarrier() */
	QUIESCE_RCU_BACKEND_SIGNAL,	/* a signal handshake with each reader */
	QUIESCE_RCU_BACKEND_MPROTECT,	/* a TLB shootdown's interrupts (x86) */
};
QUIESCE_API enum quiesce_rcu_backend quiesce_rcu_backend(void);
QUIESCE_API const char *quiesce_rcu_backend_name(void);

/*
 * Counters since start-up; a child of fork() inherits them.  QUIESCE_STATS=1
 * prints them on stderr at exit.
 */
struct quiesce_rcu_stats {
	uint64_t gp_normal;		/* normal grace periods run */
	uint64_t gp_expedited;		/* expedited grace periods run */
	uint64_t gp_skipped;		/* of those, with no other thread registered */
	uint64_t sync_calls;		/* synchronize_rcu*() calls */
	uint64_t rseq_barriers;		/* percpu-rwsem gates closed by aborting rseq */
	uint64_t stall_warnings;	/* stall warnings issued */
	uint64_t registered_threads;	/* threads registered now */
	/* Callbacks; a child of fork() starts these from zero. */
	uint64_t cb_queued;		/* call_rcu() and free_rcu() calls */
	uint64_t cb_invoked;		/* callbacks run */
	uint64_t cb_pending;		/* queued and not yet run */
	uint64_t cb_batches;		/* batches run, each behind one grace period */
	uint64_t cb_expedited;		/* of those, waits expedited for backpressure */
	uint64_t cb_throttled;		/* call_rcu() calls that waited for the backlog */
};
QUIESCE_API void quiesce_rcu_get_stats(struct quiesce_rcu_stats *out);

/*
 * Stall warnings.  A grace period that has waited longer than the timeout
 * (default 21000 ms, QUIESCE_STALL_TIMEOUT_MS, or this call) reports what
 * it waits for, then again at doubling intervals: a reader that holds a
 * critical section, a QSBR thread that stays online without announcing a
 * quiescent state, or, in the barrier phase, a thread that cannot answer
 * the signal handshake (it blocks the signal and keeps running) or a
 * kernel barrier call that took that long (reported once it returns: the
 * kernel's own grace period bounds it).  A timeout of 0 ms restores the
 * default; one longer than about 146 years (UINT64_MAX among them) is
 * never reached.  The handler replaces the printer; NULL restores it.  A
 * percpu_rw_semaphore writer that waits that long for readers is reported
 * on the same schedule (percpu_rwsem.h), on stderr, not to the handler,
 * and so is a queue or stack consumer that waits that long for a
 * producer's link (link_wait.h), once.  quiesce_rcu_stall_timeout_ms()
 * says the timeout in effect.
 */
enum quiesce_rcu_stall_phase {
	QUIESCE_RCU_STALL_READER,	/* a reader is inside a critical section */
	QUIESCE_RCU_STALL_BARRIER,	/* the grace period's heavy barrier */
	/* An online QSBR thread has announced no quiescent state (rcu_qsbr.h). */
	QUIESCE_RCU_STALL_QSBR_ONLINE,
};
struct quiesce_rcu_stall {
	int tid;			/* the thread waited for; 0: none (see detail) */
	const char *thread_name;	/* its name, as pthread_setname_np set it */
	uint64_t waited_ms;		/* how long the grace period has waited */
	enum quiesce_rcu_stall_phase phase;
	/*
	 * A barrier: why, and what to do.  Readers that are no thread's (an
	 * SRCU domain's count): which domain, and how many.  Else NULL.
	 */
	const char *detail;
	/*
	 * The kind of domain whose grace period waits: "RCU", "RCU-mb",
	 * "QSBR" or "SRCU".  NULL in the barrier phase, which serves them all.
	 */
	const char *domain;
};
typedef void (*quiesce_rcu_stall_handler_fn)(const struct quiesce_rcu_stall *stall);
QUIESCE_API void quiesce_rcu_set_stall_timeout_ms(uint64_t ms);
QUIESCE_API uint64_t quiesce_rcu_stall_timeout_ms(void);
QUIESCE_API void quiesce_rcu_set_stall_handler(quiesce_rcu_stall_handler_fn fn);

#ifndef QUIESCE_NO_SHORT_NAMES
#define rcu_read_lock quiesce_rcu_read_lock
#define rcu_read_unlock quiesce_rcu_read_unlock
#define rcu_read_ongoing quiesce_rcu_read_ongoing
#define rcu_register_thread quiesce_rcu_register_thread
#define rcu_unregister_thread quiesce_rcu_unregister_thread
#define rcu_dereference quiesce_rcu_dereference
#define rcu_assign_pointer quiesce_rcu_assign_pointer
#define rcu_access_pointer quiesce_rcu_access_pointer
#define rcu_xchg_pointer quiesce_rcu_xchg_pointer
#define rcu_cmpxchg_pointer quiesce_rcu_cmpxchg_pointer
#define RCU_INITIALIZER QUIESCE_RCU_INITIALIZER
#define synchronize_rcu quiesce_synchronize_rcu
#define synchronize_rcu_expedited quiesce_synchronize_rcu_expedited
#define get_state_synchronize_rcu quiesce_get_state_synchronize_rcu
#define start_poll_synchronize_rcu quiesce_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu quiesce_poll_state_synchronize_rcu
#define cond_synchronize_rcu quiesce_cond_synchronize_rcu
#define rcu_set_normal quiesce_rcu_set_normal
#define rcu_set_expedited quiesce_rcu_set_expedited
#define rcu_head quiesce_rcu_head
#define call_rcu quiesce_call_rcu
#define rcu_barrier quiesce_rcu_barrier
#define free_rcu quiesce_free_rcu
#ifndef container_of
#define container_of quiesce_container_of
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCU_H */
