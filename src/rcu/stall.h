/* stall.h - reporting readers that hold up a grace period too long. */
#ifndef QUIESCE_STALL_H
#define QUIESCE_STALL_H

#include <stdint.h>

#include <quiesce/rcu.h>

/* The threshold in ns after which a waiting grace period reports. */
uint64_t quiesce_stall_timeout_ns(void);

/* Reports one stalled reader to the handler, or prints it. */
void quiesce_stall_report(const struct quiesce_rcu_stall *stall);

uint64_t quiesce_stall_warnings(void);

#endif
