/*
 * urcu/static/rculfstack.h (quiesce overlay) - the inline names liburcu's static
 * header gives (_cds_X for cds_X, ___cds_X for __cds_X), for programs that
 * include it directly.  Every call of urcu/rculfstack.h is inline already; these
 * are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_RCULFSTACK_H
#define QUIESCE_OVERLAY_URCU_STATIC_RCULFSTACK_H

#include <urcu/rculfstack.h>

#define _cds_lfs_init_rcu cds_lfs_init_rcu
#define _cds_lfs_node_init_rcu cds_lfs_node_init_rcu
#define _cds_lfs_pop_rcu cds_lfs_pop_rcu
#define _cds_lfs_push_rcu cds_lfs_push_rcu

#endif /* QUIESCE_OVERLAY_URCU_STATIC_RCULFSTACK_H */
