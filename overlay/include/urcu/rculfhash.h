/*
 * urcu/rculfhash.h (quiesce overlay) - liburcu's resizable RCU hash table,
 * the cds_lfht_* API, on quiesce's hash table (quiesce/rcuhash.h).
 *
 * liburcu's table is a lock-free split-ordered list; quiesce's is chained
 * buckets under RCU with lock-striped updaters and incremental resizes.
 * The mapping (overlay/src/ds_lfht.c) uses the quiesce calls made for this
 * contract: a caller-hashed table (QUIESCE_RCUHASH_KEY_IS_HASH: the hash
 * you pass is the key the table files nodes by), matching calls for the
 * per-call match function (add with duplicates, add_unique, add_replace,
 * replace of a given node), node numbers that a replacement inherits and
 * that mark a removed node (QUIESCE_RCUHASH_SEQ), and ordered reads that
 * carry no state but the node the iterator holds (lookup, next_duplicate,
 * first, next), exact across resizes.
 *
 * Rules for callers: liburcu's.  Lookups, next_duplicate, first, next,
 * count_nodes and is_node_deleted inside rcu_read_lock(), an iteration in
 * one read-side section throughout (outside one, as liburcu tolerates, a
 * call holds a section of its own, qsbr's from an offline or unregistered
 * thread too, so that it is safe, but the node it
 * returns is safe only if no thread can remove it meanwhile: a table that
 * the caller alone still holds, at teardown); updates from any thread,
 * inside or outside a read-side section; a node that left the table (del,
 * replaced) freed or reused only after a grace period (call_rcu(),
 * synchronize_rcu()); an add_unique that failed leaves its node
 * unpublished: free it at once.  new and destroy not concurrent with
 * anything on the table.
 *
 * What a reader may see (liburcu's guarantees, kept):
 * - A lookup finds a node present throughout it, never one absent
 *   throughout; a lookup concurrent with add_replace or replace of that
 *   key finds the old node or the new one, never neither, never both.
 * - A traversal (first/next, or lookup then next_duplicate) returns every
 *   node present throughout exactly once, a node and its replacement
 *   counting as one; nodes added or deleted meanwhile may or may not be
 *   returned, never twice.  Updates of any kind, and resizes, may run
 *   during it.  Traversal order is by bit-reversed hash, as liburcu's.
 * - Of concurrent add_unique calls of one key, exactly one inserts; of
 *   concurrent del calls of one node, exactly one returns 0.
 * - Successful updates are full memory barriers before and after their
 *   commit; lookups and traversal steps act as rcu_dereference().
 *
 * The flavor: the table's readers are the flavor's (its read_ongoing() is
 * the check above), its updates hold the flavor's read lock while they use
 * a bucket array, and old arrays go through the flavor's call_rcu; for the
 * flavors on quiesce's default RCU (memb, signal, bp) the table calls that
 * RCU directly, inline.  With qsbr, whose read lock is empty, an update
 * from a thread that is offline or not registered comes online (registered)
 * for the call and goes back after.  A flavor of the program's own: its
 * read lock must protect whichever thread updates (quiesce/rcuhash.h,
 * struct quiesce_rcuhash_rcu).  liburcu's resize worker thread does not exist
 * (updaters move buckets), so its pthread_attr_t is only handed back.
 *
 * Differences (docs/LIBURCU.md lists them): struct cds_lfht_node is three
 * words (liburcu: two); struct cds_lfht_iter holds the node, its position,
 * the link after it and the table (liburcu: the node and the next);
 * max_nr_buckets is not enforced; the memory-management back ends
 * (cds_lfht_mm_*) are names only and _cds_lfht_new() ignores its mm
 * argument; CDS_LFHT_ACCOUNTING is always on (count_nodes' split counts
 * are quiesce's element count).
 */
#ifndef QUIESCE_OVERLAY_URCU_RCULFHASH_H
#define QUIESCE_OVERLAY_URCU_RCULFHASH_H

#include <urcu/compiler.h>
#include <urcu/config.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <quiesce/rcuhash.h>
#include <urcu/static/quiesce-link.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cds_lfht;
struct rcu_flavor_struct;

/* Embed in your object; the table owns every field. */
struct cds_lfht_node {
	struct quiesce_rcuhash_node node;
	uint64_t hash;		/* the hash it was added with */
	uint64_t seq;		/* its number; QUIESCE_RCUHASH_SEQ_REMOVED once deleted */
} __attribute__((__aligned__(8)));

/*
 * A position: the node returned last (NULL: none, or the end), its hash
 * and number, and, when a step returned it inside a read-side section,
 * where the walk goes on (the table's link after it), read when it was
 * returned (a lookup keeps no link: the step after one walks from the
 * head of the chain): the next call goes on from those and reads nothing
 * of the node, which the table's last holder may have freed (liburcu's
 * iterators keep the next node, not this one).  And the table it is in:
 * a step or replace() given another table aborts with a message (the
 * mistake liburcu's CDS_LFHT_ITER_DEBUG build catches, a lookup into
 * another table nested in a traversal with the traversal's iterator).
 */
struct cds_lfht_iter {
	struct cds_lfht_node *node;
	uint64_t hash, seq;
	const void *resume;
	const struct cds_lfht *ht;
};

typedef int (*cds_lfht_match_fct)(struct cds_lfht_node *node, const void *key);

enum {
	CDS_LFHT_AUTO_RESIZE = (1U << 0),
	CDS_LFHT_ACCOUNTING = (1U << 1),
};

/*
 * liburcu's bucket-memory back ends.  quiesce's table has one layout (a
 * power-of-two array per size, calloc()ed; large ones come zeroed from
 * mmap), so the three exist for the programs that name one, all mean that
 * layout, and their members are NULL: nothing calls them.
 */
struct cds_lfht_mm_type {
	struct cds_lfht *(*alloc_cds_lfht)(unsigned long min_nr_alloc_buckets,
					   unsigned long max_nr_buckets);
	void (*alloc_bucket_table)(struct cds_lfht *ht, unsigned long order);
	void (*free_bucket_table)(struct cds_lfht *ht, unsigned long order);
	struct cds_lfht_node *(*bucket_at)(struct cds_lfht *ht, unsigned long index);
};

/*
 * liburcu 0.15: where a table's memory comes from (the table and its bucket
 * arrays; the nodes are the program's).  The table calls malloc (its
 * handle), aligned_alloc (the table beneath), calloc (bucket arrays) and
 * free, each given state; realloc is never called.  An allocation that
 * returns NULL makes cds_lfht_new_with_flavor_alloc() return NULL if it is
 * malloc's, and aborts with a message otherwise (as quiesce does when
 * malloc() fails).  The struct and its state must outlive the table:
 * cds_lfht_destroy() waits until its last retired array is given back (a
 * barrier of the flavor), so they may go once it returns.
 */
struct cds_lfht_alloc {
	void *(*malloc)(void *state, size_t size);
	void *(*calloc)(void *state, size_t nmemb, size_t size);
	void *(*realloc)(void *state, void *ptr, size_t size);
	void *(*aligned_alloc)(void *state, size_t alignment, size_t size);
	void (*free)(void *state, void *ptr);
	void *state;
};

QUIESCE_API extern const struct cds_lfht_mm_type cds_lfht_mm_order;
QUIESCE_API extern const struct cds_lfht_mm_type cds_lfht_mm_chunk;
QUIESCE_API extern const struct cds_lfht_mm_type cds_lfht_mm_mmap;

static inline struct cds_lfht_node *cds_lfht_iter_get_node(const struct cds_lfht_iter *iter)
{
	return iter->node;
}

/* Nothing to do: the table sets every field when it adds the node. */
static inline void cds_lfht_node_init(struct cds_lfht_node *node)
{
	(void)node;
}

/*
 * liburcu 0.14: a node that cds_lfht_is_node_deleted() calls deleted until
 * it is added, so that a program can ask a node whether it is in a table
 * before its first add as after its del (an add_unique that finds its key
 * leaves it deleted).
 */
QUIESCE_API void cds_lfht_node_init_deleted(struct cds_lfht_node *node);

/*
 * NULL unless init_size and min_nr_alloc_buckets are powers of two and
 * max_nr_buckets is one or 0, as liburcu.  The table holds init_size
 * buckets at first, shrinks automatically (CDS_LFHT_AUTO_RESIZE) no lower
 * than min_nr_alloc_buckets (and never below 64), and grows past one node
 * per bucket.  Any thread, registered or not, at any time.
 */
QUIESCE_API struct cds_lfht *_cds_lfht_new(unsigned long init_size,
					   unsigned long min_nr_alloc_buckets,
					   unsigned long max_nr_buckets, int flags,
					   const struct cds_lfht_mm_type *mm,
					   const struct rcu_flavor_struct *flavor,
					   pthread_attr_t *attr);

/* As _cds_lfht_new(), the table's memory from alloc (NULL: the C library's). */
QUIESCE_API struct cds_lfht *_cds_lfht_new_with_alloc(unsigned long init_size,
						      unsigned long min_nr_alloc_buckets,
						      unsigned long max_nr_buckets, int flags,
						      const struct cds_lfht_mm_type *mm,
						      const struct rcu_flavor_struct *flavor,
						      const struct cds_lfht_alloc *alloc,
						      pthread_attr_t *attr);

static inline struct cds_lfht *
cds_lfht_new_with_flavor_alloc(unsigned long init_size, unsigned long min_nr_alloc_buckets,
			       unsigned long max_nr_buckets, int flags,
			       const struct rcu_flavor_struct *flavor,
			       const struct cds_lfht_alloc *alloc, pthread_attr_t *attr)
{
	_URCU_QUIESCE_LINK_REF();
	return _cds_lfht_new_with_alloc(init_size, min_nr_alloc_buckets, max_nr_buckets, flags,
					NULL, flavor, alloc, attr);
}

static inline struct cds_lfht *cds_lfht_new_flavor(unsigned long init_size,
						   unsigned long min_nr_alloc_buckets,
						   unsigned long max_nr_buckets, int flags,
						   const struct rcu_flavor_struct *flavor,
						   pthread_attr_t *attr)
{
	_URCU_QUIESCE_LINK_REF();
	return _cds_lfht_new(init_size, min_nr_alloc_buckets, max_nr_buckets, flags, NULL, flavor,
			     attr);
}

/*
 * liburcu's form: the table is read under the flavor the program included
 * before this header (urcu.h, urcu-qsbr.h, ...), rcu_flavor.  Without one,
 * which liburcu does not allow, quiesce's default RCU.
 */
static inline struct cds_lfht *cds_lfht_new(unsigned long init_size,
					    unsigned long min_nr_alloc_buckets,
					    unsigned long max_nr_buckets, int flags,
					    pthread_attr_t *attr)
{
	_URCU_QUIESCE_LINK_REF();
#ifdef URCU_API_MAP
	return _cds_lfht_new(init_size, min_nr_alloc_buckets, max_nr_buckets, flags, NULL,
			     &rcu_flavor, attr);
#else
	return _cds_lfht_new(init_size, min_nr_alloc_buckets, max_nr_buckets, flags, NULL, NULL,
			     attr);
#endif
}

/* 0, or -EPERM (the table left as it was) while it holds nodes. */
QUIESCE_API int cds_lfht_destroy(struct cds_lfht *ht, pthread_attr_t **attr);

QUIESCE_API void cds_lfht_count_nodes(struct cds_lfht *ht, long *split_count_before,
				      unsigned long *count, long *split_count_after);

QUIESCE_API void cds_lfht_lookup(struct cds_lfht *ht, unsigned long hash,
				 cds_lfht_match_fct match, const void *key,
				 struct cds_lfht_iter *iter);

QUIESCE_API void cds_lfht_next_duplicate(struct cds_lfht *ht, cds_lfht_match_fct match,
					 const void *key, struct cds_lfht_iter *iter);

QUIESCE_API void cds_lfht_first(struct cds_lfht *ht, struct cds_lfht_iter *iter);

QUIESCE_API void cds_lfht_next(struct cds_lfht *ht, struct cds_lfht_iter *iter);

/* Adds node whatever the table holds: keys may repeat. */
QUIESCE_API void cds_lfht_add(struct cds_lfht *ht, unsigned long hash,
			      struct cds_lfht_node *node);

/* node if it was added, else the node with that key already present. */
QUIESCE_API struct cds_lfht_node *cds_lfht_add_unique(struct cds_lfht *ht, unsigned long hash,
						      cds_lfht_match_fct match, const void *key,
						      struct cds_lfht_node *node);

/* The node replaced, or NULL if none had the key (node then added). */
QUIESCE_API struct cds_lfht_node *cds_lfht_add_replace(struct cds_lfht *ht, unsigned long hash,
						       cds_lfht_match_fct match, const void *key,
						       struct cds_lfht_node *node);

/*
 * 0; -ENOENT if old_iter holds no node or one already deleted or replaced;
 * -EINVAL if that node's hash or key (by match) is not new_node's.
 */
QUIESCE_API int cds_lfht_replace(struct cds_lfht *ht, struct cds_lfht_iter *old_iter,
				 unsigned long hash, cds_lfht_match_fct match, const void *key,
				 struct cds_lfht_node *new_node);

/* 0; -ENOENT for NULL or a node already deleted or replaced. */
QUIESCE_API int cds_lfht_del(struct cds_lfht *ht, struct cds_lfht_node *node);

/* Non-zero once node was deleted or replaced (until it is added again). */
static inline int cds_lfht_is_node_deleted(const struct cds_lfht_node *node)
{
	return (int)(__atomic_load_n(&node->seq, __ATOMIC_RELAXED) & QUIESCE_RCUHASH_SEQ_REMOVED);
}

/* Resizes to new_size buckets (a power of two at least), whatever the flags. */
QUIESCE_API void cds_lfht_resize(struct cds_lfht *ht, unsigned long new_size);

/* The entry holding node, NULL for NULL (the iterators' end); liburcu 0.15. */
#define cds_lfht_entry(node, type, member)						\
	({										\
		struct cds_lfht_node *cds_lfht_n_ = (node);				\
		cds_lfht_n_ ? (type *)(void *)((char *)cds_lfht_n_ - offsetof(type, member)) \
			    : (type *)NULL;						\
	})

#define cds_lfht_for_each(ht, iter, node)						\
	for (cds_lfht_first(ht, iter), node = cds_lfht_iter_get_node(iter);		\
	     node != NULL;								\
	     cds_lfht_next(ht, iter), node = cds_lfht_iter_get_node(iter))

#define cds_lfht_for_each_duplicate(ht, hash, match, key, iter, node)			\
	for (cds_lfht_lookup(ht, hash, match, key, iter),				\
	     node = cds_lfht_iter_get_node(iter);					\
	     node != NULL;								\
	     cds_lfht_next_duplicate(ht, match, key, iter),				\
	     node = cds_lfht_iter_get_node(iter))

#define cds_lfht_for_each_entry(ht, iter, pos, member)					\
	for (cds_lfht_first(ht, iter),							\
	     pos = cds_lfht_entry(cds_lfht_iter_get_node(iter), __typeof__(*(pos)), member); \
	     cds_lfht_iter_get_node(iter) != NULL;					\
	     cds_lfht_next(ht, iter),							\
	     pos = cds_lfht_entry(cds_lfht_iter_get_node(iter), __typeof__(*(pos)), member))

#define cds_lfht_for_each_entry_duplicate(ht, hash, match, key, iter, pos, member)	\
	for (cds_lfht_lookup(ht, hash, match, key, iter),				\
	     pos = cds_lfht_entry(cds_lfht_iter_get_node(iter), __typeof__(*(pos)), member); \
	     cds_lfht_iter_get_node(iter) != NULL;					\
	     cds_lfht_next_duplicate(ht, match, key, iter),				\
	     pos = cds_lfht_entry(cds_lfht_iter_get_node(iter), __typeof__(*(pos)), member))

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_OVERLAY_URCU_RCULFHASH_H */
