/* defer.h - the headless deferral's test hook (defer.c). */
#ifndef QUIESCE_DEFER_INTERNAL_H
#define QUIESCE_DEFER_INTERNAL_H

#include <stdbool.h>

/* Test-only: a block runs when handed over, before any grace period ("busted"). */
extern bool quiesce_test_busted_defer;

#endif
