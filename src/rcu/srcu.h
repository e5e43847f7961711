/* srcu.h - the SRCU domains' test hook and registry hook (the domains are in srcu.c). */
#ifndef QUIESCE_SRCU_INTERNAL_H
#define QUIESCE_SRCU_INTERNAL_H

#include <stdbool.h>

/*
 * Test-only: SRCU grace periods skip their first wait, for the index
 * readers are not taking, and flip at once ("busted"): what a scheme with
 * one wait per grace period does.  A reader that loaded an index before an
 * earlier flip and added to it after that grace period's count escapes.
 */
extern bool quiesce_test_busted_srcu;

/*
 * The calling thread leaves the registry (registry.c): its SRCU record's
 * level is parked, so that its next SRCU section or unlock takes the slow
 * path, which registers it again and restores the level.
 */
void quiesce_srcu_park_self(void);

#endif
