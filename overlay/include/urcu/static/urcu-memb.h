/*
 * urcu/static/urcu-memb.h (liburcu overlay) - the memb flavor's inline read
 * side, _urcu_memb_read_lock(), _urcu_memb_read_unlock() and
 * _urcu_memb_read_ongoing(), which <urcu/urcu-memb.h> maps its calls to when
 * _LGPL_SOURCE is defined, and which a program may include itself, as
 * liburcu's: quiesce's default RCU read side (urcu-quiesce.h), which the
 * memb, signal and bp flavors share.  liburcu's internal state (urcu_memb_gp,
 * its reader structure) is not here.
 */
#ifndef _URCU_MEMB_STATIC_H
#define _URCU_MEMB_STATIC_H

#include <urcu/static/urcu-quiesce.h>

#define _urcu_memb_read_lock _urcu_quiesce_read_lock
#define _urcu_memb_read_unlock _urcu_quiesce_read_unlock
#define _urcu_memb_read_ongoing _urcu_quiesce_read_ongoing

#endif /* _URCU_MEMB_STATIC_H */
