/*
 * rcu_mb.h - the mb domain's parts (rcu_mb.c) for the tests.
 */
#ifndef QUIESCE_RCU_MB_INTERNAL_H
#define QUIESCE_RCU_MB_INTERNAL_H

#include <stdbool.h>

/* Test-only: mb grace periods that do not wait for any reader ("busted"). */
extern bool quiesce_test_busted_rcu_mb;

#endif
