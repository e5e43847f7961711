/*
 * The bp flavor without _LGPL_SOURCE (every call out of line, to the
 * symbols in libquiesce-urcu), through
 * <urcu-bp.h>: flavor_stress.h.
 */
#define URCU_TEST_NAME "bp flavor, out of line"
#include <urcu-bp.h>

#include "flavor_stress.h"
