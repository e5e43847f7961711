/*
 * rcuhash: quiesce's RCU hash table against liburcu's cds_lfht,
 * Concurrency Kit's ck_hs (one writer) and a chained table under a
 * pthread_rwlock_t.
 *
 *   lookups  lookups/s per reader thread at 1K, 64K and 1M keys (256K with
 *            --quick), 1 and 2 readers, the table grown by its own
 *            automatic resizing or (not with --quick) pre-sized; each lookup
 *            in its own read-side section, keys present, in an order
 *            unrelated to insertion.
 *   memory   bytes per element at the largest size: all the heap the table
 *            and its elements take (mallinfo2()), and the table's own share:
 *            its link inside each element plus the heap beyond the
 *            elements' malloc() chunks (buckets, dummy nodes, slots).
 *   mix      90/10 and 50/50 lookup/update mixes from 2 threads at 64K
 *            keys (updates: insert or remove of a key in twice the range);
 *            each repetition starts once the callbacks queued before it
 *            have run (settle()), so that none pays another's backlog.
 *   resize   one writer grows the table from empty to 1M keys (256K with
 *            --quick) and removes them all again while one reader looks
 *            keys up: its worst and 5th-percentile 10 ms windows against its
 *            median window (on a shared 2-core machine the worst is often
 *            a window in which the scheduler ran something else).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcuhash.h"

const struct qb_hash_table *const qb_rcuhash_tables[] = {
	&qb_hash_quiesce,
#ifdef QUIESCE_HAVE_URCU
	&qb_hash_urcu_lfht,
#endif
#ifdef QUIESCE_HAVE_CK
	&qb_hash_ck_hs,
#endif
	&qb_hash_rwlock,
};
#define NTABLES (sizeof(qb_rcuhash_tables) / sizeof(qb_rcuhash_tables[0]))
const size_t qb_rcuhash_ntables = NTABLES;

/* The lookup order: a stride through the keys, unrelated to insertion. */
static uint64_t *lookup_keys(size_t n)
{
	uint64_t *keys = malloc(n * sizeof(*keys));

	for (size_t i = 0; i < n; i++)
		keys[i] = qb_rcuhash_key((i * 0x9e3779b1u) & (n - 1));
	return keys;
}

/* The heap one malloc(size) takes: its usable size and glibc's header. */
static size_t chunk_bytes(size_t size)
{
	void *p = malloc(size);
	size_t bytes = malloc_usable_size(p) + sizeof(size_t);

	free(p);
	return bytes;
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

struct reader {
	const struct qb_hash_table *t;
	void *table;
	const uint64_t *keys;
	size_t mask, first;
	uint64_t deadline;
	double rate;
	char pad[64];
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t start, now;
	long ops = 0;

	r->t->thread_online();
	start = qb_now_ns();
	do {
		r->t->lookups(r->table, r->keys, r->mask, r->first + (size_t)ops, CHUNK);
		ops += CHUNK;
		now = qb_now_ns();
	} while (now < r->deadline);
	r->rate = (double)ops * 1e9 / (double)(now - start);
	r->t->thread_offline();
	return NULL;
}

/* One sample: each of n readers' lookups/s for ns; returns their mean. */
static double lookup_sample(const struct qb_hash_table *t, void *table, const uint64_t *keys,
			    size_t nkeys, int n, uint64_t ns)
{
	struct reader r[2];
	double sum = 0;

	for (int i = 0; i < n; i++)
		r[i] = (struct reader){ .t = t, .table = table, .keys = keys, .mask = nkeys - 1,
					.first = (size_t)i * (nkeys / 2),
					.deadline = qb_now_ns() + ns };
	qb_run_threads(n, reader_main, r, sizeof(r[0]));
	for (int i = 0; i < n; i++)
		sum += r[i].rate;
	return sum / n;
}

const char *qb_rcuhash_size_label(size_t n)
{
	static char buf[16];

	if (n >= 1 << 20)
		snprintf(buf, sizeof(buf), "%zuM", n >> 20);
	else
		snprintf(buf, sizeof(buf), "%zuK", n >> 10);
	return buf;
}

/* One table built for the lookup rows, and what its build took. */
struct built_table {
	void *table;
	size_t built;
	double heap_per_elem;
};

/*
 * Builds n keys into a new table, stopping at deadline; measures the heap
 * it took, elements included.  Tables are built one at a time, so each
 * one's heap growth is its own.
 */
static struct built_table build(const struct qb_hash_table *t, size_t n, bool presized,
				uint64_t deadline)
{
	size_t before = heap_bytes();
	struct built_table b = { .table = t->create(presized ? n : 0) };

	/* A table whose resizing falls behind may not finish in time. */
	while (b.built < n && (b.built % 1024 || qb_now_ns() < deadline))
		t->insert(b.table, qb_rcuhash_key(b.built++));
	if (t->settle)
		t->settle(b.table);
	b.heap_per_elem = (double)(heap_bytes() - before) / (double)(b.built ? b.built : 1);
	return b;
}

static void record_memory(const struct qb_hash_table *t, const struct built_table *b, size_t n,
			  const char *mode)
{
	double own = b->heap_per_elem - (double)chunk_bytes(t->elem_bytes) + (double)t->link_bytes;
	char metric[48];

	if (b->built < n) {
		printf("  %-44s bytes/elem not measured: %zu of %zu keys built\n", t->name,
		       b->built, n);
		return;
	}
	snprintf(metric, sizeof(metric), "heap B/elem %s %s", qb_rcuhash_size_label(n), mode);
	qb_record(EXP, t->name, metric, "B", &b->heap_per_elem, 1);
	snprintf(metric, sizeof(metric), "table B/elem %s %s", qb_rcuhash_size_label(n), mode);
	qb_record(EXP, t->name, metric, "B", &own, 1);
}

/*
 * Lookups at one size, for every table and both sizing modes.  All tables
 * of a mode are built first, then sampled in turn, repetition by
 * repetition, so that a busy moment of a shared machine falls on every
 * table alike instead of on one.
 */
static void run_lookups(const struct qb_options *opt, size_t n, uint64_t deadline, bool largest)
{
	uint64_t *keys = lookup_keys(n);
	int reps = opt->repetitions, modes = opt->quick ? 1 : 2;

	for (int presized = 0; presized < modes; presized++) {
		const char *mode = presized ? "pre" : "auto";
		uint64_t mode_end = qb_now_ns() + qb_rcuhash_share_ns(deadline, (uint64_t)(modes - presized), 0);
		struct built_table b[NTABLES];
		double samples[NTABLES][2][reps];
		uint64_t ns;

		for (size_t ti = 0; ti < NTABLES; ti++) {
			/* Builds take up to half of the mode's time, shared out. */
			uint64_t end = qb_now_ns() + qb_rcuhash_share_ns(mode_end, 2 * (NTABLES - ti), 200000000);

			b[ti] = build(qb_rcuhash_tables[ti], n, presized, end);
			if (b[ti].built < n)
				printf("  %-44s projected from %zu of %zu keys: the build ran out of time\n",
				       qb_rcuhash_tables[ti]->name, b[ti].built, n);
		}
		ns = qb_rcuhash_share_ns(mode_end, 3 * NTABLES * (uint64_t)reps, 2000000);
		for (int k = 0; k < reps; k++)
			for (size_t ti = 0; ti < NTABLES; ti++)
				for (int readers = 1; readers <= 2; readers++)
					samples[ti][readers - 1][k] = lookup_sample(
						qb_rcuhash_tables[ti], b[ti].table, keys, n, readers,
						ns * (uint64_t)readers / 2 + ns / 2);
		for (size_t ti = 0; ti < NTABLES; ti++) {
			const struct qb_hash_table *t = qb_rcuhash_tables[ti];

			for (int readers = 1; readers <= 2; readers++) {
				struct qb_spread s;
				char metric[48];

				snprintf(metric, sizeof(metric), "lookup %s %dr %s", qb_rcuhash_size_label(n),
					 readers, mode);
				s = qb_record(EXP, t->name, metric, "/s/thr", samples[ti][readers - 1],
					      reps);
				if (readers == 1 && !presized)
					qb_plot_point("rcuhash-lookups",
						      "lookups/s per reader thread against key count "
						      "(1 reader, automatic resizing)",
						      "keys", "lookups/s", t->name, (double)n, s);
			}
			if (largest)
				record_memory(t, &b[ti], n, mode);
			t->destroy(b[ti].table);
		}
	}
	free(keys);
	for (int presized = 0; presized < modes; presized++)
		for (int readers = 1; readers <= 2; readers++) {
			char metric[48];
			const char *goal = n >= 65536 ? ">= 1.5" : NULL;

			snprintf(metric, sizeof(metric), "lookup %s %dr %s", qb_rcuhash_size_label(n), readers,
				 presized ? "pre" : "auto");
			for (size_t ti = 1; ti < NTABLES; ti++)
				qb_ratio(EXP, metric, qb_rcuhash_tables[0]->name, qb_rcuhash_tables[ti]->name,
					 ti == 1 ? goal : NULL);
		}
	if (largest)
		for (size_t ti = 1; ti < NTABLES; ti++) {
			char metric[48];

			snprintf(metric, sizeof(metric), "table B/elem %s auto", qb_rcuhash_size_label(n));
			qb_ratio(EXP, metric, qb_rcuhash_tables[0]->name, qb_rcuhash_tables[ti]->name,
				 ti == 1 ? "<= 1.0" : NULL);
		}
}

static void run_rcuhash(const struct qb_options *opt)
{
	uint64_t start = qb_now_ns();
	size_t large = opt->quick ? 1 << 18 : 1 << 20;

	printf("  /sys/kernel/rcu_expedited = %s\n", qb_kernel_knob("rcu_expedited"));
#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXP, "liburcu cds_lfht", "liburcu-dev");
#endif
#ifndef QUIESCE_HAVE_CK
	qb_missing_peer(EXP, "ck_hs", "libck-dev");
#endif
	qb_heading("-- lookups/s per reader thread (auto: grown from empty; pre: pre-sized)");
	run_lookups(opt, 1 << 10, qb_deadline(opt, start, 0.08), false);
	qb_progress("rcuhash: 64K keys");
	run_lookups(opt, 1 << 16, qb_deadline(opt, start, 0.25), false);
	qb_progress("rcuhash: %s keys", qb_rcuhash_size_label(large));
	run_lookups(opt, large, qb_deadline(opt, start, 0.60), true);
	qb_heading("-- lookup/update mixes, 2 threads, ops/s in all");
	qb_progress("rcuhash: mixes");
	qb_rcuhash_run_mix(opt, qb_deadline(opt, start, 0.75));
	qb_heading("-- lookups/s of one reader while one writer grows the table to %s keys and empties it",
		   qb_rcuhash_size_label(large));
	qb_progress("rcuhash: growing and shrinking");
	qb_rcuhash_run_grow(opt, large, qb_deadline(opt, start, 1.0));
}

QB_EXPERIMENT(rcuhash_experiment, .name = EXP,
	      .title = "RCU hash table: lookups, mixes, resizing, memory vs cds_lfht, ck_hs, rwlock",
	      .order = 140, .run = run_rcuhash)
