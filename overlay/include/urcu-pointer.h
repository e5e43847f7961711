/* urcu-pointer.h (liburcu overlay): liburcu's top-level name for <urcu/pointer.h>. */
#include <urcu/pointer.h>
