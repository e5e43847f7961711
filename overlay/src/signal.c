/* signal.c - liburcu's signal flavor (urcu_signal_*): quiesce's default RCU. */
#include <urcu/urcu-signal.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(signal);

URCU_EXPORT void urcu_signal_unregister_thread(void)
{
	quiesce_rcu_unregister_thread();
}

URCU_EXPORT void urcu_signal_init(void)
{
	(void)quiesce_rcu_backend();
}
