/*
 * urcu/static/urcu-qsbr.h (liburcu overlay) - the qsbr flavor's inline
 * read side, _urcu_qsbr_read_lock() ... _urcu_qsbr_thread_online(), which
 * <urcu/urcu-qsbr.h> maps its calls to when _LGPL_SOURCE is defined, and
 * which a program may include itself, as liburcu's: quiesce's QSBR domain
 * (<quiesce/rcu_qsbr.h>), whose read_lock and read_unlock are empty and
 * whose quiescent state is a load and a compare.  liburcu's internal state
 * (urcu_qsbr_gp, its reader structure) is not here: quiesce's is its own.
 * quiesce's short names are left out, as in urcu-quiesce.h.
 */
#ifndef _URCU_QSBR_STATIC_H
#define _URCU_QSBR_STATIC_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <urcu/annotate.h>
#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/debug.h>
#include <urcu/futex.h>
#include <urcu/list.h>
#include <urcu/static/quiesce-link.h>
#include <urcu/system.h>
#include <urcu/tls-compat.h>
#include <urcu/uatomic.h>

#ifndef QUIESCE_NO_SHORT_NAMES
#define QUIESCE_NO_SHORT_NAMES
#include <quiesce/rcu_qsbr.h>
#undef QUIESCE_NO_SHORT_NAMES
#else
#include <quiesce/rcu_qsbr.h>
#endif

static inline void _urcu_qsbr_read_lock(void)
{
	_URCU_QUIESCE_LINK_REF();
	quiesce_qsbr_read_lock();
}

static inline void _urcu_qsbr_read_unlock(void)
{
	quiesce_qsbr_read_unlock();
}

/* Whether the thread is online, as liburcu's. */
static inline int _urcu_qsbr_read_ongoing(void)
{
	return quiesce_qsbr_read_ongoing();
}

/*
 * The thread states as liburcu's, which forgive what quiesce's own calls
 * refuse: a quiescent state announced offline puts the thread online
 * (liburcu stores the current phase whatever the state; BIND 9's event
 * loop announces one, then goes offline, whether or not it came online
 * since), going offline when not online does nothing, and coming online
 * when online announces a quiescent state.  A thread that never
 * registered still dies with a message where it would come online: its
 * reads would be protected by nothing.
 */
static inline void _urcu_qsbr_quiescent_state(void)
{
	_URCU_QUIESCE_LINK_REF();
	/*
	 * The fast path is quiesce_qsbr_quiescent_state()'s load and compare
	 * (relaxed, for the reason given there); an offline counter never
	 * equals a phase, so the offline case costs nothing until then.
	 */
	if (QUIESCE_LIKELY(QUIESCE_LOAD(&quiesce_qsbr_gp_word.phase) ==
			   quiesce_qsbr_reader_self.ctr))
		return;
	if (quiesce_qsbr_reader_self.ctr == QUIESCE_QSBR_OFFLINE)
		quiesce_qsbr_thread_online();
	else
		quiesce_qsbr_quiescent_state();
}

static inline void _urcu_qsbr_thread_offline(void)
{
	_URCU_QUIESCE_LINK_REF();
	if (QUIESCE_LIKELY(quiesce_qsbr_thread_online_p()))
		quiesce_qsbr_thread_offline();
}

static inline void _urcu_qsbr_thread_online(void)
{
	_URCU_QUIESCE_LINK_REF();
	if (QUIESCE_LIKELY(!quiesce_qsbr_thread_online_p()))
		quiesce_qsbr_thread_online();
	else
		quiesce_qsbr_quiescent_state();
}

#endif /* _URCU_QSBR_STATIC_H */
