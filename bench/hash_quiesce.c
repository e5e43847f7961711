/* quiesce's rcuhash as a bench hash table. */
#include <stdlib.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "hash_table.h"

struct elem {
	uint64_t key;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

static void *create(size_t presize)
{
	struct rcuhash_params p = {
		.node_offset = offsetof(struct elem, node),
		.key_offset = offsetof(struct elem, key),
		.key_len = sizeof(uint64_t),
		.nelem_hint = presize,
	};

	return rcuhash_new(&p);
}

static void free_node(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct elem, node));
}

static void destroy(void *table)
{
	rcu_barrier();
	rcuhash_destroy(table, free_node, NULL);
}

/* Removed elements and retired bucket arrays wait in call_rcu: a barrier frees them. */
static void settle(void *table)
{
	rcu_barrier();
}

static bool insert(void *table, uint64_t key)
{
	struct elem *e = malloc(sizeof(*e));

	e->key = key;
	if (rcuhash_insert(table, &e->node))
		return true;
	free(e);
	return false;
}

static bool remove_key(void *table, uint64_t key)
{
	struct rcuhash_node *n = rcuhash_remove_key(table, &key);

	if (n)
		free_rcu(container_of(n, struct elem, node), rcu);
	return n != NULL;
}

static long lookups(void *table, const uint64_t *keys, size_t mask, size_t first, long n)
{
	long found = 0;

	for (long i = 0; i < n; i++) {
		rcu_read_lock();
		found += rcuhash_lookup(table, &keys[(first + (size_t)i) & mask]) != NULL;
		rcu_read_unlock();
	}
	return found;
}

const struct qb_hash_table qb_hash_quiesce = {
	.name = "quiesce rcuhash",
	.deferred_free = true,
	.thread_online = quiesce_rcu_register_thread,
	.thread_offline = quiesce_rcu_unregister_thread,
	.elem_bytes = sizeof(struct elem),
	.link_bytes = sizeof(struct rcuhash_node),
	.create = create,
	.destroy = destroy,
	.settle = settle,
	.insert = insert,
	.remove = remove_key,
	.lookups = lookups,
};
