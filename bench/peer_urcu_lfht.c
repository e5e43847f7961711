/*
 * liburcu's lock-free resizable hash table (cds_lfht, liburcu-cds) as a
 * bench hash table, on the memb flavor with its read side inlined
 * (_LGPL_SOURCE), as a program that includes its headers gets it.
 */
#define _LGPL_SOURCE
#include <stdlib.h>
#include <urcu/urcu-memb.h>
#include <urcu/rculfhash.h>

#include "hash_table.h"
#include "rcu_flavor.h"

struct elem {
	uint64_t key;
	struct cds_lfht_node node;
	struct rcu_head rcu;
};

static int match(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, struct elem, node)->key == *(const uint64_t *)key;
}

static void *create(size_t presize)
{
	unsigned long size = 1;

	while (size < presize)
		size *= 2;
	qb_urcu_register_once();
	return cds_lfht_new_flavor(size, size, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				   &urcu_memb_flavor, NULL);
}

static void free_elem(struct rcu_head *head)
{
	free(caa_container_of(head, struct elem, rcu));
}

static void destroy(void *table)
{
	struct cds_lfht *ht = table;
	struct cds_lfht_iter iter;
	struct elem *e;

	qb_urcu_register_once();
	urcu_memb_read_lock();
	cds_lfht_for_each_entry(ht, &iter, e, node)
		if (!cds_lfht_del(ht, &e->node))
			urcu_memb_call_rcu(&e->rcu, free_elem);
	urcu_memb_read_unlock();
	urcu_memb_barrier();
	cds_lfht_destroy(ht, NULL);
}

/* Its resizes run from call_rcu() callbacks: a barrier waits them out. */
static void settle(void *table)
{
	urcu_memb_barrier();
}

static bool insert(void *table, uint64_t key)
{
	struct elem *e = malloc(sizeof(*e));
	struct cds_lfht_node *got;

	e->key = key;
	cds_lfht_node_init(&e->node);
	urcu_memb_read_lock();
	got = cds_lfht_add_unique(table, qb_hash_key(key), match, &key, &e->node);
	urcu_memb_read_unlock();
	if (got == &e->node)
		return true;
	free(e);
	return false;
}

static bool remove_key(void *table, uint64_t key)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	bool removed = false;

	urcu_memb_read_lock();
	cds_lfht_lookup(table, qb_hash_key(key), match, &key, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node && !cds_lfht_del(table, node)) {
		urcu_memb_call_rcu(&caa_container_of(node, struct elem, node)->rcu, free_elem);
		removed = true;
	}
	urcu_memb_read_unlock();
	return removed;
}

static long lookups(void *table, const uint64_t *keys, size_t mask, size_t first, long n)
{
	struct cds_lfht_iter iter;
	long found = 0;

	for (long i = 0; i < n; i++) {
		const uint64_t *key = &keys[(first + (size_t)i) & mask];

		urcu_memb_read_lock();
		cds_lfht_lookup(table, qb_hash_key(*key), match, key, &iter);
		found += cds_lfht_iter_get_node(&iter) != NULL;
		urcu_memb_read_unlock();
	}
	return found;
}

const struct qb_hash_table qb_hash_urcu_lfht = {
	.name = "liburcu cds_lfht",
	.deferred_free = true,
	/* Threads of their own; the main thread registers once, in create(). */
	.thread_online = urcu_memb_register_thread,
	.thread_offline = urcu_memb_unregister_thread,
	.elem_bytes = sizeof(struct elem),
	.link_bytes = sizeof(struct cds_lfht_node),
	.create = create,
	.destroy = destroy,
	.settle = settle,
	.insert = insert,
	.remove = remove_key,
	.lookups = lookups,
};
