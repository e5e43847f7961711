/*
 * rcu_pipeline.h - the rcutorture check, shared by the RCU torture types.
 *
 * Writers replace the one current element and then wait for a grace period
 * in the way their type tests.  Every element carries a pipeline age: 0
 * while current, 1 once removed, one more after each grace period its
 * writer waits for afterwards.  A reader can hold an element across its
 * removal (age 1) but never across a whole grace period, so a reader that
 * finds age 2 or more at the end of its section has caught a grace period
 * that did not wait for it.  At age RCU_PIPE_LEN an element is poisoned
 * and quarantined before it is really freed, so a reader that still holds
 * it sees the poison rather than reused memory.
 */
#ifndef QUIESCE_TORTURE_RCU_PIPELINE_H
#define QUIESCE_TORTURE_RCU_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct torture_run;
struct torture_thread;

#define RCU_PIPE_LEN 10

/* How a type's writers wait for a grace period after a removal. */
typedef void (*rcu_wait_fn)(struct torture_thread *t);

void rcu_pipeline_setup(struct torture_run *run, rcu_wait_fn wait);

/* The struct torture_type operations the RCU types share. */
void rcu_pipeline_set_busted(bool on);
void rcu_pipeline_thread_start(struct torture_thread *t);
void rcu_pipeline_thread_stop(struct torture_thread *t, bool unregister);
void rcu_pipeline_read(struct torture_thread *t);
void rcu_pipeline_signal_read(struct torture_thread *t);
void rcu_pipeline_write(struct torture_thread *t);
uint64_t rcu_pipeline_grace_periods(struct torture_run *run);
void rcu_pipeline_finish(struct torture_run *run);
void rcu_pipeline_report(struct torture_run *run, FILE *out, bool json);

#endif
