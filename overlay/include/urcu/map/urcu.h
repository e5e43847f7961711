/*
 * urcu/map/urcu.h (liburcu overlay) - the short names of the flavor that
 * RCU_MEMBARRIER, RCU_MB or RCU_SIGNAL (liburcu 0.13 and 0.14) selects, as
 * liburcu's; none selected is an error there too.
 */
#if defined(RCU_MEMBARRIER)
#include <urcu/map/urcu-memb.h>
#elif defined(RCU_SIGNAL)
#include <urcu/map/urcu-signal.h>
#elif defined(RCU_MB)
#include <urcu/map/urcu-mb.h>
#else
#error "Undefined selection"
#endif
