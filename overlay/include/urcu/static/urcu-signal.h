/*
 * urcu/static/urcu-signal.h (liburcu overlay) - the signal flavor's (liburcu 0.13 and 0.14) inline read
 * side, _urcu_signal_read_lock(), _urcu_signal_read_unlock() and
 * _urcu_signal_read_ongoing(), which <urcu/urcu-signal.h> maps its calls to when
 * _LGPL_SOURCE is defined, and which a program may include itself, as
 * liburcu's: quiesce's default RCU read side (urcu-quiesce.h), which the
 * memb, signal and bp flavors share.  liburcu's internal state (urcu_signal_gp,
 * its reader structure) is not here.
 */
#ifndef _URCU_SIGNAL_STATIC_H
#define _URCU_SIGNAL_STATIC_H

#include <urcu/static/urcu-quiesce.h>
#include <urcu/static/urcu-signal-nr.h>

#define _urcu_signal_read_lock _urcu_quiesce_read_lock
#define _urcu_signal_read_unlock _urcu_quiesce_read_unlock
#define _urcu_signal_read_ongoing _urcu_quiesce_read_ongoing

#endif /* _URCU_SIGNAL_STATIC_H */
