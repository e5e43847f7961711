/*
 * urcu/debug.h (liburcu overlay) - urcu_assert(): checks only under
 * DEBUG_RCU or CONFIG_RCU_DEBUG, as liburcu's.
 */
#ifndef _URCU_DEBUG_H
#define _URCU_DEBUG_H

#include <urcu/assert.h>
#include <urcu/config.h>

#define urcu_assert(_cond) urcu_assert_debug(_cond)

#endif /* _URCU_DEBUG_H */
