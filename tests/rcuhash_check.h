/*
 * rcuhash_check.h - small steps the rcuhash tests share.
 */
#ifndef QUIESCE_TEST_RCUHASH_CHECK_H
#define QUIESCE_TEST_RCUHASH_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <quiesce/rcuhash.h>

/* The elements a walk of ht sees, in a section of the default RCU. */
size_t rcuhash_check_walk_count(struct quiesce_rcuhash *ht);

/*
 * A forced resize to a random size, from the smallest table to 8 buckets
 * per element of `keys`, drawn from r: whether it changed the bucket count.
 */
bool rcuhash_check_resize(struct quiesce_rcuhash *ht, size_t keys, unsigned long r);

#endif
