/*
 * urcu/static/urcu-mb-quiesce.h (liburcu overlay; no liburcu counterpart) -
 * the read side that the mb flavor inlines when _LGPL_SOURCE is defined:
 * quiesce's mb domain, whose readers fence for themselves and need no
 * registration, and whose inline fast path is in <quiesce/rcu_mb.h>.
 *
 * quiesce's short names are left out here, as in urcu-quiesce.h.
 */
#ifndef _URCU_STATIC_URCU_MB_QUIESCE_H
#define _URCU_STATIC_URCU_MB_QUIESCE_H

#include <urcu/debug.h>
#include <urcu/futex.h>
#include <urcu/list.h>
#include <urcu/static/quiesce-link.h>
#include <urcu/tls-compat.h>

#ifndef QUIESCE_NO_SHORT_NAMES
#define QUIESCE_NO_SHORT_NAMES
#include <quiesce/rcu_mb.h>
#undef QUIESCE_NO_SHORT_NAMES
#else
#include <quiesce/rcu_mb.h>
#endif

static inline void _urcu_mb_read_lock(void)
{
	_URCU_QUIESCE_LINK_REF();
	quiesce_rcu_mb_read_lock();
}

static inline void _urcu_mb_read_unlock(void)
{
	quiesce_rcu_mb_read_unlock();
}

static inline int _urcu_mb_read_ongoing(void)
{
	return quiesce_rcu_mb_read_ongoing();
}

#endif /* _URCU_STATIC_URCU_MB_QUIESCE_H */
