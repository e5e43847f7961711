/*
 * The mb flavor without _LGPL_SOURCE (every call out of line, to the
 * symbols in libquiesce-urcu), through
 * <urcu.h>: flavor_stress.h.
 */
#define RCU_MB
#define URCU_TEST_NAME "mb flavor, out of line"
#include <urcu.h>

#include "flavor_stress.h"
