/*
 * rwsem: the quiesce rwsem against glibc's pthread_rwlock_t (default,
 * which prefers readers, and writer-preferring) and Concurrency Kit's
 * ck_rwlock: throughput on the seed's table, as ratios to pthread's
 * default, and the longest wait of a writer under a flood of readers.
 */
#include <stdio.h>

#include "bench.h"
#include "rwsem_workload.h"

/* Shares of the budget: the throughput table, the writer waits. */
#define TABLE_SHARE 0.7
#define FLOOD_SHARE 0.3

static const struct qb_rwlock_ops *const peer_locks[] = {
	&qb_rwsem_quiesce,
	&qb_rwsem_pthread_default,
	&qb_rwsem_pthread_writer,
#ifdef QUIESCE_HAVE_CK
	&qb_rwsem_ck,
#endif
};
#define PEER_LOCKS ((int)(sizeof(peer_locks) / sizeof(peer_locks[0])))

static void throughput_ratios(void)
{
	const char *base = qb_rwsem_pthread_default.name;

	qb_heading("throughput / pthread_rwlock default");
	for (int t = 0; t < QB_RWSEM_THREAD_COUNTS; t++) {
		for (int m = 0; m < QB_RWSEM_READ_MIXES; m++) {
			int threads = qb_rwsem_threads[t], read_pct = qb_rwsem_read_pct[m];
			bool writers_contend = threads > 1 && read_pct < 100;
			char cell[48];

			qb_rwsem_cell_name(cell, sizeof(cell), threads, read_pct);
			for (int l = 0; l < PEER_LOCKS; l++)
				if (peer_locks[l] != &qb_rwsem_pthread_default)
					qb_ratio("rwsem", cell, peer_locks[l]->name, base,
						 peer_locks[l] == &qb_rwsem_quiesce ?
						 (writers_contend ? ">= 1.2" : ">= 1.0") : NULL);
		}
	}
}

static void writer_waits(const struct qb_options *opt)
{
	int reps = opt->repetitions;
	uint64_t run_ns = (uint64_t)((double)opt->budget_ns * FLOOD_SHARE / (reps * PEER_LOCKS));
	double samples[PEER_LOCKS][reps];
	char metric[48];

	snprintf(metric, sizeof(metric), "writer wait, %d readers", QB_RWSEM_FLOOD_READERS);
	qb_heading("longest writer wait under a reader flood (%.0f ms runs: a starved writer waits that long)",
		   run_ns / 1e6);
	for (int r = 0; r < reps; r++)
		for (int l = 0; l < PEER_LOCKS; l++)
			samples[l][r] = qb_rwsem_writer_wait_ms(peer_locks[l], run_ns);
	for (int l = 0; l < PEER_LOCKS; l++)
		qb_record("rwsem", peer_locks[l]->name, metric, "ms", samples[l], reps);
	qb_ratio("rwsem", metric, qb_rwsem_quiesce.name, qb_rwsem_pthread_default.name, "<= 1.0");
}

static void run_rwsem(const struct qb_options *opt)
{
#ifndef QUIESCE_HAVE_CK
	qb_missing_peer("rwsem", "ck_rwlock", "libck-dev");
#endif
	qb_rwsem_table("rwsem", opt, TABLE_SHARE, peer_locks, PEER_LOCKS, NULL);
	throughput_ratios();
	writer_waits(opt);
}

QB_EXPERIMENT(rwsem_peers, .name = "rwsem",
	      .title = "rwsem vs pthread_rwlock_t and ck_rwlock: throughput table, writer wait",
	      .order = 130, .run = run_rwsem)
