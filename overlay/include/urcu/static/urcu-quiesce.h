/*
 * urcu/static/urcu-quiesce.h (liburcu overlay; no liburcu counterpart) -
 * the read side that the memb, signal and bp flavors share, which their
 * static headers (urcu-memb.h, urcu-signal.h, urcu-bp.h) name as liburcu's:
 * quiesce's default RCU, whose readers need no registration and whose
 * inline fast path is in <quiesce/rcu.h>.
 *
 * quiesce's short names (rcu_read_lock, ...) are left out here: liburcu's
 * own map headers define those.  A file that includes the overlay must not
 * also include quiesce's headers with their short names.
 */
#ifndef _URCU_STATIC_URCU_QUIESCE_H
#define _URCU_STATIC_URCU_QUIESCE_H

/*
 * What liburcu's static headers of these flavors bring (stdio.h: 0.15's
 * inline pointer calls).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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
#include <quiesce/rcu.h>
#undef QUIESCE_NO_SHORT_NAMES
#else
#include <quiesce/rcu.h>
#endif

static inline void _urcu_quiesce_read_lock(void)
{
	_URCU_QUIESCE_LINK_REF();
	quiesce_rcu_read_lock();
}

static inline void _urcu_quiesce_read_unlock(void)
{
	quiesce_rcu_read_unlock();
}

static inline int _urcu_quiesce_read_ongoing(void)
{
	return quiesce_rcu_read_ongoing();
}

#endif /* _URCU_STATIC_URCU_QUIESCE_H */
