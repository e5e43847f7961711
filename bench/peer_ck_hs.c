/*
 * Concurrency Kit's ck_hs as a bench hash table: one writer at a time
 * (CK_HS_MODE_SPMC), readers without any lock.  Elements are objects
 * (CK_HS_MODE_OBJECT) found by their key.  ck_hs leaves the reclamation of
 * removed elements and old arrays to its user (ck_epoch, say); the
 * experiment uses it only where no reader runs during an update, so it
 * frees at once, and measures its lookups only.
 */
#include <ck_hs.h>
#include <stdlib.h>

#include "hash_table.h"

struct elem {
	uint64_t key;
};

struct table {
	ck_hs_t hs;
};

static unsigned long hash(const void *obj, unsigned long seed)
{
	return (unsigned long)qb_hash_key(((const struct elem *)obj)->key ^ seed);
}

static bool compare(const void *a, const void *b)
{
	return ((const struct elem *)a)->key == ((const struct elem *)b)->key;
}

static void *hs_malloc(size_t size)
{
	return malloc(size);
}

static void hs_free(void *p, size_t size, bool defer)
{
	free(p);
}

static struct ck_malloc allocator = { .malloc = hs_malloc, .free = hs_free };

static void *create(size_t presize)
{
	struct table *t = malloc(sizeof(*t));

	if (!ck_hs_init(&t->hs, CK_HS_MODE_SPMC | CK_HS_MODE_OBJECT, hash, compare, &allocator,
			presize ? presize : 64, 0))
		abort();
	return t;
}

static void destroy(void *table)
{
	struct table *t = table;
	ck_hs_iterator_t it = CK_HS_ITERATOR_INITIALIZER;
	void *obj;

	while (ck_hs_next(&t->hs, &it, &obj))
		free(obj);
	ck_hs_destroy(&t->hs);
	free(t);
}

static bool insert(void *table, uint64_t key)
{
	struct table *t = table;
	struct elem *e = malloc(sizeof(*e));

	e->key = key;
	if (ck_hs_put(&t->hs, CK_HS_HASH(&t->hs, hash, e), e))
		return true;
	free(e);
	return false;
}

static bool remove_key(void *table, uint64_t key)
{
	struct table *t = table;
	struct elem probe = { key }, *e;

	e = ck_hs_remove(&t->hs, CK_HS_HASH(&t->hs, hash, &probe), &probe);
	free(e);
	return e != NULL;
}

static long lookups(void *table, const uint64_t *keys, size_t mask, size_t first, long n)
{
	struct table *t = table;
	long found = 0;

	for (long i = 0; i < n; i++) {
		struct elem probe = { keys[(first + (size_t)i) & mask] };

		found += ck_hs_get(&t->hs, CK_HS_HASH(&t->hs, hash, &probe), &probe) != NULL;
	}
	return found;
}

static void nothing(void)
{
}

const struct qb_hash_table qb_hash_ck_hs = {
	.name = "ck_hs (one writer)",
	.single_writer = true,
	.thread_online = nothing,
	.thread_offline = nothing,
	.elem_bytes = sizeof(struct elem),
	.link_bytes = 0,
	.create = create,
	.destroy = destroy,
	.insert = insert,
	.remove = remove_key,
	.lookups = lookups,
};
