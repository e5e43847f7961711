/*
 * urcu/static/lfstack.h (quiesce overlay) - the inline names liburcu's static
 * header gives (_cds_X for cds_X, ___cds_X for __cds_X), for programs that
 * include it directly.  Every call of urcu/lfstack.h is inline already; these
 * are the same calls.
 */
#ifndef QUIESCE_OVERLAY_URCU_STATIC_LFSTACK_H
#define QUIESCE_OVERLAY_URCU_STATIC_LFSTACK_H

#include <assert.h>
#include <urcu/assert.h>

#include <urcu/lfstack.h>

#define ___cds_lfs_init __cds_lfs_init
#define ___cds_lfs_pop __cds_lfs_pop
#define ___cds_lfs_pop_all __cds_lfs_pop_all
#define _cds_lfs_destroy cds_lfs_destroy
#define _cds_lfs_empty cds_lfs_empty
#define _cds_lfs_init cds_lfs_init
#define _cds_lfs_node_init cds_lfs_node_init
#define _cds_lfs_pop_all_blocking cds_lfs_pop_all_blocking
#define _cds_lfs_pop_blocking cds_lfs_pop_blocking
#define _cds_lfs_pop_lock cds_lfs_pop_lock
#define _cds_lfs_pop_unlock cds_lfs_pop_unlock
#define _cds_lfs_push cds_lfs_push

#endif /* QUIESCE_OVERLAY_URCU_STATIC_LFSTACK_H */
