/* urcu-qsbr.h (liburcu overlay) - the qsbr flavor with its short names. */
#define URCU_API_MAP
#include <urcu/urcu-qsbr.h>
