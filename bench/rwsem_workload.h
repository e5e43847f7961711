/*
 * rwsem_workload.h - the lock-table workload shared by the rwsem
 * experiments: any reader-writer lock behind a small vtable, a
 * pgbench-like mix of reads and updates of a few cache lines, and a
 * writer timed under a flood of readers.
 */
#ifndef QUIESCE_BENCH_RWSEM_WORKLOAD_H
#define QUIESCE_BENCH_RWSEM_WORKLOAD_H

#include <stdint.h>

#include "bench.h"

struct qb_rwlock_ops {
	const char *name;
	void (*prepare)(void);	/* before each run, or NULL: sets process-wide knobs */
	void *(*create)(void);
	void (*destroy)(void *lock);
	void (*read_lock)(void *lock);
	void (*read_unlock)(void *lock);
	void (*write_lock)(void *lock);
	void (*write_unlock)(void *lock);
};

/* The quiesce rwsem, and glibc's rwlock in its two kinds. */
extern const struct qb_rwlock_ops qb_rwsem_quiesce;
extern const struct qb_rwlock_ops qb_rwsem_pthread_default;
extern const struct qb_rwlock_ops qb_rwsem_pthread_writer;
#ifdef QUIESCE_HAVE_CK
extern const struct qb_rwlock_ops qb_rwsem_ck;	/* bench/peer_ck_rwlock.c */
#endif

/* Thread counts and read percentages of the table. */
#define QB_RWSEM_THREAD_COUNTS 4
#define QB_RWSEM_READ_MIXES 4
extern const int qb_rwsem_threads[QB_RWSEM_THREAD_COUNTS];
extern const int qb_rwsem_read_pct[QB_RWSEM_READ_MIXES];

/* Names a cell of the table: "4 thr 90% read". */
void qb_rwsem_cell_name(char *buf, size_t len, int threads, int read_pct);

/*
 * Measures every lock on every cell, the locks interleaved within each
 * repetition so that drift on a shared machine hits them alike, records
 * each cell's throughput (Mops/s) under the lock's name, and plots it
 * against the thread count, one plot per read mix.  It takes `share` of the
 * experiment's budget, split evenly among cells, locks and repetitions.
 * When out is not NULL it receives the spreads, indexed
 * [lock][thread count][mix].
 */
void qb_rwsem_table(const char *experiment, const struct qb_options *opt, double share,
		    const struct qb_rwlock_ops *const *locks, int nlocks,
		    struct qb_spread (*out)[QB_RWSEM_THREAD_COUNTS][QB_RWSEM_READ_MIXES]);

/*
 * The longest a writer waited, in ms, with QB_RWSEM_FLOOD_READERS readers
 * whose sections always overlap, over run_ns.  A writer the readers starve
 * waits until they stop, so the figure is at most about run_ns.
 */
#define QB_RWSEM_FLOOD_READERS 3
double qb_rwsem_writer_wait_ms(const struct qb_rwlock_ops *ops, uint64_t run_ns);

#endif
