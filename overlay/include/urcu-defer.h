/* urcu-defer.h (liburcu overlay): liburcu's top-level name for <urcu/defer.h>. */
#include <urcu/defer.h>
