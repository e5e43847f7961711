/* urcu-flavor.h (liburcu overlay): liburcu's top-level name for <urcu/flavor.h>. */
#include <urcu/flavor.h>
