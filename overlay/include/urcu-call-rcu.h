/* urcu-call-rcu.h (liburcu overlay): liburcu's top-level name for <urcu/call-rcu.h>. */
#include <urcu/call-rcu.h>
