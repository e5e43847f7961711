/* rcuhash_check.c - see rcuhash_check.h. */
#include "rcuhash_check.h"

#include <quiesce/rcu.h>

const struct quiesce_rcuhash_params rcuhash_check_item_params = {
	.node_offset = offsetof(struct rcuhash_check_item, node),
	.key_offset = offsetof(struct rcuhash_check_item, key),
	.key_len = sizeof(unsigned long),
};

bool rcuhash_check_present(struct quiesce_rcuhash *ht, unsigned long key)
{
	bool hit;

	rcu_read_lock();
	hit = quiesce_rcuhash_lookup(ht, &key) != NULL;
	rcu_read_unlock();
	return hit;
}

size_t rcuhash_check_walk_count(struct quiesce_rcuhash *ht)
{
	struct quiesce_rcuhash_walk w;
	size_t n = 0;

	rcu_read_lock();
	quiesce_rcuhash_walk_start(ht, &w);
	while (quiesce_rcuhash_walk_next(&w))
		n++;
	quiesce_rcuhash_walk_stop(&w);
	rcu_read_unlock();
	return n;
}

bool rcuhash_check_resize(struct quiesce_rcuhash *ht, size_t keys, unsigned long r)
{
	size_t before = quiesce_rcuhash_buckets(ht);

	return quiesce_rcuhash_resize(ht, 1 + r % (8 * keys)) && quiesce_rcuhash_buckets(ht) != before;
}
