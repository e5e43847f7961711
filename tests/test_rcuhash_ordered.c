/*
 * <quiesce/rcuhash.h>: the matching calls (duplicates, insert_match,
 * replace_match, replace) and the ordered reads (lookup_match(), next(),
 * and their _seq() forms, from a position whose node is gone) of a
 * caller-hashed table (QUIESCE_RCUHASH_KEY_IS_HASH | SEQ), alone and
 * under concurrent updaters and forced resizes.
 *
 * Keys 2j and 2j+1 share a hash, so match() is what tells them apart.
 * Keys below STABLE are in the table throughout, though updaters keep
 * replacing their nodes; key DUPKEY has NDUP nodes, never touched; the
 * other keys come and go, with duplicates.  Readers iterate the whole
 * table with next() and fail the test if the order does not strictly
 * increase (a node returned twice), if a stable key is not returned
 * exactly once, if DUPKEY is not returned NDUP times, or if a node is
 * poisoned (freed through call_rcu() and poisoned there); between
 * iterations they look keys up, and fail if lookup_match() or lookup()
 * misses a stable key.  Two controls must be caught: next() answering
 * from a coarser interval than the scan covered (a node missed while a
 * resize moves nodes), and shrinks that move a group's old buckets in the
 * wrong order, leaving chains unsorted, so that searches, which stop at
 * the first node past their key, miss nodes.
 *
 * The table's chains are sorted by bit-reversed hash (a caller-hashed
 * table); sorted_chains() checks that after grows and shrinks of every
 * size, directly on the arrays.
 */
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "ds/rcuhash_internal.h"
#include "hash_stress.h"
#include "rcuhash_check.h"

#define KEYS 2048
#define STABLE 256
#define DUPKEY (STABLE + 1)
#define NDUP 5
#define READERS 2
#define UPDATERS 2
#define UPDATER_OPS 100000
#define MIN_ITERATIONS 200
#define MIN_RESIZES 200

struct obj {
	uint64_t hash;
	uint64_t seq;
	struct hash_item item;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

static const struct rcuhash_params params = {
	.node_offset = offsetof(struct obj, node),
	.key_offset = offsetof(struct obj, hash),
	.key_len = sizeof(uint64_t),
	.flags = QUIESCE_RCUHASH_KEY_IS_HASH | QUIESCE_RCUHASH_SEQ,
	.seq_offset = offsetof(struct obj, seq),
};

static uint64_t hash_key(unsigned long key)
{
	uint64_t h = (key / 2) * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

static struct obj *new_obj(unsigned long key)
{
	struct obj *o = calloc(1, sizeof(*o));

	hash_item_init(&o->item, key);
	o->hash = hash_key(key);
	return o;
}

static struct obj *obj_of(const struct rcuhash_node *n)
{
	return container_of(n, struct obj, node);
}

static bool match_key(const struct rcuhash_node *node, const void *arg)
{
	return hash_item_key(&obj_of(node)->item) == *(const unsigned long *)arg;
}

static bool removed(const struct obj *o)
{
	return __atomic_load_n(&o->seq, __ATOMIC_RELAXED) & QUIESCE_RCUHASH_SEQ_REMOVED;
}

static unsigned count_key(struct rcuhash *ht, unsigned long key)
{
	struct rcuhash_node *n = NULL;
	unsigned c = 0;

	while ((n = rcuhash_lookup_match(ht, hash_key(key), match_key, &key, n))) {
		CHECK(obj_of(n)->item.key == key, "lookup_match returned key %lu for %lu",
		      obj_of(n)->item.key, key);
		c++;
	}
	return c;
}

static void free_obj(struct rcuhash_node *node, void *arg)
{
	free(obj_of(node));
}

static void other_hash(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&params);
	struct obj *a = new_obj(10), *b = new_obj(20);

	rcuhash_add(ht, &a->node);
	rcuhash_replace(ht, &a->node, &b->node);
}

static void semantics(void)
{
	struct rcuhash *ht = rcuhash_new(&params);
	struct obj *d[3], *twin = new_obj(11), *o12 = new_obj(12), *n12 = new_obj(12), *r12;
	unsigned long k10 = 10, k12 = 12;
	struct obj *extra = new_obj(10), *o9 = new_obj(9);

	rcu_read_lock();
	for (int i = 0; i < 3; i++) {
		d[i] = new_obj(10);
		rcuhash_add(ht, &d[i]->node);
	}
	rcuhash_add(ht, &twin->node);
	CHECK(count_key(ht, 10) == 3 && count_key(ht, 11) == 1,
	      "three duplicates of 10 and one 11 on the same hash");
	CHECK(rcuhash_insert_match(ht, &extra->node, match_key, &k10) != NULL &&
	      rcuhash_count(ht) == 4, "insert_match refuses a present key");
	free(extra);
	CHECK(rcuhash_insert_match(ht, &o12->node, match_key, &k12) == NULL && count_key(ht, 12) == 1,
	      "insert_match inserts an absent key");
	CHECK(rcuhash_replace_match(ht, &n12->node, match_key, &k12) == &o12->node &&
	      removed(o12) && !removed(n12) && count_key(ht, 12) == 1 &&
	      rcuhash_lookup_match(ht, hash_key(12), match_key, &k12, NULL) == &n12->node,
	      "replace_match swaps, marks the old node removed");
	CHECK(o12->seq >> 1 == n12->seq >> 1, "a replacement takes the old node's number");
	r12 = new_obj(12);
	CHECK(!rcuhash_replace(ht, &o12->node, &r12->node), "replace of a removed node fails");
	CHECK(rcuhash_replace(ht, &n12->node, &r12->node) && removed(n12),
	      "replace of a present node succeeds");
	CHECK(rcuhash_replace_match(ht, &o9->node, match_key, &(unsigned long){ 9 }) == NULL &&
	      count_key(ht, 9) == 1, "replace_match inserts an absent key");
	CHECK(rcuhash_remove(ht, &r12->node) && removed(r12) && !rcuhash_remove(ht, &r12->node),
	      "remove once, and only once");
	CHECK(count_key(ht, 12) == 0, "key 12 gone");
	rcu_read_unlock();
	synchronize_rcu();
	free(o12);
	free(n12);
	free(r12);
	rcuhash_destroy(ht, free_obj, NULL);
	check_child_aborts(other_hash, NULL, "hashes differently");
}

static uint64_t rev64(uint64_t h)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++, h >>= 1)
		r = (r << 1) | (h & 1);
	return r;
}

/* Whether o comes after (*rev, *tie) in the table's order; moves it there. */
static bool advances(const struct obj *o, uint64_t *rev, uint64_t *tie)
{
	uint64_t r = rev64(__atomic_load_n(&o->hash, __ATOMIC_RELAXED));
	uint64_t t = __atomic_load_n(&o->seq, __ATOMIC_RELAXED) >> 1;
	bool above = r > *rev || (r == *rev && t > *tie);

	*rev = r;
	*tie = t;
	return above;
}

/*
 * Whether every chain of ht's arrays climbs in the table's order: by
 * bit-reversed hash, and by number among the nodes of one hash.
 */
static bool chains_sorted(struct rcuhash *ht)
{
	for (struct rcuhash_table *t = ht->tbl; t; t = t->future) {
		for (size_t b = 0; b <= t->mask; b++) {
			uint64_t rev = 0, tie = 0;	/* below every node: no tie is 0 */

			for (struct rcuhash_node *n = t->buckets[b]; rcuhash_is_node(n); n = n->next)
				if (!advances(obj_of(n), &rev, &tie))
					return false;
		}
	}
	return true;
}

static bool all_found(struct rcuhash *ht, unsigned long keys)
{
	bool ok = true;

	rcu_read_lock();
	for (unsigned long k = 0; k < keys && ok; k++) {
		uint64_t h = hash_key(k);

		ok = count_key(ht, k) == 1 && rcuhash_lookup(ht, &h) != NULL;
	}
	rcu_read_unlock();
	return ok;
}

/*
 * Chains stay sorted through inserts, grows and shrinks by every factor,
 * and every key is found; a shrink in the busted order is caught.
 */
static void sorted_chains(void)
{
	enum { N = 3000 };
	static const size_t sizes[] = { 8 * N, 1, 2 * N, N / 2, 16 * N, 200, 1 };
	struct rcuhash *ht = rcuhash_new(&params);

	for (unsigned long k = 0; k < N; k++)
		rcuhash_add(ht, &new_obj(k)->node);
	CHECK(chains_sorted(ht) && all_found(ht, N), "sorted after inserts");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		rcuhash_resize(ht, sizes[i]);
		CHECK(chains_sorted(ht), "sorted after a resize to %zu buckets", rcuhash_buckets(ht));
		CHECK(all_found(ht, N), "every key found after a resize to %zu buckets",
		      rcuhash_buckets(ht));
	}
	rcuhash_resize(ht, 16 * N);
	quiesce_test_busted_rcuhash = RCUHASH_BUSTED_SHRINK_ORDER;
	rcuhash_resize(ht, 1);
	quiesce_test_busted_rcuhash = RCUHASH_BUSTED_NONE;
	CHECK(!chains_sorted(ht) && !all_found(ht, N),
	      "the checks catch a shrink that moves a group's buckets in the wrong order");
	rcuhash_destroy(ht, free_obj, NULL);
}

/*
 * next() from a position that has left the table: after and s share
 * bucket 5 of 128, z sits in bucket 69, and a shrink to 64 buckets puts z
 * after them in one chain.  after, then s (the last of its chain, so its
 * next is that chain's end marker, in an array since retired), are
 * removed while the reader holds after; next(after) must return z, not s
 * (gone before the call) nor nothing: it walks from the chain's head, not
 * on from after (rcuhash_ordered.c, the short way).
 */
static void next_from_removed_position(void)
{
	struct rcuhash_params p = params;
	struct rcuhash *t;
	struct obj *o[3];
	static const uint64_t hashes[3] = { 5, 5 + 128, 5 + 64 };	/* after, s, z */

	p.flags |= QUIESCE_RCUHASH_NO_AUTO_RESIZE;
	t = rcuhash_new(&p);
	rcuhash_resize(t, 128);
	for (int i = 0; i < 3; i++) {
		o[i] = new_obj(i);
		o[i]->hash = hashes[i];
		rcuhash_add(t, &o[i]->node);
	}
	rcu_read_lock();
	CHECK(rcuhash_next(t, NULL) == &o[0]->node, "the first node is after");
	CHECK(rcuhash_remove(t, &o[0]->node) && rcuhash_remove(t, &o[1]->node), "removed");
	rcuhash_resize(t, 1);
	CHECK(rcuhash_buckets(t) == 64, "shrunk to 64 buckets");
	CHECK(rcuhash_next(t, &o[0]->node) == &o[2]->node,
	      "next() from a removed position whose chain ended returns the node after it");
	rcu_read_unlock();
	synchronize_rcu();
	free(o[0]);
	free(o[1]);
	rcuhash_destroy(t, free_obj, NULL);
}

/* next() over a table resized every few steps returns each node once, in order. */
static void iteration_across_resizes(void)
{
	enum { N = 3000 };
	struct rcuhash *ht = rcuhash_new(&params);
	static unsigned char seen[N];
	struct rcuhash_node *n = NULL;
	uint64_t rng = 7, rev = 0, tie = 0;
	unsigned steps = 0;

	for (unsigned long k = 0; k < N; k++)
		rcuhash_add(ht, &new_obj(k)->node);
	rcu_read_lock();
	while ((n = rcuhash_next(ht, n))) {
		struct obj *o = obj_of(n);

		CHECK(o->item.key < N && !seen[o->item.key]++, "key %lu returned twice", o->item.key);
		CHECK(advances(o, &rev, &tie), "next() went backwards at key %lu", o->item.key);
		if (++steps % 50 == 0) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			rcuhash_resize(ht, 1 + (rng >> 33) % (8 * N));
		}
	}
	rcu_read_unlock();
	for (unsigned k = 0; k < N; k++)
		CHECK(seen[k] == 1, "key %u returned %u times", k, seen[k]);
	rcuhash_destroy(ht, free_obj, NULL);
}

/*
 * next_seq() and lookup_match_seq(): an iteration carried by the hash and
 * order word alone, the node returned removed, poisoned and freed before
 * the next step: every node once, in order, the duplicates of one key
 * too.  The duplicates in one section, each step going on from the link
 * the one before left (the short way); the whole table with each step in
 * a section of its own (from the head of the chain), the table resized
 * now and then.  Without SEQ, the calls die with a message.
 */
static void take_off(struct rcuhash *t, struct obj *o, uint64_t *hash, uint64_t *seq)
{
	*hash = o->hash;
	*seq = __atomic_load_n(&o->seq, __ATOMIC_RELAXED);
	CHECK(rcuhash_remove(t, &o->node), "key %lu removed", o->item.key);
	check_poison(o, sizeof(*o));
	free(o);
}

static void iteration_by_position(void)
{
	enum { N = 1000, DUPS = 4 };
	struct rcuhash *t = rcuhash_new(&params);
	static unsigned char seen[N];
	struct rcuhash_node *n;
	uint64_t hash, seq, rev = 0, tie = 0;
	unsigned long k10 = 10;
	unsigned dups = 0, steps = 0;
	const void *resume = NULL;

	for (unsigned long k = 0; k < N; k++)
		rcuhash_add(t, &new_obj(k)->node);
	for (int i = 1; i < DUPS; i++)
		rcuhash_add(t, &new_obj(10)->node);
	rcu_read_lock();
	n = rcuhash_lookup_match_seq(t, hash_key(10), match_key, &k10, 0, &resume);
	while (n) {
		dups++;
		CHECK(resume, "no short way on from a node in the table");
		take_off(t, obj_of(n), &hash, &seq);
		n = rcuhash_lookup_match_seq(t, hash, match_key, &k10, seq, &resume);
	}
	rcu_read_unlock();
	CHECK(dups == DUPS, "lookup_match_seq() found %u of the %u nodes of key 10", dups, DUPS);
	seen[10] = 1;
	rcu_read_lock();
	resume = NULL;
	n = rcuhash_next_seq(t, 0, 0, &resume);
	rcu_read_unlock();
	while (n) {
		struct obj *o = obj_of(n);

		CHECK(o->item.key < N && !seen[o->item.key]++, "key %lu returned twice", o->item.key);
		CHECK(advances(o, &rev, &tie), "next_seq() went backwards at key %lu", o->item.key);
		take_off(t, o, &hash, &seq);
		if (++steps % 50 == 0)
			rcuhash_resize(t, 1 + (steps * 37) % (4 * N));
		rcu_read_lock();
		resume = NULL;	/* the link kept was read in another section */
		n = rcuhash_next_seq(t, hash, seq, &resume);
		rcu_read_unlock();
	}
	for (unsigned k = 0; k < N; k++)
		CHECK(seen[k] == 1, "key %u returned %u times", k, seen[k]);
	CHECK(rcuhash_count(t) == 0, "every node taken off");
	rcuhash_destroy(t, free_obj, NULL);
}

static void next_seq_without_seq(void *arg)
{
	struct rcuhash_params p = params;
	struct rcuhash *t;

	(void)arg;
	p.flags &= ~QUIESCE_RCUHASH_SEQ;
	t = rcuhash_new(&p);
	rcu_read_lock();
	rcuhash_next_seq(t, 0, 0, &(const void *){ NULL });
}

static struct rcuhash *ht;

static void poison_obj(struct rcu_head *head)
{
	check_quarantine(container_of(head, struct obj, rcu), offsetof(struct obj, rcu));
}

static void retire(struct rcuhash_node *n)
{
	call_rcu(&obj_of(n)->rcu, poison_obj);
}

static void check_iteration(void)
{
	static __thread unsigned char seen[KEYS];
	struct rcuhash_node *n = NULL;
	uint64_t rev = 0, tie = 0;

	memset(seen, 0, sizeof(seen));
	rcu_read_lock();
	while ((n = rcuhash_next(ht, n))) {
		struct obj *o = obj_of(n);
		unsigned long key = hash_item_key(&o->item);

		if (key >= KEYS || !hash_item_intact(&o->item, key)) {
			hash_stress_violation("next() returned a poisoned or torn node (key %#lx)", key);
			break;
		}
		if (!advances(o, &rev, &tie))
			hash_stress_violation("next() returned a node at or below the last one (key %lu)",
					      key);
		if (seen[key] < 255)
			seen[key]++;
	}
	if (count_key(ht, DUPKEY) != NDUP)
		hash_stress_violation("the duplicates of DUPKEY were not all returned once (key %lu)",
				      DUPKEY);
	rcu_read_unlock();
	for (unsigned long k = 0; k < STABLE; k++)
		if (seen[k] != 1)
			hash_stress_violation("next() returned stable key %lu other than once", k);
	if (seen[DUPKEY] != NDUP)
		hash_stress_violation("next() returned DUPKEY's %lu nodes other than once each", NDUP);
}

/* A stable key is found by both searches, which stop past their key. */
static void lookup_one(unsigned long key)
{
	uint64_t h = hash_key(key);
	struct rcuhash_node *n;

	if (key >= STABLE)
		return;
	n = rcuhash_lookup_match(ht, h, match_key, &key, NULL);
	if (!n || !hash_item_intact(&obj_of(n)->item, key))
		hash_stress_violation("lookup_match() missed stable key %lu", key);
	if (!rcuhash_lookup(ht, &h))
		hash_stress_violation("lookup() missed the hash of stable key %lu", key);
}

static void update_one(unsigned long key, unsigned op)
{
	struct rcuhash_node *n;
	struct obj *o;

	if (key == DUPKEY)
		return;
	o = new_obj(key);
	if (key < STABLE) {
		if (op & 1) {
			n = rcuhash_replace_match(ht, &o->node, match_key, &key);
		} else {
			rcu_read_lock();
			n = rcuhash_lookup_match(ht, hash_key(key), match_key, &key, NULL);
			/* Only this thread's other replacements race: retry is not needed. */
			if (n && !rcuhash_replace(ht, n, &o->node))
				n = rcuhash_replace_match(ht, &o->node, match_key, &key);
			rcu_read_unlock();
		}
		if (!n)
			hash_stress_violation("stable key %lu was missing at its replacement", key);
		else
			retire(n);
		return;
	}
	switch (op % 3) {
	case 0:
		rcuhash_add(ht, &o->node);
		return;
	case 1:
		if (rcuhash_insert_match(ht, &o->node, match_key, &key))
			free(o);	/* never published */
		return;
	default:
		free(o);
		rcu_read_lock();
		n = rcuhash_lookup_match(ht, hash_key(key), match_key, &key, NULL);
		if (n && rcuhash_remove(ht, n))
			retire(n);
		rcu_read_unlock();
	}
}

static bool resize(unsigned long r)
{
	return rcuhash_check_resize(ht, KEYS, r);
}

static const struct hash_stress stress_params = {
	.readers = READERS,
	.updaters = UPDATERS,
	.register_thread = rcu_register_thread,
	.unregister_thread = rcu_unregister_thread,
	.read_lock = rcu_read_lock,
	.read_unlock = rcu_read_unlock,
	.iterate = check_iteration,
	.iterate_every = 1,
	.lookup = lookup_one,
	.lookup_batch = 64,
	.lookup_keys = 2 * STABLE,
	.update = update_one,
	.update_ops = UPDATER_OPS,
	.update_keys = KEYS,
	.resize = resize,
	.min_iterations = MIN_ITERATIONS,
	.min_resizes = MIN_RESIZES,
};

/* arg: the busted control to run (enum rcuhash_busted), or NULL. */
static void stress(void *arg)
{
	bool busted = arg != NULL;

	quiesce_test_busted_rcuhash = (int)(intptr_t)arg;
	ht = rcuhash_new(&params);
	for (unsigned long k = 0; k < KEYS; k += 1 + (k > DUPKEY))
		rcuhash_add(ht, &new_obj(k)->node);
	for (int i = 1; i < NDUP; i++)
		rcuhash_add(ht, &new_obj(DUPKEY)->node);
	hash_stress_run(&stress_params, busted);
	rcuhash_destroy(ht, free_obj, NULL);
	rcu_barrier();
	printf("rcuhash ordered: %lu iterations, %lu forced resizes, no violation\n",
	       atomic_load(&hash_stress_iterations), atomic_load(&hash_stress_resizes));
}

int main(void)
{
	semantics();
	iteration_across_resizes();
	sorted_chains();
	next_from_removed_position();
	iteration_by_position();
	check_child_aborts(next_seq_without_seq, NULL, "on a table without QUIESCE_RCUHASH_SEQ");
	stress(NULL);
	check_child_detects_violation(stress, (void *)(intptr_t)RCUHASH_BUSTED_COARSE_ORDER);
	check_child_detects_violation(stress, (void *)(intptr_t)RCUHASH_BUSTED_SHRINK_ORDER);
	return 0;
}
