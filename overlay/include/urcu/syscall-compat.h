/*
 * urcu/syscall-compat.h (liburcu overlay) - where syscall() and the
 * syscall numbers come from (Linux: <unistd.h>, <sys/syscall.h>).
 */
#ifndef _URCU_SYSCALL_COMPAT_H
#define _URCU_SYSCALL_COMPAT_H

#include <sys/syscall.h>
#include <unistd.h>

#endif /* _URCU_SYSCALL_COMPAT_H */
