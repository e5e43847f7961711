/*
 * The signal flavor with _LGPL_SOURCE (inline read side and pointers), through
 * <urcu.h>: flavor_stress.h.
 */
#define _LGPL_SOURCE
#define RCU_SIGNAL
#define URCU_TEST_NAME "signal flavor, inline"
#include <urcu.h>

#include "flavor_stress.h"
