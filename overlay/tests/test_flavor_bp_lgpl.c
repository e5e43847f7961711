/*
 * The bp flavor with _LGPL_SOURCE (inline read side and pointers), through
 * <urcu-bp.h>: flavor_stress.h.
 */
#define _LGPL_SOURCE
#define URCU_TEST_NAME "bp flavor, inline"
#include <urcu-bp.h>

#include "flavor_stress.h"
