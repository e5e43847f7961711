/*
 * quiesce/freeze.h - freeze protection with ordered levels (the kernel's
 * superblock freeze: sb_start_write(), freeze_super(), thaw_super()).
 *
 *   Work:     freezer_start(&f, level); ... freezer_end(&f, level);
 *   Freezing: freezer_freeze(&f);  no work runs;  freezer_thaw(&f);
 *
 * A freezer has 1 to QUIESCE_FREEZER_MAX_LEVELS levels, numbered from 0.
 * Work at level i may start work at a higher level (the kernel's write,
 * page fault and fs-internal levels nest that way).  freezer_freeze()
 * blocks new work at level 0, waits for the work in flight at level 0 to
 * end, then does the same for level 1 and so on: work already running at a
 * lower level can still start the higher-level work it needs.
 *
 * Each level is a percpu_rw_semaphore: starting and ending work is its
 * read pair (one per-CPU counter update while nobody freezes, no fence:
 * what seed 003 did to the kernel's sb_end_write()), plus a thread-local
 * count per level that catches unbalanced calls.  Freezing closes each
 * level's gate: one expedited membarrier (or grace period) per level
 * (include/quiesce/percpu_rwsem.h).
 *
 * Rules for callers, and what happens otherwise
 * - Work ends on the thread that started it, at the level it started at.
 *   freezer_end() with no work started at that level on the calling thread
 *   aborts with a message; so does a level out of range.
 * - freezer_freeze() on a frozen freezer returns -EBUSY; freezer_thaw() on
 *   one that is not frozen returns -EINVAL (as the kernel's); neither
 *   changes anything then.  Both may sleep; freeze and thaw may be called
 *   from different threads.  Freezing from a thread that has work started
 *   aborts with a message: on the same freezer it would wait for itself,
 *   and the thread's count of work is over all freezers, so work started
 *   on another freezer counts too.  So does freezing inside an RCU
 *   read-side critical section (a level's freeze may wait for a grace
 *   period).
 * - freezer_destroy() on a frozen freezer, or one with work in flight,
 *   aborts with a message.  Work never ended (its thread exited inside
 *   it) makes freezer_freeze() wait for ever; the wait is reported as a
 *   percpu_down_write()'s (percpu_rwsem.h).
 * - A freezer serves the threads of one process, as its semaphores do.
 * - fork(): as with its semaphores (percpu_rwsem.h), the child may use a
 *   freezer that no other thread was freezing, thawing or working in at
 *   the fork; a freezer the forking thread froze is frozen in the child,
 *   which may thaw it.
 */
#ifndef QUIESCE_FREEZE_H
#define QUIESCE_FREEZE_H

#include <pthread.h>
#include <stdbool.h>

#include <quiesce/compiler.h>
#include <quiesce/percpu_rwsem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUIESCE_FREEZER_MAX_LEVELS 8

/*
 * The semaphores live inside the freezer, so that the hot path reaches a
 * level's semaphore without loading a pointer first: 1.4 KB a freezer,
 * plus a per-CPU counter for each level in use.
 */
struct quiesce_freezer {
	int levels;
	bool frozen;			/* written under lock, read without */
	pthread_mutex_t lock;		/* serializes freeze and thaw */
	struct quiesce_percpu_rwsem level[QUIESCE_FREEZER_MAX_LEVELS];
};

/*
 * Work started and not yet ended by this thread at each level, over all
 * freezers; negative only on the way to the abort for an unbalanced
 * freezer_end().
 */
QUIESCE_API extern __thread long quiesce_freezer_depth[QUIESCE_FREEZER_MAX_LEVELS]
	__attribute__((__tls_model__("initial-exec")));

/* Returns 0, or -EINVAL when levels is out of range. */
QUIESCE_API int quiesce_freezer_init(struct quiesce_freezer *f, int levels);
QUIESCE_API void quiesce_freezer_destroy(struct quiesce_freezer *f);
QUIESCE_API int quiesce_freezer_freeze(struct quiesce_freezer *f);
QUIESCE_API int quiesce_freezer_thaw(struct quiesce_freezer *f);
QUIESCE_API bool quiesce_freezer_frozen(struct quiesce_freezer *f);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void quiesce_freezer_misuse(const char *call,
								     int level, int levels);
QUIESCE_API QUIESCE_COLD QUIESCE_NORETURN void
quiesce_freezer_unbalanced_end(struct quiesce_freezer *f, int level);
/* The slow paths: a level frozen or freezing, or not in use. */
QUIESCE_API void quiesce_freezer_start_slow(struct quiesce_freezer *f, int level);
QUIESCE_API bool quiesce_freezer_trystart_slow(struct quiesce_freezer *f, int level);
QUIESCE_API void quiesce_freezer_end_slow(struct quiesce_freezer *f, int level);

/*
 * The hot path checks the level against the array only (free for a
 * constant level).  A level at or beyond f->levels has a gate that never
 * opens, so it takes the slow path, which checks it against f->levels.
 */
static QUIESCE_ALWAYS_INLINE struct quiesce_percpu_rwsem *
quiesce_freezer_level(struct quiesce_freezer *f, const char *call, int level)
{
	if (QUIESCE_UNLIKELY((unsigned)level >= QUIESCE_FREEZER_MAX_LEVELS))
		quiesce_freezer_misuse(call, level, f->levels);
	return &f->level[level];
}

static QUIESCE_ALWAYS_INLINE void quiesce_freezer_start(struct quiesce_freezer *f, int level)
{
	if (QUIESCE_UNLIKELY(!quiesce_percpu_rwsem_fast_add(
		    quiesce_freezer_level(f, "freezer_start", level), false)))
		quiesce_freezer_start_slow(f, level);
	quiesce_freezer_depth[level]++;
}

/* Returns false, having started nothing, when the level is frozen. */
static QUIESCE_ALWAYS_INLINE bool quiesce_freezer_trystart(struct quiesce_freezer *f, int level)
{
	if (QUIESCE_UNLIKELY(!quiesce_percpu_rwsem_fast_add(
		    quiesce_freezer_level(f, "freezer_trystart", level), false)) &&
	    !quiesce_freezer_trystart_slow(f, level))
		return false;
	quiesce_freezer_depth[level]++;
	return true;
}

static QUIESCE_ALWAYS_INLINE void quiesce_freezer_end(struct quiesce_freezer *f, int level)
{
	struct quiesce_percpu_rwsem *sem = quiesce_freezer_level(f, "freezer_end", level);

	if (QUIESCE_UNLIKELY(--quiesce_freezer_depth[level] < 0))
		quiesce_freezer_unbalanced_end(f, level);
	if (QUIESCE_UNLIKELY(!quiesce_percpu_rwsem_fast_add(sem, true)))
		quiesce_freezer_end_slow(f, level);
}

#ifndef QUIESCE_NO_SHORT_NAMES
#define freezer quiesce_freezer
#define freezer_init quiesce_freezer_init
#define freezer_destroy quiesce_freezer_destroy
#define freezer_start quiesce_freezer_start
#define freezer_trystart quiesce_freezer_trystart
#define freezer_end quiesce_freezer_end
#define freezer_freeze quiesce_freezer_freeze
#define freezer_thaw quiesce_freezer_thaw
#define freezer_frozen quiesce_freezer_frozen
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_FREEZE_H */
