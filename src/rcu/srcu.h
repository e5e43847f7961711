/* srcu.h - the SRCU domains' test hooks and registry hook (the domains are in srcu.c). */
#ifndef QUIESCE_SRCU_INTERNAL_H
#define QUIESCE_SRCU_INTERNAL_H

#include <stdbool.h>

#include <quiesce/srcu.h>

/*
 * Test-only: SRCU grace periods skip their first wait, for the index
 * readers are not taking, and flip at once ("busted"): what a scheme with
 * one wait per grace period does.  A reader that loaded an index before an
 * earlier flip and added to it after that grace period's count escapes.
 */
extern bool quiesce_test_busted_srcu;
/* Test-only: called, when set, inside an update of a thread's record of its sections (srcu.c). */
extern void (*quiesce_test_srcu_record_hook)(void);

/*
 * Under the registry lock: moves the counts in a thread's SRCU slots to
 * their domains' per-CPU counters and frees the slots (srcu.c), for a
 * thread that leaves the registry or, in a child of fork(), is gone.  own:
 * the slots are the calling thread's, whose sections still open are then
 * recorded for its synchronize-inside-a-section check.
 */
void quiesce_srcu_move_slots(struct quiesce_srcu_slot *slots, bool own);

#endif
