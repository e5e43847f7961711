/*
 * rcu_stall.h - the stall fault of the RCU types: an occasional reader
 * that holds its section for several stall timeouts, and the check that a
 * stall warning named it.
 */
#ifndef QUIESCE_TORTURE_RCU_STALL_H
#define QUIESCE_TORTURE_RCU_STALL_H

#include <stdbool.h>

struct torture_run;
struct torture_thread;

/* A long reader holds this many stall timeouts. */
#define RCU_LONG_READ_TIMEOUTS 8

/* Sets the short stall timeout and the counting handler, and undoes it. */
void rcu_stall_setup(struct torture_run *run);
void rcu_stall_teardown(struct torture_run *run);

/* True when this reader should be the next long reader. */
bool rcu_long_read_due(struct torture_thread *t);

/* Holds the caller's read-side section, then checks for the warning. */
void rcu_long_read_hold(struct torture_thread *t);

/* After the joins: no long read checked in a run long enough is unchecked. */
void rcu_stall_evidence(struct torture_run *run);

#endif
