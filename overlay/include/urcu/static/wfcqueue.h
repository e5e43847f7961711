/*
 * urcu/static/wfcqueue.h (quiesce overlay) - the inline names liburcu's static
 * header gives (_cds_X for cds_X, ___cds_X for __cds_X), for programs that
 * include it directly.  Every call of urcu/wfcqueue.h is inline already; these
 * are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_WFCQUEUE_H
#define QUIESCE_OVERLAY_URCU_STATIC_WFCQUEUE_H

#include <assert.h>
#include <urcu/assert.h>
#include <poll.h>

#include <urcu/wfcqueue.h>

#define ___cds_wfcq_dequeue_blocking __cds_wfcq_dequeue_blocking
#define ___cds_wfcq_dequeue_nonblocking __cds_wfcq_dequeue_nonblocking
#define ___cds_wfcq_dequeue_with_state_blocking __cds_wfcq_dequeue_with_state_blocking
#define ___cds_wfcq_dequeue_with_state_nonblocking __cds_wfcq_dequeue_with_state_nonblocking
#define ___cds_wfcq_first_blocking __cds_wfcq_first_blocking
#define ___cds_wfcq_first_nonblocking __cds_wfcq_first_nonblocking
#define ___cds_wfcq_init __cds_wfcq_init
#define ___cds_wfcq_next_blocking __cds_wfcq_next_blocking
#define ___cds_wfcq_next_nonblocking __cds_wfcq_next_nonblocking
#define ___cds_wfcq_splice_blocking __cds_wfcq_splice_blocking
#define ___cds_wfcq_splice_nonblocking __cds_wfcq_splice_nonblocking
#define _cds_wfcq_dequeue_blocking cds_wfcq_dequeue_blocking
#define _cds_wfcq_dequeue_lock cds_wfcq_dequeue_lock
#define _cds_wfcq_dequeue_unlock cds_wfcq_dequeue_unlock
#define _cds_wfcq_dequeue_with_state_blocking cds_wfcq_dequeue_with_state_blocking
#define _cds_wfcq_destroy cds_wfcq_destroy
#define _cds_wfcq_empty cds_wfcq_empty
#define _cds_wfcq_enqueue cds_wfcq_enqueue
#define _cds_wfcq_first_blocking cds_wfcq_first_blocking
#define _cds_wfcq_init cds_wfcq_init
#define _cds_wfcq_next_blocking cds_wfcq_next_blocking
#define _cds_wfcq_node_init cds_wfcq_node_init
#define _cds_wfcq_splice_blocking cds_wfcq_splice_blocking

#endif /* QUIESCE_OVERLAY_URCU_STATIC_WFCQUEUE_H */
