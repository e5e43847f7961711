/*
 * urcu/config.h (liburcu overlay) - the configuration liburcu's build
 * records, as quiesce's overlay has it: SMP, compiler TLS, clock_gettime,
 * every flavor in one program.
 */
#ifndef _URCU_CONFIG_H
#define _URCU_CONFIG_H

#define CONFIG_RCU_SMP 1
#define CONFIG_RCU_TLS 1
#define CONFIG_RCU_HAVE_CLOCK_GETTIME 1
#define CONFIG_RCU_HAVE_MULTIFLAVOR 1
#define CONFIG_RCU_USE_ATOMIC_BUILTINS 1

#endif /* _URCU_CONFIG_H */
