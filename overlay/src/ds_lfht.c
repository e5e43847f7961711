/*
 * ds_lfht.c - liburcu's cds_lfht_* calls on quiesce's hash table.
 *
 * Each table is a quiesce_rcuhash whose "object" is the struct
 * cds_lfht_node itself: its key is the hash the caller passed
 * (QUIESCE_RCUHASH_KEY_IS_HASH), its seq word is the table's node number
 * (QUIESCE_RCUHASH_SEQ), which gives replace its "one or the other" for
 * traversals and is_node_deleted its answer.  liburcu's match functions
 * take the node and the key; quiesce's take the node and one argument, so
 * each call passes a (match, key) pair and a trampoline.  Every guarantee
 * urcu/rculfhash.h states is quiesce_rcuhash's (quiesce/rcuhash.h), which
 * also holds the arguments; what this file adds is liburcu's error codes,
 * its full barriers around successful updates, and its tolerance of reads
 * outside a read-side section (reader_enter() below; updates outside one
 * the table protects itself, a qsbr table's by coming online).  A flavor
 * on one of quiesce's domains (the default RCU, QSBR, mb) is recognized,
 * and its reader checks, the overlay's and the table's, are inline.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <urcu/flavor.h>
#include <urcu/rculfhash.h>

#include "overlay.h"

#define QUIESCE_NO_SHORT_NAMES
#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

/* The RCU a table is read under, which reader_enter() checks inline but for the last. */
enum lfht_reader {
	LFHT_DEFAULT,	/* quiesce's default RCU: no flavor, memb, signal, bp */
	LFHT_QSBR,	/* quiesce's QSBR: qsbr */
	LFHT_MB,	/* quiesce's mb domain: mb */
	LFHT_CALLS,	/* a flavor of the caller's own: through its calls */
};

struct cds_lfht {
	struct quiesce_rcuhash *q;
	enum lfht_reader reader;
	const struct rcu_flavor_struct *flavor;	/* as given (NULL: none) */
	struct quiesce_rcuhash_rcu rcu;		/* LFHT_CALLS: the flavor's calls */
	pthread_attr_t *attr;			/* handed back by cds_lfht_destroy() */
	const struct cds_lfht_alloc *alloc;	/* the program's (NULL: none) */
	struct quiesce_rcuhash_alloc q_alloc;	/* the table's calls to it */
};

/* The flavors (memb.c, signal.c, bp.c, qsbr.c, mb.c). */
extern const struct rcu_flavor_struct urcu_memb_flavor, urcu_signal_flavor, urcu_bp_flavor;
extern const struct rcu_flavor_struct urcu_qsbr_flavor, urcu_mb_flavor;

static enum lfht_reader reader_of(const struct rcu_flavor_struct *flavor)
{
	if (!flavor || flavor == &urcu_memb_flavor || flavor == &urcu_signal_flavor ||
	    flavor == &urcu_bp_flavor)
		return LFHT_DEFAULT;
	if (flavor == &urcu_qsbr_flavor)
		return LFHT_QSBR;
	return flavor == &urcu_mb_flavor ? LFHT_MB : LFHT_CALLS;
}

const struct cds_lfht_mm_type cds_lfht_mm_order, cds_lfht_mm_chunk, cds_lfht_mm_mmap;

struct lfht_match {
	cds_lfht_match_fct match;
	const void *key;
};

static inline struct cds_lfht_node *lfht_node(const struct quiesce_rcuhash_node *n)
{
	return n ? (struct cds_lfht_node *)(void *)((char *)n - offsetof(struct cds_lfht_node, node))
		 : NULL;
}

static bool match_tramp(const struct quiesce_rcuhash_node *n, const void *arg)
{
	const struct lfht_match *m = arg;

	return m->match(lfht_node(n), m->key) != 0;
}

/*
 * liburcu's updates are full barriers before and after their commit;
 * quiesce's stripe lock and release stores order less (an earlier store
 * may pass a later load).  Pairs with whatever the caller pairs it with.
 */
static inline void full_barrier(void)
{
	quiesce_fence_seq_cst();
}

/* Whether the caller is a reader of the table's RCU. */
static inline bool read_ongoing(const struct cds_lfht *ht)
{
	if (ht->reader == LFHT_DEFAULT)
		return quiesce_rcu_read_ongoing();
	if (ht->reader == LFHT_QSBR)
		return quiesce_qsbr_read_ongoing();
	if (ht->reader == LFHT_MB)
		return quiesce_rcu_mb_read_ongoing();
	return ht->flavor->read_ongoing() != 0;
}

/*
 * A read outside a read-side section.  liburcu asks for rcu_read_lock()
 * around lookups and traversals and checks nothing; BIND 9 walks a table
 * that it alone still holds, at teardown, without one, and a qsbr program
 * may read a table from a thread that never registered (liburcu's qsbr
 * read side is empty, so nothing there asks).  quiesce's table refuses
 * such a call (a resize could free the array it reads), so the overlay
 * holds a section of the table's flavor around that one call, coming
 * online first for QSBR, registering the thread first if it is not
 * registered (as the table's own updates do, rcuhash_enter()), and
 * leaving it as it was after: the call is safe whatever else runs, and the
 * node it returns is the caller's to keep alive, as in liburcu (only a
 * caller that no remover races may read this way).  Inside a section, the
 * cost is the check.
 */
enum lfht_entry {
	LFHT_INSIDE,		/* the caller was a reader: nothing entered */
	LFHT_ENTERED,		/* a section (QSBR: online) entered for the call */
	LFHT_REGISTERED,	/* QSBR: the thread was not registered; registered for the call */
};

static QUIESCE_COLD enum lfht_entry enter_outside(const struct cds_lfht *ht)
{
	if (ht->reader == LFHT_DEFAULT) {
		quiesce_rcu_read_lock();
		return LFHT_ENTERED;
	}
	if (ht->reader == LFHT_QSBR && quiesce_qsbr_reader_self.ctr == QUIESCE_QSBR_UNREGISTERED) {
		quiesce_qsbr_register_thread();		/* online from here on */
		return LFHT_REGISTERED;
	}
	ht->flavor->thread_online();
	ht->flavor->read_lock();
	return LFHT_ENTERED;
}

static inline enum lfht_entry reader_enter(const struct cds_lfht *ht)
{
	if (QUIESCE_LIKELY(read_ongoing(ht)))
		return LFHT_INSIDE;
	return enter_outside(ht);
}

static QUIESCE_COLD void leave_outside(const struct cds_lfht *ht, enum lfht_entry entered)
{
	if (ht->reader == LFHT_DEFAULT) {
		quiesce_rcu_read_unlock();
		return;
	}
	if (entered == LFHT_REGISTERED) {
		quiesce_qsbr_unregister_thread();
		return;
	}
	ht->flavor->read_unlock();
	ht->flavor->thread_offline();
}

static inline void reader_exit(const struct cds_lfht *ht, enum lfht_entry entered)
{
	if (QUIESCE_UNLIKELY(entered != LFHT_INSIDE))
		leave_outside(ht, entered);
}

static bool power_of_two(unsigned long v)
{
	return v && !(v & (v - 1));
}

/* quiesce's table calls the program's allocator (state: the cds_lfht_alloc). */
static void *alloc_calloc(void *state, size_t n, size_t size)
{
	const struct cds_lfht_alloc *a = state;

	return a->calloc(a->state, n, size);
}

static void *alloc_aligned(void *state, size_t alignment, size_t size)
{
	const struct cds_lfht_alloc *a = state;

	return a->aligned_alloc(a->state, alignment, size);
}

static void alloc_free(void *state, void *ptr)
{
	const struct cds_lfht_alloc *a = state;

	a->free(a->state, ptr);
}

struct cds_lfht *_cds_lfht_new(unsigned long init_size, unsigned long min_nr_alloc_buckets,
			       unsigned long max_nr_buckets, int flags,
			       const struct cds_lfht_mm_type *mm,
			       const struct rcu_flavor_struct *flavor, pthread_attr_t *attr)
{
	return _cds_lfht_new_with_alloc(init_size, min_nr_alloc_buckets, max_nr_buckets, flags,
					mm, flavor, NULL, attr);
}

struct cds_lfht *_cds_lfht_new_with_alloc(unsigned long init_size,
					  unsigned long min_nr_alloc_buckets,
					  unsigned long max_nr_buckets, int flags,
					  const struct cds_lfht_mm_type *mm,
					  const struct rcu_flavor_struct *flavor,
					  const struct cds_lfht_alloc *alloc, pthread_attr_t *attr)
{
	struct quiesce_rcuhash_params p = {
		.node_offset = offsetof(struct cds_lfht_node, node),
		.key_offset = offsetof(struct cds_lfht_node, hash),
		.key_len = sizeof(uint64_t),
		.seq_offset = offsetof(struct cds_lfht_node, seq),
		.flags = QUIESCE_RCUHASH_KEY_IS_HASH | QUIESCE_RCUHASH_SEQ,
		.min_size = min_nr_alloc_buckets,
	};
	struct cds_lfht *ht;

	(void)mm;
	if (!power_of_two(init_size) || !power_of_two(min_nr_alloc_buckets) ||
	    (max_nr_buckets && !power_of_two(max_nr_buckets)))
		return NULL;
	if (!(flags & CDS_LFHT_AUTO_RESIZE))
		p.flags |= QUIESCE_RCUHASH_NO_AUTO_RESIZE;
	ht = alloc ? alloc->malloc(alloc->state, sizeof(*ht)) : malloc(sizeof(*ht));
	if (!ht)
		return NULL;
	ht->alloc = alloc;
	if (alloc) {
		ht->q_alloc = (struct quiesce_rcuhash_alloc){
			.calloc = alloc_calloc,
			.aligned_alloc = alloc_aligned,
			.free = alloc_free,
			.state = (void *)alloc,
		};
		p.alloc = &ht->q_alloc;
	}
	ht->reader = reader_of(flavor);
	ht->flavor = flavor;
	if (ht->reader == LFHT_QSBR) {
		p.rcu = &quiesce_rcuhash_rcu_qsbr;	/* called inline, as the default RCU is */
	} else if (ht->reader == LFHT_MB) {
		p.rcu = &quiesce_rcuhash_rcu_mb;
	} else if (ht->reader == LFHT_CALLS) {
		ht->rcu = (struct quiesce_rcuhash_rcu){
			.read_lock = flavor->read_lock,
			.read_unlock = flavor->read_unlock,
			.read_ongoing = flavor->read_ongoing,
			.call_rcu = flavor->update_call_rcu,
		};
		p.rcu = &ht->rcu;
	}
	ht->q = quiesce_rcuhash_new(&p);
	ht->attr = attr;
	if (init_size > min_nr_alloc_buckets)
		quiesce_rcuhash_resize(ht->q, init_size);
	return ht;
}

void cds_lfht_node_init_deleted(struct cds_lfht_node *node)
{
	cds_lfht_node_init(node);
	/* Relaxed, as the table marks a node removed (QUIESCE_RCUHASH_SEQ). */
	__atomic_store_n(&node->seq, (uint64_t)QUIESCE_RCUHASH_SEQ_REMOVED, __ATOMIC_RELAXED);
}

int cds_lfht_destroy(struct cds_lfht *ht, pthread_attr_t **attr)
{
	if (quiesce_rcuhash_count_exact(ht->q))
		return -EPERM;
	quiesce_rcuhash_destroy(ht->q, NULL, NULL);
	if (attr)
		*attr = ht->attr;
	if (!ht->alloc) {
		free(ht);
		return 0;
	}
	/*
	 * Arrays that resizes retired are freed, through q_alloc, by callbacks
	 * of the table's RCU: wait for them, so that the program may drop its
	 * allocator when this returns (liburcu's tables retire none late).
	 */
	if (ht->flavor)
		ht->flavor->barrier();
	else
		quiesce_rcu_barrier();
	ht->alloc->free(ht->alloc->state, ht);
	return 0;
}

void cds_lfht_count_nodes(struct cds_lfht *ht, long *split_count_before, unsigned long *count,
			  long *split_count_after)
{
	struct quiesce_rcuhash_node *n = NULL;
	enum lfht_entry entered = reader_enter(ht);

	*split_count_before = (long)quiesce_rcuhash_count(ht->q);
	*count = 0;
	while ((n = quiesce_rcuhash_next(ht->q, n)))
		(*count)++;
	*split_count_after = (long)quiesce_rcuhash_count(ht->q);
	reader_exit(ht, entered);
}

/*
 * The iterator's position: the node, its hash and number, and (for a call
 * made inside the caller's section) where the walk that returned it goes
 * on, read by that walk (the table's _seq() calls).  A step reads nothing
 * of the node, which the table's last holder may have freed since, inside
 * a section or not (BIND 9's teardowns free each node in the loop that
 * walks them, as liburcu's iterator, which keeps the next node, allows).
 * A step inside the section goes on from the link kept (the short way, a
 * node a step: quiesce/rcuhash.h); one outside a section, whose link may
 * be gone with the section that read it, walks from the head of the
 * chain, and so does a step after a lookup, the common call, which keeps
 * no link (the table's plain lookup, a chain's walk as the lookup's).
 */
static void set_position(const struct cds_lfht *ht, struct cds_lfht_iter *iter,
			 struct quiesce_rcuhash_node *n, const void *resume,
			 enum lfht_entry entered)
{
	struct cds_lfht_node *node = lfht_node(n);

	iter->ht = ht;
	iter->node = node;
	if (node) {
		iter->hash = node->hash;
		iter->seq = QUIESCE_LOAD(&node->seq);
		iter->resume = entered == LFHT_INSIDE ? resume : NULL;
	}
}

/*
 * A step, or replace(), from a position in another table: a step would
 * walk that table's links as this one's, and replace() would find the
 * node missing here and say -ENOENT, hiding the mistake.  The position's
 * table is the one of the call that set it, so an iterator that a lookup
 * into another table reused, nested in a traversal, is caught at the
 * traversal's next step.
 */
static void check_table(const struct cds_lfht *ht, const struct cds_lfht_iter *iter,
			const char *call)
{
	if (QUIESCE_UNLIKELY(iter->ht != ht))
		urcu_overlay_die(call, "the iterator's position is in another table (a lookup "
				 "into another table, nested in a traversal, given the "
				 "traversal's iterator?)");
}

/* Where a step from the iterator's position walks on (see set_position()). */
static const void *resume_of(const struct cds_lfht_iter *iter, enum lfht_entry entered)
{
	return entered == LFHT_INSIDE ? iter->resume : NULL;
}

void cds_lfht_lookup(struct cds_lfht *ht, unsigned long hash, cds_lfht_match_fct match,
		     const void *key, struct cds_lfht_iter *iter)
{
	struct lfht_match m = { match, key };
	enum lfht_entry entered = reader_enter(ht);

	set_position(ht, iter, quiesce_rcuhash_lookup_match(ht->q, hash, match_tramp, &m, NULL),
		     NULL, entered);
	reader_exit(ht, entered);
}

void cds_lfht_next_duplicate(struct cds_lfht *ht, cds_lfht_match_fct match, const void *key,
			     struct cds_lfht_iter *iter)
{
	struct lfht_match m = { match, key };
	struct quiesce_rcuhash_node *n;
	enum lfht_entry entered;
	const void *resume;

	if (!iter->node)
		return;
	check_table(ht, iter, "cds_lfht_next_duplicate");
	entered = reader_enter(ht);
	resume = resume_of(iter, entered);
	n = quiesce_rcuhash_lookup_match_seq(ht->q, iter->hash, match_tramp, &m, iter->seq, &resume);
	set_position(ht, iter, n, resume, entered);
	reader_exit(ht, entered);
}

void cds_lfht_first(struct cds_lfht *ht, struct cds_lfht_iter *iter)
{
	enum lfht_entry entered = reader_enter(ht);
	const void *resume = NULL;
	struct quiesce_rcuhash_node *n;

	/* From below every node (0, 0): the first node. */
	n = quiesce_rcuhash_next_seq(ht->q, 0, 0, &resume);
	set_position(ht, iter, n, resume, entered);
	reader_exit(ht, entered);
}

void cds_lfht_next(struct cds_lfht *ht, struct cds_lfht_iter *iter)
{
	struct quiesce_rcuhash_node *n;
	enum lfht_entry entered;
	const void *resume;

	if (!iter->node)
		return;
	check_table(ht, iter, "cds_lfht_next");
	entered = reader_enter(ht);
	resume = resume_of(iter, entered);
	n = quiesce_rcuhash_next_seq(ht->q, iter->hash, iter->seq, &resume);
	set_position(ht, iter, n, resume, entered);
	reader_exit(ht, entered);
}

void cds_lfht_add(struct cds_lfht *ht, unsigned long hash, struct cds_lfht_node *node)
{
	node->hash = hash;
	full_barrier();
	quiesce_rcuhash_add(ht->q, &node->node);
	full_barrier();
}

struct cds_lfht_node *cds_lfht_add_unique(struct cds_lfht *ht, unsigned long hash,
					  cds_lfht_match_fct match, const void *key,
					  struct cds_lfht_node *node)
{
	struct lfht_match m = { match, key };
	struct quiesce_rcuhash_node *old;

	node->hash = hash;
	full_barrier();
	old = quiesce_rcuhash_insert_match(ht->q, &node->node, match_tramp, &m);
	if (old)
		return lfht_node(old);	/* a lookup: no barrier promised */
	full_barrier();
	return node;
}

struct cds_lfht_node *cds_lfht_add_replace(struct cds_lfht *ht, unsigned long hash,
					   cds_lfht_match_fct match, const void *key,
					   struct cds_lfht_node *node)
{
	struct lfht_match m = { match, key };
	struct quiesce_rcuhash_node *old;

	node->hash = hash;
	full_barrier();
	old = quiesce_rcuhash_replace_match(ht->q, &node->node, match_tramp, &m);
	full_barrier();
	return lfht_node(old);
}

int cds_lfht_replace(struct cds_lfht *ht, struct cds_lfht_iter *old_iter, unsigned long hash,
		     cds_lfht_match_fct match, const void *key, struct cds_lfht_node *new_node)
{
	struct cds_lfht_node *old = old_iter->node;

	if (!old)
		return -ENOENT;
	check_table(ht, old_iter, "cds_lfht_replace");
	if (old->hash != (uint64_t)hash || !match(old, key))
		return -EINVAL;
	new_node->hash = hash;
	full_barrier();
	if (!quiesce_rcuhash_replace(ht->q, &old->node, &new_node->node))
		return -ENOENT;
	full_barrier();
	return 0;
}

int cds_lfht_del(struct cds_lfht *ht, struct cds_lfht_node *node)
{
	if (!node)
		return -ENOENT;
	full_barrier();
	if (!quiesce_rcuhash_remove(ht->q, &node->node))
		return -ENOENT;
	full_barrier();
	return 0;
}

void cds_lfht_resize(struct cds_lfht *ht, unsigned long new_size)
{
	quiesce_rcuhash_resize(ht->q, new_size);
}
