/*
 * gp_engine.h - the grace-period engine, for the library's other parts
 * (the polled API's worker, call_rcu, rcu_sync).
 */
#ifndef QUIESCE_GP_ENGINE_H
#define QUIESCE_GP_ENGINE_H

#include <stdbool.h>

/* The current sequence number (acquire: what the grace period ordered). */
unsigned long quiesce_gp_seq_current(void);

/*
 * Returns once the grace period named by snap has passed, running grace
 * periods (normal or expedited, as the knobs allow) until it has.
 */
void quiesce_gp_wait_for(unsigned long snap, bool expedited);

/* Whether rcu_normal is on (env QUIESCE_RCU_NORMAL or rcu_set_normal()). */
bool quiesce_gp_normal_only(void);

/* Test-only: grace periods that return without waiting ("busted"). */
extern bool quiesce_test_busted_gp;

#endif
