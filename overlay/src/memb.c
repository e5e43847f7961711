/* memb.c - liburcu's memb flavor (urcu_memb_*): quiesce's default RCU. */
#include <urcu/urcu-memb.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(memb);

URCU_EXPORT void urcu_memb_unregister_thread(void)
{
	quiesce_rcu_unregister_thread();
}

URCU_EXPORT void urcu_memb_init(void)
{
	(void)quiesce_rcu_backend();
}
