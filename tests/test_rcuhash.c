/*
 * <quiesce/rcuhash.h>: the operations' semantics one thread at a time,
 * growing and shrinking, keys given by functions or laid out in other
 * ways, races between two threads on one key (exactly one wins), destroy
 * with a resize half done, a table on an allocator of its own, and the
 * misuse that must abort.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "rcuhash_check.h"

struct item {
	unsigned long key;
	struct rcuhash_node node;
	int freed;
};

static const struct rcuhash_params int_params = {
	.node_offset = offsetof(struct item, node),
	.key_offset = offsetof(struct item, key),
	.key_len = sizeof(unsigned long),
};

static struct item *item_of(struct rcuhash_node *n)
{
	return n ? container_of(n, struct item, node) : NULL;
}

static struct item *lookup(struct rcuhash *ht, unsigned long key)
{
	struct item *it;

	rcu_read_lock();
	it = item_of(rcuhash_lookup(ht, &key));
	rcu_read_unlock();
	return it;
}

static void test_operations(void)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct item a = { .key = 7 }, b = { .key = 7 }, c = { .key = 8 };
	unsigned long absent = 9;

	CHECK(rcuhash_insert(ht, &a.node), "insert into an empty table");
	CHECK(!rcuhash_insert(ht, &b.node), "a second node with the same key is refused");
	CHECK(lookup(ht, 7) == &a && !lookup(ht, 8), "lookup finds the first node only");
	CHECK(item_of(rcuhash_insert_or_replace(ht, &b.node)) == &a, "replace returns the old node");
	CHECK(lookup(ht, 7) == &b, "the new node took its place");
	CHECK(!rcuhash_insert_or_replace(ht, &c.node), "replace of an absent key inserts");
	CHECK(rcuhash_count(ht) == 2 && rcuhash_count_exact(ht) == 2, "two elements");
	CHECK(rcuhash_check_walk_count(ht) == 2, "a walk sees both");
	CHECK(!rcuhash_remove(ht, &a.node), "a replaced node is no longer in the table");
	CHECK(rcuhash_remove(ht, &b.node), "remove by node");
	CHECK(!rcuhash_remove(ht, &b.node), "removing twice finds nothing the second time");
	CHECK(!rcuhash_remove_key(ht, &absent), "remove_key of an absent key");
	CHECK(item_of(rcuhash_remove_key(ht, &c.key)) == &c, "remove_key returns the node");
	CHECK(rcuhash_count_exact(ht) == 0 && rcuhash_check_walk_count(ht) == 0, "empty again");
	rcuhash_destroy(ht, NULL, NULL);
}

static void free_item(struct rcuhash_node *node, void *arg)
{
	struct item *it = item_of(node);

	CHECK(!it->freed, "destroy freed key %lu twice", it->key);
	it->freed = 1;
	(*(unsigned *)arg)++;
}

/* Grows from 64 buckets to 16K and back; every key found at every size. */
static void test_grow_and_shrink(void)
{
	enum { N = 10000 };
	struct item *items = calloc(N, sizeof(*items));
	struct rcuhash *ht = rcuhash_new(&int_params);
	unsigned freed = 0;

	CHECK(rcuhash_buckets(ht) == QUIESCE_RCUHASH_MIN_BUCKETS, "a new table has the minimum");
	for (unsigned long i = 0; i < N; i++) {
		items[i].key = i * 2654435761UL;
		CHECK(rcuhash_insert(ht, &items[i].node), "insert %lu", i);
		if (i % 997 == 0)
			for (unsigned long j = 0; j <= i; j++)
				CHECK(lookup(ht, items[j].key) == &items[j], "key %lu lost at %lu", j, i);
	}
	CHECK(rcuhash_buckets(ht) >= N && rcuhash_buckets(ht) <= 4 * N,
	      "grown to between 1 and 4 buckets per element: %zu", rcuhash_buckets(ht));
	CHECK(rcuhash_check_walk_count(ht) == N, "a walk sees every element once");
	for (unsigned long i = 0; i < N - 100; i++)
		CHECK(rcuhash_remove(ht, &items[i].node), "remove %lu", i);
	CHECK(rcuhash_resize(ht, 0), "resize to the count");
	CHECK(rcuhash_buckets(ht) == 128, "shrunk to fit 100: %zu", rcuhash_buckets(ht));
	for (unsigned long i = N - 100; i < N; i++)
		CHECK(lookup(ht, items[i].key) == &items[i], "key %lu lost in the shrink", i);
	rcuhash_destroy(ht, free_item, &freed);
	CHECK(freed == 100, "destroy freed %u of 100", freed);
	free(items);
}

/* Automatic shrinking alone brings the buckets back to a few per element. */
static void test_auto_shrink(void)
{
	enum { N = 20000, KEEP = 1000 };
	struct item *items = calloc(N, sizeof(*items));
	struct rcuhash *ht = rcuhash_new(&int_params);

	for (unsigned long i = 0; i < N; i++) {
		items[i].key = i;
		rcuhash_insert(ht, &items[i].node);
	}
	for (unsigned long i = KEEP; i < N; i++)
		rcuhash_remove(ht, &items[i].node);
	CHECK(rcuhash_buckets(ht) <= 8 * KEEP, "%zu buckets left for %u elements",
	      rcuhash_buckets(ht), KEEP);
	for (unsigned long i = 0; i < KEEP; i++)
		CHECK(lookup(ht, i) == &items[i], "key %lu lost", i);
	for (unsigned long i = 0; i < KEEP; i++)
		rcuhash_remove(ht, &items[i].node);
	rcuhash_destroy(ht, NULL, NULL);
	free(items);
}

static void *no_memory(void *state, size_t a, size_t b)
{
	(void)state, (void)a, (void)b;
	return NULL;
}

/*
 * A table given an allocator takes the table and every bucket array from
 * it, through growing and shrinking, and gives each back: none is left
 * once destroy() and a barrier for the arrays retired have run.
 */
static void test_custom_allocator(void)
{
	enum { N = 10000 };
	static struct check_counted c;
	const struct quiesce_rcuhash_alloc alloc = {
		.calloc = check_counted_calloc,
		.aligned_alloc = check_counted_aligned_alloc,
		.free = check_counted_free,
		.state = &c,
	};
	struct rcuhash_params params = int_params;
	struct item *items = calloc(N, sizeof(*items));
	struct rcuhash *ht;
	unsigned freed = 0;

	params.alloc = &alloc;
	ht = rcuhash_new(&params);
	CHECK((uintptr_t)ht % QUIESCE_CACHELINE == 0 && atomic_load(&c.live) == 2,
	      "the table and its first array, from the allocator (%ld live)",
	      atomic_load(&c.live));
	for (unsigned long i = 0; i < N; i++) {
		items[i].key = i;
		CHECK(rcuhash_insert(ht, &items[i].node), "insert %lu", i);
	}
	for (unsigned long i = 0; i < N - 100; i++)
		CHECK(rcuhash_remove(ht, &items[i].node), "remove %lu", i);
	CHECK(rcuhash_resize(ht, 0), "resize to the count");
	for (unsigned long i = N - 100; i < N; i++)
		CHECK(lookup(ht, items[i].key) == &items[i], "key %lu lost", i);
	rcuhash_destroy(ht, free_item, &freed);
	rcu_barrier();
	CHECK(freed == 100, "destroy freed %u of 100", freed);
	CHECK(atomic_load(&c.total) >= 8 && atomic_load(&c.live) == 0,
	      "%ld blocks taken through growing and shrinking, %ld not given back",
	      atomic_load(&c.total), atomic_load(&c.live));
	free(items);
}

static void allocator_out_of_memory(void *arg)
{
	const struct quiesce_rcuhash_alloc alloc = {
		.calloc = no_memory,
		.aligned_alloc = no_memory,
		.free = check_counted_free,
	};
	struct rcuhash_params params = int_params;

	params.alloc = &alloc;
	rcuhash_new(&params);
}

static void test_presize_and_no_auto(void)
{
	struct rcuhash_params p = int_params;
	struct item items[300];
	struct rcuhash *ht;

	/* 1000 elements fill at most 3/4 of the buckets: 2048, not 1024. */
	p.nelem_hint = 1000;
	ht = rcuhash_new(&p);
	CHECK(rcuhash_buckets(ht) == 2048, "pre-sized: %zu", rcuhash_buckets(ht));
	for (unsigned long i = 0; i < 300; i++) {
		items[i].key = i;
		rcuhash_insert(ht, &items[i].node);
	}
	for (unsigned long i = 0; i < 300; i++)
		rcuhash_remove(ht, &items[i].node);
	CHECK(rcuhash_buckets(ht) == 2048, "no shrinking below the hint: %zu", rcuhash_buckets(ht));
	rcuhash_destroy(ht, NULL, NULL);

	/* min_size is a bucket count, rounded up to a power of two. */
	p.nelem_hint = 0;
	p.min_size = 1000;
	ht = rcuhash_new(&p);
	CHECK(rcuhash_buckets(ht) == 1024, "min_size: %zu", rcuhash_buckets(ht));
	for (unsigned long i = 0; i < 300; i++)
		rcuhash_insert(ht, &items[i].node);
	for (unsigned long i = 0; i < 300; i++)
		rcuhash_remove(ht, &items[i].node);
	CHECK(rcuhash_buckets(ht) == 1024, "no shrinking below min_size: %zu", rcuhash_buckets(ht));
	rcuhash_destroy(ht, NULL, NULL);
	p.min_size = 0;

	p.flags = QUIESCE_RCUHASH_NO_AUTO_RESIZE;
	ht = rcuhash_new(&p);
	for (unsigned long i = 0; i < 300; i++)
		rcuhash_insert(ht, &items[i].node);
	CHECK(rcuhash_buckets(ht) == 64, "no automatic growth: %zu", rcuhash_buckets(ht));
	CHECK(rcuhash_resize(ht, 300) && rcuhash_buckets(ht) == 512, "resize() still works");
	for (unsigned long i = 0; i < 300; i++)
		CHECK(lookup(ht, i) == &items[i], "key %lu", i);
	for (unsigned long i = 0; i < 300; i++)
		rcuhash_remove(ht, &items[i].node);
	rcuhash_destroy(ht, NULL, NULL);
}

/* Keys given by functions: NUL-terminated strings. */
struct named {
	const char *name;
	struct rcuhash_node node;
};

static uint64_t name_hash(const void *key)
{
	const char *s = *(const char *const *)key;

	return quiesce_rcuhash_hash_bytes(s, strlen(s));
}

static bool name_equal(const void *key, const void *obj)
{
	return strcmp(*(const char *const *)key, ((const struct named *)obj)->name) == 0;
}

static void test_function_keys(void)
{
	struct rcuhash_params p = {
		.node_offset = offsetof(struct named, node),
		.key_offset = offsetof(struct named, name),
		.hash = name_hash,
		.key_equal = name_equal,
	};
	struct rcuhash *ht = rcuhash_new(&p);
	char buf[16] = "alpha";
	struct named a = { .name = "alpha" }, b = { .name = "beta" }, a2 = { .name = buf };
	const char *key = "beta";

	CHECK(rcuhash_insert(ht, &a.node) && rcuhash_insert(ht, &b.node), "two names");
	CHECK(!rcuhash_insert(ht, &a2.node), "an equal string at another address is the same key");
	rcu_read_lock();
	CHECK(rcuhash_lookup(ht, &key) == &b.node, "lookup by function");
	rcu_read_unlock();
	CHECK(rcuhash_remove_key(ht, &key) == &b.node && rcuhash_remove(ht, &a.node), "removed");
	rcuhash_destroy(ht, NULL, NULL);
}

/*
 * Byte keys laid out otherwise than struct item's: an 8-byte key after the
 * node (lookup()'s 8-byte walk reaches it forward), and a 12-byte key
 * (the generic walk, compared with memcmp()).
 */
struct key_after {
	struct rcuhash_node node;
	uint32_t pad;
	uint64_t key;
};

struct key12 {
	char key[12];
	struct rcuhash_node node;
};

enum { LAYOUT_KEYS = 200 };

static void test_key_layouts(void)
{
	struct rcuhash_params pa = {
		.node_offset = offsetof(struct key_after, node),
		.key_offset = offsetof(struct key_after, key),
		.key_len = sizeof(uint64_t),
	};
	struct rcuhash_params p12 = {
		.node_offset = offsetof(struct key12, node),
		.key_offset = offsetof(struct key12, key),
		.key_len = sizeof(((struct key12 *)0)->key),
	};
	struct rcuhash *ha = rcuhash_new(&pa), *h12 = rcuhash_new(&p12);
	static struct key_after after[LAYOUT_KEYS];
	static struct key12 k12[LAYOUT_KEYS];

	for (int i = 0; i < LAYOUT_KEYS; i++) {
		after[i].key = (uint64_t)i << 40 | 3;
		snprintf(k12[i].key, sizeof(k12[i].key), "key%08d", i);
		CHECK(rcuhash_insert(ha, &after[i].node) && rcuhash_insert(h12, &k12[i].node),
		      "insert %d", i);
	}
	rcu_read_lock();
	for (int i = 0; i < LAYOUT_KEYS; i++) {
		uint64_t key = (uint64_t)i << 40 | 3, absent = key + 1;
		char key12[12], absent12[12];

		snprintf(key12, sizeof(key12), "key%08d", i);
		memcpy(absent12, key12, sizeof(absent12));
		absent12[11] = 'x';
		CHECK(rcuhash_lookup(ha, &key) == &after[i].node && !rcuhash_lookup(ha, &absent),
		      "8-byte key after the node: %d", i);
		CHECK(rcuhash_lookup(h12, key12) == &k12[i].node && !rcuhash_lookup(h12, absent12),
		      "12-byte key: %d", i);
	}
	rcu_read_unlock();
	for (int i = 0; i < LAYOUT_KEYS; i++)
		CHECK(rcuhash_remove(ha, &after[i].node) && rcuhash_remove(h12, &k12[i].node),
		      "remove %d", i);
	rcuhash_destroy(ha, NULL, NULL);
	rcuhash_destroy(h12, NULL, NULL);
}

/* Two threads race on one key per round; exactly one must win each. */
enum { ROUNDS = 2000 };
static struct rcuhash *race_ht;
static pthread_barrier_t race_barrier;
static struct item race_items[2][ROUNDS];
static unsigned long race_wins[2][ROUNDS];

static void *racer(void *arg)
{
	int me = (int)(uintptr_t)arg;

	for (unsigned long r = 0; r < ROUNDS; r++) {
		race_items[me][r].key = r;
		pthread_barrier_wait(&race_barrier);
		race_wins[me][r] = rcuhash_insert(race_ht, &race_items[me][r].node);
		pthread_barrier_wait(&race_barrier);
		race_wins[me][r] |= (unsigned long)(rcuhash_remove_key(race_ht, &r) != NULL) << 1;
	}
	return NULL;
}

static void test_races(void)
{
	pthread_t t[2];

	race_ht = rcuhash_new(&int_params);
	pthread_barrier_init(&race_barrier, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, racer, (void *)(uintptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (unsigned r = 0; r < ROUNDS; r++) {
		CHECK((race_wins[0][r] & 1) + (race_wins[1][r] & 1) == 1,
		      "round %u: %lu inserts of one key succeeded", r,
		      (race_wins[0][r] & 1) + (race_wins[1][r] & 1));
		CHECK((race_wins[0][r] >> 1) + (race_wins[1][r] >> 1) == 1,
		      "round %u: %lu threads removed the key", r,
		      (race_wins[0][r] >> 1) + (race_wins[1][r] >> 1));
	}
	CHECK(rcuhash_count_exact(race_ht) == 0, "every key removed by exactly one thread");
	pthread_barrier_destroy(&race_barrier);
	rcuhash_destroy(race_ht, NULL, NULL);
}

/* A grow has started and moved only one batch: destroy then. */
static void test_destroy_mid_resize(void)
{
	struct item items[200];
	struct rcuhash *ht = rcuhash_new(&int_params);
	unsigned freed = 0;

	unsigned long n = 0;

	while (rcuhash_buckets(ht) == 64) {
		CHECK(n < 200, "no grow after %lu inserts into 64 buckets", n);
		items[n].key = n;
		items[n].freed = 0;
		rcuhash_insert(ht, &items[n++].node);
	}
	rcuhash_destroy(ht, free_item, &freed);
	CHECK(freed == n, "destroy in mid-resize freed %u of %lu", freed, n);
}

static void destroy_not_empty(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct item a = { .key = 1 };

	rcuhash_insert(ht, &a.node);
	rcuhash_destroy(ht, NULL, NULL);
}

static void lookup_outside_reader(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	unsigned long key = 1;

	rcuhash_lookup(ht, &key);
}

static void walk_outside_reader(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct rcuhash_walk w;

	rcuhash_walk_start(ht, &w);
}

static void walk_stopped_twice(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct rcuhash_walk w;

	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	rcuhash_walk_stop(&w);
	rcuhash_walk_stop(&w);
}

/*
 * A walk started again while open: the thread's list of open walks would
 * link it to itself, and the next search of that list (a walk_stop() of
 * another walk, the child's handler at fork()) would never end.
 */
static void walk_started_twice(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct rcuhash_walk w;

	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	rcuhash_walk_start(ht, &w);
}

static void walk_next_after_stop(void *arg)
{
	struct rcuhash *ht = rcuhash_new(&int_params);
	struct rcuhash_walk w;

	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	rcuhash_walk_stop(&w);
	rcuhash_walk_next(&w);
}

/*
 * replace() of a node by itself: it stayed in the table, marked removed
 * (in a QUIESCE_RCUHASH_SEQ table, what cds_lfht_is_node_deleted() reads).
 */
static void replaced_by_itself(void *arg)
{
	struct seq_item {
		unsigned long key;
		uint64_t seq;
		struct rcuhash_node node;
	} a = { .key = 1 };
	const struct rcuhash_params p = {
		.node_offset = offsetof(struct seq_item, node),
		.key_offset = offsetof(struct seq_item, key),
		.key_len = sizeof(unsigned long),
		.flags = QUIESCE_RCUHASH_SEQ,
		.seq_offset = offsetof(struct seq_item, seq),
	};
	struct rcuhash *ht = rcuhash_new(&p);

	rcuhash_insert(ht, &a.node);
	if (rcuhash_replace(ht, &a.node, &a.node) && (a.seq & QUIESCE_RCUHASH_SEQ_REMOVED))
		fprintf(stderr, "the node is in the table, marked removed\n");
}

/*
 * A node linked again while it is in the table: add() made it point to the
 * head of its chain, itself or a node before it, and every walk of that
 * chain went round for ever.  A walk counts the nodes, up to a bound.
 */
struct dup_item {
	unsigned long key;
	struct rcuhash_node node;
};

static const struct rcuhash_params dup_params = {
	.node_offset = offsetof(struct dup_item, node),
	.key_offset = offsetof(struct dup_item, key),
	.key_len = sizeof(unsigned long),
};

static void report_walk(struct rcuhash *ht)
{
	struct rcuhash_walk w;
	int seen = 0;

	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	while (rcuhash_walk_next(&w) && seen <= 10)
		seen++;
	rcuhash_walk_stop(&w);
	rcu_read_unlock();
	fprintf(stderr, "a walk saw %s%d nodes\n", seen > 10 ? "more than " : "", seen > 10 ? 10 : seen);
}

static void added_twice(void *arg)
{
	static struct dup_item a = { .key = 1 }, b = { .key = 1 };
	struct rcuhash *ht = rcuhash_new(&dup_params);

	rcuhash_add(ht, &a.node);
	rcuhash_add(ht, &b.node);
	rcuhash_add(ht, &a.node);	/* a is behind b in the chain */
	report_walk(ht);
}

static bool is_other(const struct rcuhash_node *node, const void *arg)
{
	return node != arg;
}

/* replace_match() of a node that is in the table, in another node's place. */
static void replace_match_in_table(void *arg)
{
	static struct dup_item a = { .key = 1 }, b = { .key = 1 };
	struct rcuhash *ht = rcuhash_new(&dup_params);

	rcuhash_add(ht, &a.node);
	rcuhash_add(ht, &b.node);
	rcuhash_replace_match(ht, &a.node, is_other, &a.node);	/* takes b's place */
	report_walk(ht);
}

/*
 * An RCU or an allocator given with a function missing: rcuhash_new()
 * took it, and the table called NULL later (a resize's retirement, the
 * destroy): SIGSEGV, far from the mistake.
 */
static void no_op(void)
{
}

static int always_inside(void)
{
	return 1;
}

static void rcu_without_call_rcu(void *arg)
{
	static const struct quiesce_rcuhash_rcu rcu = {
		.read_lock = no_op,
		.read_unlock = no_op,
		.read_ongoing = always_inside,
	};
	static struct dup_item items[200];
	struct rcuhash_params p = dup_params;
	struct rcuhash *ht;

	p.rcu = &rcu;
	ht = rcuhash_new(&p);
	for (unsigned long i = 0; i < 200; i++) {	/* grows, and retires its first array */
		items[i].key = i;
		rcuhash_insert(ht, &items[i].node);
	}
}

static void allocator_without_free(void *arg)
{
	static struct check_counted c;
	const struct quiesce_rcuhash_alloc alloc = {
		.calloc = check_counted_calloc,
		.aligned_alloc = check_counted_aligned_alloc,
		.state = &c,
	};
	struct rcuhash_params p = dup_params;

	p.alloc = &alloc;
	rcuhash_destroy(rcuhash_new(&p), NULL, NULL);
}

static void missing_functions(void *arg)
{
	struct rcuhash_params p = { .node_offset = 0 };

	rcuhash_new(&p);
}

int main(void)
{
	test_operations();
	test_grow_and_shrink();
	test_auto_shrink();
	test_presize_and_no_auto();
	test_function_keys();
	test_key_layouts();
	test_races();
	test_destroy_mid_resize();
	test_custom_allocator();
	check_child_aborts(allocator_out_of_memory, NULL, "rcuhash_new(): out of memory");
	check_child_aborts(destroy_not_empty, NULL,
			   "rcuhash_destroy() called on a table that is not empty (1 elements)");
	check_child_aborts(lookup_outside_reader, NULL,
			   "rcuhash_lookup() called outside an RCU read-side critical section");
	check_child_aborts(walk_outside_reader, NULL,
			   "rcuhash_walk_start() called outside an RCU read-side critical section");
	check_child_aborts(walk_stopped_twice, NULL,
			   "rcuhash_walk_stop() on a walk this thread has not started, "
			   "or has stopped already");
	check_child_aborts(walk_started_twice, NULL,
			   "rcuhash_walk_start() on a walk this thread has open: stop it first");
	check_child_aborts(walk_next_after_stop, NULL,
			   "rcuhash_walk_next() on a walk that has been stopped");
	check_child_aborts(replaced_by_itself, NULL, "rcuhash: a node replaced by itself");
	check_child_aborts(replace_match_in_table, NULL,
			   "rcuhash_replace_match() of a node that is in the table already");
	check_child_aborts(added_twice, NULL,
			   "rcuhash_add() of a node that is in the table already");
	check_child_aborts(missing_functions, NULL, "key_len is 0 but hash or key_equal is missing");
	check_child_aborts(rcu_without_call_rcu, NULL,
			   "rcuhash_new(): params.rcu lacks call_rcu");
	check_child_aborts(allocator_without_free, NULL,
			   "rcuhash_new(): params.alloc lacks free");
	rcu_barrier();
	printf("rcuhash: all checks passed\n");
	return 0;
}
