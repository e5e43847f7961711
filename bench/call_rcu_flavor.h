/*
 * call_rcu_flavor.h - one call_rcu implementation as the call-rcu
 * experiment sees it, so that quiesce and liburcu run the same workload.
 */
#ifndef QUIESCE_BENCH_CALL_RCU_FLAVOR_H
#define QUIESCE_BENCH_CALL_RCU_FLAVOR_H

/*
 * The object each callback frees: the flavor's two-pointer callback head,
 * then a small payload.
 */
#define QB_CB_HEAD_BYTES 16
#define QB_CB_OBJECT_BYTES (QB_CB_HEAD_BYTES + 2 * sizeof(long))

struct qb_cb_flavor {
	const char *name;
	void (*register_thread)(void);
	void (*unregister_thread)(void);
	/* Queues obj, whose head it owns, for qb_cb_free() after a grace period. */
	void (*queue)(void *obj);
	void (*barrier)(void);
	/* Around a row's runs, when not NULL: make and drop per-CPU workers. */
	void (*setup)(void);
	void (*teardown)(void);
};

/*
 * QB_CB_WORKERS callback threads made by the program, each queued on by
 * its index (the barrier row: a barrier must wait for every one of them).
 */
#define QB_CB_WORKERS 16
struct qb_cb_workers {
	const char *name;
	void (*register_thread)(void);
	void (*unregister_thread)(void);
	void (*make)(void);
	/* Queues obj on thread i, for qb_cb_free() after a grace period. */
	void (*queue_on)(int i, void *obj);
	void (*barrier)(void);
	void (*drop)(void);
};

/* Frees an object; the flavors' callbacks call it. */
void qb_cb_free(void *obj);

extern const struct qb_cb_flavor qb_quiesce_call_rcu;
#ifdef QUIESCE_HAVE_URCU
extern const struct qb_cb_flavor qb_urcu_call_rcu;
/* liburcu's per-CPU call_rcu_data (create_all_cpu_call_rcu_data()). */
extern const struct qb_cb_flavor qb_urcu_call_rcu_per_cpu;
/* call_rcu_data of liburcu's own (create_call_rcu_data()). */
extern const struct qb_cb_workers qb_urcu_call_rcu_workers;
#endif

#endif
