/*
 * urcu/assert.h (liburcu overlay) - liburcu's assertions:
 * urcu_posix_assert() is assert() (nothing under NDEBUG, the expression
 * still type-checked); urcu_assert_debug() checks only under DEBUG_RCU or
 * CONFIG_RCU_DEBUG.
 */
#ifndef _URCU_ASSERT_H
#define _URCU_ASSERT_H

#include <assert.h>

#include <urcu/config.h>

/* Type-checks an expression without evaluating it. */
#define _urcu_use_expression(_expr) ((void)sizeof((void)(_expr), 0))

#ifdef NDEBUG
#define urcu_posix_assert(_cond) _urcu_use_expression(_cond)
#else
#define urcu_posix_assert(_cond) assert(_cond)
#endif

#if defined(DEBUG_RCU) || defined(CONFIG_RCU_DEBUG)
#define urcu_assert_debug(_cond) urcu_posix_assert(_cond)
#else
#define urcu_assert_debug(_cond) _urcu_use_expression(_cond)
#endif

#endif /* _URCU_ASSERT_H */
