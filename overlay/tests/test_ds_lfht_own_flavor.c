/*
 * test_ds_lfht.c on tables of a flavor the overlay does not recognize: a
 * struct rcu_flavor_struct of the program's own (memb's calls, copied).
 * The table must go through that struct's calls (its read lock, its
 * read_ongoing() for the reader check, its call_rcu for old bucket
 * arrays), where the flavors the overlay knows are called inline.
 */
#define TEST_LFHT_OWN_FLAVOR
#include "test_ds_lfht.c"
