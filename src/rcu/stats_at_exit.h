/* stats_at_exit.h - QUIESCE_STATS=1: the counters on stderr at exit. */
#ifndef QUIESCE_STATS_AT_EXIT_H
#define QUIESCE_STATS_AT_EXIT_H

/*
 * Registers the printer, once: at start-up (by call_rcu.c, which every
 * program that uses RCU links, static or shared), or before the callback
 * threads' exit handler when that comes first (cb_lifecycle.c).
 */
void quiesce_stats_at_exit_init(void);

#endif
