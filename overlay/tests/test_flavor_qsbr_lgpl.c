/*
 * The qsbr flavor with _LGPL_SOURCE (inline read side and pointers), through
 * <urcu-qsbr.h>: flavor_stress.h.
 */
#define _LGPL_SOURCE
#define URCU_TEST_QSBR
#define URCU_TEST_NAME "qsbr flavor, inline"
#include <urcu-qsbr.h>

#include "flavor_stress.h"
