/*
 * test_ds_lfht.c on a table of the mb flavor (<urcu.h> with RCU_MB):
 * quiesce's mb domain, a domain of its own, which the table calls inline
 * (quiesce_rcuhash_rcu_mb).  The table must use that domain's read lock
 * and its call_rcu for old bucket arrays, not the default RCU's, or its
 * readers walk freed arrays.
 */
#define RCU_MB
#include "test_ds_lfht.c"
