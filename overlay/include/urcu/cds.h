/*
 * urcu/cds.h (quiesce overlay) - every concurrent data structure header,
 * as liburcu's cds.h includes them.
 */
#ifndef QUIESCE_OVERLAY_URCU_CDS_H
#define QUIESCE_OVERLAY_URCU_CDS_H

#include <urcu/hlist.h>
#include <urcu/list.h>
#include <urcu/rcuhlist.h>
#include <urcu/rculist.h>
#include <urcu/rculfqueue.h>
#include <urcu/rculfstack.h>
#include <urcu/rculfhash.h>
#include <urcu/wfqueue.h>
#include <urcu/wfcqueue.h>
#include <urcu/wfstack.h>
#include <urcu/lfstack.h>

#endif /* QUIESCE_OVERLAY_URCU_CDS_H */
