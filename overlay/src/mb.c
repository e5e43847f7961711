/* mb.c - liburcu's mb flavor (urcu_mb_*): quiesce's default RCU. */
#include <urcu/urcu-mb.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(mb);

URCU_EXPORT void urcu_mb_unregister_thread(void)
{
	quiesce_rcu_unregister_thread();
}

URCU_EXPORT void urcu_mb_init(void)
{
	(void)quiesce_rcu_backend();
}
