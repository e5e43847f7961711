/*
 * urcu/static/urcu-mb.h (liburcu overlay) - the mb flavor's inline read
 * side, _urcu_mb_read_lock(), _urcu_mb_read_unlock() and
 * _urcu_mb_read_ongoing(), which <urcu/urcu-mb.h> maps its calls to when
 * _LGPL_SOURCE is defined, and which a program may include itself, as
 * liburcu's: quiesce's mb domain, whose readers fence for themselves and
 * need no registration, and whose inline fast path is in
 * <quiesce/rcu_mb.h>.  liburcu's internal state (urcu_mb_gp, its reader
 * structure) is not here.  quiesce's short names are left out, as in
 * urcu-quiesce.h.
 */
#ifndef _URCU_MB_STATIC_H
#define _URCU_MB_STATIC_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <urcu/annotate.h>
#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/config.h>
#include <urcu/debug.h>
#include <urcu/futex.h>
#include <urcu/list.h>
#include <urcu/static/quiesce-link.h>
#include <urcu/system.h>
#include <urcu/tls-compat.h>
#include <urcu/uatomic.h>

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

#endif /* _URCU_MB_STATIC_H */
