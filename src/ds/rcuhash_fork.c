/*
 * rcuhash_fork.c - fork() and the hash tables: the child gets every table
 * whole, whatever the parent's other threads were doing to it.
 *
 * A table's chains change only under its stripe locks, and its resize
 * state (a future array published, the walkers count) only under its
 * resize_lock.  Forking while another thread is inside one of them would
 * leave the child a lock that no thread will release and, behind it, a
 * chain in the middle of a move.  Holding them all across fork() would
 * prevent that, but a table has 65 of them and a program may have many
 * tables (ThreadSanitizer stops a program whose thread holds more than 64
 * locks).  So the prepare handler freezes each table instead:
 *   1. it sets the table's frozen flag;
 *   2. it takes and releases each of the table's locks in turn: whoever
 *      held one has left it, and whoever takes one after that sees the
 *      flag (the lock orders the flag's store before its load) and lets
 *      the lock go again without touching the table, then waits on
 *      thaw_cv until the flag is cleared (rcuhash_lock(),
 *      count_exact()).
 * At fork() no update is half done.  A lock may still be held, by a thread
 * between taking it and seeing the flag: the child makes every table lock
 * anew.  The parent handler clears the flags and wakes the waiters.
 * Updaters stay inside a lock for a walk of their key's nodes (or their
 * hash's duplicates) and a few stores, never across a grace period, an
 * allocation or another quiesce lock, so the sweep waits at most that
 * long, and it holds no more than tables_lock and one table lock.
 *
 * What the child no longer has is the parent's other threads: the child
 * handler forgets what they were doing.
 *   - allocating: set by an updater while it allocates a resize's array
 *     outside every lock.  That updater is gone; left set, it would stop
 *     automatic resizing in the child for good.  Cleared: the next update
 *     that finds a resize due allocates again.
 *   - walkers: a walk keeps resizes from being published until it stops.
 *     Walks of the vanished threads never stop, so the child counts only
 *     the walks the forking thread itself has open on the table
 *     (rcuhash_walk.c keeps a per-thread list of them).
 *   - claimed: an updater claims an old bucket of a resize in progress
 *     before it takes the bucket's stripe lock, so a claimed bucket may be
 *     unmoved at fork() (its mover had not taken the lock yet, or found
 *     the table frozen), and no updater of the child would claim it again:
 *     the resize would never end, and resize() and walk_start() would wait
 *     for it forever.  Claims start over from bucket 0; a mover that claims a
 *     bucket already moved finds it MOVED and goes on, and the resize ends
 *     when the last bucket has moved, or when a claim past the end finds
 *     them all moved (rcuhash_resize.c), which also ends one whose last
 *     mover had not yet switched arrays at fork().
 *   - moved: kept.  It must count exactly the buckets whose heads say
 *     MOVED, or the claim past the end never finds them all moved: a
 *     mover counts what it moved before it lets go of the stripe lock it
 *     moved under (rcuhash_resize.c, move_batch()), and the sweep has
 *     waited for every stripe lock, so at fork() each move is counted
 *     with it or not made.  (A mover that counted after the unlock, if
 *     forked between the two, would leave the child's count short for
 *     good, and its resize() and walk_start() spinning.)
 * Otherwise a resize in progress needs no thread: the child's updaters
 * move the remaining buckets, as any updater does.
 *
 * The handlers are installed by the first quiesce_rcuhash_new(), after
 * quiesce's own (installed when the library loads); the order does not
 * matter, since no rcuhash lock is held while another quiesce lock is
 * taken, nor the reverse.
 */
#include <pthread.h>

#include "common/cancel.h"
#include "ds/rcuhash_internal.h"

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quiesce_rcuhash *tables;	/* every live table, linked by fork_next */
/* Updaters that found their table frozen wait here for the parent handler. */
static pthread_mutex_t thaw_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thaw_cv = PTHREAD_COND_INITIALIZER;

void quiesce_rcuhash_wait_thaw(struct quiesce_rcuhash *ht)
{
	/* The caller's update resumes after the wait (cancel.h). */
	int cancel = quiesce_cancel_off();

	pthread_mutex_lock(&thaw_lock);
	/* Woken by parent_after_fork(), which clears the flag under thaw_lock. */
	while (QUIESCE_LOAD(&ht->frozen))
		pthread_cond_wait(&thaw_cv, &thaw_lock);
	pthread_mutex_unlock(&thaw_lock);
	quiesce_cancel_restore(cancel);
}

/* Takes and releases m: whoever was inside has left it (see the top). */
static void sweep(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	pthread_mutex_unlock(m);
}

static void prepare_fork(void)
{
	pthread_mutex_lock(&tables_lock);
	for (struct quiesce_rcuhash *ht = tables; ht; ht = ht->fork_next) {
		QUIESCE_STORE(&ht->frozen, true);
		sweep(&ht->resize_lock);
		for (int i = 0; i < RCUHASH_STRIPES; i++)
			sweep(&ht->stripes[i].lock);
	}
}

static void parent_after_fork(void)
{
	pthread_mutex_lock(&thaw_lock);
	for (struct quiesce_rcuhash *ht = tables; ht; ht = ht->fork_next)
		QUIESCE_STORE(&ht->frozen, false);
	pthread_cond_broadcast(&thaw_cv);
	pthread_mutex_unlock(&thaw_lock);
	pthread_mutex_unlock(&tables_lock);
}

static void child_after_fork(void)
{
	pthread_mutex_init(&thaw_lock, NULL);
	pthread_cond_init(&thaw_cv, NULL);
	for (struct quiesce_rcuhash *ht = tables; ht; ht = ht->fork_next) {
		/* Only this thread exists, and nothing is half done. */
		pthread_mutex_init(&ht->resize_lock, NULL);
		for (int i = 0; i < RCUHASH_STRIPES; i++)
			pthread_mutex_init(&ht->stripes[i].lock, NULL);
		ht->frozen = false;
		ht->allocating = false;
		ht->walkers = quiesce_rcuhash_own_walks(ht);
		ht->tbl->claimed = 0;
	}
	pthread_mutex_unlock(&tables_lock);
}

static void install_handlers(void)
{
	pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
}

void quiesce_rcuhash_fork_track(struct quiesce_rcuhash *ht)
{
	pthread_once(&handlers_once, install_handlers);
	pthread_mutex_lock(&tables_lock);
	ht->fork_next = tables;
	ht->fork_pprev = &tables;
	if (tables)
		tables->fork_pprev = &ht->fork_next;
	tables = ht;
	pthread_mutex_unlock(&tables_lock);
}

void quiesce_rcuhash_fork_untrack(struct quiesce_rcuhash *ht)
{
	pthread_mutex_lock(&tables_lock);
	*ht->fork_pprev = ht->fork_next;
	if (ht->fork_next)
		ht->fork_next->fork_pprev = ht->fork_pprev;
	pthread_mutex_unlock(&tables_lock);
}
