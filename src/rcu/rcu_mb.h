/*
 * rcu_mb.h - the mb domain's parts (rcu_mb.c) for the callback workers,
 * the tests and the torture tool.
 */
#ifndef QUIESCE_RCU_MB_INTERNAL_H
#define QUIESCE_RCU_MB_INTERNAL_H

#include <stdbool.h>

#include "rcu/cb_domain.h"
#include "rcu/gp_engine.h"

/* The mb domain's grace periods (its sequence number counts them). */
extern struct quiesce_gp_domain quiesce_rcu_mb_domain;
/* Its call_rcu() callbacks (quiesce_call_rcu_mb()). */
extern struct quiesce_cb_domain quiesce_rcu_mb_cb;

/* Test-only: mb grace periods that do not wait for any reader ("busted"). */
extern bool quiesce_test_busted_rcu_mb;

#endif
