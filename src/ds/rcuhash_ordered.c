/*
 * rcuhash_ordered.c - lookups and iteration that carry no state but the
 * last node returned (or its hash and number, the _seq() forms, for a
 * caller that may free it first), so that a caller may stop anywhere and
 * resizes may run meanwhile (the reads liburcu's cds_lfht offers, whose
 * split-ordered list never moves a node; ours move between chains when the
 * table resizes).
 *
 * The order.  Nodes are ordered by key(N) = (rev(hash(N)), tie(N)), rev()
 * reversing the 64 bits, tie() the node's number in a QUIESCE_RCUHASH_SEQ
 * table (rcuhash.c gives it; a replacement inherits it) or else its
 * address.  A bucket of an array of 2^k buckets holds the hashes whose
 * low k bits are its index: in rev() order, one interval of 2^(64-k)
 * values, and the intervals of an array tile the whole range.
 * So the order does not depend on the array, and the successor of a
 * position is the least key above it in the interval that holds the
 * position, or else the least key of a later interval.
 *
 * A scan of hash h walks h's chain in the current array, then, after a
 * clean end, h's chain in each future array in turn, exactly as lookup()
 * does (rcuhash.c), and lookup()'s argument gives: every node with a hash
 * h' such that h' and h share a bucket in every array the scan visits,
 * and that is in the table throughout the scan, is met at least once (a
 * node may be met twice: a walk carried into another chain starts over).
 * The nodes guaranteed are those of the finest of the arrays visited (the
 * largest mask): h's interval in that array.  A node met from a coarser
 * array may lie outside it, and a node beyond it may be missing, so it is
 * no answer: only the least key above the position within the fine
 * interval is (and if the fine interval turns out finer than the one a
 * candidate was chosen in, the candidate stays only if it lies within,
 * since any node of the finer interval above the position is below every
 * node outside it).  Meeting a node twice does no harm to a minimum.
 *
 * Hence next(): scan the position's interval; the least key above the
 * position in it is the answer; if there is none, the position moves to
 * the start of the next interval and the scan repeats.  Every node present
 * throughout a sequence of next() calls lies in some interval that one of
 * the scans covered, above the position then, and is returned unless a
 * smaller key was, which only moves the position closer to it; positions
 * only increase, so nothing is returned twice.  lookup_match() is the same
 * with the position's hash fixed (a single hash lies in one interval of
 * every array) and the order reduced to tie().  A node and its replacement
 * share a key: whichever the scan meets is the answer, and the position,
 * once there, is above both.
 *
 * lookup_match() ends early in a QUIESCE_RCUHASH_SEQ table: there the nodes
 * of one hash lie in their chain in increasing number order, whatever
 * array holds them (rcuhash.c numbers nodes counting down and inserts each
 * first among the nodes of its hash, but for add() in a sorted table,
 * which numbers counting up, above them, and inserts last; a move takes a
 * bucket's nodes last first and pushes each on the head of its new chain,
 * which keeps the order of the nodes that go to one chain, and the nodes
 * of one hash all go to the same one; a replacement takes its
 * predecessor's number and place).  So the first
 * node above the position that the walk accepts is the least present
 * throughout: a smaller one lies before it in the chain the walk was on,
 * and if that one moved, so did every node after it, the accepted one
 * included, and the walk met them in that order in the new chain.  Nodes
 * met twice (a restart, a node moved after the walk passed it) were
 * rejected the first time and are again.
 *
 * Both end early in a caller-hashed table, whose chains are sorted by
 * rev(hash) and whose walks meet every node present throughout before any
 * node above it in that order (rcuhash.c, Order; a node of the interval of
 * an array walked, or moved from it, is either met in that walk or found
 * in the next array's).  lookup_match() stops at the first node above its
 * hash: no node of that hash comes later.  next() stops at the first node
 * above its candidate's hash, or above the fine interval: every node of
 * the fine interval below that point, present throughout, has been met,
 * so the candidate, or the lack of one, is the answer.
 *
 * The short way.  Given a position node (after) that is still in the
 * table (a sorted QUIESCE_RCUHASH_SEQ table, whose removed bit says so),
 * both walk the current array's chain on from it rather than from the
 * head of the chain: a step of an iteration then costs a node instead of
 * half a chain.  after was met by a walk of its chain and the caller has
 * stayed in its section since, so the walk on from it continues that one
 * (a walk may pause anywhere, after its load of after's next too: the
 * _seq() forms go on from that link, which the call that returned after
 * read, for a caller that may free after meanwhile): it meets every node
 * above after present throughout before any node above that one, or is
 * carried off.  So what a clean end in the current array's chain means is
 * unchanged, and the walk goes on to the future array as always; any
 * other end (after having moved since) sends it back to the head of the
 * chain, as a walk carried off is sent.  From a node that has left the
 * table the walk starts at the head: the next such a node kept may lead
 * to nodes that left before this call, which no walk from the head would
 * return.
 *
 * In a sorted SEQ table the order of a path is the table's whole order,
 * numbers included (new nodes go first among those of their hash, or, by
 * add(), last), so
 * next() too has its answer in the first node above the position that it
 * meets in the fine interval.
 *
 * Ordering: the scan's loads are lookup()'s (dependency-ordered chain
 * loads, the acquire fence before a future array), so a node returned is
 * seen with everything its inserter wrote before inserting it.
 */
#include <string.h>

#include "common/diag.h"
#include "ds/rcuhash_internal.h"

static inline uint64_t hash_of(const struct quiesce_rcuhash *ht, const struct quiesce_rcuhash_node *n)
{
	uint64_t h;

	if (ht->p.flags & QUIESCE_RCUHASH_KEY_IS_HASH) {
		memcpy(&h, (const char *)rcuhash_obj(ht, n) + ht->p.key_offset, sizeof(h));
		return h;
	}
	return quiesce_rcuhash_node_hash(ht, n);
}

/* What one scan looks for (the two calls' visits, below). */
struct scan {
	struct quiesce_rcuhash *ht;
	uint64_t hash;			/* the chains scanned: hash's */
	uint64_t fine;			/* the largest mask met so far */
	/* next(): the position, and the least key above it in the interval. */
	uint64_t pos_rev, pos_tie;
	struct quiesce_rcuhash_node *cand;
	uint64_t cand_rev, cand_tie, cand_hash;
	/* lookup_match(): pos_tie, cand and cand_tie too */
	quiesce_rcuhash_match_fn match;
	const void *arg;
	bool first_is_least;		/* a SEQ table: the first match found is the answer
					 * (next(): if also sorted) */
	bool sorted;			/* rcuhash_sorted(): chains in rev() order */
	bool busted;			/* test-only: RCUHASH_BUSTED_COARSE_ORDER */
};

/* A SEQ table's order word of n (rcuhash.c, seq_word()). */
static inline uint64_t seq_of(const struct quiesce_rcuhash *ht, const struct quiesce_rcuhash_node *n)
{
	return QUIESCE_LOAD((const uint64_t *)((const char *)rcuhash_obj(ht, n) + ht->p.seq_offset));
}

static inline uint64_t tie_of(const struct quiesce_rcuhash *ht, const struct quiesce_rcuhash_node *n)
{
	if (ht->p.flags & QUIESCE_RCUHASH_SEQ)
		return seq_of(ht, n) >> 1;
	return (uintptr_t)n;
}

/*
 * Where the short way goes on (see the top): after's next (a node or an
 * end marker), or NULL for the head of the chain.
 */
static inline const struct quiesce_rcuhash_node *short_way(const struct quiesce_rcuhash *ht,
							   const struct quiesce_rcuhash_node *after)
{
	if (!after || !rcuhash_sorted(ht) || !(ht->p.flags & QUIESCE_RCUHASH_SEQ) ||
	    (seq_of(ht, after) & QUIESCE_RCUHASH_SEQ_REMOVED))
		return NULL;
	return quiesce_rcu_dereference(after->next);
}

/*
 * Where a _seq() form goes on: resume, unless it is a node that has left
 * the table since the call that returned the position read it (the
 * caller, or an update that happened before the call, removed it
 * meanwhile).  A walk from such a node would meet it first and could
 * return it, and the nodes after it that left with it, which no walk from
 * the head returns (liburcu's steps skip removed nodes); from a node
 * still in the table, the walk follows the chain as it is.  Relaxed, as
 * seq_retire()'s store of the bit (under the stripe lock, before the
 * unlink): a removal that happened before the call is ordered before this
 * load by that relation; one concurrent with it may be missed, as a walk
 * from the head may meet such a node too.
 */
static inline const struct quiesce_rcuhash_node *resume_from(const struct quiesce_rcuhash *ht,
							     const void *resume)
{
	const struct quiesce_rcuhash_node *r = resume;

	if (r && rcuhash_is_node(r) && (seq_of(ht, r) & QUIESCE_RCUHASH_SEQ_REMOVED))
		return NULL;
	return r;
}

static inline bool key_above(uint64_t r, uint64_t tie, uint64_t pr, uint64_t ptie)
{
	return r > pr || (r == pr && tie > ptie);
}

/* Each visit returns true when the scan has its answer and may end. */
static inline bool visit_next(struct scan *s, struct quiesce_rcuhash_node *p)
{
	uint64_t h = hash_of(s->ht, p), r, tie;

	/* Outside the fine interval: below it, or above it and the end. */
	if ((h & s->fine) != (s->hash & s->fine) && QUIESCE_LIKELY(!s->busted))
		return s->sorted && rcuhash_rev_above(h, s->hash);
	r = rcuhash_rev64(h);
	if (s->sorted && s->cand && r > s->cand_rev)
		return true;
	tie = tie_of(s->ht, p);
	if (!key_above(r, tie, s->pos_rev, s->pos_tie))
		return false;
	if (!s->cand || key_above(s->cand_rev, s->cand_tie, r, tie)) {
		s->cand = p;
		s->cand_rev = r;
		s->cand_tie = tie;
		s->cand_hash = h;
	}
	return s->sorted && s->first_is_least;
}

static inline bool visit_match(struct scan *s, struct quiesce_rcuhash_node *p, bool first)
{
	uint64_t h = hash_of(s->ht, p), tie;

	if (h != s->hash)
		return s->sorted && rcuhash_rev_above(h, s->hash);
	if (first) {
		/* From the head of a SEQ table: the first match is the answer. */
		if (!s->match(p, s->arg))
			return false;
		s->cand = p;
		return true;
	}
	tie = tie_of(s->ht, p);
	if (tie <= s->pos_tie || (s->cand && tie >= s->cand_tie))
		return false;
	if (!s->match(p, s->arg))
		return false;
	s->cand = p;
	s->cand_tie = tie;
	return s->first_is_least;
}

/* The interval narrowed: a candidate outside it is no answer (see top). */
static inline void narrow(struct scan *s, size_t mask)
{
	if (mask <= s->fine)
		return;
	s->fine = mask;
	if (s->cand && (s->cand_hash & mask) != (s->hash & mask) && QUIESCE_LIKELY(!s->busted))
		s->cand = NULL;
}

/* Which visit a scan makes: next()'s, lookup_match()'s, or the latter's first-match case. */
enum scan_visit { SCAN_NEXT, SCAN_MATCH, SCAN_FIRST_MATCH };

/*
 * lookup()'s walk over hash's chains, every node met passed to a visit.
 * from: where the short way goes on (short_way()), or NULL: the walk of
 * the current array starts there rather than at the head.  Each kind
 * of visit gets its own copy of the walk (visit is a constant).
 */
static inline __attribute__((always_inline)) void
scan(struct scan *s, enum scan_visit visit, const struct quiesce_rcuhash_node *from)
{
	bool next = visit == SCAN_NEXT;
	struct rcuhash_table *t = quiesce_rcu_dereference(s->ht->tbl);

	do {
		struct quiesce_rcuhash_node **bucket = &t->buckets[s->hash & t->mask], *p;

		if (next)
			narrow(s, t->mask);
		p = from ? (struct quiesce_rcuhash_node *)from : quiesce_rcu_dereference(*bucket);
		from = NULL;
		for (;;) {
			for (; rcuhash_is_node(p); p = quiesce_rcu_dereference(p->next))
				if (next ? visit_next(s, p) : visit_match(s, p, visit == SCAN_FIRST_MATCH))
					return;
			if (QUIESCE_LIKELY(p == NULL || p == RCUHASH_MOVED || p == rcuhash_marker(bucket)))
				break;
			/*
			 * Carried into another chain by a moved node, or ended
			 * in another chain from the position: this one again,
			 * from its head.
			 */
			p = quiesce_rcu_dereference(*bucket);
		}
		/* Acquire: as in lookup(), pairs with the move's (m3) or MOVED release. */
		quiesce_fence_acquire();
		t = quiesce_rcu_dereference(t->future);
	} while (QUIESCE_UNLIKELY(t != NULL));
}

/*
 * lookup_match() from the head of a SEQ table, liburcu's cds_lfht_lookup():
 * the first match is the answer (see the top).  A function of its own, so
 * that the common lookup carries none of a position's state.
 */
static __attribute__((noinline)) struct quiesce_rcuhash_node *
first_match(struct quiesce_rcuhash *ht, uint64_t hash, quiesce_rcuhash_match_fn match,
	    const void *arg)
{
	struct scan s = {
		.ht = ht, .hash = hash, .match = match, .arg = arg, .sorted = rcuhash_sorted(ht),
	};

	scan(&s, SCAN_FIRST_MATCH, NULL);
	return s.cand;
}

/*
 * lookup_match() from a position (tie; 0: below every node, since numbers
 * never reach 0 and addresses are not NULL), walking on from `from` if
 * not NULL (the short way), or in a table without SEQ.
 */
static __attribute__((noinline)) struct quiesce_rcuhash_node *
match_from(struct quiesce_rcuhash *ht, uint64_t hash, quiesce_rcuhash_match_fn match,
	   const void *arg, uint64_t pos_tie, const struct quiesce_rcuhash_node *from)
{
	struct scan s = {
		.ht = ht, .hash = hash, .match = match, .arg = arg, .pos_tie = pos_tie,
		.first_is_least = ht->p.flags & QUIESCE_RCUHASH_SEQ,
		.sorted = rcuhash_sorted(ht),
	};

	scan(&s, SCAN_MATCH, from);
	return s.cand;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_lookup_match(struct quiesce_rcuhash *ht,
							  uint64_t hash,
							  quiesce_rcuhash_match_fn match,
							  const void *arg,
							  const struct quiesce_rcuhash_node *after)
{
	rcuhash_check_reader(ht, "rcuhash_lookup_match()");
	if (!after)
		return ht->p.flags & QUIESCE_RCUHASH_SEQ ? first_match(ht, hash, match, arg)
							 : match_from(ht, hash, match, arg, 0, NULL);
	return match_from(ht, hash, match, arg, tie_of(ht, after), short_way(ht, after));
}

/* A position given by an order word: QUIESCE_RCUHASH_SEQ tables only. */
static uint64_t tie_of_seq(const struct quiesce_rcuhash *ht, uint64_t after_seq, const char *call)
{
	if (!(ht->p.flags & QUIESCE_RCUHASH_SEQ))
		quiesce_die("%s() on a table without QUIESCE_RCUHASH_SEQ: its nodes have no "
			    "order word", call);
	return after_seq >> 1;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_lookup_match_seq(struct quiesce_rcuhash *ht,
							      uint64_t hash,
							      quiesce_rcuhash_match_fn match,
							      const void *arg, uint64_t after_seq,
							      const void **resume)
{
	uint64_t pos_tie = tie_of_seq(ht, after_seq, "rcuhash_lookup_match_seq");
	struct quiesce_rcuhash_node *n;

	rcuhash_check_reader(ht, "rcuhash_lookup_match_seq()");
	n = match_from(ht, hash, match, arg, pos_tie, resume_from(ht, *resume));
	*resume = short_way(ht, n);
	return n;
}

/*
 * next() from the position (hash, pos_tie) (0, 0: below every node),
 * scanning its interval first on from `from` if not NULL (the short way).
 */
static struct quiesce_rcuhash_node *next_from(struct quiesce_rcuhash *ht, uint64_t hash,
					      uint64_t pos_tie,
					      const struct quiesce_rcuhash_node *from)
{
	uint64_t pos_rev = rcuhash_rev64(hash);
	bool busted = QUIESCE_LOAD(&quiesce_test_busted_rcuhash) == RCUHASH_BUSTED_COARSE_ORDER;

	for (;;) {
		struct scan s = {
			.ht = ht, .hash = hash, .pos_rev = pos_rev, .pos_tie = pos_tie,
			.first_is_least = ht->p.flags & QUIESCE_RCUHASH_SEQ,
			.sorted = rcuhash_sorted(ht), .busted = busted,
		};
		uint64_t last;

		scan(&s, SCAN_NEXT, from);
		from = NULL;
		if (s.cand)
			return s.cand;
		/*
		 * The interval's last value: the position's top bits (as
		 * many as fine, 2^k - 1, has), then all ones.
		 */
		last = rcuhash_rev64(s.hash & s.fine) |
		       (UINT64_MAX >> (s.fine ? 64 - __builtin_clzll(s.fine) : 0));
		if (last == UINT64_MAX)
			return NULL;
		pos_rev = last + 1;
		hash = rcuhash_rev64(pos_rev);
		pos_tie = 0;
	}
}

struct quiesce_rcuhash_node *quiesce_rcuhash_next(struct quiesce_rcuhash *ht,
						  const struct quiesce_rcuhash_node *after)
{
	rcuhash_check_reader(ht, "rcuhash_next()");
	/* NULL: the position below every node (no node has tie 0). */
	if (!after)
		return next_from(ht, 0, 0, NULL);
	return next_from(ht, hash_of(ht, after), tie_of(ht, after), short_way(ht, after));
}

struct quiesce_rcuhash_node *quiesce_rcuhash_next_seq(struct quiesce_rcuhash *ht,
						      uint64_t after_hash, uint64_t after_seq,
						      const void **resume)
{
	uint64_t pos_tie = tie_of_seq(ht, after_seq, "rcuhash_next_seq");
	struct quiesce_rcuhash_node *n;

	rcuhash_check_reader(ht, "rcuhash_next_seq()");
	n = next_from(ht, after_hash, pos_tie, resume_from(ht, *resume));
	*resume = short_way(ht, n);
	return n;
}
