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
 *            keys (updates: insert or remove of a key in twice the range).
 *   resize   one writer grows the table from empty to 1M keys (256K with
 *            --quick) and removes them all again while one reader looks
 *            keys up: its worst and 5th-percentile 10 ms windows against its
 *            median window (on a shared 2-core machine the worst is often
 *            a window in which the scheduler ran something else).
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hash_table.h"

#define EXP "rcuhash"
#define CHUNK 64
#define WINDOW_NS 10000000ull
#define MAX_WINDOWS 4096

static const struct qb_hash_table *const tables[] = {
	&qb_hash_quiesce,
#ifdef QUIESCE_HAVE_URCU
	&qb_hash_urcu_lfht,
#endif
#ifdef QUIESCE_HAVE_CK
	&qb_hash_ck_hs,
#endif
	&qb_hash_rwlock,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* A key for index i: distinct for distinct i (the mix is a bijection). */
static uint64_t key_of(uint64_t i)
{
	return qb_hash_key(i * 2 + 1);
}

/* The lookup order: a stride through the keys, unrelated to insertion. */
static uint64_t *lookup_keys(size_t n)
{
	uint64_t *keys = malloc(n * sizeof(*keys));

	for (size_t i = 0; i < n; i++)
		keys[i] = key_of((i * 0x9e3779b1u) & (n - 1));
	return keys;
}

/* An equal share of the time left until deadline, and at least min_ns. */
static uint64_t share_ns(uint64_t deadline, uint64_t parts, uint64_t min_ns)
{
	uint64_t now = qb_now_ns(), ns = now < deadline ? (deadline - now) / parts : 0;

	return ns > min_ns ? ns : min_ns;
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

static const char *size_label(size_t n)
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
		t->insert(b.table, key_of(b.built++));
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
	snprintf(metric, sizeof(metric), "heap B/elem %s %s", size_label(n), mode);
	qb_record(EXP, t->name, metric, "B", &b->heap_per_elem, 1);
	snprintf(metric, sizeof(metric), "table B/elem %s %s", size_label(n), mode);
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
		uint64_t mode_end = qb_now_ns() + share_ns(deadline, (uint64_t)(modes - presized), 0);
		struct built_table b[NTABLES];
		double samples[NTABLES][2][reps];
		uint64_t ns;

		for (size_t ti = 0; ti < NTABLES; ti++) {
			/* Builds take up to half of the mode's time, shared out. */
			uint64_t end = qb_now_ns() + share_ns(mode_end, 2 * (NTABLES - ti), 200000000);

			b[ti] = build(tables[ti], n, presized, end);
			if (b[ti].built < n)
				printf("  %-44s projected from %zu of %zu keys: the build ran out of time\n",
				       tables[ti]->name, b[ti].built, n);
		}
		ns = share_ns(mode_end, 3 * NTABLES * (uint64_t)reps, 2000000);
		for (int k = 0; k < reps; k++)
			for (size_t ti = 0; ti < NTABLES; ti++)
				for (int readers = 1; readers <= 2; readers++)
					samples[ti][readers - 1][k] = lookup_sample(
						tables[ti], b[ti].table, keys, n, readers,
						ns * (uint64_t)readers / 2 + ns / 2);
		for (size_t ti = 0; ti < NTABLES; ti++) {
			const struct qb_hash_table *t = tables[ti];

			for (int readers = 1; readers <= 2; readers++) {
				struct qb_spread s;
				char metric[48];

				snprintf(metric, sizeof(metric), "lookup %s %dr %s", size_label(n),
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

			snprintf(metric, sizeof(metric), "lookup %s %dr %s", size_label(n), readers,
				 presized ? "pre" : "auto");
			for (size_t ti = 1; ti < NTABLES; ti++)
				qb_ratio(EXP, metric, tables[0]->name, tables[ti]->name,
					 ti == 1 ? goal : NULL);
		}
	if (largest)
		for (size_t ti = 1; ti < NTABLES; ti++) {
			char metric[48];

			snprintf(metric, sizeof(metric), "table B/elem %s auto", size_label(n));
			qb_ratio(EXP, metric, tables[0]->name, tables[ti]->name,
				 ti == 1 ? "<= 1.0" : NULL);
		}
}

/* The mixes: each thread draws lookups and updates at the given share. */
struct mixer {
	const struct qb_hash_table *t;
	void *table;
	unsigned update_pct;
	size_t range;
	uint64_t deadline, rng;
	double rate;
	char pad[64];
};

static void *mixer_main(void *arg)
{
	struct mixer *m = arg;
	uint64_t start, now, key;
	long ops = 0;

	m->t->thread_online();
	start = qb_now_ns();
	do {
		for (int i = 0; i < CHUNK; i++) {
			m->rng = m->rng * 6364136223846793005ULL + 1442695040888963407ULL;
			key = key_of((m->rng >> 24) % m->range);
			if ((m->rng >> 8) % 100 >= m->update_pct)
				m->t->lookups(m->table, &key, 0, 0, 1);
			else if (m->rng & (1ull << 62))
				m->t->insert(m->table, key);
			else
				m->t->remove(m->table, key);
		}
		ops += CHUNK;
		now = qb_now_ns();
	} while (now < m->deadline);
	m->rate = (double)ops * 1e9 / (double)(now - start);
	m->t->thread_offline();
	return NULL;
}

static void run_mix(const struct qb_options *opt, uint64_t deadline)
{
	static const unsigned pcts[] = { 10, 50 };
	const size_t n = 65536;
	int reps = opt->repetitions, runs = 0;

	for (size_t ti = 0; ti < NTABLES; ti++)
		runs += !tables[ti]->single_writer;
	for (size_t p = 0; p < 2; p++) {
		double samples[NTABLES][reps];
		void *table[NTABLES];
		char metric[48];
		uint64_t ns;

		snprintf(metric, sizeof(metric), "mix %u/%u 64K 2thr", 100 - pcts[p], pcts[p]);
		for (size_t ti = 0; ti < NTABLES; ti++) {
			if (tables[ti]->single_writer)
				continue;
			table[ti] = tables[ti]->create(0);
			for (size_t i = 0; i < n; i++)
				tables[ti]->insert(table[ti], key_of(i * 2));
		}
		ns = share_ns(deadline, (uint64_t)((2 - (int)p) * reps * runs), 20000000);
		/* Tables in turn, repetition by repetition, as the lookup rows. */
		for (int k = 0; k < reps; k++)
			for (size_t ti = 0; ti < NTABLES; ti++) {
				struct mixer m[2];

				if (tables[ti]->single_writer)
					continue;
				for (int i = 0; i < 2; i++)
					m[i] = (struct mixer){ .t = tables[ti], .table = table[ti],
							       .update_pct = pcts[p],
							       .range = 2 * n,
							       .deadline = qb_now_ns() + ns,
							       .rng = (uint64_t)(k * 2 + i + 1) };
				qb_run_threads(2, mixer_main, m, sizeof(m[0]));
				samples[ti][k] = m[0].rate + m[1].rate;
			}
		for (size_t ti = 0; ti < NTABLES; ti++) {
			if (tables[ti]->single_writer)
				continue;
			qb_record(EXP, tables[ti]->name, metric, "ops/s", samples[ti], reps);
			tables[ti]->destroy(table[ti]);
		}
		if (NTABLES > 1 && !tables[1]->single_writer)
			qb_ratio(EXP, metric, tables[0]->name, tables[1]->name, ">= 1.5");
	}
}

/* Growing from empty to n keys and back, with a reader timing windows. */
struct grow_run {
	const struct qb_hash_table *t;
	void *table;
	size_t n, done;
	atomic_bool writer_done;
	uint64_t deadline;
	double windows[MAX_WINDOWS];	/* lookups/s in each window */
	int nwindows;
};

struct grow_thread {
	struct grow_run *g;
	int role;	/* 0: writer, 1: reader */
	char pad[64];
};

static void grow_writer(struct grow_run *g)
{
	size_t i;

	for (i = 0; i < g->n && (i % 1024 || qb_now_ns() < g->deadline); i++)
		g->t->insert(g->table, key_of(i));
	g->done = i;
	for (i = 0; i < g->done && (i % 1024 || qb_now_ns() < g->deadline); i++)
		g->t->remove(g->table, key_of(i));
	g->done += i;
	atomic_store(&g->writer_done, true);
}

static void grow_reader(struct grow_run *g)
{
	uint64_t rng = 99, window_start = qb_now_ns(), now;
	long count = 0;

	while (!atomic_load(&g->writer_done) && g->nwindows < MAX_WINDOWS) {
		uint64_t keys[64];

		for (int i = 0; i < 64; i++) {
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			keys[i] = key_of((rng >> 20) % g->n);
		}
		g->t->lookups(g->table, keys, 63, 0, 64);
		count += 64;
		now = qb_now_ns();
		/* A window that the scheduler stretched counts at its length. */
		if (now - window_start >= WINDOW_NS) {
			g->windows[g->nwindows++] = (double)count * 1e9 / (double)(now - window_start);
			count = 0;
			window_start = now;
		}
	}
}

static void *grow_main(void *arg)
{
	struct grow_thread *th = arg;

	th->g->t->thread_online();
	if (th->role == 0)
		grow_writer(th->g);
	else
		grow_reader(th->g);
	th->g->t->thread_offline();
	return NULL;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void run_grow(const struct qb_options *opt, size_t n, uint64_t deadline)
{
	int runs = 0;

	for (size_t ti = 0; ti < NTABLES; ti++)
		runs += !tables[ti]->single_writer && tables[ti] != &qb_hash_rwlock;
	for (size_t ti = 0; ti < NTABLES; ti++) {
		const struct qb_hash_table *t = tables[ti];
		struct grow_run *g;
		struct grow_thread th[2];
		double worst, p5, median, ratio;
		char metric[48];

		/* The rwlock table's writer starves behind a busy reader. */
		if (t->single_writer || t == &qb_hash_rwlock)
			continue;
		g = calloc(1, sizeof(*g));
		g->t = t;
		g->n = n;
		g->table = t->create(0);
		g->deadline = qb_now_ns() + share_ns(deadline, (uint64_t)runs--, 100000000);
		th[0] = (struct grow_thread){ .g = g, .role = 0 };
		th[1] = (struct grow_thread){ .g = g, .role = 1 };
		qb_run_threads(2, grow_main, th, sizeof(th[0]));
		t->destroy(g->table);
		if (g->nwindows < 3) {
			printf("  %-44s not measured: the reader timed %d windows\n", t->name,
			       g->nwindows);
			free(g);
			continue;
		}
		/* The first and last windows are partial or quiet: left out. */
		qsort(g->windows + 1, (size_t)g->nwindows - 2, sizeof(double), compare_doubles);
		worst = g->windows[1];
		p5 = g->windows[1 + (g->nwindows - 2) / 20];
		median = g->windows[1 + (g->nwindows - 2) / 2];
		ratio = worst / median;
		snprintf(metric, sizeof(metric), "grow %s worst 10ms", size_label(n));
		qb_record(EXP, t->name, metric, "/s", &worst, 1);
		snprintf(metric, sizeof(metric), "grow %s 5th pct 10ms", size_label(n));
		qb_record(EXP, t->name, metric, "/s", &p5, 1);
		snprintf(metric, sizeof(metric), "grow %s median 10ms", size_label(n));
		qb_record(EXP, t->name, metric, "/s", &median, 1);
		snprintf(metric, sizeof(metric), "grow %s worst/median", size_label(n));
		qb_record(EXP, t->name, metric, "ratio", &ratio, 1);
		if (g->done < 2 * n)
			printf("  %-44s projected from %zu of %zu updates (time budget)\n", t->name,
			       g->done, 2 * n);
		free(g);
	}
}

static void run_rcuhash(const struct qb_options *opt)
{
	uint64_t start = qb_now_ns();
	size_t large = opt->quick ? 1 << 18 : 1 << 20;
	FILE *f = fopen("/sys/kernel/rcu_expedited", "r");
	int expedited = -1;

	if (f) {
		if (fscanf(f, "%d", &expedited) != 1)
			expedited = -1;
		fclose(f);
	}
	printf("  /sys/kernel/rcu_expedited = %d\n", expedited);
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
	qb_progress("rcuhash: %s keys", size_label(large));
	run_lookups(opt, large, qb_deadline(opt, start, 0.60), true);
	qb_heading("-- lookup/update mixes, 2 threads, ops/s in all");
	qb_progress("rcuhash: mixes");
	run_mix(opt, qb_deadline(opt, start, 0.75));
	qb_heading("-- lookups/s of one reader while one writer grows the table to %s keys and empties it",
		   size_label(large));
	qb_progress("rcuhash: growing and shrinking");
	run_grow(opt, large, qb_deadline(opt, start, 1.0));
}

QB_EXPERIMENT(rcuhash_experiment, .name = EXP,
	      .title = "RCU hash table: lookups, mixes, resizing, memory vs cds_lfht, ck_hs, rwlock",
	      .order = 140, .run = run_rcuhash)
