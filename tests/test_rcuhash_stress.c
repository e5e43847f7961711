/*
 * <quiesce/rcuhash.h> under concurrent readers, updaters and resizes.
 *
 * Keys below STABLE are always in the table: updaters only replace their
 * nodes.  Keys above come and go (insert, remove by node, remove by key).
 * Every node that leaves the table is retired with call_rcu(), whose
 * callback poisons it and quarantines it a while before freeing.  A
 * resizer thread forces resizes to random sizes the whole time, on top of
 * the automatic ones.
 *
 * Readers look keys up and, now and then, walk the whole table.  A reader
 * fails the test if it finds a poisoned node, a node with another key, no
 * node for a stable key, or, in a walk, a key twice or a stable key not
 * at all.  Preemption injection stops readers at random points, inside
 * lookups, to widen the windows.
 *
 * Two controls must be caught: old bucket arrays freed without a grace
 * period (poisoned, so that a reader still walking one faults), and nodes
 * moved by a resize unlinked from the old chain before they are linked
 * into the new one (a lookup in between misses a stable key).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "ds/rcuhash_internal.h"

#define KEYS 2048
#define STABLE 256
#define LIVE 0x4c495645u
#define READERS 2
#define UPDATERS 2
#define UPDATER_OPS 200000
#define MIN_RESIZES 500
#define BUSTED_MIN_RESIZES 100000
#define MIN_WALKS 50
#define DEADLINE_NS (240ull * 1000000000ull)

struct elem {
	unsigned long key;
	unsigned long check;	/* ~key */
	unsigned magic;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

static const struct rcuhash_params params = {
	.node_offset = offsetof(struct elem, node),
	.key_offset = offsetof(struct elem, key),
	.key_len = sizeof(unsigned long),
};

static struct rcuhash *ht;
static atomic_bool stop;
static atomic_ulong violations, reader_ops, walks, resizes, updaters_done, min_resizes;

static struct elem *new_elem(unsigned long key)
{
	struct elem *e = malloc(sizeof(*e));

	e->key = key;
	e->check = ~key;
	e->magic = LIVE;
	return e;
}

static void poison_elem(struct rcu_head *head)
{
	check_quarantine(container_of(head, struct elem, rcu), offsetof(struct elem, rcu));
}

static void retire(struct rcuhash_node *node)
{
	call_rcu(&container_of(node, struct elem, node)->rcu, poison_elem);
}

static void violation(const char *fmt, unsigned long key)
{
	fprintf(stderr, "violation: ");
	fprintf(stderr, fmt, key);
	fputc('\n', stderr);
	atomic_fetch_add(&violations, 1);
}

/* Relaxed loads: a broken table may hand out a node freed under us. */
static bool elem_intact(const struct elem *e, unsigned long key)
{
	return __atomic_load_n(&e->magic, __ATOMIC_RELAXED) == LIVE &&
	       __atomic_load_n(&e->key, __ATOMIC_RELAXED) == key &&
	       __atomic_load_n(&e->check, __ATOMIC_RELAXED) == ~key;
}

static void check_walk(void)
{
	static __thread unsigned char seen[KEYS];
	struct rcuhash_walk w;
	struct rcuhash_node *n;

	memset(seen, 0, sizeof(seen));
	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	while ((n = rcuhash_walk_next(&w))) {
		struct elem *e = container_of(n, struct elem, node);
		unsigned long key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);

		if (key >= KEYS || !elem_intact(e, key)) {
			violation("a walk returned a poisoned or torn node (key %#lx)", key);
			continue;
		}
		if (seen[key]++)
			violation("a walk returned key %lu twice", key);
	}
	rcuhash_walk_stop(&w);
	rcu_read_unlock();
	for (unsigned long k = 0; k < STABLE; k++)
		if (!seen[k])
			violation("a walk missed stable key %lu", k);
	atomic_fetch_add(&walks, 1);
}

static bool readers_may_stop(void)
{
	return atomic_load(&updaters_done) == UPDATERS &&
	       atomic_load(&resizes) >= atomic_load(&min_resizes) &&
	       atomic_load(&walks) >= MIN_WALKS;
}

static void *reader(void *arg)
{
	uint64_t rng = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL;

	rcu_register_thread();
	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		if (i % 4096 == 4095)
			check_walk();
		rcu_read_lock();
		for (int j = 0; j < 16; j++) {
			unsigned long key;
			struct rcuhash_node *n;

			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			key = (rng >> 33) % (2 * KEYS);	/* half of them absent */
			n = rcuhash_lookup(ht, &key);
			if (n && !elem_intact(container_of(n, struct elem, node), key))
				violation("lookup of %lu found a poisoned or foreign node", key);
			else if (!n && key < STABLE)
				violation("lookup missed stable key %lu", key);
		}
		rcu_read_unlock();
		atomic_fetch_add_explicit(&reader_ops, 16, memory_order_relaxed);
		if (readers_may_stop())
			atomic_store(&stop, true);
	}
	rcu_unregister_thread();
	return NULL;
}

static void update_one(unsigned long key, unsigned op)
{
	struct rcuhash_node *n;

	if (key < STABLE) {
		n = rcuhash_insert_or_replace(ht, &new_elem(key)->node);
		if (!n)
			violation("stable key %lu was missing at its replacement", key);
		else
			retire(n);
		return;
	}
	switch (op % 3) {
	case 0: {
		struct elem *e = new_elem(key);

		if (!rcuhash_insert(ht, &e->node))
			free(e);	/* never published */
		break;
	}
	case 1:
		n = rcuhash_remove_key(ht, &key);
		if (n)
			retire(n);
		break;
	default:
		rcu_read_lock();
		n = rcuhash_lookup(ht, &key);
		if (n && rcuhash_remove(ht, n))
			retire(n);
		rcu_read_unlock();
		break;
	}
}

static void *updater(void *arg)
{
	uint64_t rng = (uintptr_t)arg * 0xbf58476d1ce4e5b9ULL;

	rcu_register_thread();
	for (unsigned i = 0; i < UPDATER_OPS && !atomic_load(&stop); i++) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		update_one((rng >> 33) % KEYS, (unsigned)(rng >> 20));
	}
	atomic_fetch_add(&updaters_done, 1);
	rcu_unregister_thread();
	return NULL;
}

/* Forced resizes to random sizes, from 64 buckets to 8 per element. */
static void *resizer(void *arg)
{
	uint64_t rng = 12345;

	rcu_register_thread();
	while (!atomic_load(&stop)) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t before = rcuhash_buckets(ht);

		if (rcuhash_resize(ht, 1 + (rng >> 33) % (8 * KEYS)) && rcuhash_buckets(ht) != before)
			atomic_fetch_add(&resizes, 1);
	}
	rcu_unregister_thread();
	return NULL;
}

static void free_elem(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct elem, node));
}

static void run(void *arg)
{
	bool busted = arg != NULL;

	quiesce_test_busted_rcuhash = busted ? *(int *)arg : RCUHASH_BUSTED_NONE;
	pthread_t r[READERS], u[UPDATERS], z;
	uint64_t deadline = check_now_ns() + DEADLINE_NS;

	ht = rcuhash_new(&params);
	for (unsigned long k = 0; k < KEYS; k += 1 + (k >= STABLE))
		rcuhash_insert(ht, &new_elem(k)->node);
	atomic_store(&stop, false);
	atomic_store(&violations, 0);
	atomic_store(&reader_ops, 0);
	atomic_store(&walks, 0);
	atomic_store(&resizes, 0);
	atomic_store(&updaters_done, 0);
	atomic_store(&min_resizes, busted ? BUSTED_MIN_RESIZES : MIN_RESIZES);
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < UPDATERS; i++)
		pthread_create(&u[i], NULL, updater, (void *)(uintptr_t)(i + 1));
	pthread_create(&z, NULL, resizer, NULL);
	check_preempt_start(r, READERS, 200);
	while (!atomic_load(&stop) && !atomic_load(&violations)) {
		CHECK(check_now_ns() < deadline, "hung: %lu reader ops, %lu walks, %lu resizes",
		      atomic_load(&reader_ops), atomic_load(&walks), atomic_load(&resizes));
		check_sleep_us(10000);
	}
	atomic_store(&stop, true);
	check_preempt_stop();
	for (int i = 0; i < READERS; i++)
		check_join_within(r[i], 60000, "reader");
	for (int i = 0; i < UPDATERS; i++)
		check_join_within(u[i], 60000, "updater");
	check_join_within(z, 60000, "resizer");
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	rcuhash_destroy(ht, free_elem, NULL);
	rcu_barrier();
	printf("rcuhash stress: %lu lookups, %lu walks, %lu forced resizes, no violation\n",
	       atomic_load(&reader_ops), atomic_load(&walks), atomic_load(&resizes));
}

int main(void)
{
	/* Each runs until caught, or for many resizes: most are caught in a few. */
	static int free_early = RCUHASH_BUSTED_FREE_EARLY, unlink_first = RCUHASH_BUSTED_UNLINK_FIRST;

	run(NULL);
	check_child_detects_violation(run, &free_early);
	check_child_detects_violation(run, &unlink_first);
	return 0;
}
