/*
 * urcu/tls-compat.h (liburcu overlay) - liburcu's thread-local variable
 * macros, on the compiler's __thread (liburcu's CONFIG_RCU_TLS build; its
 * pthread-key emulation is for compilers without TLS, which quiesce does
 * not support).
 */
#ifndef _URCU_TLS_COMPAT_H
#define _URCU_TLS_COMPAT_H

#include <stdlib.h>

#include <urcu/config.h>
#include <urcu/compiler.h>
#include <urcu/arch.h>

#define URCU_TLS_STORAGE_CLASS __thread
#define DECLARE_URCU_TLS(type, name) URCU_TLS_STORAGE_CLASS type name
#define DEFINE_URCU_TLS(type, name) URCU_TLS_STORAGE_CLASS type name
#define DEFINE_URCU_TLS_INIT(type, name, init) URCU_TLS_STORAGE_CLASS type name = (init)
#define URCU_TLS(name) (name)

#endif /* _URCU_TLS_COMPAT_H */
