/* urcu/urcu-futex.h (liburcu overlay): liburcu's old name for <urcu/futex.h>. */
#include <urcu/futex.h>
