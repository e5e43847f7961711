/*
 * quiesce/rcu_qsbr.h - quiescent-state-based RCU (QSBR): a grace-period
 * domain of its own, beside the default one of <quiesce/rcu.h>, whose
 * read-side critical sections cost nothing at all.
 *
 * A registered thread is a reader whenever it is online: it may hold
 * references to protected objects anywhere between two calls of
 * quiesce_qsbr_quiescent_state(), which says "I hold none now".  A grace
 * period waits until every online thread has announced a quiescent state
 * or gone offline.  It suits a thread with a main loop:
 *
 *     quiesce_qsbr_register_thread();          (online from here on)
 *     for (;;) {
 *             quiesce_qsbr_read_lock();        (nothing; documents intent)
 *             p = rcu_dereference(gp); ... use p ...
 *             quiesce_qsbr_read_unlock();
 *             quiesce_qsbr_quiescent_state();  (once per loop)
 *             quiesce_qsbr_offline_while(n = poll(fds, nfds, -1));
 *     }
 *
 * Updaters: rcu_assign_pointer(gp, new); quiesce_qsbr_synchronize_rcu();
 * free(old); or quiesce_qsbr_call_rcu(&old->head, func).  The pointer
 * macros of <quiesce/rcu.h> (rcu_dereference() ...) serve both domains.
 *
 * Rules for callers (the pitfalls of QSBR, made loud where they can be)
 * - An online thread holds up every grace period until its next quiescent
 *   state.  Go offline around anything that blocks (I/O, a lock, a sleep):
 *   quiesce_qsbr_offline_while(expr) evaluates expr offline.  A thread
 *   that announces nothing for the stall timeout (rcu.h) is reported by
 *   id and name, in phase QUIESCE_RCU_STALL_QSBR_ONLINE ("QSBR stall:
 *   thread N ("name") has stayed online without a quiescent state ...").
 * - quiesce_qsbr_synchronize_rcu() and quiesce_qsbr_barrier() from an
 *   online thread would wait for that thread itself: they abort with a
 *   message.  Go offline first (liburcu does that silently; quiesce does
 *   not, so a mutex held across the wait cannot deadlock unnoticed).
 * - quiesce_qsbr_quiescent_state() by a thread that is offline or not
 *   registered, thread_offline() by one offline, thread_online() by one
 *   online, and unregistering inside a section (QUIESCE_DEBUG) abort with
 *   a message.
 * - With QUIESCE_DEBUG defined before this header, read_lock/read_unlock
 *   count their nesting, and a quiescent state, going offline or
 *   unregistering inside a section aborts.  Without it they are empty.
 * - A thread that exits while registered is unregistered (a thread-exit
 *   destructor), online or not, so grace periods stop waiting for it.
 *   At exit() the exiting thread goes offline, so that the QSBR callbacks
 *   queued before can run; atexit handlers and destructors must not read
 *   QSBR-protected data.
 * - After fork() the child's QSBR registry holds only the forking thread,
 *   in the state it had.
 * - Callbacks run on the thread "quiesce-qsbr-cb", which is not a QSBR
 *   thread; the rules of call_rcu() in rcu.h apply (a callback must not
 *   call quiesce_qsbr_barrier(), nor return with its thread registered
 *   and online: checked).
 *
 * The ordering argument is at the top of src/rcu/qsbr.c.
 */
#ifndef QUIESCE_RCU_QSBR_H
#define QUIESCE_RCU_QSBR_H

#include <stdbool.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A thread's counter: QUIESCE_QSBR_OFFLINE, QUIESCE_QSBR_UNREGISTERED, or
 * the phase it last announced (even, from 2 up).
 */
#define QUIESCE_QSBR_OFFLINE 0UL
#define QUIESCE_QSBR_UNREGISTERED 1UL
#define QUIESCE_QSBR_PHASE_STEP 2UL

struct quiesce_qsbr_reader {
	unsigned long ctr;	/* read by the grace period's scan */
	unsigned long nesting;	/* read_lock depth, counted under QUIESCE_DEBUG */
} QUIESCE_CACHELINE_ALIGNED;

/* Read-mostly: written once per grace period, read by every thread. */
struct quiesce_qsbr_gp_word {
	unsigned long phase;	/* the phase a quiescent state announces */
	int writer_sleeping;	/* a grace period sleeps, waiting for threads */
} QUIESCE_CACHELINE_ALIGNED;

QUIESCE_API extern __thread struct quiesce_qsbr_reader quiesce_qsbr_reader_self
	__attribute__((__tls_model__("initial-exec")));
QUIESCE_API extern struct quiesce_qsbr_gp_word quiesce_qsbr_gp_word;

QUIESCE_API void quiesce_qsbr_register_thread(void);
QUIESCE_API void quiesce_qsbr_unregister_thread(void);
QUIESCE_API void quiesce_qsbr_thread_offline(void);
QUIESCE_API void quiesce_qsbr_thread_online(void);
QUIESCE_API QUIESCE_COLD void quiesce_qsbr_announce(void);
/* Aborts with "quiesce: <what>"; for the QUIESCE_DEBUG checks. */
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_qsbr_misuse(const char *what);

/* Empty; with QUIESCE_DEBUG, counts the nesting for the checks above. */
static inline void quiesce_qsbr_read_lock(void)
{
#ifdef QUIESCE_DEBUG
	quiesce_qsbr_reader_self.nesting++;
#endif
}

static inline void quiesce_qsbr_read_unlock(void)
{
#ifdef QUIESCE_DEBUG
	if (QUIESCE_UNLIKELY(quiesce_qsbr_reader_self.nesting == 0))
		quiesce_qsbr_misuse("quiesce_qsbr_read_unlock() without a matching "
				    "quiesce_qsbr_read_lock()");
	quiesce_qsbr_reader_self.nesting--;
#endif
}

/* Whether the thread is registered and online. */
static inline bool quiesce_qsbr_thread_online_p(void)
{
	unsigned long ctr = quiesce_qsbr_reader_self.ctr;

	return ctr != QUIESCE_QSBR_OFFLINE && ctr != QUIESCE_QSBR_UNREGISTERED;
}

/*
 * With QUIESCE_DEBUG: whether inside read_lock/read_unlock.  Without:
 * whether online, as liburcu's, since an online thread may be reading
 * anywhere between its quiescent states.
 */
static inline bool quiesce_qsbr_read_ongoing(void)
{
#ifdef QUIESCE_DEBUG
	return quiesce_qsbr_reader_self.nesting != 0;
#else
	return quiesce_qsbr_thread_online_p();
#endif
}

/*
 * "This thread holds no reference now."  One load and a compare while no
 * grace period has started since the last call; once per grace period, a
 * store, a fence and a look at writer_sleeping (quiesce_qsbr_announce()).
 */
static inline void quiesce_qsbr_quiescent_state(void)
{
#ifdef QUIESCE_DEBUG
	if (QUIESCE_UNLIKELY(quiesce_qsbr_reader_self.nesting))
		quiesce_qsbr_misuse("quiesce_qsbr_quiescent_state() called inside a QSBR "
				    "read-side critical section");
#endif
	/*
	 * Relaxed: a phase equal to ours was acquired when we announced it;
	 * a new one is loaded again with acquire by the announcement.
	 */
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_qsbr_gp_word.phase) !=
			     quiesce_qsbr_reader_self.ctr))
		quiesce_qsbr_announce();
}

/*
 * Evaluates expr with the thread offline, then puts it back online:
 * n = ...; quiesce_qsbr_offline_while(n = read(fd, buf, len));  An
 * expression cannot break, continue or return, so the pair cannot be
 * split (longjmp() and exit aside).
 */
#define quiesce_qsbr_offline_while(expr)                                        \
	({                                                                      \
		quiesce_qsbr_thread_offline();                                  \
		(void)(expr);                                                   \
		quiesce_qsbr_thread_online();                                   \
	})

/* Grace periods of the QSBR domain; the caller must be offline or unregistered. */
QUIESCE_API void quiesce_qsbr_synchronize_rcu(void);

/* Polled grace periods, as quiesce_get_state_synchronize_rcu() & co. */
QUIESCE_API unsigned long quiesce_qsbr_get_state_synchronize_rcu(void);
QUIESCE_API unsigned long quiesce_qsbr_start_poll_synchronize_rcu(void);
QUIESCE_API bool quiesce_qsbr_poll_state_synchronize_rcu(unsigned long cookie);

/*
 * Callbacks after a QSBR grace period, on the thread "quiesce-qsbr-cb";
 * any thread (online or not) may queue them.  quiesce_qsbr_barrier() waits
 * for those queued before it (on the QSBR workers of
 * <quiesce/call_rcu_worker.h> too), and aborts when the caller is online.
 */
QUIESCE_API void quiesce_qsbr_call_rcu(struct quiesce_rcu_head *head,
				       void (*func)(struct quiesce_rcu_head *head));
QUIESCE_API void quiesce_qsbr_barrier(void);

/* Short names: quiesce_qsbr_X becomes rcu_qsbr_X. */
#ifndef QUIESCE_NO_SHORT_NAMES
#define rcu_qsbr_read_lock quiesce_qsbr_read_lock
#define rcu_qsbr_read_unlock quiesce_qsbr_read_unlock
#define rcu_qsbr_read_ongoing quiesce_qsbr_read_ongoing
#define rcu_qsbr_quiescent_state quiesce_qsbr_quiescent_state
#define rcu_qsbr_thread_offline quiesce_qsbr_thread_offline
#define rcu_qsbr_thread_online quiesce_qsbr_thread_online
#define rcu_qsbr_thread_online_p quiesce_qsbr_thread_online_p
#define rcu_qsbr_offline_while quiesce_qsbr_offline_while
#define rcu_qsbr_register_thread quiesce_qsbr_register_thread
#define rcu_qsbr_unregister_thread quiesce_qsbr_unregister_thread
#define rcu_qsbr_synchronize_rcu quiesce_qsbr_synchronize_rcu
#define rcu_qsbr_get_state_synchronize_rcu quiesce_qsbr_get_state_synchronize_rcu
#define rcu_qsbr_start_poll_synchronize_rcu quiesce_qsbr_start_poll_synchronize_rcu
#define rcu_qsbr_poll_state_synchronize_rcu quiesce_qsbr_poll_state_synchronize_rcu
#define rcu_qsbr_call_rcu quiesce_qsbr_call_rcu
#define rcu_qsbr_barrier quiesce_qsbr_barrier
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCU_QSBR_H */
