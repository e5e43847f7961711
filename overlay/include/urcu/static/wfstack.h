/*
 * urcu/static/wfstack.h (quiesce overlay) - the inline names liburcu's static
 * header gives (_cds_X for cds_X, ___cds_X for __cds_X), for programs that
 * include it directly.  Every call of urcu/wfstack.h is inline already; these
 * are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_WFSTACK_H
#define QUIESCE_OVERLAY_URCU_STATIC_WFSTACK_H

#include <assert.h>
#include <urcu/assert.h>
#include <poll.h>

#include <urcu/wfstack.h>

#define ___cds_wfs_init __cds_wfs_init
#define ___cds_wfs_pop_all __cds_wfs_pop_all
#define ___cds_wfs_pop_blocking __cds_wfs_pop_blocking
#define ___cds_wfs_pop_nonblocking __cds_wfs_pop_nonblocking
#define ___cds_wfs_pop_with_state_blocking __cds_wfs_pop_with_state_blocking
#define ___cds_wfs_pop_with_state_nonblocking __cds_wfs_pop_with_state_nonblocking
#define _cds_wfs_destroy cds_wfs_destroy
#define _cds_wfs_empty cds_wfs_empty
#define _cds_wfs_first cds_wfs_first
#define _cds_wfs_init cds_wfs_init
#define _cds_wfs_next_blocking cds_wfs_next_blocking
#define _cds_wfs_next_nonblocking cds_wfs_next_nonblocking
#define _cds_wfs_node_init cds_wfs_node_init
#define _cds_wfs_pop_all_blocking cds_wfs_pop_all_blocking
#define _cds_wfs_pop_blocking cds_wfs_pop_blocking
#define _cds_wfs_pop_lock cds_wfs_pop_lock
#define _cds_wfs_pop_unlock cds_wfs_pop_unlock
#define _cds_wfs_pop_with_state_blocking cds_wfs_pop_with_state_blocking
#define _cds_wfs_push cds_wfs_push

#endif /* QUIESCE_OVERLAY_URCU_STATIC_WFSTACK_H */
