/*
 * test_ds_lfht.c on a table of the qsbr flavor (<urcu-qsbr.h>): quiesce's
 * QSBR domain, which the table calls inline (quiesce_rcuhash_rcu_qsbr).
 * Its readers take no lock: the table must retire its old bucket arrays
 * through QSBR's grace periods, which wait for every online thread's next
 * quiescent state, or its readers walk freed arrays; and a call from an
 * offline thread must be taken as outside a section, and tolerated.
 */
#define TEST_LFHT_QSBR
#include "test_ds_lfht.c"
