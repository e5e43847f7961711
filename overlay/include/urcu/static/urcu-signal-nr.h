/*
 * urcu/static/urcu-signal-nr.h (liburcu overlay) - SIGRCU, the signal that
 * liburcu's signal flavor (0.13 and 0.14) reserves for its grace periods:
 * SIGURCU if the program defines it, else SIGUSR1, as liburcu's.  The
 * overlay's signal flavor is quiesce's default RCU and sends no signal:
 * the name is here for programs that keep that signal for it.
 */
#ifndef _STATIC_URCU_SIGNAL_NR_H
#define _STATIC_URCU_SIGNAL_NR_H

#include <signal.h>

#ifdef SIGURCU
#define SIGRCU SIGURCU
#endif

#ifndef SIGRCU
#define SIGRCU SIGUSR1
#endif

#endif /* _STATIC_URCU_SIGNAL_NR_H */
