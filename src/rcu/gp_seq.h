/*
 * gp_seq.h - grace-period sequence numbers, as the kernel's rcu_seq.
 *
 * The low bit says whether a grace period is running; the rest count them.
 * A snapshot names the end of the first grace period that starts after it
 * was taken, and "has it passed?" is one comparison.
 */
#ifndef QUIESCE_GP_SEQ_H
#define QUIESCE_GP_SEQ_H

#include <stdbool.h>

/* The value the counter reaches when a full grace period from now ends. */
static inline unsigned long quiesce_gp_seq_snap(unsigned long seq)
{
	return (seq + 3) & ~1UL;
}

static inline bool quiesce_gp_seq_done(unsigned long seq, unsigned long snap)
{
	return (long)(seq - snap) >= 0;
}

static inline bool quiesce_gp_seq_running(unsigned long seq)
{
	return seq & 1;
}

#endif
