/* cb_worker.h - what the flavors' barriers need from the workers (cb_worker.c). */
#ifndef QUIESCE_CB_WORKER_H
#define QUIESCE_CB_WORKER_H

#include <quiesce/call_rcu_worker.h>

/*
 * Waits for the callbacks queued on every worker of flavor before the call
 * (the flavor's barrier, named call in messages, has checked its caller).
 */
void quiesce_cb_workers_barrier(enum quiesce_cb_flavor flavor, const char *call);

#endif
