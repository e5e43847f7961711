/*
 * The memb flavor without _LGPL_SOURCE (every call out of line, to the
 * symbols in libquiesce-urcu), through
 * <urcu.h>: flavor_stress.h.
 */
#define URCU_TEST_NAME "memb flavor, out of line"
#include <urcu.h>

#include "flavor_stress.h"
