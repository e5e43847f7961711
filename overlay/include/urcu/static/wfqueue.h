/*
 * urcu/static/wfqueue.h (quiesce overlay) - the inline names liburcu's
 * static header gives (_cds_X for cds_X, ___cds_X for __cds_X), for
 * programs that include it directly.  Every call of urcu/wfqueue.h is
 * inline already; these are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_WFQUEUE_H
#define QUIESCE_OVERLAY_URCU_STATIC_WFQUEUE_H

#include <assert.h>
#include <urcu/assert.h>
#include <poll.h>

#include <urcu/wfqueue.h>

#define _cds_wfq_node_init cds_wfq_node_init
#define _cds_wfq_init cds_wfq_init
#define _cds_wfq_destroy cds_wfq_destroy
#define _cds_wfq_enqueue cds_wfq_enqueue
#define ___cds_wfq_dequeue_blocking __cds_wfq_dequeue_blocking
#define _cds_wfq_dequeue_blocking cds_wfq_dequeue_blocking

#endif /* QUIESCE_OVERLAY_URCU_STATIC_WFQUEUE_H */
