/* signal.c - liburcu's signal flavor (urcu_signal_*): quiesce's default RCU. */
#include <urcu/urcu-signal.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(signal);

URCU_EXPORT void urcu_signal_unregister_thread(void)
{
	quiesce_rcu_unregister_thread();
}

/*
 * liburcu's init is also run by its constructor, and calling it again does
 * nothing; quiesce initializes itself (barrier, registry) by constructors
 * at load, so nothing is left for an explicit call to do.
 */
URCU_EXPORT void urcu_signal_init(void)
{
}
