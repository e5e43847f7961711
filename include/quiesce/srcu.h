/*
 * quiesce/srcu.h - sleepable RCU: independent grace-period domains whose
 * readers may block (the Linux kernel's SRCU).
 *
 * Readers:   idx = srcu_read_lock(&ss); p = srcu_dereference(gp, &ss);
 *            ... (may sleep) ...; srcu_read_unlock(&ss, idx);
 * Updaters:  rcu_assign_pointer(gp, new); synchronize_srcu(&ss); free(old);
 *
 * A grace period of a domain waits only for that domain's readers: a reader
 * that sleeps on I/O inside one domain holds up no other domain and not the
 * default RCU one, and the default RCU's readers hold up no SRCU domain.
 *
 * Rules for callers
 * - A domain is a struct srcu_struct: DEFINE_SRCU(name) or
 *   DEFINE_STATIC_SRCU(name) define one ready to use (it sets itself up on
 *   first use); otherwise init_srcu_struct() it first.  cleanup_srcu_struct()
 *   frees what it holds; it aborts with a message while a reader is inside,
 *   a callback is pending, a grace period runs or another thread is inside
 *   synchronize_srcu() or srcu_barrier() on the domain, and from one of
 *   the domain's callbacks.  Any use afterwards aborts with a message
 *   (until init_srcu_struct() again).
 * - srcu_read_lock() returns the index (0 or 1) to hand to the matching
 *   srcu_read_unlock().  Sections nest, may block for as long as they like,
 *   and may overlap sections of other domains in any order.  Any thread
 *   may unlock what another locked, given the index by any hand-off that
 *   orders the lock before the unlock (a mutex, a queue, a join); such a
 *   section belongs to no thread.
 * - srcu_read_unlock() with an index that is not 0 or 1, or on a
 *   DEFINE_SRCU domain no srcu_read_lock() has entered, aborts.  Unlocks
 *   that outnumber locks on an index abort in the next grace period that
 *   sees them, or in cleanup_srcu_struct().
 * - synchronize_srcu(), its expedited form and srcu_barrier() must not be
 *   called inside a section of the same domain (they would wait for
 *   themselves); inside sections of other domains they may (and
 *   synchronize_srcu() inside default RCU's sections too).  What is
 *   checked: each thread counts the sections it opens and closes on each
 *   domain (below); synchronize_srcu(&ss) (or the others) aborts with a
 *   message when the calling thread has opened more sections of ss than
 *   it closed, unless ss shows a hand-off: a thread that closed more
 *   sections of ss than it opened, or closed one it had not opened on a
 *   domain counted per-CPU for it (below).  Then ss is not checked any
 *   more.  A thread that closes a section another thread opened while it
 *   has one of its own open on the same domain and index hides the
 *   hand-off until its own section ends, and meanwhile the opener's
 *   synchronize_srcu(&ss) would abort wrongly.  Avoid that one pattern, or
 *   call synchronize_srcu() on such a domain only from threads that hold
 *   no section of it.  Of the sections a thread counts per-CPU, the first
 *   four it opened and has not closed are checked.
 * - A thread's first srcu_read_lock() or srcu_read_unlock() registers it as
 *   rcu_read_lock() does (rcu.h), so that every heavy-barrier backend
 *   reaches it (the signal one reaches registered threads only).  Sections
 *   may be taken in signal handlers of a thread registered already, on a
 *   domain set up already: one init_srcu_struct() set up, or a DEFINE_SRCU
 *   one used once outside a handler (registering takes a lock, and a
 *   DEFINE_SRCU domain's first use allocates and takes one; nothing else
 *   on the read side does).
 * - A thread that exits inside a section leaves it open: the section is not
 *   the thread's.  Grace periods wait for it, and after the stall timeout
 *   report "SRCU domain <name>: N readers inside" (tid 0, thread_name the
 *   domain's name, detail that line); an srcu_read_unlock() from any
 *   thread, given the index, ends it.
 * - fork(): the child may use a domain it inherited.  Sections open in the
 *   parent at fork() stay open in the child: those of the forking thread
 *   the child may close; those of other threads never close there, and the
 *   child's grace periods on that domain wait for them (and report stalls).
 *
 * Grace periods
 * - synchronize_srcu() waits until every section of the domain that began
 *   before the call has ended: one heavy barrier (rcu.h), then the wait for
 *   the readers of each of the domain's two indexes, the one readers are
 *   not taking first, the other after a flip; it polls for a while and then
 *   sleeps until the last reader leaves.  When no thread but the caller is
 *   registered and no section is open, none of that (tens of nanoseconds).
 *   Concurrent callers share grace periods.  synchronize_srcu_expedited()
 *   polls longer before it sleeps.  rcu_set_normal() and
 *   rcu_set_expedited() apply to every domain.
 * - call_srcu(&ss, head, func) runs func(head) on the domain's own callback
 *   thread ("quiesce-srcu", started by the domain's first call_srcu() or
 *   start_poll, stopped by cleanup_srcu_struct()) after a grace period of
 *   the domain; srcu_barrier(&ss) waits for every callback queued before
 *   it.  Callbacks follow call_rcu()'s rules (rcu.h), with srcu_barrier()
 *   for rcu_barrier().
 * - Polled: get_state_synchronize_srcu() names the end of the next full
 *   grace period; start_poll_synchronize_srcu() also has the domain's
 *   callback thread run it; poll_state_synchronize_srcu() says whether it
 *   has passed.
 *
 * Cost: a reader is one load of the domain's index and one add to the
 * calling thread's own count of the domain, in and out: no atomic
 * instruction and no fence on x86-64 (elsewhere a relaxed atomic add),
 * flat in the number of threads.  Each thread has QUIESCE_SRCU_SLOTS slots
 * for its counts, and a domain always takes the same one (by its
 * address), which the thread keeps until it unregisters (or exits) or the
 * domain is cleaned up.  A thread whose slot for a domain holds another
 * one (it used more domains than that, or two that pick the same slot)
 * counts the first domain's sections on the domain's per-CPU
 * counters instead: one add to this CPU's slot, through rseq on x86-64
 * with glibc 2.35+, an atomic add elsewhere (percpu_count.h), and a record
 * of the section for the check above; about 3.5 times the cost.  Memory:
 * the structure (64 bytes), four per-CPU counters of 8 * (possible CPUs +
 * 1) bytes, and 760 bytes of grace-period and callback state (x86-64,
 * glibc): proportional to CPUs, not threads, so thousands of domains are
 * fine (a thread each only for those that use call_srcu() or start_poll).
 * Each thread has its slots, 160 bytes, whatever the number of domains.
 * The ordering argument is at the top of src/rcu/srcu.c.
 */
#ifndef QUIESCE_SRCU_H
#define QUIESCE_SRCU_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/compiler.h>
#include <quiesce/percpu_count.h>
#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct quiesce_srcu_state;

/* What every reader touches shares the first line. */
struct quiesce_srcu_struct {
	unsigned idx;			/* bit 0: the index new readers take */
	int writer_sleeping;		/* futex: a grace period waits for readers */
	/*
	 * Per-CPU, each only grows: locks on index 0 and 1, then unlocks on
	 * index 0 and 1.  NULL until the domain is set up.
	 */
	long *count[4];
	const char *name;		/* for messages */
	struct quiesce_srcu_state *state;	/* grace periods and callbacks */
} QUIESCE_CACHELINE_ALIGNED;

#define QUIESCE_SRCU_INITIALIZER(name_) { .name = #name_ }
#define QUIESCE_DEFINE_SRCU(name_) \
	struct quiesce_srcu_struct name_ = QUIESCE_SRCU_INITIALIZER(name_)
#define QUIESCE_DEFINE_STATIC_SRCU(name_) static QUIESCE_DEFINE_SRCU(name_)

/*
 * Sets up a domain named name (for messages; kept, not copied).  Returns 0;
 * running out of memory aborts, as everywhere in quiesce.
 */
QUIESCE_API int quiesce_init_srcu_struct_name(struct quiesce_srcu_struct *ss, const char *name);
#define quiesce_init_srcu_struct(ss) quiesce_init_srcu_struct_name((ss), #ss)
QUIESCE_API void quiesce_cleanup_srcu_struct(struct quiesce_srcu_struct *ss);

QUIESCE_API void quiesce_synchronize_srcu(struct quiesce_srcu_struct *ss);
QUIESCE_API void quiesce_synchronize_srcu_expedited(struct quiesce_srcu_struct *ss);
QUIESCE_API void quiesce_call_srcu(struct quiesce_srcu_struct *ss, struct quiesce_rcu_head *head,
				   void (*func)(struct quiesce_rcu_head *head));
QUIESCE_API void quiesce_srcu_barrier(struct quiesce_srcu_struct *ss);
QUIESCE_API unsigned long quiesce_get_state_synchronize_srcu(struct quiesce_srcu_struct *ss);
QUIESCE_API unsigned long quiesce_start_poll_synchronize_srcu(struct quiesce_srcu_struct *ss);
QUIESCE_API bool quiesce_poll_state_synchronize_srcu(struct quiesce_srcu_struct *ss,
						     unsigned long cookie);

/*
 * A thread's counts of its sections of one domain: QUIESCE_SRCU_SLOTS slots
 * per thread, each a domain and, on each index, how many sections this
 * thread opened and closed there (both only grow while the slot keeps its
 * domain).  A domain has one slot in each thread, chosen by its address;
 * the thread claims it at its first section there if it is free (src/rcu/
 * srcu.c says who frees it).  A thread whose slot holds another domain
 * counts that domain's sections on its per-CPU counters instead.  Only
 * the thread writes its counts; grace periods read them.
 */
#define QUIESCE_SRCU_SLOTS 4
struct quiesce_srcu_slot {
	struct quiesce_srcu_struct *ss;	/* NULL: free; its counts are then 0 */
	unsigned long count[4];		/* locks on index 0 and 1, then unlocks */
};
QUIESCE_API extern __thread struct quiesce_srcu_slot quiesce_srcu_slots_self[QUIESCE_SRCU_SLOTS]
	__attribute__((__tls_model__("initial-exec")));

/* The slot a domain takes in every thread. */
static inline unsigned quiesce_srcu_slot_index(const struct quiesce_srcu_struct *ss)
{
	return (unsigned)((uintptr_t)ss / sizeof(*ss) % QUIESCE_SRCU_SLOTS);
}

static inline struct quiesce_srcu_slot *quiesce_srcu_slot_of(const struct quiesce_srcu_struct *ss)
{
	return &quiesce_srcu_slots_self[quiesce_srcu_slot_index(ss)];
}

/*
 * Adds 1 to one of the calling thread's counts.  On x86-64 one add
 * instruction, not atomic: no other thread writes the count, and a signal
 * handler that takes a section on this thread cannot split one
 * instruction (a load, add and store could lose the handler's add).
 * Elsewhere a relaxed atomic add.
 */
static inline void quiesce_srcu_count_inc(unsigned long *count)
{
#if defined(__x86_64__) && !defined(QUIESCE_TSAN)
	__asm__ volatile("addq $1, %0" : "+m"(*count));
#elif defined(QUIESCE_TSAN)
	/* ThreadSanitizer sees no standalone fence: the add orders itself. */
	__atomic_fetch_add(count, 1, __ATOMIC_ACQ_REL);
#else
	__atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
#endif
}

QUIESCE_API QUIESCE_COLD int quiesce_srcu_read_lock_slow(struct quiesce_srcu_struct *ss);
QUIESCE_API QUIESCE_COLD void quiesce_srcu_read_unlock_slow(struct quiesce_srcu_struct *ss, int idx);
QUIESCE_API QUIESCE_COLD void quiesce_srcu_wake_grace_period(struct quiesce_srcu_struct *ss);

static inline int quiesce_srcu_read_lock(struct quiesce_srcu_struct *ss)
{
	struct quiesce_srcu_slot *slot = quiesce_srcu_slot_of(ss);
	int idx = (int)(QUIESCE_LOAD(&ss->idx) & 1);

	/*
	 * The unusual cases: the thread's slot is free (its first section of
	 * the domain, or it is not registered: unregistering frees its
	 * slots) or holds another domain.
	 */
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&slot->ss) != ss))
		return quiesce_srcu_read_lock_slow(ss);
	/*
	 * Test-only: QUIESCE_TEST_SRCU_LOCK_WINDOW(), defined before this
	 * header is included, runs between the look at the index and the
	 * add, so that stress tests can stop readers there (a reader that
	 * adds to an index flipped away long ago is what the grace period's
	 * first wait is for).
	 */
#ifdef QUIESCE_TEST_SRCU_LOCK_WINDOW
	QUIESCE_TEST_SRCU_LOCK_WINDOW();
#endif
	quiesce_srcu_count_inc(&slot->count[idx]);
	/*
	 * Keeps the section's loads after the add in program order.  The CPU
	 * may still reorder them (store-load); the grace period's heavy
	 * barrier pairs with this point and acts as the missing fence.
	 */
	quiesce_compiler_barrier();
	return idx;
}

static inline void quiesce_srcu_read_unlock(struct quiesce_srcu_struct *ss, int idx)
{
	struct quiesce_srcu_slot *slot = quiesce_srcu_slot_of(ss);

	/* The unusual cases: a bad index, a slot free or of another domain. */
	if (QUIESCE_UNLIKELY((unsigned)idx > 1 || QUIESCE_LOAD(&slot->ss) != ss)) {
		quiesce_srcu_read_unlock_slow(ss, idx);
		return;
	}
	/*
	 * Release: the section's accesses come before the add that counts
	 * it out.  Pairs with the acquire fence between the grace period's
	 * sums of unlocks and locks (src/rcu/srcu.c).  No instruction on
	 * x86-64.
	 */
	quiesce_fence_release();
	quiesce_srcu_count_inc(&slot->count[2 + idx]);
	/*
	 * A grace period waits only for the index readers are not taking.
	 * If it sleeps, it stored writer_sleeping, then issued its heavy
	 * barrier, then counted again: if our add precedes our barrier
	 * point, the count sees it; if not, these loads follow that point
	 * and see the flag (and the index it flipped to before it slept).
	 * Readers of the index new readers take do not hold it up and do
	 * not wake it.
	 */
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&ss->writer_sleeping)) &&
	    (unsigned)idx != (QUIESCE_LOAD(&ss->idx) & 1))
		quiesce_srcu_wake_grace_period(ss);
}

/* As rcu_dereference(); ss documents the domain that protects p. */
#define quiesce_srcu_dereference(p, ss) ((void)(ss), quiesce_rcu_dereference(p))

#ifndef QUIESCE_NO_SHORT_NAMES
#define srcu_struct quiesce_srcu_struct
#define DEFINE_SRCU QUIESCE_DEFINE_SRCU
#define DEFINE_STATIC_SRCU QUIESCE_DEFINE_STATIC_SRCU
#define init_srcu_struct quiesce_init_srcu_struct
#define cleanup_srcu_struct quiesce_cleanup_srcu_struct
#define srcu_read_lock quiesce_srcu_read_lock
#define srcu_read_unlock quiesce_srcu_read_unlock
#define srcu_dereference quiesce_srcu_dereference
#define synchronize_srcu quiesce_synchronize_srcu
#define synchronize_srcu_expedited quiesce_synchronize_srcu_expedited
#define call_srcu quiesce_call_srcu
#define srcu_barrier quiesce_srcu_barrier
#define get_state_synchronize_srcu quiesce_get_state_synchronize_srcu
#define start_poll_synchronize_srcu quiesce_start_poll_synchronize_srcu
#define poll_state_synchronize_srcu quiesce_poll_state_synchronize_srcu
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_SRCU_H */
