/*
 * freeze.c - freezing and thawing (the hot path is inline in
 * include/quiesce/freeze.h).
 *
 * Freezing takes each level's semaphore for write, lowest level first:
 * percpu_down_write() closes the level to new work (its rcu_sync gate and
 * `block`) and waits for the work in flight to end.  Thawing releases them
 * highest first, so that work resumes from the inside out.
 */
#include <quiesce/freeze.h>

#include <errno.h>

#include "common/diag.h"
#include "locks/percpu_rwsem_dead.h"

__thread long quiesce_freezer_depth[QUIESCE_FREEZER_MAX_LEVELS]
	__attribute__((tls_model("initial-exec")));

void quiesce_freezer_misuse(const char *call, int level, int levels)
{
	quiesce_die("%s(level %d) on a freezer with %d level(s)", call, level, levels);
}

void quiesce_freezer_unbalanced_end(struct quiesce_freezer *f, int level)
{
	/* No work can have started at a level out of range: that is the message. */
	if (level >= f->levels)
		quiesce_freezer_misuse("freezer_end", level, f->levels);
	quiesce_die("freezer_end(level %d) without a matching freezer_start() of that level on "
		    "this thread", level);
}

static struct quiesce_percpu_rwsem *level_in_use(struct quiesce_freezer *f, const char *call,
						 int level)
{
	if ((unsigned)level >= (unsigned)f->levels)
		quiesce_freezer_misuse(call, level, f->levels);
	return &f->level[level];
}

void quiesce_freezer_start_slow(struct quiesce_freezer *f, int level)
{
	quiesce_percpu_down_read_slow(level_in_use(f, "freezer_start", level));
}

bool quiesce_freezer_trystart_slow(struct quiesce_freezer *f, int level)
{
	return quiesce_percpu_down_read_trylock_slow(level_in_use(f, "freezer_trystart", level));
}

void quiesce_freezer_end_slow(struct quiesce_freezer *f, int level)
{
	quiesce_percpu_up_read_slow(level_in_use(f, "freezer_end", level));
}

int quiesce_freezer_init(struct quiesce_freezer *f, int levels)
{
	if (levels < 1 || levels > QUIESCE_FREEZER_MAX_LEVELS)
		return -EINVAL;
	for (int i = 0; i < levels; i++)
		quiesce_percpu_init_rwsem(&f->level[i]);
	/* The hot path hands levels past ours to the slow path, which reports them. */
	for (int i = levels; i < QUIESCE_FREEZER_MAX_LEVELS; i++)
		quiesce_percpu_init_dead(&f->level[i]);
	f->levels = levels;
	f->frozen = false;
	pthread_mutex_init(&f->lock, NULL);
	return 0;
}

void quiesce_freezer_destroy(struct quiesce_freezer *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->frozen)
		quiesce_die("freezer_destroy() on a frozen freezer: thaw it first");
	pthread_mutex_unlock(&f->lock);
	for (int i = 0; i < f->levels; i++)
		quiesce_percpu_free_rwsem(&f->level[i]);
	pthread_mutex_destroy(&f->lock);
}

/* Whether this thread has work started, at any level of any freezer. */
static bool work_started(void)
{
	for (int i = 0; i < QUIESCE_FREEZER_MAX_LEVELS; i++)
		if (quiesce_freezer_depth[i])
			return true;
	return false;
}

int quiesce_freezer_freeze(struct quiesce_freezer *f)
{
	if (work_started())
		quiesce_die("freezer_freeze() by a thread with work started (freezer_start() "
			    "without freezer_end(), on this freezer or another): end it first; "
			    "on this freezer it would wait for itself");
	/* Checked before percpu_down_write() does, so that the message names this call. */
	if (quiesce_rcu_read_ongoing())
		quiesce_die("freezer_freeze() called inside an RCU read-side critical section: "
			    "it may wait for a grace period, which would wait for itself");
	pthread_mutex_lock(&f->lock);
	if (f->frozen) {
		pthread_mutex_unlock(&f->lock);
		return -EBUSY;
	}
	for (int i = 0; i < f->levels; i++)
		quiesce_percpu_down_write(&f->level[i]);
	/* Atomic: freezer_frozen() reads it without the lock. */
	QUIESCE_STORE(&f->frozen, true);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

int quiesce_freezer_thaw(struct quiesce_freezer *f)
{
	pthread_mutex_lock(&f->lock);
	if (!f->frozen) {
		pthread_mutex_unlock(&f->lock);
		return -EINVAL;
	}
	/* Before reopening: work that gets in must not see the freezer frozen. */
	QUIESCE_STORE(&f->frozen, false);
	for (int i = f->levels - 1; i >= 0; i--)
		quiesce_percpu_up_write(&f->level[i]);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/*
 * Without the lock: a freeze holds it while it waits for work in flight,
 * and that work may ask whether the freezer is frozen.  The answer is a
 * snapshot, as the kernel's frozen state is.
 */
bool quiesce_freezer_frozen(struct quiesce_freezer *f)
{
	return QUIESCE_LOAD(&f->frozen);
}
