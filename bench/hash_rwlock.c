/*
 * The baseline hash table: chains under one pthread_rwlock_t.  Readers
 * share the lock; an update holds it alone, and so does a resize, which
 * rehashes every element at once (doubling past one element per bucket,
 * halving below one per four).
 */
#include <pthread.h>
#include <stdlib.h>

#include "hash_table.h"

#define MIN_BUCKETS 64

struct elem {
	uint64_t key;
	struct elem *next;
};

struct table {
	pthread_rwlock_t lock;
	struct elem **buckets;
	size_t mask, count;
};

static void *create(size_t presize)
{
	struct table *t = calloc(1, sizeof(*t));
	size_t n = MIN_BUCKETS;

	while (n < presize)
		n *= 2;
	pthread_rwlock_init(&t->lock, NULL);
	t->buckets = calloc(n, sizeof(*t->buckets));
	t->mask = n - 1;
	return t;
}

static void destroy(void *table)
{
	struct table *t = table;

	for (size_t b = 0; b <= t->mask; b++)
		for (struct elem *e = t->buckets[b], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	free(t->buckets);
	pthread_rwlock_destroy(&t->lock);
	free(t);
}

/* Under the write lock. */
static void rehash(struct table *t, size_t buckets)
{
	struct elem **nb = calloc(buckets, sizeof(*nb));

	for (size_t b = 0; b <= t->mask; b++)
		for (struct elem *e = t->buckets[b], *next; e; e = next) {
			size_t i = qb_hash_key(e->key) & (buckets - 1);

			next = e->next;
			e->next = nb[i];
			nb[i] = e;
		}
	free(t->buckets);
	t->buckets = nb;
	t->mask = buckets - 1;
}

static struct elem **find(struct table *t, uint64_t key)
{
	struct elem **link = &t->buckets[qb_hash_key(key) & t->mask];

	while (*link && (*link)->key != key)
		link = &(*link)->next;
	return link;
}

static bool insert(void *table, uint64_t key)
{
	struct table *t = table;
	struct elem **link, *e;

	pthread_rwlock_wrlock(&t->lock);
	link = find(t, key);
	if (*link) {
		pthread_rwlock_unlock(&t->lock);
		return false;
	}
	e = malloc(sizeof(*e));
	e->key = key;
	e->next = NULL;
	*link = e;
	if (++t->count > t->mask + 1)
		rehash(t, 2 * (t->mask + 1));
	pthread_rwlock_unlock(&t->lock);
	return true;
}

static bool remove_key(void *table, uint64_t key)
{
	struct table *t = table;
	struct elem **link, *e;

	pthread_rwlock_wrlock(&t->lock);
	link = find(t, key);
	e = *link;
	if (e) {
		*link = e->next;
		if (--t->count < (t->mask + 1) / 4 && t->mask + 1 > MIN_BUCKETS)
			rehash(t, (t->mask + 1) / 2);
	}
	pthread_rwlock_unlock(&t->lock);
	free(e);
	return e != NULL;
}

static long lookups(void *table, const uint64_t *keys, size_t mask, size_t first, long n)
{
	struct table *t = table;
	long found = 0;

	for (long i = 0; i < n; i++) {
		pthread_rwlock_rdlock(&t->lock);
		found += *find(t, keys[(first + (size_t)i) & mask]) != NULL;
		pthread_rwlock_unlock(&t->lock);
	}
	return found;
}

static void nothing(void)
{
}

const struct qb_hash_table qb_hash_rwlock = {
	.name = "rwlock chained",
	.thread_online = nothing,
	.thread_offline = nothing,
	.elem_bytes = sizeof(struct elem),
	.link_bytes = sizeof(struct elem *),
	.create = create,
	.destroy = destroy,
	.insert = insert,
	.remove = remove_key,
	.lookups = lookups,
};
