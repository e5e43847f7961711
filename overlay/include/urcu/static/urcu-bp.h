/*
 * urcu/static/urcu-bp.h (liburcu overlay) - the bp flavor's inline read
 * side, _urcu_bp_read_lock(), _urcu_bp_read_unlock() and
 * _urcu_bp_read_ongoing(), which <urcu/urcu-bp.h> maps its calls to when
 * _LGPL_SOURCE is defined, and which a program may include itself, as
 * liburcu's: quiesce's default RCU read side (urcu-quiesce.h), which the
 * memb, signal and bp flavors share.  liburcu's internal state (urcu_bp_gp,
 * its reader structure) is not here.
 */
#ifndef _URCU_BP_STATIC_H
#define _URCU_BP_STATIC_H

#include <urcu/static/urcu-quiesce.h>

#define _urcu_bp_read_lock _urcu_quiesce_read_lock
#define _urcu_bp_read_unlock _urcu_quiesce_read_unlock
#define _urcu_bp_read_ongoing _urcu_quiesce_read_ongoing

#endif /* _URCU_BP_STATIC_H */
