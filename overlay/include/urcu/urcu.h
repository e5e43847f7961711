/*
 * urcu/urcu.h (liburcu overlay) - the flavor <urcu.h> selects: memb unless
 * RCU_MB or RCU_SIGNAL is defined (RCU_MEMBARRIER is memb too), as in
 * liburcu.  memb and signal are quiesce's default RCU, mb its mb domain.
 */
#ifndef _URCU_H
#define _URCU_H

#if defined(RCU_MB)
#include <urcu/urcu-mb.h>
#elif defined(RCU_SIGNAL)
#include <urcu/urcu-signal.h>
#else
#ifndef RCU_MEMBARRIER
#define RCU_MEMBARRIER
#endif
#include <urcu/urcu-memb.h>
#endif

#endif /* _URCU_H */
