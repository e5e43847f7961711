/*
 * seed-rwsem: the table of the seed patch ("rwsem: check counter to avoid
 * cmpxchg calls", Davidlohr Bueso, 2013) - throughput of a pgbench-like
 * mix at 1-8 threads, with the writer's check before its compare-and-swap
 * and without it (quiesce_rwsem_set_writer_precheck()).
 */
#include <stdio.h>

#include <quiesce/rwsem.h>

#include "bench.h"
#include "rwsem_workload.h"

static void no_precheck_prepare(void)
{
	quiesce_rwsem_set_writer_precheck(false);
}

static const struct qb_rwlock_ops *quiesce_without_precheck(void)
{
	static struct qb_rwlock_ops ops;

	ops = qb_rwsem_quiesce;
	ops.name = "quiesce rwsem, blind cmpxchg";
	ops.prepare = no_precheck_prepare;
	return &ops;
}

/* The seed's headline: pgbench, 160 MB, 2 clients; here 2 threads, half writes. */
#define SEED_THREADS_INDEX 1
#define SEED_MIX_INDEX 2

static void run_seed_rwsem(const struct qb_options *opt)
{
	const struct qb_rwlock_ops *locks[] = { &qb_rwsem_quiesce, quiesce_without_precheck() };
	struct qb_spread spreads[2][QB_RWSEM_THREAD_COUNTS][QB_RWSEM_READ_MIXES];
	char before_label[64];

	qb_rwsem_table("seed-rwsem", opt, 1.0, locks, 2, spreads);
	snprintf(before_label, sizeof(before_label), "blind cmpxchg (%d thr %d%% read)",
		 qb_rwsem_threads[SEED_THREADS_INDEX], qb_rwsem_read_pct[SEED_MIX_INDEX]);
	qb_seed_result(&(struct qb_seed_row){
		.seed = 2,
		.thread = "rwsem: check counter to avoid cmpxchg calls",
		.kernel_before = "15931 tps (pgbench, 2 clients)",
		.kernel_after = "22487 tps",
		.kernel_change = "+41.1%",
		.ours_before_label = before_label,
		.ours_after_label = "check before cmpxchg",
		.ours_before = spreads[1][SEED_THREADS_INDEX][SEED_MIX_INDEX].median,
		.ours_after = spreads[0][SEED_THREADS_INDEX][SEED_MIX_INDEX].median,
		.unit = "Mops/s",
	});
	qb_heading("check before cmpxchg / blind cmpxchg");
	for (int t = 0; t < QB_RWSEM_THREAD_COUNTS; t++) {
		for (int m = 0; m < QB_RWSEM_READ_MIXES; m++) {
			char cell[48];

			qb_rwsem_cell_name(cell, sizeof(cell), qb_rwsem_threads[t], qb_rwsem_read_pct[m]);
			qb_ratio("seed-rwsem", cell, locks[0]->name, locks[1]->name, ">= 1.0");
		}
	}
	quiesce_rwsem_set_writer_precheck(true);
}

QB_EXPERIMENT(seed_rwsem, .name = "seed-rwsem",
	      .title = "rwsem throughput, writers checking the count before cmpxchg or not",
	      .order = 3, .run = run_seed_rwsem)
