/*
 * The mb flavor with _LGPL_SOURCE (inline read side and pointers) through
 * <urcu.h> with RCU_MB: flavor_stress.h.
 */
#define _LGPL_SOURCE
#define RCU_MB
#define URCU_TEST_NAME "mb flavor, inline"
#include <urcu.h>

#include "flavor_stress.h"
