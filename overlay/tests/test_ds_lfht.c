/*
 * liburcu's cds_lfht API through the overlay, written as its users write
 * it: the calls' contracts one by one, then concurrent readers, updaters
 * and resizes.
 *
 * Contracts: new() refuses sizes that are not powers of two; add_unique
 * inserts once and returns the present node after; two threads that
 * add_unique the same keys win each key exactly once; add (duplicates) and
 * next_duplicate, met in the order added; add_replace; replace's -EINVAL and
 * -ENOENT; del once and only once; is_node_deleted, and node_init_deleted
 * (0.14); iteration and count_nodes agree; destroy refuses while the table
 * holds nodes; an explicit resize loses nothing; a step never returns a node
 * deleted after the iterator reached it (the next duplicate, the next node);
 * an iterator positioned in another table (a nested lookup reusing it)
 * aborts the step or replace given it; 0.15's allocator takes and gets
 * back every block of the table's memory; a table walked and emptied
 * outside a read-side section, and (qsbr) by a thread that never
 * registered, and inside one (qsbr: online), each node freed inside the
 * walk.
 *
 * Stress: keys below STABLE are in the table throughout, their nodes
 * replaced by add_replace and replace all the time; the other keys come
 * and go (add_unique, del).  Nodes that leave are freed through call_rcu()
 * and poisoned there.  Readers fail the test on a poisoned node, a wrong
 * key, a stable key missing from a lookup or returned other than once by
 * a lookup's duplicates or by a whole iteration.  A resizer forces
 * resizes on top of the automatic ones.  The control breaks the
 * iteration's handling of resizes in the table beneath, which must be
 * caught.
 */
#ifdef TEST_LFHT_QSBR
#include <urcu-qsbr.h>
#include <urcu/static/urcu-qsbr.h>	/* quiesce_qsbr_reader_self, to see registration */
/*
 * The main thread reads online, between quiescent states, and goes
 * offline while it waits for other threads, which would otherwise wait
 * for it; the stress threads announce quiescent states between batches.
 */
#define MAIN_OFFLINE() rcu_thread_offline()
#define MAIN_ONLINE() rcu_thread_online()
#define QUIESCENT_STATE rcu_quiescent_state
#else
#include <urcu.h>
#define MAIN_OFFLINE() ((void)0)
#define MAIN_ONLINE() ((void)0)
#define QUIESCENT_STATE NULL
#endif
#include <urcu/rculfhash.h>

#ifdef TEST_LFHT_OWN_FLAVOR
/* The program's own flavor struct, a copy of memb's made in main(): every table uses it. */
static struct rcu_flavor_struct own_flavor;
#define cds_lfht_new(size, min_size, max_size, flags, attr) \
	cds_lfht_new_flavor(size, min_size, max_size, flags, &own_flavor, attr)
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "hash_stress.h"

/* The table's test-only control (src/ds/rcuhash_internal.h). */
extern int quiesce_test_busted_rcuhash;
#define BUSTED_COARSE_ORDER 3

#define KEYS 2048
#define STABLE 256
#define READERS 2
#define UPDATERS 2
#define UPDATER_OPS 100000
#define MIN_ITERATIONS 100
#define MIN_RESIZES 100
/* A reader iterates over the table once in this many of its batches of lookups. */
#define ITERATE_EVERY 64
#define LOOKUP_BATCH 16

struct item {
	struct hash_item item;
	struct cds_lfht_node node;
	struct rcu_head rcu;
};

/* Keys 2j and 2j+1 share a hash: the match function tells them apart. */
static unsigned long hash_key(unsigned long key)
{
	unsigned long h = (key / 2) * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 31);
}

static int match(struct cds_lfht_node *node, const void *key)
{
	struct item *it = caa_container_of(node, struct item, node);

	return hash_item_key(&it->item) == *(const unsigned long *)key;
}

static struct item *new_item(unsigned long key)
{
	struct item *it = calloc(1, sizeof(*it));

	hash_item_init(&it->item, key);
	cds_lfht_node_init(&it->node);
	return it;
}

/* NULL for NULL, as liburcu 0.15's cds_lfht_entry() (BIND 9 uses it). */
static struct item *item_of(struct cds_lfht_node *n)
{
	return cds_lfht_entry(n, struct item, node);
}

static unsigned duplicates(struct cds_lfht *ht, unsigned long key)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;
	unsigned c = 0;

	cds_lfht_for_each_duplicate(ht, hash_key(key), match, &key, &iter, n) {
		CHECK(item_of(n)->item.key == key, "a duplicate of %lu has key %lu", key,
		      item_of(n)->item.key);
		c++;
	}
	return c;
}

static void free_item(struct rcu_head *head)
{
	free(caa_container_of(head, struct item, rcu));
}

static void empty_table(struct cds_lfht *ht)
{
	struct cds_lfht_iter iter;
	struct item *it;

	rcu_read_lock();
	cds_lfht_for_each_entry(ht, &iter, it, node)
		if (cds_lfht_del(ht, &it->node) == 0)
			call_rcu(&it->rcu, free_item);
	rcu_read_unlock();
}

/* A table for the teardowns below: 1000 keys, and key 7 three times more. */
static struct cds_lfht *teardown_table(void)
{
	struct cds_lfht *ht = cds_lfht_new(16, 16, 0, CDS_LFHT_AUTO_RESIZE, NULL);
	unsigned long key;

	for (key = 0; key < 1000; key++)
		cds_lfht_add(ht, hash_key(key), &new_item(key)->node);
	key = 7;
	for (int i = 0; i < 3; i++)
		cds_lfht_add(ht, hash_key(key), &new_item(key)->node);
	return ht;
}

/*
 * Empties a teardown_table() by walking it, the duplicates of key 7 first,
 * freeing each node at once inside the loop, poisoned first, so a step
 * that reads the node it stands on goes astray (and valgrind and ASan
 * report it).  Every node must be found once, and the table left empty.
 */
static void empty_by_walking(struct cds_lfht *ht, const char *where)
{
	struct cds_lfht_iter iter;
	struct item *it;
	unsigned long key = 7, seen = 0, count;
	long before, after;

	cds_lfht_for_each_entry_duplicate(ht, hash_key(key), match, &key, &iter, it, node) {
		CHECK(cds_lfht_del(ht, &it->node) == 0, "%s, each duplicate found once", where);
		check_poison(it, sizeof(*it));
		free(it);
		seen++;
	}
	CHECK(seen == 4, "%s, the duplicates' walk found %lu of the 4", where, seen);
	seen = 1;	/* key 7's place among the 1000 */
	cds_lfht_for_each_entry(ht, &iter, it, node) {
		CHECK(cds_lfht_del(ht, &it->node) == 0, "%s, each node found once", where);
		check_poison(it, sizeof(*it));
		free(it);
		seen++;
	}
	cds_lfht_count_nodes(ht, &before, &count, &after);
	CHECK(seen == 1000 && count == 0, "%s, the walk emptied the table (%lu seen, %lu left)",
	      where, seen, count);
}

/*
 * BIND 9's teardown (dns_badcache_destroy()): a table that the thread alone
 * still holds, walked and emptied outside any read-side section, each node
 * freed at once inside the loop that walks them, which liburcu tolerates
 * (its iterator keeps the next node).
 */
static void teardown_outside_reader(void)
{
	struct cds_lfht *ht = teardown_table();
	struct cds_lfht_iter iter;
	unsigned long key = 7;

	cds_lfht_lookup(ht, hash_key(key), match, &key, &iter);
	CHECK(cds_lfht_iter_get_node(&iter), "a lookup outside a read-side section finds its key");
	empty_by_walking(ht, "outside a section");
	CHECK(!rcu_read_ongoing(), "the calls left no read-side section behind");
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	rcu_barrier();
}

/*
 * The same teardown inside a read-side section (qsbr: online, a reader
 * between quiescent states, as a registered thread is unless it goes
 * offline): the last holder still frees each node at once inside the
 * loop, which liburcu's iterator tolerates there too (cds_lfht_next()
 * reads only the next node it kept).
 */
static void teardown_inside_reader(void)
{
	struct cds_lfht *ht = teardown_table();

	rcu_read_lock();
	CHECK(rcu_read_ongoing(), "inside a read-side section");
	empty_by_walking(ht, "inside a section");
	rcu_read_unlock();
	MAIN_OFFLINE();		/* qsbr: destroy() waits for a barrier */
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	MAIN_ONLINE();
}

#ifdef TEST_LFHT_QSBR
static void *teardown_thread(void *arg)
{
	(void)arg;
	teardown_outside_reader();
	CHECK(quiesce_qsbr_reader_self.ctr == QUIESCE_QSBR_UNREGISTERED,
	      "the calls left the thread unregistered, as they found it");
	return NULL;
}

/*
 * The same teardown from a thread that never registered with qsbr, as
 * liburcu tolerates for reads as for updates (a table built and read by a
 * main thread that is no reader): every call, lookup and iteration
 * included, registers the thread for itself and unregisters it after.
 */
static void teardown_unregistered(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, teardown_thread, NULL) == 0, "pthread_create");
	check_join_within(t, CHECK_HANG_MS, "the unregistered thread's teardown");
}
#endif

static void contracts(void)
{
	struct cds_lfht *ht;
	struct cds_lfht_iter iter;
	struct item *a = new_item(1), *b = new_item(1), *d[3], *twin = new_item(4);
	struct item *r1 = new_item(7), *r2 = new_item(7), *r3 = new_item(7), *wrong = new_item(6);
	unsigned long k7 = 7, k6 = 6, count;
	long before, after;
	pthread_attr_t *attr = (pthread_attr_t *)&iter;

	CHECK(cds_lfht_new(3, 1, 0, CDS_LFHT_AUTO_RESIZE, NULL) == NULL &&
	      cds_lfht_new(4, 3, 0, 0, NULL) == NULL && cds_lfht_new(4, 1, 5, 0, NULL) == NULL,
	      "new() refuses sizes that are not powers of two");
	ht = cds_lfht_new(1, 1, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
	CHECK(ht, "new()");
	rcu_read_lock();
	CHECK(cds_lfht_add_unique(ht, hash_key(1), match, &a->item.key, &a->node) == &a->node,
	      "add_unique of an absent key adds it");
	cds_lfht_node_init_deleted(&b->node);
	CHECK(cds_lfht_is_node_deleted(&b->node), "node_init_deleted: deleted before any add");
	CHECK(cds_lfht_add_unique(ht, hash_key(1), match, &b->item.key, &b->node) == &a->node,
	      "add_unique of a present key returns the node present");
	CHECK(cds_lfht_is_node_deleted(&b->node), "an add_unique that failed: still deleted");
	free(b);
	for (int i = 0; i < 3; i++) {
		d[i] = new_item(5);
		cds_lfht_add(ht, hash_key(5), &d[i]->node);
	}
	cds_lfht_add(ht, hash_key(4), &twin->node);
	CHECK(duplicates(ht, 5) == 3 && duplicates(ht, 4) == 1,
	      "three duplicates of 5 beside 4 on the same hash");
	cds_lfht_node_init_deleted(&r1->node);
	CHECK(cds_lfht_add_replace(ht, hash_key(7), match, &k7, &r1->node) == NULL &&
	      !cds_lfht_is_node_deleted(&r1->node),
	      "add_replace of an absent key adds it (a node initialized deleted: no longer)");
	CHECK(cds_lfht_add_replace(ht, hash_key(7), match, &k7, &r2->node) == &r1->node &&
	      cds_lfht_is_node_deleted(&r1->node) && !cds_lfht_is_node_deleted(&r2->node),
	      "add_replace returns the replaced node, deleted");
	cds_lfht_lookup(ht, hash_key(7), match, &k7, &iter);
	CHECK(cds_lfht_iter_get_node(&iter) == &r2->node, "lookup finds the replacement");
	CHECK(cds_lfht_replace(ht, &iter, hash_key(8), match, &k7, &r3->node) == -EINVAL,
	      "replace with another hash: -EINVAL");
	CHECK(cds_lfht_replace(ht, &iter, hash_key(6), match, &k6, &wrong->node) == -EINVAL,
	      "replace with another key: -EINVAL");
	CHECK(cds_lfht_replace(ht, &iter, hash_key(7), match, &k7, &r3->node) == 0 &&
	      cds_lfht_is_node_deleted(&r2->node), "replace");
	CHECK(cds_lfht_replace(ht, &iter, hash_key(7), match, &k7, &wrong->node) == -ENOENT,
	      "replace of a node already replaced: -ENOENT");
	CHECK(duplicates(ht, 7) == 1, "one node for 7");
	CHECK(cds_lfht_del(ht, &a->node) == 0 && cds_lfht_is_node_deleted(&a->node) &&
	      cds_lfht_del(ht, &a->node) == -ENOENT && cds_lfht_del(ht, NULL) == -ENOENT,
	      "del once, and only once");
	cds_lfht_lookup(ht, hash_key(1), match, &a->item.key, &iter);
	CHECK(!cds_lfht_iter_get_node(&iter), "a deleted key is not found");
	cds_lfht_count_nodes(ht, &before, &count, &after);
	CHECK(count == 5 && before == 5 && after == 5, "count_nodes: %lu (%ld, %ld), not 5", count,
	      before, after);
	rcu_read_unlock();
	CHECK(cds_lfht_destroy(ht, NULL) == -EPERM, "destroy refuses a table with nodes");
	empty_table(ht);
	CHECK(cds_lfht_destroy(ht, &attr) == 0 && attr == NULL, "destroy of the empty table");
	synchronize_rcu();
	free(a);
	free(r1);
	free(r2);
	free(wrong);
	rcu_barrier();
}

/*
 * Duplicates that add() put in are met in the order they were added, by
 * lookup and its next_duplicate() and by iteration, and add_replace() and
 * add_unique() meet the first of them, as in liburcu (whose add() goes in
 * after the nodes of its hash); add_unique() and add_replace() that add
 * go in before them (liburcu's no-duplicates guarantee for iterations).
 */
static void duplicates_in_order(void)
{
	struct cds_lfht *ht = cds_lfht_new(1, 1, 0, 0, NULL);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;
	struct item *d[4], *u = new_item(10), *r = new_item(11), *gone;
	unsigned long k = 11, k10 = 10;
	unsigned i = 0;

	rcu_read_lock();
	for (int j = 0; j < 4; j++) {
		d[j] = new_item(11);
		cds_lfht_add(ht, hash_key(11), &d[j]->node);
	}
	cds_lfht_for_each_duplicate(ht, hash_key(11), match, &k, &iter, n) {
		CHECK(i < 4 && n == &d[i]->node,
		      "duplicate %u met is the one added as number %d (liburcu: in the order added)", i,
		      n == &d[0]->node ? 0 : n == &d[1]->node ? 1 : n == &d[2]->node ? 2 : 3);
		i++;
	}
	CHECK(i == 4, "%u duplicates", i);
	i = 0;
	cds_lfht_for_each(ht, &iter, n)
		CHECK(n == &d[i++]->node, "iteration meets the duplicates in the order added");
	gone = item_of(cds_lfht_add_replace(ht, hash_key(11), match, &k, &r->node));
	CHECK(gone == d[0], "add_replace replaced the duplicate added %s, not the first",
	      gone == d[3] ? "last" : "in the middle");
	cds_lfht_lookup(ht, hash_key(11), match, &k, &iter);
	CHECK(cds_lfht_iter_get_node(&iter) == &r->node, "the replacement stands first");
	CHECK(cds_lfht_add_unique(ht, hash_key(10), match, &k10, &u->node) == &u->node,
	      "add_unique of 10 beside 11 (the same hash)");
	cds_lfht_first(ht, &iter);
	CHECK(cds_lfht_iter_get_node(&iter) == &u->node,
	      "add_unique goes in first among the nodes of its hash");
	rcu_read_unlock();
	empty_table(ht);
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	synchronize_rcu();
	free(gone);
	rcu_barrier();
}

/*
 * A step never returns a node deleted before it, the one right after the
 * iterator included (liburcu's steps skip nodes marked removed): the walk
 * a step inside a section goes on from (the link after the iterator's node)
 * may be a node deleted since.  Nodes of one hash share a chain, so the
 * node after the iterator's is the next duplicate, and the next node too.
 */
static void step_past_deleted(void)
{
	struct cds_lfht *ht = cds_lfht_new(1, 1, 0, 0, NULL);
	struct cds_lfht_iter iter, ahead;
	struct cds_lfht_node *n;
	struct cds_lfht_node *gone[2];
	unsigned long k = 9;

	rcu_read_lock();
	for (int i = 0; i < 4; i++)
		cds_lfht_add(ht, hash_key(9), &new_item(9)->node);
	cds_lfht_lookup(ht, hash_key(9), match, &k, &iter);
	ahead = iter;
	cds_lfht_next_duplicate(ht, match, &k, &ahead);
	gone[0] = cds_lfht_iter_get_node(&ahead);
	CHECK(gone[0] && cds_lfht_del(ht, gone[0]) == 0, "del of the second duplicate");
	cds_lfht_next_duplicate(ht, match, &k, &iter);
	n = cds_lfht_iter_get_node(&iter);
	CHECK(n && !cds_lfht_is_node_deleted(n),
	      "next_duplicate returned %s, after the duplicate it reached was deleted",
	      n ? "that deleted node" : "nothing");
	cds_lfht_first(ht, &iter);
	ahead = iter;
	cds_lfht_next(ht, &ahead);
	gone[1] = cds_lfht_iter_get_node(&ahead);
	CHECK(gone[1] && cds_lfht_del(ht, gone[1]) == 0, "del of the node after the first");
	cds_lfht_next(ht, &iter);
	n = cds_lfht_iter_get_node(&iter);
	CHECK(n && !cds_lfht_is_node_deleted(n),
	      "next() returned %s, after the node it reached was deleted",
	      n ? "that deleted node" : "nothing");
	rcu_read_unlock();
	empty_table(ht);
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	synchronize_rcu();
	free(item_of(gone[0]));
	free(item_of(gone[1]));
	rcu_barrier();
}

/*
 * A lookup into another table, nested in a traversal, given the
 * traversal's iterator: the traversal's next step (or next_duplicate, or a
 * replace at that position) must abort with a message, in a child.  The
 * call is arg's name.
 */
static void step_from_another_table(void *arg)
{
	const char *call = arg;
	struct cds_lfht *outer = cds_lfht_new(1, 1, 0, 0, NULL);
	struct cds_lfht *inner = cds_lfht_new(1, 1, 0, 0, NULL);
	struct item *o = new_item(3), *i = new_item(3), *r = new_item(3);
	struct cds_lfht_iter iter;
	unsigned long k3 = 3;

	rcu_read_lock();
	cds_lfht_add(outer, hash_key(3), &o->node);
	cds_lfht_add(inner, hash_key(3), &i->node);
	if (!strcmp(call, "cds_lfht_next_duplicate"))
		cds_lfht_lookup(outer, hash_key(3), match, &k3, &iter);
	else
		cds_lfht_first(outer, &iter);
	cds_lfht_lookup(inner, hash_key(3), match, &k3, &iter);
	if (!strcmp(call, "cds_lfht_next"))
		cds_lfht_next(outer, &iter);
	else if (!strcmp(call, "cds_lfht_next_duplicate"))
		cds_lfht_next_duplicate(outer, match, &k3, &iter);
	else
		cds_lfht_replace(outer, &iter, hash_key(3), match, &k3, &r->node);
	rcu_read_unlock();
}

static void iterator_of_another_table(void)
{
	static const char *const calls[] = { "cds_lfht_next", "cds_lfht_next_duplicate",
					     "cds_lfht_replace" };

	for (unsigned c = 0; c < sizeof(calls) / sizeof(calls[0]); c++)
		check_child_aborts(step_from_another_table, (void *)calls[c],
				   "the iterator's position is in another table");
}

/* 0.15's allocator: a counting one (check.h); malloc is liburcu's alone. */
static struct check_counted counted;

static void *counted_malloc(void *state, size_t size)
{
	return check_counted_alloc(state, 16, size);
}

/*
 * A table made with cds_lfht_new_with_flavor_alloc() takes its memory from
 * the allocator through growing and shrinking, and has given all of it
 * back when cds_lfht_destroy() returns, as liburcu's: the program may
 * drop its allocator then.  realloc is NULL: the overlay does not call it.
 */
static void custom_allocator(void)
{
	enum { N = 5000 };
	const struct cds_lfht_alloc alloc = {
		.malloc = counted_malloc,
		.calloc = check_counted_calloc,
		.aligned_alloc = check_counted_aligned_alloc,
		.free = check_counted_free,
		.state = &counted,
	};
	struct item **items = calloc(N, sizeof(*items));
	struct cds_lfht *ht;

#ifdef TEST_LFHT_OWN_FLAVOR
	ht = cds_lfht_new_with_flavor_alloc(1, 1, 0, CDS_LFHT_AUTO_RESIZE, &own_flavor, &alloc,
					    NULL);
#else
	ht = cds_lfht_new_with_flavor_alloc(1, 1, 0, CDS_LFHT_AUTO_RESIZE, &rcu_flavor, &alloc,
					    NULL);
#endif
	CHECK(ht && atomic_load(&counted.live) >= 3,
	      "new_with_flavor_alloc(): the table from the allocator (%ld blocks)",
	      atomic_load(&counted.live));
	rcu_read_lock();
	for (unsigned long i = 0; i < N; i++) {
		items[i] = new_item(i);
		cds_lfht_add(ht, hash_key(i), &items[i]->node);
	}
	for (unsigned long i = 0; i < N; i++)
		CHECK(cds_lfht_del(ht, &items[i]->node) == 0, "del %lu", i);
	rcu_read_unlock();
	MAIN_OFFLINE();
	synchronize_rcu();
	MAIN_ONLINE();
	for (unsigned long i = 0; i < N; i++)
		free(items[i]);
	free(items);
	CHECK(atomic_load(&counted.total) >= 8,
	      "grown and shrunk through the allocator: %ld blocks", atomic_load(&counted.total));
	MAIN_OFFLINE();		/* qsbr: destroy() waits for a barrier */
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy of the empty table");
	MAIN_ONLINE();
	CHECK(atomic_load(&counted.live) == 0, "%ld blocks not given back by destroy()",
	      atomic_load(&counted.live));
}

/* An explicit resize loses nothing, and iteration returns each node once. */
static void resizes_and_iteration(void)
{
	enum { N = 5000 };
	struct cds_lfht *ht = cds_lfht_new(64, 64, 0, 0, NULL);
	static unsigned char seen[N];
	struct cds_lfht_iter iter;
	struct item *it;
	unsigned long sizes[] = { 16384, 64, 2048, 1 };

	for (unsigned long k = 0; k < N; k++)
		cds_lfht_add(ht, hash_key(k), &new_item(k)->node);
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		cds_lfht_resize(ht, sizes[s]);
		memset(seen, 0, sizeof(seen));
		rcu_read_lock();
		for (unsigned long k = 0; k < N; k++) {
			cds_lfht_lookup(ht, hash_key(k), match, &k, &iter);
			CHECK(cds_lfht_iter_get_node(&iter), "key %lu lost by a resize to %lu", k,
			      sizes[s]);
		}
		cds_lfht_for_each_entry(ht, &iter, it, node)
			seen[it->item.key]++;
		rcu_read_unlock();
		for (unsigned k = 0; k < N; k++)
			CHECK(seen[k] == 1, "iteration returned %u %u times", k, seen[k]);
	}
	empty_table(ht);
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	rcu_barrier();
}

/* Two threads add_unique the same keys: each key is won exactly once. */
static struct cds_lfht *race_ht;
static atomic_ulong race_wins;

static void *unique_adder(void *arg)
{
	unsigned long wins = 0, dir = (uintptr_t)arg;

	rcu_register_thread();
	for (unsigned long i = 0; i < KEYS; i++) {
		unsigned long key = dir ? i : KEYS - 1 - i;
		struct item *it = new_item(key);

		rcu_read_lock();
		if (cds_lfht_add_unique(race_ht, hash_key(key), match, &key, &it->node) == &it->node)
			wins++;
		else
			free(it);
		rcu_read_unlock();
	}
	atomic_fetch_add(&race_wins, wins);
	rcu_unregister_thread();
	return NULL;
}

static void unique_race(void)
{
	pthread_t t[2];

	race_ht = cds_lfht_new(1, 1, 0, CDS_LFHT_AUTO_RESIZE, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, unique_adder, (void *)(uintptr_t)i);
	MAIN_OFFLINE();
	for (int i = 0; i < 2; i++)
		check_join_within(t[i], CHECK_HANG_MS, "unique adder");
	MAIN_ONLINE();
	CHECK(atomic_load(&race_wins) == KEYS, "%lu add_unique wins for %u keys",
	      atomic_load(&race_wins), KEYS);
	rcu_read_lock();
	for (unsigned long k = 0; k < KEYS; k++)
		CHECK(duplicates(race_ht, k) == 1, "key %lu is in the table other than once", k);
	rcu_read_unlock();
	empty_table(race_ht);
	CHECK(cds_lfht_destroy(race_ht, NULL) == 0, "destroy");
	rcu_barrier();
}

static struct cds_lfht *ht;

static void poison_item(struct rcu_head *head)
{
	check_quarantine(caa_container_of(head, struct item, rcu), offsetof(struct item, rcu));
}

static void retire(struct cds_lfht_node *n)
{
	call_rcu(&item_of(n)->rcu, poison_item);
}

static void check_iteration(void)
{
	static __thread unsigned char seen[KEYS];
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;

	memset(seen, 0, sizeof(seen));
	rcu_read_lock();
	cds_lfht_for_each(ht, &iter, n) {
		struct hash_item *it = &item_of(n)->item;
		unsigned long key = hash_item_key(it);

		if (key >= KEYS || !hash_item_intact(it, key)) {
			hash_stress_violation("iteration returned a poisoned or torn node (key %#lx)",
					      key);
			break;
		}
		if (seen[key] < 255)
			seen[key]++;
	}
	rcu_read_unlock();
	for (unsigned long k = 0; k < STABLE; k++)
		if (seen[k] != 1)
			hash_stress_violation("iteration returned stable key %lu other than once", k);
}

/* In the reader's section; the stable keys are there exactly once. */
static void check_lookup(unsigned long key)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;
	unsigned long found = 0;

	cds_lfht_for_each_duplicate(ht, hash_key(key), match, &key, &iter, n) {
		if (!hash_item_intact(&item_of(n)->item, key))
			hash_stress_violation("lookup of %lu found a poisoned or foreign node", key);
		found++;
	}
	if (key < STABLE && found != 1)
		hash_stress_violation("a lookup of stable key %lu found it other than once", key);
}

static void update_one(unsigned long key, unsigned op)
{
	struct item *it = new_item(key);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;

	rcu_read_lock();
	if (key < STABLE) {
		if (op & 1) {
			n = cds_lfht_add_replace(ht, hash_key(key), match, &key, &it->node);
		} else {
			cds_lfht_lookup(ht, hash_key(key), match, &key, &iter);
			n = cds_lfht_iter_get_node(&iter);
			/* Lost to the other updater's replacement: replace whatever is there. */
			if (!n || cds_lfht_replace(ht, &iter, hash_key(key), match, &key, &it->node))
				n = cds_lfht_add_replace(ht, hash_key(key), match, &key, &it->node);
		}
		if (!n)
			hash_stress_violation("stable key %lu was missing at its replacement", key);
		else
			retire(n);
	} else if (op % 2) {
		if (cds_lfht_add_unique(ht, hash_key(key), match, &key, &it->node) != &it->node)
			free(it);	/* never published */
	} else {
		free(it);
		cds_lfht_lookup(ht, hash_key(key), match, &key, &iter);
		n = cds_lfht_iter_get_node(&iter);
		if (n && cds_lfht_del(ht, n) == 0)
			retire(n);
	}
	rcu_read_unlock();
}

/* Forced resizes to powers of two from 64 to 16384 buckets. */
static bool resize(unsigned long r)
{
	cds_lfht_resize(ht, 1UL << (6 + r % 9));
	return true;
}

static const struct hash_stress stress_params = {
	.readers = READERS,
	.updaters = UPDATERS,
	.register_thread = rcu_register_thread,
	.unregister_thread = rcu_unregister_thread,
	.quiescent_state = QUIESCENT_STATE,
	.read_lock = rcu_read_lock,
	.read_unlock = rcu_read_unlock,
	.iterate = check_iteration,
	.iterate_every = ITERATE_EVERY,
	.lookup = check_lookup,
	.lookup_batch = LOOKUP_BATCH,
	.lookup_keys = KEYS,
	.update = update_one,
	.update_ops = UPDATER_OPS,
	.update_keys = KEYS,
	.resize = resize,
	.min_iterations = MIN_ITERATIONS,
	.min_resizes = MIN_RESIZES,
};

static void stress(void *arg)
{
	bool busted = arg != NULL;

	quiesce_test_busted_rcuhash = busted ? BUSTED_COARSE_ORDER : 0;
	ht = cds_lfht_new(1, 1, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
	for (unsigned long k = 0; k < KEYS; k += 1 + (k >= STABLE))
		cds_lfht_add(ht, hash_key(k), &new_item(k)->node);
	MAIN_OFFLINE();
	hash_stress_run(&stress_params, busted);
	MAIN_ONLINE();
	empty_table(ht);
	CHECK(cds_lfht_destroy(ht, NULL) == 0, "destroy");
	rcu_barrier();
	printf("cds_lfht: %lu lookups, %lu iterations, %lu forced resizes, no violation\n",
	       atomic_load(&hash_stress_lookups), atomic_load(&hash_stress_iterations),
	       atomic_load(&hash_stress_resizes));
}

int main(void)
{
#ifdef TEST_LFHT_QSBR
	rcu_register_thread();
#endif
#ifdef TEST_LFHT_OWN_FLAVOR
	own_flavor = rcu_flavor;
#endif
	contracts();
	step_past_deleted();
	duplicates_in_order();
	iterator_of_another_table();
	custom_allocator();
	MAIN_OFFLINE();		/* qsbr: outside a read-side section means offline */
	teardown_outside_reader();
#ifdef TEST_LFHT_QSBR
	teardown_unregistered();
#endif
	MAIN_ONLINE();
	teardown_inside_reader();
	resizes_and_iteration();
	unique_race();
	stress(NULL);
	check_child_detects_violation(stress, "busted");
	return 0;
}
