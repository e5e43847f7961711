/*
 * test_ds_lfht.c on a table of the mb flavor (<urcu.h> with RCU_MB), a
 * domain of its own: the table must go through the flavor's calls (its
 * read lock, and its call_rcu for old bucket arrays), not the default
 * RCU's, or its readers walk freed arrays.
 */
#define RCU_MB
#include "test_ds_lfht.c"
