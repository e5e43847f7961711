/*
 * rcuhash_check.h - small steps the rcuhash tests share.
 */
#ifndef QUIESCE_TEST_RCUHASH_CHECK_H
#define QUIESCE_TEST_RCUHASH_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <quiesce/rcuhash.h>

/* An element keyed by an unsigned long, and the parameters of a table of them. */
struct rcuhash_check_item {
	unsigned long key;
	struct quiesce_rcuhash_node node;
};
extern const struct quiesce_rcuhash_params rcuhash_check_item_params;

/* Whether ht holds key (an unsigned long), looked up in a section of the default RCU. */
bool rcuhash_check_present(struct quiesce_rcuhash *ht, unsigned long key);

/* The elements a walk of ht sees, in a section of the default RCU. */
size_t rcuhash_check_walk_count(struct quiesce_rcuhash *ht);

/*
 * A forced resize to a random size, from the smallest table to 8 buckets
 * per element of `keys`, drawn from r: whether it changed the bucket count.
 */
bool rcuhash_check_resize(struct quiesce_rcuhash *ht, size_t keys, unsigned long r);

#endif
