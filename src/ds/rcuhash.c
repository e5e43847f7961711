/*
 * rcuhash.c - a hash table whose readers take no lock: chains of intrusive
 * nodes under RCU, updaters serialized per lock stripe, and resizes that
 * move one bucket at a time (rcuhash_resize.c), after the relativistic hash
 * tables of Triplett, McKenney and Walpole (USENIX ATC 2011) and the Linux
 * kernel's rhashtable.
 *
 * Layout.  An array of bucket heads; each chain ends in its bucket's end
 * marker (rcuhash_internal.h).  Every change to a chain is made under the
 * stripe lock of its bucket, and a stripe covers the same buckets (index
 * mod 64) in every array, so a resize that moves old bucket b into the new
 * array and an update of any key of b serialize on one lock.
 *
 * A resize publishes the new array as the old one's future, then moves old
 * buckets one at a time.  Moving bucket b takes its chain's last node N,
 * and:
 *   (m1) sets N->next to the head of N's new bucket (or its end marker)
 *        (release: a reader that follows it reaches that head);
 *   (m2) publishes N as that bucket's head (release);
 *   (m3) stores b's end marker where N was linked in the old chain
 *        (release);
 * and again until b is empty, then stores RCUHASH_MOVED in b's head
 * (release).  When the new array is smaller, the old buckets that share a
 * new bucket (all in one stripe) move together, under that stripe's lock,
 * in the order that keeps its chain sorted (see Order).  Once every bucket
 * has moved, the new array becomes the table's (release) and the old one
 * is freed by call_rcu().  An updater under the stripe lock finds its
 * key's bucket by following future past MOVED heads, so a key's nodes are
 * always in one bucket of one array, and insert's duplicate check and
 * remove_key's search look at one chain.
 *
 * Readers.  lookup(k) walks k's chain in the array it loaded from ht->tbl,
 * and when the walk ends it looks at how: at this bucket's own marker,
 * NULL or MOVED is a clean end; any other marker means it was carried into
 * another chain by a node moved under it (m1), and it walks this bucket
 * again.  After a clean end it issues an acquire fence and, if the array
 * has a future, walks k's bucket there in the same way.
 *
 * Why a node X present throughout lookup(k) is found.  While X stays in
 * the chain the walk started on, the walk reaches it: an insert adds at
 * the head; a removal or replacement of another node links around it with
 * the old node's next intact (a reader standing on a removed node still
 * goes forward; the node is not reused before a grace period); a node moved
 * ahead of X cannot be, as only last nodes move.  If X moves while the walk
 * is under way, either the walk reaches X first, or it reads (m3) of X or
 * of a node after X, or MOVED: a clean end.  The store it read is a
 * release that follows (m2) of X, and the fence after the walk is the
 * acquire that pairs with it, so the walk of the future array sees X
 * published there, and future itself (published before any move, under
 * resize_lock, and read by the mover) is seen non-NULL.  The same argument
 * holds in the future array if X moves on again.  A walk that restarts
 * does so because a move happened; moves are finite, so lookups end.
 *
 * Order.  In a caller-hashed table (QUIESCE_RCUHASH_KEY_IS_HASH: a node
 * holds its hash) every chain is sorted by rev(hash), the hash with its 64
 * bits reversed, and a lookup stops at the first node above its key in
 * that order: a miss walks half a chain, not all of it, as in liburcu's
 * split-ordered list, which programs that give cds_lfht few buckets and
 * many keys rely on.  In rev() order the buckets of an array are
 * consecutive intervals (bucket i of 2^k holds the values whose top k bits
 * are rev(i)), so the nodes that a move sends to one new bucket are
 * consecutive in the old chain.  The invariant (S): whenever a node's next
 * is a node, that node's rev(hash) is not below its own, in the table or
 * out of it.  Each store keeps it:
 *   - an insert links the new node after the nodes below it and before the
 *     others (so first among those of its hash: locked_run()), or add()'s
 *     (link_last()) after those of its hash too, before the nodes above;
 *   - a removal links the node's predecessor to its next, which is not
 *     below it; a replacement has the same hash;
 *   - (m1) links N to the head of its new chain, which holds only nodes
 *     above N: growing, the nodes of N's old chain that followed N (last
 *     nodes move first); shrinking, those and the nodes of the old buckets
 *     whose intervals lie above N's, which moved before N's bucket (see
 *     the first paragraph; rcuhash_resize.c, move_group()).
 * So every path a reader follows, through removed and moved nodes alike,
 * climbs in rev() order.  Why stopping early loses no node X present
 * throughout the lookup: while X stays in the chain the walk started on,
 * the path to it (above) holds only nodes not above X, by (S).  If X
 * moves, the walk reaches X, or a clean end (then X is in the future), or
 * is carried by a node N not above X into N's new chain: X's, where X
 * follows N (X moved first), or a chain whose whole interval lies below
 * X's, which ends in a foreign marker and sends the walk back.  Either
 * way the walk meets X before any node above X.
 *
 * Readers see a node's contents because every store that links a node into
 * a chain is a release (rcu_assign_pointer) and readers load chain links
 * with rcu_dereference(), whose address dependency orders the loads
 * through the pointer.  Readers never hold a freed array: arrays are
 * retired with call_rcu() after ht->tbl stopped pointing to them, and an
 * array's future is retired after the array itself.  Nor do updaters,
 * which hold a read-side critical section of their own while they use an
 * array, whatever section the caller holds or not (for QSBR, by coming
 * online: rcuhash_internal.h, rcuhash_enter()).
 *
 * Counting.  Each stripe counts its elements under its lock; the grow and
 * shrink checks look at the updater's own stripe first (64 times its count
 * estimates the table's) and sum all 64 only when it says a resize may be
 * due.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "ds/rcuhash_internal.h"

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

#define HASH_SEED 0x9e3779b97f4a7c15ULL

/* hash_bytes() of an 8-byte key whose bytes are w. */
static inline uint64_t hash_u64(uint64_t w)
{
	return mix64((HASH_SEED ^ 8) ^ w);
}

uint64_t quiesce_rcuhash_hash_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = HASH_SEED ^ len, w;

	if (len == 8) {
		memcpy(&w, p, 8);
		return hash_u64(w);
	}
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = mix64(h ^ w);
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = mix64(h ^ w);
	}
	return h;
}

static inline uint64_t key_hash(const struct quiesce_rcuhash *ht, const void *key)
{
	uint64_t h;

	if (ht->p.flags & QUIESCE_RCUHASH_KEY_IS_HASH) {
		memcpy(&h, key, sizeof(h));
		return h;
	}
	if (ht->p.key_len)
		return quiesce_rcuhash_hash_bytes(key, ht->p.key_len);
	return ht->p.hash(key);
}

static inline bool key_matches(const struct quiesce_rcuhash *ht, const void *key,
			       const struct quiesce_rcuhash_node *node)
{
	const char *obj = rcuhash_obj(ht, node);

	if (ht->p.key_len == 8) {
		uint64_t a, b;

		memcpy(&a, key, 8);
		memcpy(&b, obj + ht->p.key_offset, 8);
		return a == b;
	}
	if (ht->p.key_len)
		return memcmp(obj + ht->p.key_offset, key, ht->p.key_len) == 0;
	return ht->p.key_equal(key, obj);
}

static inline const void *node_key(const struct quiesce_rcuhash *ht,
				   const struct quiesce_rcuhash_node *node)
{
	return (const char *)rcuhash_obj(ht, node) + ht->p.key_offset;
}

uint64_t quiesce_rcuhash_node_hash(const struct quiesce_rcuhash *ht,
				   const struct quiesce_rcuhash_node *node)
{
	return key_hash(ht, node_key(ht, node));
}

/*
 * At most three quarters full at nelem_hint elements (the kernel
 * rhashtable's rule), and at least min_size buckets.
 */
static size_t initial_buckets(const struct quiesce_rcuhash_params *params)
{
	size_t hint = params->nelem_hint;
	size_t for_hint = quiesce_rcuhash_buckets_for(hint > SIZE_MAX / 4 * 3 ? SIZE_MAX
									       : hint + hint / 3);
	size_t for_min = quiesce_rcuhash_buckets_for(params->min_size);

	return for_hint > for_min ? for_hint : for_min;
}

struct quiesce_rcuhash *quiesce_rcuhash_new(const struct quiesce_rcuhash_params *params)
{
	struct quiesce_rcuhash *ht;

	if (!params->key_len && (!params->hash || !params->key_equal))
		quiesce_die("rcuhash_new(): key_len is 0 but hash or key_equal is missing");
	if ((params->flags & QUIESCE_RCUHASH_SEQ) && params->seq_offset % sizeof(uint64_t))
		quiesce_die("rcuhash_new(): seq_offset %zu does not align a uint64_t",
			    params->seq_offset);
	if ((params->flags & QUIESCE_RCUHASH_KEY_IS_HASH) && params->key_len != sizeof(uint64_t))
		quiesce_die("rcuhash_new(): QUIESCE_RCUHASH_KEY_IS_HASH needs a key_len of 8, not %zu",
			    params->key_len);
	/* Every one is called, some only much later (a resize's retirement, destroy()). */
	if (params->rcu) {
		const struct quiesce_rcuhash_rcu *r = params->rcu;
		const char *lacks = !r->read_lock ? "read_lock" : !r->read_unlock ? "read_unlock"
				  : !r->read_ongoing ? "read_ongoing" : !r->call_rcu ? "call_rcu" : NULL;

		if (lacks)
			quiesce_die("rcuhash_new(): params.rcu lacks %s: the table calls all four",
				    lacks);
	}
	if (params->alloc) {
		const struct quiesce_rcuhash_alloc *a = params->alloc;
		const char *lacks = !a->calloc ? "calloc" : !a->aligned_alloc ? "aligned_alloc"
				  : !a->free ? "free" : NULL;

		if (lacks)
			quiesce_die("rcuhash_new(): params.alloc lacks %s: the table calls all three",
				    lacks);
	}
	if (params->alloc)
		ht = params->alloc->aligned_alloc(params->alloc->state, QUIESCE_CACHELINE,
						  sizeof(*ht));
	else if (posix_memalign((void **)&ht, QUIESCE_CACHELINE, sizeof(*ht)))
		ht = NULL;
	if (!ht)
		quiesce_die("rcuhash_new(): out of memory");
	memset(ht, 0, sizeof(*ht));
	ht->p = *params;
	ht->reader = quiesce_rcuhash_reader_of(params->rcu);
	ht->min_buckets = initial_buckets(params);
	pthread_mutex_init(&ht->resize_lock, NULL);
	for (int i = 0; i < RCUHASH_STRIPES; i++) {
		pthread_mutex_init(&ht->stripes[i].lock, NULL);
		ht->stripes[i].seq = RCUHASH_SEQ_FIRST;
		ht->stripes[i].seq_up = RCUHASH_SEQ_FIRST + 1;
	}
	ht->tbl = quiesce_rcuhash_table_alloc(params->alloc, ht->min_buckets);
	quiesce_rcuhash_fork_track(ht);
	return ht;
}

static void free_array(struct rcuhash_table *t,
		       void (*free_node)(struct quiesce_rcuhash_node *node, void *arg), void *arg)
{
	for (size_t b = 0; b <= t->mask; b++) {
		struct quiesce_rcuhash_node *p = t->buckets[b], *next;

		for (; rcuhash_is_node(p); p = next) {
			next = p->next;	/* free_node() may free p */
			free_node(p, arg);
		}
	}
	quiesce_rcuhash_table_free(t);
}

void quiesce_rcuhash_destroy(struct quiesce_rcuhash *ht,
			     void (*free_node)(struct quiesce_rcuhash_node *node, void *arg), void *arg)
{
	struct rcuhash_table *t = ht->tbl, *f = t->future;
	size_t n = quiesce_rcuhash_count(ht);

	if (ht->walkers)
		quiesce_die("rcuhash_destroy() called while a walk of the table is in progress");
	if (n && !free_node)
		quiesce_die("rcuhash_destroy() called on a table that is not empty (%zu elements): "
			    "remove them first, or pass a function that frees each", n);
	quiesce_rcuhash_fork_untrack(ht);
	/* A resize stops where it is: each node is in exactly one of the two. */
	if (f)
		free_array(f, free_node, arg);
	free_array(t, free_node, arg);
	for (int i = 0; i < RCUHASH_STRIPES; i++)
		pthread_mutex_destroy(&ht->stripes[i].lock);
	pthread_mutex_destroy(&ht->resize_lock);
	if (ht->p.alloc)
		ht->p.alloc->free(ht->p.alloc->state, ht);
	else
		free(ht);
}

void quiesce_rcuhash_not_reader(const char *what)
{
	quiesce_die("%s called outside an RCU read-side critical section", what);
}

/*
 * lookup()'s walk.  Inlined twice: with u64 (an 8-byte key, compared as one
 * word held in a register) and without (any key, compared by key_matches()).
 * The 8-byte copy is the common case and the one worth its own code: the
 * walk is bound by cache misses, and the fewer instructions each lookup
 * issues, the more lookups the CPU keeps in flight at once (the generic
 * walk alone ran 1.3x slower at 64K keys and 1.6x at 1M; docs/BENCHMARKS.md).
 * sorted (with u64, the key being the hash): the chains are, and the walk
 * ends at the first node above the key (see Order).
 */
static inline __attribute__((always_inline)) struct quiesce_rcuhash_node *
lookup_walk(struct quiesce_rcuhash *ht, const void *key, uint64_t word, uint64_t hash, bool u64,
	    bool sorted)
{
	struct rcuhash_table *t = quiesce_rcu_dereference(ht->tbl);
	/* From a node to its object's key. */
	ptrdiff_t key_at = (ptrdiff_t)ht->p.key_offset - (ptrdiff_t)ht->p.node_offset;

	do {
		struct quiesce_rcuhash_node **bucket = &t->buckets[hash & t->mask], *p;

restart:
		for (p = quiesce_rcu_dereference(*bucket); rcuhash_is_node(p);
		     p = quiesce_rcu_dereference(p->next)) {
			if (u64) {
				uint64_t k;

				memcpy(&k, (const char *)p + key_at, sizeof(k));
				if (k == word)
					return p;
				if (sorted && rcuhash_rev_above(k, word))
					return NULL;
			} else if (key_matches(ht, key, p)) {
				return p;
			}
		}
		/* Carried into another chain by a moved node: this one again. */
		if (QUIESCE_UNLIKELY(p != NULL && p != RCUHASH_MOVED && p != rcuhash_marker(bucket)))
			goto restart;
		/*
		 * Acquire: pairs with the release of the unlink (m3) or of
		 * MOVED that ended the walk, so that the future array and the
		 * nodes moved into it are seen.
		 */
		quiesce_fence_acquire();
		t = quiesce_rcu_dereference(t->future);
	} while (QUIESCE_UNLIKELY(t != NULL));
	return NULL;
}

/*
 * Not inlined into lookup(), so that the 8-byte walk does not save the
 * registers the generic one needs.
 */
static __attribute__((noinline)) struct quiesce_rcuhash_node *
lookup_u64(struct quiesce_rcuhash *ht, uint64_t word, uint64_t hash)
{
	return lookup_walk(ht, NULL, word, hash, true, false);
}

/* A caller-hashed table's: the key is the hash. */
static __attribute__((noinline)) struct quiesce_rcuhash_node *
lookup_sorted(struct quiesce_rcuhash *ht, uint64_t hash)
{
	return lookup_walk(ht, NULL, hash, hash, true, true);
}

static __attribute__((noinline)) struct quiesce_rcuhash_node *
lookup_any(struct quiesce_rcuhash *ht, const void *key)
{
	return lookup_walk(ht, key, 0, key_hash(ht, key), false, false);
}

/* Each kind of key walks in its own function, which this one tail-calls. */
struct quiesce_rcuhash_node *quiesce_rcuhash_lookup(struct quiesce_rcuhash *ht, const void *key)
{
	rcuhash_check_reader(ht, "rcuhash_lookup()");
	if (QUIESCE_LIKELY(ht->p.key_len == sizeof(uint64_t))) {
		uint64_t word;

		memcpy(&word, key, sizeof(word));
		if (rcuhash_sorted(ht))
			return lookup_sorted(ht, word);
		return lookup_u64(ht, word, hash_u64(word));
	}
	return lookup_any(ht, key);
}

/*
 * The searches under the stripe lock, which orders their loads after every
 * store to the chain.  Each starts at the run of its hash in the chain:
 * where a new node of that hash goes, and the first of that hash's nodes.
 * In a sorted chain (see Order) that is before the first node not below
 * the hash, and a search ends at the first node of another hash; in any
 * other chain it is the bucket's head, and a search looks at every node.
 */
static struct quiesce_rcuhash_node **locked_run(struct quiesce_rcuhash *ht,
						struct quiesce_rcuhash_node **bucket,
						uint64_t hash)
{
	struct quiesce_rcuhash_node **link = bucket, *p;

	if (!rcuhash_sorted(ht))
		return bucket;
	for (p = QUIESCE_LOAD(link);
	     rcuhash_is_node(p) && rcuhash_rev_above(hash, quiesce_rcuhash_node_hash(ht, p));
	     link = &p->next, p = QUIESCE_LOAD(link))
		;
	return link;
}

/* Whether a search for hash that reached p, from the run on, is over. */
static inline bool past_run(const struct quiesce_rcuhash *ht, const struct quiesce_rcuhash_node *p,
			    uint64_t hash)
{
	return !rcuhash_is_node(p) || (rcuhash_sorted(ht) && quiesce_rcuhash_node_hash(ht, p) != hash);
}

/*
 * The order word of a QUIESCE_RCUHASH_SEQ table (rcuhash_ordered.c): a
 * number, unique among the nodes of one stripe, shifted left by one, and
 * QUIESCE_RCUHASH_SEQ_REMOVED once the node has left the table.  Written
 * under the stripe lock; read by readers without it (relaxed: readers only
 * compare the numbers, which never change while a node is in the table).
 * Numbers count down from RCUHASH_SEQ_FIRST: a node inserted later (first
 * among the nodes of its hash in its chain) has a smaller one, so the
 * nodes of one hash lie in a chain in increasing number order, an order
 * moves and replacements keep (rcuhash_ordered.c uses it).  Counting down
 * from 2^62 never reaches 0.  add() in a sorted table is the exception: it
 * puts a node last among those of its hash (liburcu's cds_lfht_add() keeps
 * duplicates in the order added), with a number counting up from
 * RCUHASH_SEQ_FIRST + 1, above every number of the stripe, so the order
 * holds; counting up to 2^63 (the word's top) takes 2^62 adds.
 */
static inline uint64_t *seq_word(const struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node)
{
	return (uint64_t *)((char *)rcuhash_obj(ht, node) + ht->p.seq_offset);
}

/* Under the stripe lock: a new node's number, the stripe's next. */
static inline void seq_assign(struct quiesce_rcuhash *ht, struct rcuhash_stripe *s,
			      struct quiesce_rcuhash_node *node)
{
	if (ht->p.flags & QUIESCE_RCUHASH_SEQ)
		QUIESCE_STORE(seq_word(ht, node), s->seq-- << 1);
}

/* Under the stripe lock: node has left the table (replaced by repl, if any). */
static inline void seq_retire(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node,
			      struct quiesce_rcuhash_node *repl)
{
	uint64_t seq;

	if (!(ht->p.flags & QUIESCE_RCUHASH_SEQ))
		return;
	seq = QUIESCE_LOAD(seq_word(ht, node));
	if (repl)
		QUIESCE_STORE(seq_word(ht, repl), seq);
	QUIESCE_STORE(seq_word(ht, node), seq | QUIESCE_RCUHASH_SEQ_REMOVED);
}

/*
 * The common frame of an update: the key's stripe locked, its bucket and
 * the run of its hash found, inside a read-side critical section (the
 * array may be retired under us otherwise), entered as entry says.
 */
struct locked_bucket {
	struct rcuhash_stripe *stripe;
	struct quiesce_rcuhash_node **bucket, **run;
	uint64_t hash;
	enum rcuhash_entry entry;
};

static struct locked_bucket lock_bucket(struct quiesce_rcuhash *ht, uint64_t hash)
{
	struct locked_bucket lb = { .stripe = rcuhash_stripe(ht, hash), .hash = hash };
	void (*hook)(void);
	struct rcuhash_table *t;

	lb.entry = rcuhash_enter(ht);
	rcuhash_lock(ht, &lb.stripe->lock);
	hook = QUIESCE_LOAD(&quiesce_test_rcuhash_locked_hook);
	if (QUIESCE_UNLIKELY(hook != NULL))
		hook();
	t = quiesce_rcuhash_locked_table(ht, hash);
	lb.bucket = &t->buckets[hash & t->mask];
	lb.run = locked_run(ht, lb.bucket, hash);
	return lb;
}

static void unlock_bucket(struct quiesce_rcuhash *ht, struct locked_bucket *lb, int delta)
{
	size_t resize_to = 0;

	if (delta)
		QUIESCE_STORE(&lb->stripe->count, lb->stripe->count + (size_t)delta);
	pthread_mutex_unlock(&lb->stripe->lock);
	if (delta)
		resize_to = quiesce_rcuhash_after_update(ht, lb->stripe, delta > 0);
	rcuhash_leave(ht, lb->entry);
	/* Out of the section: a slow malloc() holds up no grace period. */
	if (resize_to)
		quiesce_rcuhash_start_resize(ht, resize_to);
}

/* Under the stripe lock: node goes in at the run of its hash, lb's. */
static void link_new(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
		     struct quiesce_rcuhash_node *node)
{
	struct quiesce_rcuhash_node *next = QUIESCE_LOAD(lb->run);

	seq_assign(ht, lb->stripe, node);
	QUIESCE_STORE(&node->next, rcuhash_is_node(next) ? next : rcuhash_marker(lb->bucket));
	/* Release: the node's contents and next before the node (rcu.h). */
	quiesce_rcu_assign_pointer(*lb->run, node);
}

/*
 * The link to the first node from lb's run on that accepts(ht, lb, node,
 * arg) says is the one, or NULL (inlined with each accepts()).
 */
static inline __attribute__((always_inline)) struct quiesce_rcuhash_node **
locked_search(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
	      bool (*accepts)(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
			      const struct quiesce_rcuhash_node *p, const void *arg),
	      const void *arg)
{
	struct quiesce_rcuhash_node **link = lb->run, *p;

	for (p = QUIESCE_LOAD(link); !past_run(ht, p, lb->hash); link = &p->next, p = QUIESCE_LOAD(link))
		if (accepts(ht, lb, p, arg))
			return link;
	return NULL;
}

static bool holds_key(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
		      const struct quiesce_rcuhash_node *p, const void *key)
{
	return key_matches(ht, key, p);
}

/* The link that points to key's node (lb's hash is key's), or NULL. */
static struct quiesce_rcuhash_node **locked_find(struct quiesce_rcuhash *ht,
						 const struct locked_bucket *lb, const void *key)
{
	return locked_search(ht, lb, holds_key, key);
}

struct match_call {
	quiesce_rcuhash_match_fn match;
	const void *arg;
};

static bool matches(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
		    const struct quiesce_rcuhash_node *p, const void *call)
{
	const struct match_call *m = call;

	return quiesce_rcuhash_node_hash(ht, p) == lb->hash && m->match(p, m->arg);
}

/* The link to the first node of lb's hash that match() accepts, or NULL. */
static struct quiesce_rcuhash_node **locked_find_match(struct quiesce_rcuhash *ht,
						       const struct locked_bucket *lb,
						       quiesce_rcuhash_match_fn match, const void *arg)
{
	return locked_search(ht, lb, matches, &(struct match_call){ match, arg });
}

static bool is_node(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
		    const struct quiesce_rcuhash_node *p, const void *node)
{
	return p == node;
}

/* The link that points to node (of lb's hash), or NULL. */
static struct quiesce_rcuhash_node **locked_find_node(struct quiesce_rcuhash *ht,
						      const struct locked_bucket *lb,
						      const struct quiesce_rcuhash_node *node)
{
	return locked_search(ht, lb, is_node, node);
}

/*
 * Under the stripe lock, before node is linked in: a node that is in the
 * table already (of lb's hash, so in lb's run) would be linked twice, and
 * its chain would become a cycle that no walk or lookup of a missing key
 * leaves.  The walk of one run: a chain of one or two nodes in an
 * unsorted table, the nodes of one hash in a sorted one.  The matching
 * calls have just walked it (cached); add() pays it, as liburcu's
 * cds_lfht_add() walks the duplicates of its hash.
 */
static void forbid_in_table(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
			    const struct quiesce_rcuhash_node *node, const char *call)
{
	if (QUIESCE_UNLIKELY(locked_find_node(ht, lb, node) != NULL))
		quiesce_die("rcuhash_%s() of a node that is in the table already: remove it "
			    "first (and wait for a grace period before linking it again)", call);
}

bool quiesce_rcuhash_insert(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node)
{
	const void *key = node_key(ht, node);
	struct locked_bucket lb = lock_bucket(ht, key_hash(ht, key));
	bool added = !locked_find(ht, &lb, key);

	if (added)
		link_new(ht, &lb, node);
	unlock_bucket(ht, &lb, added);
	return added;
}

/* Under the stripe lock: node takes the place of the node *link points to. */
static struct quiesce_rcuhash_node *swap_at(struct quiesce_rcuhash *ht,
					    const struct locked_bucket *lb,
					    struct quiesce_rcuhash_node **link,
					    struct quiesce_rcuhash_node *node, const char *call)
{
	struct quiesce_rcuhash_node *old = QUIESCE_LOAD(link);

	/*
	 * node is in the table already: "replaced", it would stay there marked
	 * removed (QUIESCE_RCUHASH_SEQ_REMOVED, cds_lfht_is_node_deleted()).
	 */
	if (QUIESCE_UNLIKELY(old == node))
		quiesce_die("rcuhash: a node replaced by itself (insert_or_replace(), "
			    "replace_match() or replace() of a node that is in the table)");
	/* Elsewhere in the table: the chain would loop through node. */
	forbid_in_table(ht, lb, node, call);
	/* Before node is published: readers order it as old. */
	seq_retire(ht, old, node);
	QUIESCE_STORE(&node->next, QUIESCE_LOAD(&old->next));
	/* Release: node's contents before node; old keeps its next. */
	quiesce_rcu_assign_pointer(*link, node);
	return old;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_insert_or_replace(struct quiesce_rcuhash *ht,
							       struct quiesce_rcuhash_node *node)
{
	const void *key = node_key(ht, node);
	struct locked_bucket lb = lock_bucket(ht, key_hash(ht, key));
	struct quiesce_rcuhash_node **link = locked_find(ht, &lb, key), *old = NULL;

	/* No link: node, whose key is key, is not in the table either. */
	if (link)
		old = swap_at(ht, &lb, link, node, "insert_or_replace");
	else
		link_new(ht, &lb, node);
	unlock_bucket(ht, &lb, old ? 0 : 1);
	return old;
}

/*
 * Under the stripe lock, in a sorted QUIESCE_RCUHASH_SEQ table: node goes
 * in after the last node of lb's hash, numbered above them (seq_assign()'s
 * comment).  Readers see it as they see link_new()'s node: the release
 * store publishes it, in the middle of a chain as link_new()'s may be.
 */
static void link_last(struct quiesce_rcuhash *ht, const struct locked_bucket *lb,
		      struct quiesce_rcuhash_node *node)
{
	struct quiesce_rcuhash_node **link = lb->run, *p;

	for (p = QUIESCE_LOAD(link); !past_run(ht, p, lb->hash); link = &p->next, p = QUIESCE_LOAD(link))
		;
	QUIESCE_STORE(seq_word(ht, node), lb->stripe->seq_up++ << 1);
	QUIESCE_STORE(&node->next, rcuhash_is_node(p) ? p : rcuhash_marker(lb->bucket));
	/* Release: the node's contents and next before the node (rcu.h). */
	quiesce_rcu_assign_pointer(*link, node);
}

void quiesce_rcuhash_add(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node)
{
	struct locked_bucket lb = lock_bucket(ht, quiesce_rcuhash_node_hash(ht, node));

	forbid_in_table(ht, &lb, node, "add");
	if ((ht->p.flags & QUIESCE_RCUHASH_SEQ) && rcuhash_sorted(ht))
		link_last(ht, &lb, node);
	else
		link_new(ht, &lb, node);
	unlock_bucket(ht, &lb, 1);
}

struct quiesce_rcuhash_node *quiesce_rcuhash_insert_match(struct quiesce_rcuhash *ht,
							  struct quiesce_rcuhash_node *node,
							  quiesce_rcuhash_match_fn match,
							  const void *arg)
{
	struct locked_bucket lb = lock_bucket(ht, quiesce_rcuhash_node_hash(ht, node));
	struct quiesce_rcuhash_node **link = locked_find_match(ht, &lb, match, arg);
	struct quiesce_rcuhash_node *old = link ? QUIESCE_LOAD(link) : NULL;

	if (!old) {
		forbid_in_table(ht, &lb, node, "insert_match");
		link_new(ht, &lb, node);
	}
	unlock_bucket(ht, &lb, old ? 0 : 1);
	return old;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_replace_match(struct quiesce_rcuhash *ht,
							   struct quiesce_rcuhash_node *node,
							   quiesce_rcuhash_match_fn match,
							   const void *arg)
{
	struct locked_bucket lb = lock_bucket(ht, quiesce_rcuhash_node_hash(ht, node));
	struct quiesce_rcuhash_node **link = locked_find_match(ht, &lb, match, arg);
	struct quiesce_rcuhash_node *old = NULL;

	if (link) {
		old = swap_at(ht, &lb, link, node, "replace_match");
	} else {
		forbid_in_table(ht, &lb, node, "replace_match");
		link_new(ht, &lb, node);
	}
	unlock_bucket(ht, &lb, old ? 0 : 1);
	return old;
}

bool quiesce_rcuhash_replace(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *old,
			     struct quiesce_rcuhash_node *node)
{
	uint64_t hash = quiesce_rcuhash_node_hash(ht, old);
	struct locked_bucket lb;
	struct quiesce_rcuhash_node **link;

	if (quiesce_rcuhash_node_hash(ht, node) != hash)
		quiesce_die("rcuhash_replace(): the new node's key hashes differently from the old "
			    "node's; it would land in another bucket");
	lb = lock_bucket(ht, hash);
	link = locked_find_node(ht, &lb, old);
	if (link)
		swap_at(ht, &lb, link, node, "replace");
	unlock_bucket(ht, &lb, 0);
	return link != NULL;
}

/* Under the stripe lock: unlinks the node that *link points to. */
static struct quiesce_rcuhash_node *unlink_at(struct quiesce_rcuhash *ht,
					      struct quiesce_rcuhash_node **link)
{
	struct quiesce_rcuhash_node *node = QUIESCE_LOAD(link);

	seq_retire(ht, node, NULL);
	/*
	 * A reader standing on node goes on through its unchanged next.
	 * Release, as every chain store: the next node was published to us
	 * under this lock and is republished to readers here.
	 */
	quiesce_rcu_assign_pointer(*link, QUIESCE_LOAD(&node->next));
	return node;
}

bool quiesce_rcuhash_remove(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node)
{
	struct locked_bucket lb = lock_bucket(ht, quiesce_rcuhash_node_hash(ht, node));
	struct quiesce_rcuhash_node **link = locked_find_node(ht, &lb, node);

	if (link)
		unlink_at(ht, link);
	unlock_bucket(ht, &lb, link ? -1 : 0);
	return link != NULL;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_remove_key(struct quiesce_rcuhash *ht, const void *key)
{
	struct locked_bucket lb = lock_bucket(ht, key_hash(ht, key));
	struct quiesce_rcuhash_node **link = locked_find(ht, &lb, key);
	struct quiesce_rcuhash_node *node = link ? unlink_at(ht, link) : NULL;

	unlock_bucket(ht, &lb, node ? -1 : 0);
	return node;
}

size_t quiesce_rcuhash_count(const struct quiesce_rcuhash *ht)
{
	size_t n = 0;

	for (int i = 0; i < RCUHASH_STRIPES; i++)
		n += QUIESCE_LOAD(&ht->stripes[i].count);
	return n;
}

static void unlock_stripes(struct quiesce_rcuhash *ht, int n)
{
	while (n-- > 0)
		pthread_mutex_unlock(&ht->stripes[n].lock);
}

size_t quiesce_rcuhash_count_exact(struct quiesce_rcuhash *ht)
{
	size_t n = 0;

	/*
	 * Every stripe at once, in index order.  Not with rcuhash_lock(): a
	 * fork() being prepared waits for the stripes held here, so they are
	 * all let go before waiting for it.
	 */
	for (int i = 0; i < RCUHASH_STRIPES; i++) {
		pthread_mutex_lock(&ht->stripes[i].lock);
		if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&ht->frozen))) {
			unlock_stripes(ht, i + 1);
			quiesce_rcuhash_wait_thaw(ht);
			i = -1;
		}
	}
	for (int i = 0; i < RCUHASH_STRIPES; i++)
		n += ht->stripes[i].count;
	unlock_stripes(ht, RCUHASH_STRIPES);
	return n;
}
