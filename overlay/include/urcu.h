/*
 * urcu.h (liburcu overlay) - the default flavor with its short names
 * (rcu_read_lock, synchronize_rcu, call_rcu, ...): memb, or mb / signal
 * under RCU_MB / RCU_SIGNAL.
 */
#define URCU_API_MAP
#include <urcu/urcu.h>
