/*
 * quiesce/rcu_sync.h - a gate that tells readers whether an updater is
 * around, so that they may take a fast path while none is (the kernel's
 * rcu_sync).
 *
 *   Reader (inside rcu_read_lock()):
 *       if (rcu_sync_is_idle(&rss)) fast path; else slow path that
 *       synchronizes with the updater explicitly;
 *   Updater:
 *       rcu_sync_enter(&rss);   every reader now takes the slow path
 *       ...
 *       rcu_sync_exit(&rss);    the fast path returns a grace period later
 *
 * Rules for callers
 * - rcu_sync_is_idle() is only meaningful inside an RCU read-side critical
 *   section: the grace period that rcu_sync_enter() waits for is what makes
 *   every reader that saw "idle" finish before the updater goes on.
 * - rcu_sync_enter() may sleep and must not be called inside a read-side
 *   critical section: it aborts with a message there.  It waits for one
 *   grace period only when the gate was idle; an updater that arrives
 *   while the gate is closed, or still closing after the last updater
 *   left, pays none.
 * - rcu_sync_exit() waits for no grace period: the gate reopens one grace
 *   period later, through call_rcu(), so a burst of updaters pays one.  (It
 *   takes the gate's lock, and call_rcu() may make it wait briefly when
 *   callbacks pile up.)
 *   Calling it more often than rcu_sync_enter() aborts with a message.
 * - Grace periods here are expedited, since an updater waits for them; the
 *   QUIESCE_RCU_NORMAL knob (or rcu_set_normal()) makes them normal.
 * - rcu_sync_dtor() waits for the gate to reopen; no updater may be inside,
 *   and it aborts rather than wait for itself from a read-side section or an
 *   RCU callback.  Any use of the gate after it aborts with a message (until
 *   rcu_sync_init() again, or until the memory is reused).  A gate still
 *   closing at fork() reopens in the child, unless another thread of the
 *   parent was inside one of the gate's calls at that moment: then the gate
 *   is unusable in the child (as any lock another thread held at fork()), and
 *   the child's callbacks never wait for it.
 */
#ifndef QUIESCE_RCU_SYNC_H
#define QUIESCE_RCU_SYNC_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The states, in order: every one from PASSED up keeps readers slow.  All
 * but IDLE are negative, so that the per-CPU semaphore's reader tests the
 * gate and its CPU number (negative without rseq) with one OR
 * (include/quiesce/percpu_count.h).
 */
enum quiesce_rcu_sync_state {
	QUIESCE_RCU_SYNC_IDLE = 0,		/* no updater: readers may go fast */
	QUIESCE_RCU_SYNC_ENTER = INT_MIN + 1,	/* the first updater waits for a grace period */
	QUIESCE_RCU_SYNC_PASSED = INT_MIN + 2,	/* every reader now takes the slow path */
	QUIESCE_RCU_SYNC_EXIT = INT_MIN + 3,	/* the last updater left; reopening */
	QUIESCE_RCU_SYNC_REPLAY = INT_MIN + 4,	/* another came and went meanwhile */
	QUIESCE_RCU_SYNC_DEAD = INT_MIN + 5,	/* rcu_sync_dtor() ran: any use aborts */
};

struct quiesce_rcu_sync_link {
	struct quiesce_rcu_sync_link *next, *prev;
};

struct quiesce_rcu_sync {
	int gp_state;			/* read by readers; changed under lock */
	/*
	 * Set by percpu_init_rwsem() when its readers check gp_state inside
	 * a restartable sequence instead of an RCU read-side section: the
	 * first updater then aborts those sequences (membarrier) instead of
	 * waiting for a grace period.
	 */
	bool rseq_readers;
	int gp_count;			/* updaters between enter and exit */
	int waiters;			/* threads asleep on gp_state; under lock */
	pthread_mutex_t lock;
	struct quiesce_rcu_head cb_head;	/* reopens the gate */
	struct quiesce_rcu_sync_link reopening;	/* while that callback is pending */
};

QUIESCE_API void quiesce_rcu_sync_init(struct quiesce_rcu_sync *rss);
QUIESCE_API void quiesce_rcu_sync_enter(struct quiesce_rcu_sync *rss);
QUIESCE_API void quiesce_rcu_sync_exit(struct quiesce_rcu_sync *rss);
QUIESCE_API void quiesce_rcu_sync_dtor(struct quiesce_rcu_sync *rss);

static QUIESCE_ALWAYS_INLINE bool quiesce_rcu_sync_is_idle(const struct quiesce_rcu_sync *rss)
{
	/*
	 * Relaxed: the grace period in rcu_sync_enter() orders this load
	 * against the updater (see src/locks/rcu_sync.c).  ThreadSanitizer cannot
	 * see that, so there it is an acquire, pairing with the release that
	 * reopens the gate.
	 */
#ifdef QUIESCE_TSAN
	return QUIESCE_LOAD_ACQUIRE(&rss->gp_state) == QUIESCE_RCU_SYNC_IDLE;
#else
	return QUIESCE_LOAD(&rss->gp_state) == QUIESCE_RCU_SYNC_IDLE;
#endif
}

#ifndef QUIESCE_NO_SHORT_NAMES
#define rcu_sync quiesce_rcu_sync
#define rcu_sync_init quiesce_rcu_sync_init
#define rcu_sync_enter quiesce_rcu_sync_enter
#define rcu_sync_exit quiesce_rcu_sync_exit
#define rcu_sync_dtor quiesce_rcu_sync_dtor
#define rcu_sync_is_idle quiesce_rcu_sync_is_idle
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCU_SYNC_H */
