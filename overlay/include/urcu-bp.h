/* urcu-bp.h (liburcu overlay) - the bp flavor with its short names. */
#define URCU_API_MAP
#include <urcu/urcu-bp.h>
