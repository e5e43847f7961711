/* memb.c - liburcu's memb flavor (urcu_memb_*): quiesce's default RCU. */
#include <urcu/urcu-memb.h>

#include "overlay.h"

URCU_OVERLAY_DEFAULT_RCU(memb);

URCU_EXPORT void urcu_memb_unregister_thread(void)
{
	quiesce_rcu_unregister_thread();
}

/*
 * liburcu's init is also run by its constructor, and calling it again does
 * nothing; quiesce initializes itself (barrier, registry) by constructors
 * at load, so nothing is left for an explicit call to do.
 */
URCU_EXPORT void urcu_memb_init(void)
{
}
