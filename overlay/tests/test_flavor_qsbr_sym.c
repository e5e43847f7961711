/*
 * The qsbr flavor without _LGPL_SOURCE (every call out of line, to the
 * symbols in libquiesce-urcu), through
 * <urcu-qsbr.h>: flavor_stress.h.
 */
#define URCU_TEST_QSBR
#define URCU_TEST_NAME "qsbr flavor, out of line"
#include <urcu-qsbr.h>

#include "flavor_stress.h"
