/*
 * quiesce/call_rcu_worker.h - callback threads of one's own: a worker runs
 * the callbacks queued on it, after grace periods of its flavor, on its
 * own thread, pinned to one CPU if asked.
 *
 *   w = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, cpu);
 *   quiesce_call_rcu_on(w, &old->head, free_old);   (from any thread)
 *   ...
 *   quiesce_call_rcu_worker_destroy(w);             (runs what is queued)
 *
 * Every flavor runs all its call_rcu() callbacks on one thread, which
 * batches them behind shared grace periods; that is what most programs
 * want.  A worker is for the others:
 * - callbacks heavy enough that one thread cannot keep up with the CPUs
 *   that queue them: a worker per CPU (or per group of threads) runs them
 *   in parallel;
 * - callbacks that should run on the CPU, or NUMA node, that queued them,
 *   where the memory they free is in cache;
 * - liburcu's call_rcu_data objects (create_call_rcu_data(flags, cpu),
 *   create_all_cpu_call_rcu_data()), which the liburcu overlay maps here.
 * A worker batches, gathers and throttles its callers as the flavor's own
 * thread does (rcu.h: call_rcu()), and shares the flavor's grace periods
 * with every other waiter.
 *
 * Rules
 * - The flavor's barrier (quiesce_rcu_barrier(), quiesce_rcu_barrier_mb(),
 *   quiesce_qsbr_barrier()) waits for the callbacks queued before it on
 *   every worker of the flavor too; quiesce_call_rcu_worker_barrier()
 *   waits for one worker's.  Both abort, with a message, where waiting for
 *   a grace period would wait forever: inside a read-side section of the
 *   flavor, online for QSBR, or from a callback of the worker waited for.
 * - quiesce_call_rcu_worker_destroy() runs the worker's callbacks first
 *   (with the same rules), then stops its thread and frees it.  A call
 *   queued on it after that begins is a use after free; one that the
 *   destroy finds pending aborts with a message.
 * - The thread starts with the first callback (or
 *   quiesce_call_rcu_worker_thread()), with every signal blocked, on `cpu`
 *   alone when cpu >= 0, else on the CPUs the process had when quiesce was
 *   loaded; if the kernel refuses that CPU (offline, outside the process's
 *   cpuset), on those.  At exit() its pending callbacks run, as the
 *   flavor's (rcu.h).  After fork() the child's worker has no thread and
 *   none of the parent's callbacks; its next callback starts one.
 */
#ifndef QUIESCE_CALL_RCU_WORKER_H
#define QUIESCE_CALL_RCU_WORKER_H

#include <pthread.h>

#include <quiesce/compiler.h>
#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whose grace periods a worker's callbacks wait for. */
enum quiesce_cb_flavor {
	QUIESCE_CB_RCU,		/* the default domain's: <quiesce/rcu.h> */
	QUIESCE_CB_RCU_MB,	/* the mb domain's: <quiesce/rcu_mb.h> */
	QUIESCE_CB_QSBR,	/* the QSBR domain's: <quiesce/rcu_qsbr.h> */
};

struct quiesce_call_rcu_worker;

/*
 * A worker of `flavor` whose thread runs on `cpu` (-1: anywhere); NULL with
 * errno EINVAL for an unknown flavor or a CPU past CPU_SETSIZE, ENOMEM.
 */
QUIESCE_API struct quiesce_call_rcu_worker *
quiesce_call_rcu_worker_create(enum quiesce_cb_flavor flavor, int cpu);
/*
 * call_rcu() of the worker's flavor, with the callback run on the worker:
 * head->func(head) runs after a grace period that follows this call.
 */
QUIESCE_API void quiesce_call_rcu_on(struct quiesce_call_rcu_worker *w,
				     struct quiesce_rcu_head *head,
				     void (*func)(struct quiesce_rcu_head *head));
/* Waits until every callback queued on w before the call has run. */
QUIESCE_API void quiesce_call_rcu_worker_barrier(struct quiesce_call_rcu_worker *w);
/* The worker's thread, started if it is not running. */
QUIESCE_API pthread_t quiesce_call_rcu_worker_thread(struct quiesce_call_rcu_worker *w);
/*
 * The thread that runs the flavor's own call_rcu() callbacks (no worker's),
 * started if it is not running.  Callable from anywhere, a read-side
 * section or a callback included (asked there while
 * quiesce_call_rcu_shutdown() stops it, it names the thread stopping,
 * without waiting); dies with a message for an unknown flavor, or once
 * exit() has stopped that thread.
 */
QUIESCE_API pthread_t quiesce_call_rcu_thread(enum quiesce_cb_flavor flavor);
/*
 * Runs w's callbacks, stops its thread and frees it; NULL does nothing.  A
 * worker destroyed already (not a live one) aborts with a message.
 */
QUIESCE_API void quiesce_call_rcu_worker_destroy(struct quiesce_call_rcu_worker *w);

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_CALL_RCU_WORKER_H */
