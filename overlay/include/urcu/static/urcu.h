/*
 * urcu/static/urcu.h (liburcu overlay) - the inline read side of the flavor
 * that <urcu.h> picks: RCU_MEMBARRIER (the default), RCU_MB, or
 * RCU_SIGNAL (liburcu 0.13 and 0.14), as liburcu's.
 */
#ifndef _URCU_STATIC_H
#define _URCU_STATIC_H

#if !defined(RCU_MEMBARRIER) && !defined(RCU_MB) && !defined(RCU_SIGNAL)
#define RCU_MEMBARRIER
#endif

#ifdef RCU_MEMBARRIER
#include <urcu/static/urcu-memb.h>
#endif

#ifdef RCU_MB
#include <urcu/static/urcu-mb.h>
#endif

#ifdef RCU_SIGNAL
#include <urcu/static/urcu-signal.h>
#endif

#endif /* _URCU_STATIC_H */
