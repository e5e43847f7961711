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
#define READERS 2
#define UPDATERS 2
#define UPDATER_OPS 200000
#define MIN_RESIZES 500
#define MIN_WALKS 50
/* A reader walks the table once in this many of its batches of lookups. */
#define WALK_EVERY 4096
#define LOOKUP_BATCH 16

struct elem {
	struct hash_item item;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

static const struct rcuhash_params params = {
	.node_offset = offsetof(struct elem, node),
	.key_offset = offsetof(struct elem, item.key),
	.key_len = sizeof(unsigned long),
};

static struct rcuhash *ht;

static struct elem *new_elem(unsigned long key)
{
	struct elem *e = malloc(sizeof(*e));

	hash_item_init(&e->item, key);
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

static void check_walk(void)
{
	static __thread unsigned char seen[KEYS];
	struct rcuhash_walk w;
	struct rcuhash_node *n;

	memset(seen, 0, sizeof(seen));
	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	while ((n = rcuhash_walk_next(&w))) {
		struct hash_item *it = &container_of(n, struct elem, node)->item;
		unsigned long key = hash_item_key(it);

		if (key >= KEYS || !hash_item_intact(it, key)) {
			hash_stress_violation("a walk returned a poisoned or torn node (key %#lx)", key);
			continue;
		}
		if (seen[key]++)
			hash_stress_violation("a walk returned key %lu twice", key);
	}
	rcuhash_walk_stop(&w);
	rcu_read_unlock();
	for (unsigned long k = 0; k < STABLE; k++)
		if (!seen[k])
			hash_stress_violation("a walk missed stable key %lu", k);
}

static void check_lookup(unsigned long key)
{
	struct rcuhash_node *n = rcuhash_lookup(ht, &key);

	if (n && !hash_item_intact(&container_of(n, struct elem, node)->item, key))
		hash_stress_violation("lookup of %lu found a poisoned or foreign node", key);
	else if (!n && key < STABLE)
		hash_stress_violation("lookup missed stable key %lu", key);
}

static void update_one(unsigned long key, unsigned op)
{
	struct rcuhash_node *n;

	if (key < STABLE) {
		n = rcuhash_insert_or_replace(ht, &new_elem(key)->node);
		if (!n)
			hash_stress_violation("stable key %lu was missing at its replacement", key);
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

/* Forced resizes to random sizes, from 64 buckets to 8 per element. */
static bool resize(unsigned long r)
{
	return rcuhash_check_resize(ht, KEYS, r);
}

static const struct hash_stress stress = {
	.readers = READERS,
	.updaters = UPDATERS,
	.register_thread = rcu_register_thread,
	.unregister_thread = rcu_unregister_thread,
	.read_lock = rcu_read_lock,
	.read_unlock = rcu_read_unlock,
	.iterate = check_walk,
	.iterate_every = WALK_EVERY,
	.lookup = check_lookup,
	.lookup_batch = LOOKUP_BATCH,
	.lookup_keys = 2 * KEYS,	/* half of them absent */
	.update = update_one,
	.update_ops = UPDATER_OPS,
	.update_keys = KEYS,
	.resize = resize,
	.min_iterations = MIN_WALKS,
	.min_resizes = MIN_RESIZES,
};

static void free_elem(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct elem, node));
}

static void run(void *arg)
{
	bool busted = arg != NULL;

	quiesce_test_busted_rcuhash = busted ? *(int *)arg : RCUHASH_BUSTED_NONE;
	ht = rcuhash_new(&params);
	for (unsigned long k = 0; k < KEYS; k += 1 + (k >= STABLE))
		rcuhash_insert(ht, &new_elem(k)->node);
	hash_stress_run(&stress, busted);
	rcuhash_destroy(ht, free_elem, NULL);
	rcu_barrier();
	printf("rcuhash stress: %lu lookups, %lu walks, %lu forced resizes, no violation\n",
	       atomic_load(&hash_stress_lookups), atomic_load(&hash_stress_iterations),
	       atomic_load(&hash_stress_resizes));
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
