/*
 * rcuhash_internal.h - between the parts of the hash table: the operations
 * (rcuhash.c), resizing (rcuhash_resize.c), walks (rcuhash_walk.c),
 * ordered reads (rcuhash_ordered.c) and fork() (rcuhash_fork.c).
 *
 * A bucket head holds one of: NULL or its own end marker (empty), the
 * first node of its chain, or RCUHASH_MOVED (a resize has moved its nodes
 * to the next array).  A chain's last node points to the end marker of its
 * bucket: the bucket's address with the low bit set, unique among the
 * arrays a reader can reach, so that a reader carried into another chain
 * by a node that moved under it can tell (see rcuhash.c).
 *
 * In a caller-hashed table (QUIESCE_RCUHASH_KEY_IS_HASH, whose nodes hold
 * their hash) every chain is kept sorted by bit-reversed hash, with a new
 * node first among the nodes of its hash (rcuhash.c, "Order").
 */
#ifndef QUIESCE_RCUHASH_INTERNAL_H
#define QUIESCE_RCUHASH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/rcuhash.h>

/* Lock stripes: a stripe covers the buckets whose index is equal mod 64 in
 * every array, since no array has fewer buckets than stripes. */
#define RCUHASH_STRIPES 64
_Static_assert(QUIESCE_RCUHASH_MIN_BUCKETS >= RCUHASH_STRIPES &&
		       (RCUHASH_STRIPES & (RCUHASH_STRIPES - 1)) == 0,
	       "a stripe must cover whole buckets of every array");

/* Buckets an update moves, when a resize is in progress. */
#define RCUHASH_MOVE_BATCH 8

#define RCUHASH_MOVED ((struct quiesce_rcuhash_node *)(uintptr_t)2)

/* The first order number a stripe gives (rcuhash.c, seq_assign()). */
#define RCUHASH_SEQ_FIRST (UINT64_MAX >> 2)

struct rcuhash_table {
	size_t mask;				/* buckets - 1 */
	const struct quiesce_rcuhash_alloc *alloc;	/* where it came from; NULL: calloc() */
	struct rcuhash_table *future;		/* the array a resize moves to */
	size_t claimed;				/* buckets claimed for moving (move_batch()) */
	size_t moved;				/* buckets moved */
	struct quiesce_rcu_head rcu;
	struct quiesce_rcuhash_node *buckets[];
};

struct rcuhash_stripe {
	pthread_mutex_t lock;
	size_t count;		/* elements whose hash falls in this stripe */
	uint64_t seq;		/* the next order number (QUIESCE_RCUHASH_SEQ), counting down */
	uint64_t seq_up;		/* the next number add() gives (sorted SEQ tables), counting up */
} QUIESCE_CACHELINE_ALIGNED;

/* Which RCU the table's readers use (params.rcu), as the calls below see it. */
enum rcuhash_reader {
	RCUHASH_READER_DEFAULT,		/* NULL: quiesce's default RCU, inline */
	RCUHASH_READER_QSBR,		/* quiesce_rcuhash_rcu_qsbr: QSBR, inline */
	RCUHASH_READER_MB,		/* quiesce_rcuhash_rcu_mb: the mb domain, inline */
	RCUHASH_READER_CALLS,		/* any other: through its calls */
};

/* Which one params.rcu is (rcuhash_rcu.c). */
enum rcuhash_reader quiesce_rcuhash_reader_of(const struct quiesce_rcuhash_rcu *rcu);

struct quiesce_rcuhash {
	struct rcuhash_table *tbl;	/* the current array; its future may be set */
	enum rcuhash_reader reader;
	bool frozen;			/* a fork() is being prepared (rcuhash_fork.c) */
	struct quiesce_rcuhash_params p;
	size_t min_buckets;		/* automatic shrinking stops here */
	pthread_mutex_t resize_lock;	/* publishing a resize; walk registration */
	unsigned walkers;		/* walks in progress, under resize_lock */
	bool allocating;		/* an updater allocates a resize's array */
	/* On the list of live tables (rcuhash_fork.c), under its lock. */
	struct quiesce_rcuhash *fork_next, **fork_pprev;
	struct rcuhash_stripe stripes[RCUHASH_STRIPES];
};

/* Test-only: deliberately broken resizes and walks, which the checkers must catch. */
enum rcuhash_busted {
	RCUHASH_BUSTED_NONE,
	RCUHASH_BUSTED_FREE_EARLY,	/* old arrays poisoned with no grace period */
	RCUHASH_BUSTED_UNLINK_FIRST,	/* a moved node leaves the old chain first */
	RCUHASH_BUSTED_COARSE_ORDER,	/* next() answers from a coarser interval */
	RCUHASH_BUSTED_ALLOC_LOCKED,	/* a resize's array allocated under resize_lock, in a section */
	RCUHASH_BUSTED_SHRINK_ORDER,	/* a shrink moves the first interval of a group first */
	RCUHASH_BUSTED_UNGUARDED_WALK,	/* a walk lets resizes move nodes under it */
	RCUHASH_BUSTED_WALK_AGAIN,	/* a walk goes through one chain in 64 twice */
};
extern int quiesce_test_busted_rcuhash;
/* Test-only: called where an updater allocates a resize's array, just after. */
extern void (*quiesce_test_rcuhash_alloc_hook)(void);
/* Test-only: called by an update just after it takes its stripe lock. */
extern void (*quiesce_test_rcuhash_locked_hook)(void);
/* Test-only: called by a mover just after it lets go of the stripe it moved buckets under. */
extern void (*quiesce_test_rcuhash_moved_hook)(void);

static inline struct quiesce_rcuhash_node *rcuhash_marker(struct quiesce_rcuhash_node **bucket)
{
	return (struct quiesce_rcuhash_node *)((uintptr_t)bucket | 1);
}

/* A node pointer, as opposed to NULL, an end marker or RCUHASH_MOVED. */
static inline bool rcuhash_is_node(const struct quiesce_rcuhash_node *p)
{
	return ((uintptr_t)p & 3) == 0 && p != NULL;
}

/* Whether ht keeps its chains sorted (see the top). */
static inline bool rcuhash_sorted(const struct quiesce_rcuhash *ht)
{
	return ht->p.flags & QUIESCE_RCUHASH_KEY_IS_HASH;
}

/* h with its 64 bits in reverse order. */
static inline uint64_t rcuhash_rev64(uint64_t h)
{
	h = ((h >> 1) & 0x5555555555555555ULL) | ((h & 0x5555555555555555ULL) << 1);
	h = ((h >> 2) & 0x3333333333333333ULL) | ((h & 0x3333333333333333ULL) << 2);
	h = ((h >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((h & 0x0f0f0f0f0f0f0f0fULL) << 4);
	return __builtin_bswap64(h);
}

/*
 * Whether a comes after b in bit-reversed order: the lowest bit in which
 * they differ is set in a (four instructions where reversing takes a dozen).
 */
static inline bool rcuhash_rev_above(uint64_t a, uint64_t b)
{
	uint64_t d = a ^ b;

	return (d & -d & a) != 0;
}

/* The message of rcuhash_check_reader() (rcuhash.c). */
QUIESCE_COLD QUIESCE_NORETURN void quiesce_rcuhash_not_reader(const char *what);

/*
 * The table's RCU (quiesce/rcuhash.h, struct quiesce_rcuhash_rcu): the
 * default one, QSBR and mb inline, another through its calls.  The
 * default is tested first, so that its tables pay one compare.
 *
 * An update holds a read-side critical section of its own around its use
 * of the bucket arrays: rcuhash_enter() returns how it entered it, which
 * rcuhash_leave() undoes.
 *
 * Every read_lock() but QSBR's protects whichever thread calls it: the
 * default RCU and the mb domain register a thread on its first section,
 * and a struct of the caller's own is the caller's to make so
 * (quiesce/rcuhash.h).  A QSBR section is the time a thread is online,
 * and read_lock() is empty: from a thread that is offline or not
 * registered, an update would hold no grace period up, and another thread
 * that finished the resize it works on could free the array under it.  So
 * such an update brings its thread online for its duration, registering
 * it first if it is not registered, and leaves it as it was
 * (rcuhash_rcu.c); from an online thread it costs a look at the thread's
 * counter.
 */
enum rcuhash_entry {
	RCUHASH_ENTRY_SECTION,		/* read_lock() (QSBR: the thread was online) */
	RCUHASH_ENTRY_ONLINE,		/* QSBR: the thread was offline, and came online */
	RCUHASH_ENTRY_REGISTERED,	/* QSBR: the thread was not registered, and registered */
};

/* QSBR, from a thread that is not online: brings it online (rcuhash_rcu.c). */
QUIESCE_COLD enum rcuhash_entry quiesce_rcuhash_qsbr_enter(void);
/* Takes the thread back to how it was before quiesce_rcuhash_qsbr_enter(). */
QUIESCE_COLD void quiesce_rcuhash_qsbr_leave(enum rcuhash_entry how);

static inline enum rcuhash_entry rcuhash_enter(const struct quiesce_rcuhash *ht)
{
	enum rcuhash_entry how = RCUHASH_ENTRY_SECTION;

	if (QUIESCE_LIKELY(ht->reader == RCUHASH_READER_DEFAULT)) {
		quiesce_rcu_read_lock();
	} else if (ht->reader == RCUHASH_READER_QSBR) {
		if (QUIESCE_UNLIKELY(!quiesce_qsbr_thread_online_p()))
			how = quiesce_rcuhash_qsbr_enter();
		quiesce_qsbr_read_lock();
	} else if (ht->reader == RCUHASH_READER_MB) {
		quiesce_rcu_mb_read_lock();
	} else {
		ht->p.rcu->read_lock();
	}
	return how;
}

static inline void rcuhash_leave(const struct quiesce_rcuhash *ht, enum rcuhash_entry how)
{
	if (QUIESCE_LIKELY(ht->reader == RCUHASH_READER_DEFAULT)) {
		quiesce_rcu_read_unlock();
	} else if (ht->reader == RCUHASH_READER_QSBR) {
		quiesce_qsbr_read_unlock();
		if (QUIESCE_UNLIKELY(how != RCUHASH_ENTRY_SECTION))
			quiesce_rcuhash_qsbr_leave(how);
	} else if (ht->reader == RCUHASH_READER_MB) {
		quiesce_rcu_mb_read_unlock();
	} else {
		ht->p.rcu->read_unlock();
	}
}

/* Whether the caller is a reader of the table's RCU (its read-side checks). */
static inline bool rcuhash_read_ongoing(const struct quiesce_rcuhash *ht)
{
	if (QUIESCE_LIKELY(ht->reader == RCUHASH_READER_DEFAULT))
		return quiesce_rcu_read_ongoing();
	if (ht->reader == RCUHASH_READER_QSBR)
		return quiesce_qsbr_read_ongoing();
	if (ht->reader == RCUHASH_READER_MB)
		return quiesce_rcu_mb_read_ongoing();
	return ht->p.rcu->read_ongoing() != 0;
}

/* Aborts with a message naming what unless a reader of the table's RCU. */
static inline void rcuhash_check_reader(const struct quiesce_rcuhash *ht, const char *what)
{
	if (QUIESCE_UNLIKELY(!rcuhash_read_ongoing(ht)))
		quiesce_rcuhash_not_reader(what);
}

static inline struct rcuhash_stripe *rcuhash_stripe(struct quiesce_rcuhash *ht, uint64_t hash)
{
	return &ht->stripes[hash & (RCUHASH_STRIPES - 1)];
}

static inline void *rcuhash_obj(const struct quiesce_rcuhash *ht,
				const struct quiesce_rcuhash_node *node)
{
	return (char *)node - ht->p.node_offset;
}

/* The hash of the key of the object that holds node. */
uint64_t quiesce_rcuhash_node_hash(const struct quiesce_rcuhash *ht,
				   const struct quiesce_rcuhash_node *node);

/* fork() (rcuhash_fork.c): a table joins the live list at new(), leaves at destroy(). */
void quiesce_rcuhash_fork_track(struct quiesce_rcuhash *ht);
void quiesce_rcuhash_fork_untrack(struct quiesce_rcuhash *ht);
/* Waits until ht is no longer frozen for a fork(). */
void quiesce_rcuhash_wait_thaw(struct quiesce_rcuhash *ht);

/*
 * Takes m, a stripe lock or the resize_lock of ht; while a fork() is being
 * prepared, lets it go and waits for the fork first (rcuhash_fork.c).  The
 * flag is read under m: the preparing thread sets it before it takes and
 * releases m, so whoever takes m after that sees it.
 */
static inline void rcuhash_lock(struct quiesce_rcuhash *ht, pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	while (QUIESCE_UNLIKELY(QUIESCE_LOAD(&ht->frozen))) {
		pthread_mutex_unlock(m);
		quiesce_rcuhash_wait_thaw(ht);
		pthread_mutex_lock(m);
	}
}
/* The walks of ht the calling thread has open (rcuhash_walk.c). */
unsigned quiesce_rcuhash_own_walks(const struct quiesce_rcuhash *ht);

/* Resizing (rcuhash_resize.c). */
struct rcuhash_table *quiesce_rcuhash_table_alloc(const struct quiesce_rcuhash_alloc *alloc,
						 size_t buckets);
void quiesce_rcuhash_table_free(struct rcuhash_table *t);
/* Buckets for nelem elements: a power of two, at least nelem and the minimum. */
size_t quiesce_rcuhash_buckets_for(size_t nelem);
/*
 * The array that holds hash's bucket now, for an updater that holds the
 * hash's stripe and is inside a read-side critical section.
 */
struct rcuhash_table *quiesce_rcuhash_locked_table(struct quiesce_rcuhash *ht, uint64_t hash);
/*
 * After an insert (added) or a removal, in a read-side critical section:
 * moves a batch of buckets if a resize is in progress.  Otherwise, if the
 * stripe's count, then the table's, says a resize is due and no other
 * updater is allocating one, returns its bucket count, which the caller
 * passes to quiesce_rcuhash_start_resize() once out of the section; 0: none.
 */
size_t quiesce_rcuhash_after_update(struct quiesce_rcuhash *ht, const struct rcuhash_stripe *s,
				    bool added);
/*
 * After quiesce_rcuhash_after_update() returned buckets, outside the
 * table's read-side critical section (unless the caller holds one of its
 * own): allocates the array, then publishes it if that resize is still due.
 */
void quiesce_rcuhash_start_resize(struct quiesce_rcuhash *ht, size_t buckets);
/* Moves every bucket of the resize in progress, if any, until none is. */
void quiesce_rcuhash_finish_resize(struct quiesce_rcuhash *ht);

#endif
