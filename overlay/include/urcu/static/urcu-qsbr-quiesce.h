/*
 * urcu/static/urcu-qsbr-quiesce.h (liburcu overlay; no liburcu
 * counterpart) - the read side that the qsbr flavor inlines when
 * _LGPL_SOURCE is defined: quiesce's QSBR domain (<quiesce/rcu_qsbr.h>),
 * whose read_lock and read_unlock are empty and whose quiescent state is a
 * load and a compare.  quiesce's short names are left out, as in
 * urcu-quiesce.h.
 */
#ifndef _URCU_STATIC_URCU_QSBR_QUIESCE_H
#define _URCU_STATIC_URCU_QSBR_QUIESCE_H

#ifndef QUIESCE_NO_SHORT_NAMES
#define QUIESCE_NO_SHORT_NAMES
#include <quiesce/rcu_qsbr.h>
#undef QUIESCE_NO_SHORT_NAMES
#else
#include <quiesce/rcu_qsbr.h>
#endif

static inline void _urcu_qsbr_read_lock(void)
{
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

static inline void _urcu_qsbr_quiescent_state(void)
{
	quiesce_qsbr_quiescent_state();
}

static inline void _urcu_qsbr_thread_offline(void)
{
	quiesce_qsbr_thread_offline();
}

static inline void _urcu_qsbr_thread_online(void)
{
	quiesce_qsbr_thread_online();
}

#endif /* _URCU_STATIC_URCU_QSBR_QUIESCE_H */
