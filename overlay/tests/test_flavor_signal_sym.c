/*
 * The signal flavor without _LGPL_SOURCE (every call out of line, to the
 * symbols in libquiesce-urcu), through <urcu.h> with RCU_SIGNAL:
 * flavor_stress.h.
 */
#define RCU_SIGNAL
#define URCU_TEST_NAME "signal flavor, out of line"
#include <urcu.h>

#include "flavor_stress.h"
