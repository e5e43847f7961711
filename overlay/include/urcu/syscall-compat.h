/*
 * urcu/syscall-compat.h (liburcu overlay) - where syscall() and the
 * syscall numbers come from (Linux: <unistd.h>, <sys/syscall.h>, and
 * <syscall.h>, which liburcu's includes there and programs may expect).
 */
#ifndef _URCU_SYSCALL_COMPAT_H
#define _URCU_SYSCALL_COMPAT_H

#include <sys/syscall.h>
#include <syscall.h>
#include <unistd.h>

#endif /* _URCU_SYSCALL_COMPAT_H */
