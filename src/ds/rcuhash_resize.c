/*
 * rcuhash_resize.c - growing and shrinking the hash table without stopping
 * readers or holding up more than one lock stripe at a time.
 *
 * A resize has three steps (the ordering argument is in rcuhash.c):
 *   start:  allocate the new array, outside every lock and outside the
 *           table's read-side critical section; then, under resize_lock,
 *           publish it as the current array's future (release) if that
 *           resize is still due.  One resize at a time: none is published
 *           while the current array has a future, nor while a walk is in
 *           progress (walks count themselves under resize_lock).
 *   move:   updaters claim runs of old buckets of one stripe with a
 *           fetch-and-add and move each (shrinking, with the other old
 *           buckets of its new bucket: move_group()) under the stripe's
 *           lock, RCUHASH_MOVE_BATCH per update (run_length()), so a
 *           resize of n buckets is done after n/8 updates.  resize() and
 *           walk_start() claim every remaining bucket themselves.
 *   finish: whoever moves the last bucket (counted by an acq_rel
 *           fetch-and-add, so it sees every other mover's stores), or
 *           claims past the end and finds them all moved, makes the new
 *           array the table's (release, once, under resize_lock) and
 *           retires the old one with call_rcu() (the table's RCU's):
 *           nobody waits for the grace period.  A mover counts its
 *           buckets before it lets go of their stripe, so that fork(),
 *           which waits for every stripe lock to be let go
 *           (rcuhash_fork.c), finds the count equal to the buckets whose
 *           heads say MOVED.
 *
 * Why the allocation is outside.  malloc() of an array can take tens of
 * milliseconds: glibc first consolidates the arena's fast bins, and a
 * process that freed a million small objects (call_rcu() callbacks freeing
 * elements do) has that many chunks there; a large array may also fault in
 * pages.  Allocated under resize_lock, every updater whose update found
 * the resize due waited on the lock for that long (the bench's mix fell
 * from 2e7 to 2e4 operations/s); allocated in the section, every grace
 * period did.  So the updater that finds a resize due claims `allocating`
 * (an exchange: the others, finding it claimed, go on without waiting)
 * and allocates after leaving its section.  Publishing checks again, under
 * the lock, that the table still wants an array of that size: the table
 * may have changed meanwhile (another resize, a walk, more updates), and
 * an array no longer wanted is freed.
 *
 * The allocation also writes every page of the array once.  A large
 * array comes from mmap() with no page mapped, and the first access to
 * each page would otherwise be a move's load of a new bucket's head,
 * which maps the shared zero page, and its store right after, which
 * copies it: two faults a page, each under a stripe lock.  A fault costs
 * about 10 us on the virtual machines we measure on, where a mix of
 * lookups and updates on two CPUs made about twice the operations in the
 * 40 ms after the table outgrew 64K buckets once the array was written
 * first (docs/BENCHMARKS.md, "Resizes under updaters").  The moves write
 * every page anyway, so the array holds no more memory for it.
 *
 * Triggers: an insert that leaves its stripe holding more than 1/64 of the
 * buckets sums the stripes and, if the table holds more elements than
 * buckets, grows to the next power of two (about two buckets per element).
 * A removal that leaves its stripe below 1/256 of them sums the stripes
 * and, if the table holds fewer than a quarter as many elements as
 * buckets, shrinks to between two and four buckets per element.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "ds/rcuhash_internal.h"

int quiesce_test_busted_rcuhash;
void (*quiesce_test_rcuhash_alloc_hook)(void);
void (*quiesce_test_rcuhash_locked_hook)(void);
void (*quiesce_test_rcuhash_moved_hook)(void);

struct rcuhash_table *quiesce_rcuhash_table_alloc(const struct quiesce_rcuhash_alloc *alloc,
						 size_t buckets)
{
	struct rcuhash_table *t;
	size_t bytes;

	if (buckets > (SIZE_MAX - sizeof(*t)) / sizeof(t->buckets[0]))
		quiesce_die("rcuhash: %zu buckets do not fit in memory", buckets);
	bytes = sizeof(*t) + buckets * sizeof(t->buckets[0]);
	/* Zeroed: every head NULL, empty.  Large arrays come zeroed from mmap. */
	t = alloc ? alloc->calloc(alloc->state, 1, bytes) : calloc(1, bytes);
	if (!t)
		quiesce_die("rcuhash: out of memory for %zu buckets", buckets);
	t->mask = buckets - 1;
	t->alloc = alloc;
	return t;
}

void quiesce_rcuhash_table_free(struct rcuhash_table *t)
{
	if (t->alloc)
		t->alloc->free(t->alloc->state, t);
	else
		free(t);
}

size_t quiesce_rcuhash_buckets_for(size_t nelem)
{
	size_t n = QUIESCE_RCUHASH_MIN_BUCKETS;

	while (n < nelem && n <= SIZE_MAX / 2)
		n *= 2;
	return n;
}

struct rcuhash_table *quiesce_rcuhash_locked_table(struct quiesce_rcuhash *ht, uint64_t hash)
{
	struct rcuhash_table *t = quiesce_rcu_dereference(ht->tbl);

	/*
	 * MOVED was stored under the stripe lock we hold, after its mover
	 * read future: the lock orders both before these loads.
	 */
	while (QUIESCE_LOAD(&t->buckets[hash & t->mask]) == RCUHASH_MOVED)
		t = quiesce_rcu_dereference(t->future);
	return t;
}

static void free_table_rcu(struct quiesce_rcu_head *head)
{
	quiesce_rcuhash_table_free(quiesce_container_of(head, struct rcuhash_table, rcu));
}

/*
 * The busted control's arrays: poisoned at once so that a reader that
 * still uses one faults, and kept reachable (not leaked) for the run.
 */
#define BUSTED_KEEP 1024
static struct rcuhash_table *busted_kept[BUSTED_KEEP];
static unsigned busted_next;
static pthread_mutex_t busted_lock = PTHREAD_MUTEX_INITIALIZER;

static void retire_busted(struct rcuhash_table *t)
{
	size_t bytes = sizeof(*t) + (t->mask + 1) * sizeof(t->buckets[0]);
	const struct quiesce_rcuhash_alloc *alloc = t->alloc;

	/* 0x68 bytes: every head an aligned "node" at an address that faults. */
	memset(t, 0x68, bytes);
	t->alloc = alloc;	/* for the free below, which no reader reads */
	pthread_mutex_lock(&busted_lock);
	if (busted_kept[busted_next])
		quiesce_rcuhash_table_free(busted_kept[busted_next]);
	busted_kept[busted_next] = t;
	busted_next = (busted_next + 1) % BUSTED_KEEP;
	pthread_mutex_unlock(&busted_lock);
}

/*
 * The busted control's move: n leaves the old chain before it is in the
 * new one, and a yield widens the gap, in which a lookup finds n nowhere.
 */
static bool move_unlink_first(struct quiesce_rcuhash_node **link,
			      struct quiesce_rcuhash_node **old)
{
	if (QUIESCE_LIKELY(QUIESCE_LOAD(&quiesce_test_busted_rcuhash) !=
			   RCUHASH_BUSTED_UNLINK_FIRST))
		return false;
	quiesce_rcu_assign_pointer(*link, rcuhash_marker(old));
	sched_yield();
	return true;
}

/* The moves of old bucket b into f; the caller holds b's stripe. */
static void move_bucket(struct quiesce_rcuhash *ht, struct rcuhash_table *t, size_t b,
			struct rcuhash_table *f)
{
	struct quiesce_rcuhash_node **old = &t->buckets[b];

	for (;;) {
		struct quiesce_rcuhash_node **link = old, *n = QUIESCE_LOAD(old), *next, **nb, *head;
		bool busted;

		if (!rcuhash_is_node(n))
			break;
		while (rcuhash_is_node(next = QUIESCE_LOAD(&n->next))) {
			link = &n->next;
			n = next;
		}
		busted = move_unlink_first(link, old);
		nb = &f->buckets[quiesce_rcuhash_node_hash(ht, n) & f->mask];
		head = QUIESCE_LOAD(nb);
		/*
		 * (m1): a reader standing on n now walks into the new chain.
		 * Release: a reader that follows this link reaches head, which
		 * was published to us (under this stripe's lock) rather than to
		 * it, so the link republishes head, as unlink_at() does.
		 */
		__atomic_store_n(&n->next, rcuhash_is_node(head) ? head : rcuhash_marker(nb),
				 __ATOMIC_RELEASE);
		/* (m2) release: n->next before n, in the new chain. */
		quiesce_rcu_assign_pointer(*nb, n);
		/*
		 * (m3) release: n is in the new chain before it leaves the
		 * old; pairs with the acquire fence of a lookup that reads
		 * this marker and then looks in the future array.
		 */
		if (!busted)
			quiesce_rcu_assign_pointer(*link, rcuhash_marker(old));
	}
	/* Release, as (m3), for writers (who hold this lock) and readers. */
	quiesce_rcu_assign_pointer(*old, RCUHASH_MOVED);
}

/*
 * Moves old bucket b of t into f, and when f is smaller every other old
 * bucket that shares b's new bucket: all of them lie in b's stripe, which
 * the caller holds.  Returns the buckets moved.  The old buckets of new
 * bucket j are j + i * F (F: f's bucket count) for i below R = t's count
 * / F, and in bit-reversed order (rcuhash.c, Order) bucket j + i * F comes
 * at place rev(i) among them: they move from the last place down, so that
 * each pushes its nodes on top of those of every later interval and the
 * new chain comes out sorted.
 */
static size_t move_group(struct quiesce_rcuhash *ht, struct rcuhash_table *t, size_t b,
			 struct rcuhash_table *f)
{
	size_t fbuckets = f->mask + 1, r, j = b & f->mask;
	unsigned bits;

	if (f->mask >= t->mask) {
		move_bucket(ht, t, b, f);
		return 1;
	}
	r = (t->mask + 1) / fbuckets;	/* 2 or more, a power of two */
	bits = (unsigned)__builtin_ctzll(r);
	for (size_t place = r; place-- > 0;) {
		size_t at = QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_rcuhash) ==
					     RCUHASH_BUSTED_SHRINK_ORDER) ? r - 1 - place : place;

		/* rev(at) on bits bits: the old bucket at that place. */
		move_bucket(ht, t, j + (size_t)(rcuhash_rev64(at) >> (64 - bits)) * fbuckets, f);
	}
	return r;
}

/*
 * Finishes t's resize if every bucket of t has moved to f and nobody has
 * yet: the switch is made once, under resize_lock.
 */
static void try_finish(struct quiesce_rcuhash *ht, struct rcuhash_table *t,
		       struct rcuhash_table *f)
{
	bool switched = false;

	/*
	 * Acquire: reads the last of the movers' acq_rel increments, which
	 * continue one release sequence, so every move is seen before the
	 * switch publishes f.
	 */
	if (__atomic_load_n(&t->moved, __ATOMIC_ACQUIRE) != t->mask + 1)
		return;
	rcuhash_lock(ht, &ht->resize_lock);
	if (QUIESCE_LOAD(&ht->tbl) == t) {
		/* Release: the moves before the switch. */
		quiesce_rcu_assign_pointer(ht->tbl, f);
		switched = true;
	}
	pthread_mutex_unlock(&ht->resize_lock);
	if (!switched)
		return;
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_rcuhash) ==
			     RCUHASH_BUSTED_FREE_EARLY))
		retire_busted(t);
	else if (ht->p.rcu)
		ht->p.rcu->call_rcu(&t->rcu, free_table_rcu);
	else
		quiesce_call_rcu(&t->rcu, free_table_rcu);
}

/*
 * The buckets of t handed out by one claim: a run of one stripe's buckets,
 * RCUHASH_MOVE_BATCH of them (fewer in an array of fewer than that many a
 * stripe).  Claims count buckets, a run at a time, so a claim number c is
 * a multiple of the run's length r; it names stripe s = (c / r) mod
 * STRIPES, and that stripe's r buckets s + STRIPES * k from k = r * (c /
 * (STRIPES * r)) on.  The first runs take every stripe's first r
 * buckets, the next runs every stripe's next r, and each bucket has one
 * claim number below the bucket count.  A run moves under one lock
 * taking, with one claim and one count.  Claimed a bucket at a time, the
 * stripe's lock, the claim counter and the moved counter each crossed
 * between the movers' CPUs for every bucket, and a mix on two CPUs made
 * half to three quarters of the operations while a resize ran
 * (docs/BENCHMARKS.md, "Resizes under updaters").
 */
static size_t run_length(const struct rcuhash_table *t)
{
	size_t per_stripe = (t->mask + 1) / RCUHASH_STRIPES;

	return per_stripe < RCUHASH_MOVE_BATCH ? per_stripe : RCUHASH_MOVE_BATCH;
}

/*
 * Moves up to max buckets of t into f, a claimed run at a time; in a
 * read-side critical section.  A bucket claimed after it moved (with
 * another of its group, or a second time: claims start over in the child
 * of fork(), rcuhash_fork.c) is found MOVED and not counted again.
 */
static void move_batch(struct quiesce_rcuhash *ht, struct rcuhash_table *t,
		       struct rcuhash_table *f, size_t max)
{
	const size_t run = run_length(t);

	for (size_t done = 0; done < max; done += run) {
		size_t c = __atomic_fetch_add(&t->claimed, run, __ATOMIC_RELAXED);
		size_t stripe = c / run % RCUHASH_STRIPES;
		size_t first = stripe + RCUHASH_STRIPES * (c / (RCUHASH_STRIPES * run) * run);
		struct rcuhash_stripe *s = &ht->stripes[stripe];
		void (*hook)(void);
		size_t moved = 0;
		bool last;

		if (c > t->mask) {
			try_finish(ht, t, f);
			return;
		}
		rcuhash_lock(ht, &s->lock);
		for (size_t i = 0; i < run; i++) {
			size_t b = first + i * RCUHASH_STRIPES;

			if (QUIESCE_LOAD(&t->buckets[b]) != RCUHASH_MOVED)
				moved += move_group(ht, t, b, f);
		}
		/*
		 * Counted under the stripe lock, with the moves (see finish at
		 * the top).  acq_rel: the last mover acquires every other
		 * mover's release here, before it publishes f as the table.
		 */
		last = moved && __atomic_add_fetch(&t->moved, moved, __ATOMIC_ACQ_REL) == t->mask + 1;
		pthread_mutex_unlock(&s->lock);
		hook = QUIESCE_LOAD(&quiesce_test_rcuhash_moved_hook);
		if (QUIESCE_UNLIKELY(hook != NULL) && moved)
			hook();
		if (last) {
			try_finish(ht, t, f);
			return;
		}
	}
}

/*
 * The bucket count the table should resize t to (see the triggers at the
 * top), or 0 when it holds between one and four buckets per element.
 */
static size_t resize_target(const struct quiesce_rcuhash *ht, const struct rcuhash_table *t)
{
	size_t buckets = t->mask + 1, n = quiesce_rcuhash_count(ht), want;

	if (n > buckets)
		want = quiesce_rcuhash_buckets_for(n);	/* one bucket per element or more */
	else if (n * 4 < buckets)
		want = quiesce_rcuhash_buckets_for(2 * n);	/* two or more */
	else
		return 0;
	if (want < ht->min_buckets)
		want = ht->min_buckets;
	return want != buckets ? want : 0;
}

/* Bucket heads a page holds, at the smallest page size (4 KiB). */
#define HEADS_A_PAGE (4096 / sizeof(struct quiesce_rcuhash_node *))

/*
 * A resize's array, allocated where the caller says (see the top), with
 * every page of it written once.  Not published yet: plain stores.
 */
static struct rcuhash_table *alloc_array(struct quiesce_rcuhash *ht, size_t buckets)
{
	struct rcuhash_table *f = quiesce_rcuhash_table_alloc(ht->p.alloc, buckets);
	struct quiesce_rcuhash_node *volatile *heads = f->buckets;
	void (*hook)(void) = QUIESCE_LOAD(&quiesce_test_rcuhash_alloc_hook);

	/* Heads HEADS_A_PAGE apart, and the last: one in every page. */
	for (size_t i = 0; i < buckets; i += HEADS_A_PAGE)
		heads[i] = NULL;
	heads[buckets - 1] = NULL;
	if (QUIESCE_UNLIKELY(hook != NULL))
		hook();
	return f;
}

/*
 * Under resize_lock, in a read-side critical section: publishes f as the
 * future of the table's array t and returns t, unless t already has one, a
 * walk is in progress, or t is already f's size (automatic: unless the
 * table no longer wants a resize to f's size).  Returns NULL then.
 */
static struct rcuhash_table *publish_locked(struct quiesce_rcuhash *ht, struct rcuhash_table *f,
					    bool automatic)
{
	struct rcuhash_table *t = quiesce_rcu_dereference(ht->tbl);

	if (ht->walkers || QUIESCE_LOAD(&t->future))
		return NULL;
	if (automatic ? resize_target(ht, t) != f->mask + 1 : t->mask == f->mask)
		return NULL;
	/* Release: the zeroed array before readers can follow future. */
	quiesce_rcu_assign_pointer(t->future, f);
	return t;
}

static struct rcuhash_table *publish(struct quiesce_rcuhash *ht, struct rcuhash_table *f,
				     bool automatic)
{
	struct rcuhash_table *t;

	rcuhash_lock(ht, &ht->resize_lock);
	t = publish_locked(ht, f, automatic);
	pthread_mutex_unlock(&ht->resize_lock);
	return t;
}

/*
 * The busted control, as the table first did: every updater that finds the
 * resize due allocates under resize_lock, in its read-side critical section.
 */
static void start_locked_busted(struct quiesce_rcuhash *ht, size_t buckets)
{
	struct rcuhash_table *f, *t;

	rcuhash_lock(ht, &ht->resize_lock);
	f = alloc_array(ht, buckets);
	t = publish_locked(ht, f, true);
	pthread_mutex_unlock(&ht->resize_lock);
	if (t)
		move_batch(ht, t, f, RCUHASH_MOVE_BATCH);
	else
		quiesce_rcuhash_table_free(f);
}

size_t quiesce_rcuhash_after_update(struct quiesce_rcuhash *ht, const struct rcuhash_stripe *s,
				    bool added)
{
	struct rcuhash_table *t = quiesce_rcu_dereference(ht->tbl);
	struct rcuhash_table *f = quiesce_rcu_dereference(t->future);
	size_t buckets = t->mask + 1, estimate, want;

	if (f) {
		move_batch(ht, t, f, RCUHASH_MOVE_BATCH);
		return 0;
	}
	if (ht->p.flags & QUIESCE_RCUHASH_NO_AUTO_RESIZE)
		return 0;
	estimate = QUIESCE_LOAD(&s->count) * RCUHASH_STRIPES;
	if (added ? estimate <= buckets : estimate * 4 >= buckets || buckets <= ht->min_buckets)
		return 0;
	/* Another updater is allocating: it publishes, or finds none due. */
	if (QUIESCE_LOAD(&ht->allocating))
		return 0;
	want = resize_target(ht, t);
	if (!want)
		return 0;
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_rcuhash) ==
			     RCUHASH_BUSTED_ALLOC_LOCKED)) {
		start_locked_busted(ht, want);
		return 0;
	}
	/*
	 * Relaxed: the flag only keeps two updaters from allocating at once;
	 * what is published is decided under resize_lock (publish_locked()).
	 */
	if (__atomic_exchange_n(&ht->allocating, true, __ATOMIC_RELAXED))
		return 0;
	return want;
}

void quiesce_rcuhash_start_resize(struct quiesce_rcuhash *ht, size_t buckets)
{
	struct rcuhash_table *f = alloc_array(ht, buckets), *t;
	enum rcuhash_entry entry;

	entry = rcuhash_enter(ht);
	t = publish(ht, f, true);
	QUIESCE_STORE(&ht->allocating, false);
	if (t)
		move_batch(ht, t, f, RCUHASH_MOVE_BATCH);
	rcuhash_leave(ht, entry);
	if (!t)
		quiesce_rcuhash_table_free(f);
}

void quiesce_rcuhash_finish_resize(struct quiesce_rcuhash *ht)
{
	for (;;) {
		struct rcuhash_table *t = quiesce_rcu_dereference(ht->tbl);
		struct rcuhash_table *f = quiesce_rcu_dereference(t->future);

		if (!f)
			return;
		move_batch(ht, t, f, SIZE_MAX);
		/*
		 * Every bucket is claimed; the switch waits for movers that
		 * claimed one before us and still hold its stripe for a few
		 * moves.
		 */
		if (QUIESCE_LOAD(&ht->tbl) == t)
			sched_yield();
	}
}

bool quiesce_rcuhash_resize(struct quiesce_rcuhash *ht, size_t nelem)
{
	for (;;) {
		struct rcuhash_table *f, *t;
		enum rcuhash_entry entry;
		size_t want, buckets;
		bool walking;

		entry = rcuhash_enter(ht);
		quiesce_rcuhash_finish_resize(ht);
		buckets = quiesce_rcu_dereference(ht->tbl)->mask + 1;
		rcuhash_leave(ht, entry);
		want = quiesce_rcuhash_buckets_for(nelem ? nelem : quiesce_rcuhash_count(ht));
		if (want == buckets)
			return true;
		/* Outside the section and the lock, as an updater's (see the top). */
		f = alloc_array(ht, want);
		entry = rcuhash_enter(ht);
		t = publish(ht, f, false);
		if (t)
			quiesce_rcuhash_finish_resize(ht);
		rcuhash_leave(ht, entry);
		if (t)
			return true;
		quiesce_rcuhash_table_free(f);
		rcuhash_lock(ht, &ht->resize_lock);
		walking = ht->walkers != 0;
		pthread_mutex_unlock(&ht->resize_lock);
		if (walking)
			return false;
		/* Another resize started first: finish it, then look again. */
	}
}

size_t quiesce_rcuhash_buckets(struct quiesce_rcuhash *ht)
{
	struct rcuhash_table *t, *f;
	enum rcuhash_entry entry;
	size_t n;

	entry = rcuhash_enter(ht);
	t = quiesce_rcu_dereference(ht->tbl);
	f = quiesce_rcu_dereference(t->future);
	n = (f ? f : t)->mask + 1;
	rcuhash_leave(ht, entry);
	return n;
}
