/*
 * urcu/static/rculfqueue.h (quiesce overlay) - the inline names liburcu's static
 * header gives (_cds_X for cds_X, ___cds_X for __cds_X), for programs that
 * include it directly.  Every call of urcu/rculfqueue.h is inline already; these
 * are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_RCULFQUEUE_H
#define QUIESCE_OVERLAY_URCU_STATIC_RCULFQUEUE_H

#include <urcu/rculfqueue.h>

#define _cds_lfq_dequeue_rcu cds_lfq_dequeue_rcu
#define _cds_lfq_destroy_rcu cds_lfq_destroy_rcu
#define _cds_lfq_enqueue_rcu cds_lfq_enqueue_rcu
#define _cds_lfq_init_rcu cds_lfq_init_rcu
#define _cds_lfq_node_init_rcu cds_lfq_node_init_rcu

#endif /* QUIESCE_OVERLAY_URCU_STATIC_RCULFQUEUE_H */
