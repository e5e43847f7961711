/*
 * quiesce/rcuhash.h - a resizable hash table with RCU readers.
 *
 * The table is intrusive: embed a struct quiesce_rcuhash_node in each
 * object and find the object again with container_of().  Lookups take no
 * lock and write no shared memory; updaters take one of 64 lock stripes
 * (picked by the hash) for a few instructions.  The table grows when it
 * holds more elements than buckets and shrinks when it holds fewer than a
 * quarter as many; each resize is carried out a few buckets at a time by
 * the updates that follow it, so no one waits for a whole resize and
 * readers never wait at all.  The argument is in src/ds/rcuhash.c.
 *
 * Keys: an object's key lies at key_offset in it.  Either it is key_len
 * bytes, hashed by the table and compared with memcmp(), or (key_len 0)
 * the caller's hash(key) and key_equal(key, obj) say what it is.  With
 * QUIESCE_RCUHASH_KEY_IS_HASH the key is a uint64_t hash that the caller
 * computed, used as is (for callers that hash and compare keys themselves:
 * see the matching calls below); the table then keeps each chain sorted
 * by the hash's bits reversed, so that a search stops at the first node
 * past its key (a miss walks half a chain, not all of it, which counts in
 * a table kept small with QUIESCE_RCUHASH_NO_AUTO_RESIZE).  An object's
 * key must not change while it is in the table.
 *
 * Rules for callers
 * - lookup(), lookup_match(), next() and the walk_*() calls need an RCU
 *   read-side critical section (checked: they abort with a message outside
 *   one).  The node they return stays valid until the section ends, even
 *   if it is removed meanwhile.  A whole walk lies in one critical
 *   section.  walk_start()
 *   first finishes a resize in progress, moving the buckets left itself,
 *   and may wait (yielding) for other updaters to finish moving the one
 *   bucket each of them holds.
 * - Updates (insert, add, insert_match, insert_or_replace, replace_match,
 *   replace, remove, remove_key, resize) may be called by any number of
 *   threads at once, inside or outside a read-side critical section; they
 *   enter one themselves (so does buckets()).  Under QSBR
 *   (quiesce_rcuhash_rcu_qsbr), whose sections are the time a thread is
 *   online, an update from a thread that is offline or not registered
 *   brings it online, registering it, for the update's duration, and
 *   leaves it offline or unregistered as it was.  Under an RCU named by
 *   calls of the caller's own, the update's section is its read_lock()'s
 *   (see struct quiesce_rcuhash_rcu).  They never wait for a
 *   grace period.  They may sleep only for a lock stripe, in malloc()
 *   (the update that starts a resize, and resize(): outside the section
 *   they entered and outside every lock, so no other updater and no grace
 *   period waits for that allocation) or, resize() only, yielding while
 *   other updaters finish moving the bucket each of them holds.
 * - A node that leaves the table (remove, remove_key, or replaced) may be
 *   freed or inserted again only after a grace period: call_rcu(),
 *   free_rcu() or synchronize_rcu().
 * - new() and destroy() are not concurrent with anything on the same table;
 *   after destroy() no reader may still hold a pointer into it (the caller
 *   unpublishes the table and waits a grace period, as for any object).
 * - fork() may be called at any time, from any thread: it waits for the
 *   updates in progress to leave their lock stripes, and the child gets
 *   every table whole, a resize in progress included (its updaters finish
 *   it).  Walks the forking thread has open stay open in the child; those
 *   of other threads are forgotten there.
 *
 * What a reader may see (t: the reader's own lookup or walk)
 * - If t finds a node, it sees everything its inserter wrote before the
 *   insert (the insert publishes with release).
 * - A node that is in the table for the whole of a lookup is found; a key
 *   that is absent for the whole of it is not.  A node inserted or removed
 *   during the lookup may or may not be found.
 * - insert_or_replace() swaps one node for the other in one store: a lookup
 *   of that key concurrent with it finds the old node or the new one, never
 *   neither.
 * - A walk returns every node that is in the table for the whole of the
 *   walk exactly once, and never returns any node twice.  Nodes inserted or
 *   removed during it may or may not be returned.  While a walk runs, no
 *   resize starts (one in progress is finished by walk_start()), so a long
 *   walk lets chains grow longer than usual until it ends.
 * - remove_key() is a lookup and a removal under one lock: of two threads
 *   that remove the same key at once, exactly one gets the node.  Likewise
 *   remove() and replace() of one node: exactly one succeeds.
 *
 * Memory
 * - Per element: the node, one pointer (8 bytes on 64-bit).
 * - Per bucket: one pointer.  A table grows (to about two buckets per
 *   element) once it holds more elements than buckets, and shrinks (to
 *   between two and four per element) when a removal leaves fewer than one
 *   element per four buckets: between one and four buckets per element,
 *   never below QUIESCE_RCUHASH_MIN_BUCKETS nor the size nelem_hint or
 *   min_size asked for.  resize() sizes for one to two buckets per element;
 *   nelem_hint for at most three quarters full (4/3 to 8/3 buckets per
 *   element, the kernel rhashtable's rule): shorter chains than a grown
 *   table's, whose few bytes more buy faster lookups.
 *   A resize in progress holds both arrays, the old one until a grace
 *   period after it ends (call_rcu()).
 * - Per table: 64 lock stripes of one cache line each (4 KiB).
 */
#ifndef QUIESCE_RCUHASH_H
#define QUIESCE_RCUHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUIESCE_RCUHASH_MIN_BUCKETS 64

struct quiesce_rcuhash_node {
	struct quiesce_rcuhash_node *next;	/* owned by the table */
};

/* Flags. */
#define QUIESCE_RCUHASH_NO_AUTO_RESIZE 0x1u	/* only quiesce_rcuhash_resize() resizes */
#define QUIESCE_RCUHASH_KEY_IS_HASH 0x2u	/* key_len 8: the key is a uint64_t hash, used as is */
#define QUIESCE_RCUHASH_SEQ 0x4u		/* the table owns a uint64_t at seq_offset */

/*
 * QUIESCE_RCUHASH_SEQ: the table numbers each node it inserts in a uint64_t
 * of the object (at seq_offset), and a node that replaces another takes its
 * number, so that the ordered reads below see a key replaced during an
 * iteration exactly once.  The word's low bit, QUIESCE_RCUHASH_SEQ_REMOVED,
 * is set when the node leaves the table (removed or replaced), and stays
 * set until it is inserted again: a reader may test it (a relaxed load)
 * to learn whether a node it holds has been removed.
 */
#define QUIESCE_RCUHASH_SEQ_REMOVED 0x1u

struct quiesce_rcu_head;

/*
 * The RCU a table's readers use, when it is not quiesce's default RCU
 * (params.rcu NULL): quiesce's QSBR or mb domain (the two structs below),
 * or another, named by its calls in a struct here.  The table checks its
 * readers with read_ongoing(), brackets its own use of its bucket arrays
 * in updates with read_lock() and read_unlock(), and retires old arrays
 * with call_rcu(); "read-side critical section" below means that domain's.
 * The struct must outlive the table.  In a struct of the caller's own,
 * read_lock() is all that protects an update's use of the arrays: that it
 * protects whichever thread updates the table, whatever that thread's
 * state, is the caller's to ensure.  A copy of quiesce_rcuhash_rcu_qsbr
 * is such a struct, and QSBR's read_lock() is empty: through a copy,
 * unlike through quiesce_rcuhash_rcu_qsbr itself, an update from a thread
 * that is not online is not protected (the caller must bring it online,
 * or know that no other thread updates the table meanwhile).
 */
struct quiesce_rcuhash_rcu {
	void (*read_lock)(void);
	void (*read_unlock)(void);
	int (*read_ongoing)(void);
	void (*call_rcu)(struct quiesce_rcu_head *head,
			 void (*func)(struct quiesce_rcu_head *head));
};

/*
 * Where a table's own memory (the table, its bucket arrays) comes from when
 * not from the C library (params.alloc NULL): zeroed blocks of n * size
 * bytes, blocks aligned to alignment (a power of two), and their release,
 * each handed state.  An allocation that returns NULL aborts with a
 * message, as running out of memory does everywhere in quiesce.  Arrays a
 * resize retires are freed after a grace period, by a callback of the
 * table's RCU: the struct and its state must stay valid until then, that
 * is past quiesce_rcuhash_destroy() until a barrier of that RCU
 * (rcu_barrier(), ...).
 */
struct quiesce_rcuhash_alloc {
	void *(*calloc)(void *state, size_t n, size_t size);
	void *(*aligned_alloc)(void *state, size_t alignment, size_t size);
	void (*free)(void *state, void *ptr);
	void *state;
};

struct quiesce_rcuhash_params {
	size_t node_offset;	/* offsetof(object, node) */
	size_t key_offset;	/* offsetof(object, key), with key_len */
	size_t key_len;		/* bytes of key; 0: use the three functions */
	uint64_t (*hash)(const void *key);			/* key_len 0 */
	bool (*key_equal)(const void *key, const void *obj);	/* key_len 0 */
	size_t nelem_hint;	/* elements to size for; automatic shrinking stops there */
	size_t min_size;	/* buckets (rounded up to a power of two), likewise */
	unsigned flags;		/* QUIESCE_RCUHASH_* */
	size_t seq_offset;	/* QUIESCE_RCUHASH_SEQ: offsetof(object, a uint64_t) */
	const struct quiesce_rcuhash_rcu *rcu;	/* NULL: quiesce's default RCU */
	const struct quiesce_rcuhash_alloc *alloc;	/* NULL: malloc() and friends */
};

/*
 * quiesce's QSBR domain (quiesce/rcu_qsbr.h) and its mb domain
 * (quiesce/rcu_mb.h) as a table's RCU.  A table given one of these calls
 * the domain inline, as it does the default RCU, where a struct of the
 * caller's own costs an indirect call for every reader check.
 */
QUIESCE_API extern const struct quiesce_rcuhash_rcu quiesce_rcuhash_rcu_qsbr;
QUIESCE_API extern const struct quiesce_rcuhash_rcu quiesce_rcuhash_rcu_mb;

struct quiesce_rcuhash;

/* A walk's position; the caller owns it, the table fills it. */
struct quiesce_rcuhash_walk {
	struct quiesce_rcuhash *ht;
	void *table;
	size_t bucket;
	struct quiesce_rcuhash_node *next;
	struct quiesce_rcuhash_walk *open_next;	/* the thread's other open walks */
};

/*
 * Aborts with a message on inconsistent params (an rcu or alloc struct
 * with a function missing among them) or when out of memory.
 */
QUIESCE_API struct quiesce_rcuhash *
quiesce_rcuhash_new(const struct quiesce_rcuhash_params *params);

/*
 * Empties and frees the table.  With free_node NULL, a table that still
 * holds elements is refused: the call aborts with a message.  Otherwise
 * free_node(node, arg) is called once for each element (it may free it at
 * once: no reader can reach the table any more).  A resize in progress is
 * abandoned; an old array already retired is freed by its callback.
 */
QUIESCE_API void quiesce_rcuhash_destroy(struct quiesce_rcuhash *ht,
					 void (*free_node)(struct quiesce_rcuhash_node *node, void *arg),
					 void *arg);

/* Reader: the node with this key, or NULL. */
QUIESCE_API struct quiesce_rcuhash_node *quiesce_rcuhash_lookup(struct quiesce_rcuhash *ht,
								const void *key);

/* Inserts node; returns false, changing nothing, if its key is present. */
QUIESCE_API bool quiesce_rcuhash_insert(struct quiesce_rcuhash *ht,
					struct quiesce_rcuhash_node *node);

/* Inserts node in place of the node with its key; returns that node or NULL. */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_insert_or_replace(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node);

/* Removes node; returns false if it was not in the table (already removed). */
QUIESCE_API bool quiesce_rcuhash_remove(struct quiesce_rcuhash *ht,
					struct quiesce_rcuhash_node *node);

/* Removes and returns the node with this key, or returns NULL. */
QUIESCE_API struct quiesce_rcuhash_node *quiesce_rcuhash_remove_key(struct quiesce_rcuhash *ht,
								    const void *key);

/*
 * Element count.  count() sums the stripes' counters without locks: exact
 * when no update runs, otherwise off by at most the updates in flight.
 * count_exact() holds all 64 stripes at once while it sums: a snapshot,
 * paid for by holding up every updater for that long.
 */
QUIESCE_API size_t quiesce_rcuhash_count(const struct quiesce_rcuhash *ht);
QUIESCE_API size_t quiesce_rcuhash_count_exact(struct quiesce_rcuhash *ht);

/* Buckets in the current array (the newer one while a resize runs). */
QUIESCE_API size_t quiesce_rcuhash_buckets(struct quiesce_rcuhash *ht);

/*
 * Resizes to fit nelem elements (0: the current count), whatever the
 * flags, and returns once the new array is the table's: it moves every
 * bucket not yet moved itself, one lock stripe at a time, while others keep
 * reading and updating.  A resize already in progress is finished first.
 * Returns false, doing nothing, while a walk is in progress.
 */
QUIESCE_API bool quiesce_rcuhash_resize(struct quiesce_rcuhash *ht, size_t nelem);

/*
 * Walks: walk_start(), then walk_next() until it returns NULL, then
 * walk_stop(), all in one read-side critical section.  walk_start() of a
 * walk the thread has open, and walk_next() of a stopped walk, abort with
 * a message.
 */
QUIESCE_API void quiesce_rcuhash_walk_start(struct quiesce_rcuhash *ht,
					    struct quiesce_rcuhash_walk *walk);
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_walk_next(struct quiesce_rcuhash_walk *walk);
QUIESCE_API void quiesce_rcuhash_walk_stop(struct quiesce_rcuhash_walk *walk);

/*
 * Matching calls.  The table's own key comparison says when two nodes hold
 * the same key; these calls let the caller say it instead, per call, so
 * that nodes whose keys compare equal under the table may coexist and be
 * told apart (the table then holds a multiset, as liburcu's cds_lfht does).
 * hash is the table's hash of the key: for a QUIESCE_RCUHASH_KEY_IS_HASH
 * table, the key itself.  match(node, arg) is called only on nodes with that
 * hash, from the calling thread, inside a read-side critical section (under
 * a lock stripe for the updates: it must not update the table).
 */
typedef bool (*quiesce_rcuhash_match_fn)(const struct quiesce_rcuhash_node *node, const void *arg);

/*
 * Inserts node even if nodes with its key are present: in a
 * QUIESCE_RCUHASH_KEY_IS_HASH | QUIESCE_RCUHASH_SEQ table, after the nodes
 * of its hash (duplicates are met in the order added, as liburcu's
 * cds_lfht_add() keeps them); the other inserting calls put a node first
 * among them.
 */
QUIESCE_API void quiesce_rcuhash_add(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node);

/*
 * Inserts node unless a node with its hash that match() accepts is present;
 * returns that node (changing nothing), or NULL once node is inserted.  Of
 * two threads that insert matching nodes at once, exactly one inserts.
 */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_insert_match(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node,
			     quiesce_rcuhash_match_fn match, const void *arg);

/*
 * Inserts node in place of a node with its hash that match() accepts, and
 * returns that node; NULL if none, node then inserted.  As with
 * insert_or_replace(), a lookup concurrent with it finds one or the other.
 */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_replace_match(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_node *node,
			      quiesce_rcuhash_match_fn match, const void *arg);

/*
 * Puts node in old's place, in one store; returns false, changing nothing,
 * if old is not in the table (removed or replaced already).  The two keys
 * must hash the same, and node must not be in the table, old or another
 * (the call aborts with a message otherwise; so do add(), insert_match(),
 * insert_or_replace() and replace_match() given a node that is in the
 * table: it would be linked twice, and its chain would become a cycle).
 */
QUIESCE_API bool quiesce_rcuhash_replace(struct quiesce_rcuhash *ht,
					 struct quiesce_rcuhash_node *old,
					 struct quiesce_rcuhash_node *node);

/*
 * Ordered reads: stateless lookups and iteration that need no walk_start()
 * and no stop, for callers that may leave an iteration at any point (the
 * position is just the last node returned).  The table's order is by
 * bit-reversed hash, then by node number (QUIESCE_RCUHASH_SEQ) or else by
 * node address, an order that no resize changes; each
 * call scans the chains where its answer can be, across a resize in
 * progress, and returns the least node above the position.  Both need a
 * read-side critical section (checked), and a sequence of calls that
 * carries a position needs one section throughout (the node that holds it
 * must stay valid).
 *
 * What a reader may see: a sequence of lookup_match() calls that passes
 * each result back as after returns every matching node present
 * throughout, once each, in the table's order; a sequence of next() calls
 * from NULL returns every node present throughout exactly once.  Nodes
 * inserted or removed meanwhile may or may not be returned, never twice.
 * In a QUIESCE_RCUHASH_SEQ table, a node and the node that replaces it
 * (replace(), replace_match(), insert_or_replace()) count as one: a key
 * present throughout, though replaced, is returned exactly once.  Without
 * it, either, both or (when the replacement lies below the position and the
 * old node above) neither may be.  Resizes may run meanwhile.
 *
 * Cost: lookup_match() stops at the first match in a QUIESCE_RCUHASH_SEQ
 * table, as lookup() does, and otherwise walks the key's whole chain.
 * next() walks the chain of the returned node once per node returned, and
 * every empty bucket once.  In a QUIESCE_RCUHASH_KEY_IS_HASH table, whose
 * chains are sorted, both stop just past what they look for, and with
 * QUIESCE_RCUHASH_SEQ too, given a position that is still in the table,
 * walk on from it rather than from the head of its chain: a step of an
 * iteration costs a node.
 */

/* The first node in the table's order after after (NULL: the first of all)
 * with this hash and that match() accepts, or NULL. */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_lookup_match(struct quiesce_rcuhash *ht, uint64_t hash,
			     quiesce_rcuhash_match_fn match, const void *arg,
			     const struct quiesce_rcuhash_node *after);

/* The node after after in the table's order (NULL: the first), or NULL. */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_next(struct quiesce_rcuhash *ht, const struct quiesce_rcuhash_node *after);

/*
 * The same two from a position that is no longer a node: the hash and the
 * order word (QUIESCE_RCUHASH_SEQ tables; others die with a message) of
 * the node last returned, read while it was valid, or 0 and 0 for the
 * position below every node (lookup_match_seq() then finds the first
 * match, as lookup_match() from NULL; next_seq() the first node).  For a
 * caller that may free or reuse that node, or leave its section, before
 * the next call (liburcu's iterators let a table's last holder free the
 * node it stands on): these read nothing of it.  *resume says where they
 * walk on: NULL, from the head of the chain; otherwise what the call that
 * returned that node left there, the caller having stayed in that call's
 * section since (the short way; the node itself may have been freed).  On
 * return, *resume is where the next call may walk on from after the node
 * returned (an opaque link of the table's, or NULL), read in the same
 * walk, while that node was valid.  What they return is as above.
 */
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_lookup_match_seq(struct quiesce_rcuhash *ht, uint64_t hash,
				 quiesce_rcuhash_match_fn match, const void *arg,
				 uint64_t after_seq, const void **resume);
QUIESCE_API struct quiesce_rcuhash_node *
quiesce_rcuhash_next_seq(struct quiesce_rcuhash *ht, uint64_t after_hash, uint64_t after_seq,
			 const void **resume);

/* The hash the table uses for key_len-byte keys, for callers that want it. */
QUIESCE_API uint64_t quiesce_rcuhash_hash_bytes(const void *key, size_t len);

#ifndef QUIESCE_NO_SHORT_NAMES
#define rcuhash quiesce_rcuhash
#define rcuhash_node quiesce_rcuhash_node
#define rcuhash_params quiesce_rcuhash_params
#define rcuhash_walk quiesce_rcuhash_walk
#define rcuhash_new quiesce_rcuhash_new
#define rcuhash_destroy quiesce_rcuhash_destroy
#define rcuhash_lookup quiesce_rcuhash_lookup
#define rcuhash_insert quiesce_rcuhash_insert
#define rcuhash_insert_or_replace quiesce_rcuhash_insert_or_replace
#define rcuhash_remove quiesce_rcuhash_remove
#define rcuhash_remove_key quiesce_rcuhash_remove_key
#define rcuhash_count quiesce_rcuhash_count
#define rcuhash_count_exact quiesce_rcuhash_count_exact
#define rcuhash_buckets quiesce_rcuhash_buckets
#define rcuhash_resize quiesce_rcuhash_resize
#define rcuhash_walk_start quiesce_rcuhash_walk_start
#define rcuhash_walk_next quiesce_rcuhash_walk_next
#define rcuhash_walk_stop quiesce_rcuhash_walk_stop
#define rcuhash_add quiesce_rcuhash_add
#define rcuhash_insert_match quiesce_rcuhash_insert_match
#define rcuhash_replace_match quiesce_rcuhash_replace_match
#define rcuhash_replace quiesce_rcuhash_replace
#define rcuhash_lookup_match quiesce_rcuhash_lookup_match
#define rcuhash_next quiesce_rcuhash_next
#define rcuhash_lookup_match_seq quiesce_rcuhash_lookup_match_seq
#define rcuhash_next_seq quiesce_rcuhash_next_seq
#define rcuhash_rcu_qsbr quiesce_rcuhash_rcu_qsbr
#define rcuhash_rcu_mb quiesce_rcuhash_rcu_mb
#endif

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCUHASH_H */
