/*
 * rcuhash_updates.c - the rcuhash experiment's rows with updates: the
 * lookup/update mixes and the growth from empty to many keys and back
 * (what each measures is at the top of rcuhash.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "rcuhash.h"

#define WINDOW_NS 10000000ull
#define MAX_WINDOWS 4096

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
			key = qb_rcuhash_key((m->rng >> 24) % m->range);
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

void qb_rcuhash_run_mix(const struct qb_options *opt, uint64_t deadline)
{
	static const unsigned pcts[] = { 10, 50 };
	const size_t n = 65536;
	int reps = opt->repetitions, runs = 0;

	for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++)
		runs += !qb_rcuhash_tables[ti]->single_writer;
	for (size_t p = 0; p < 2; p++) {
		double samples[qb_rcuhash_ntables][reps];
		void *table[qb_rcuhash_ntables];
		char metric[48];
		uint64_t ns;

		snprintf(metric, sizeof(metric), "mix %u/%u 64K 2thr", 100 - pcts[p], pcts[p]);
		for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++) {
			if (qb_rcuhash_tables[ti]->single_writer)
				continue;
			table[ti] = qb_rcuhash_tables[ti]->create(0);
			for (size_t i = 0; i < n; i++)
				qb_rcuhash_tables[ti]->insert(table[ti], qb_rcuhash_key(i * 2));
		}
		ns = qb_rcuhash_share_ns(deadline, (uint64_t)((2 - (int)p) * reps * runs), 20000000);
		/*
		 * Tables in turn, repetition by repetition, as the lookup rows;
		 * each repetition starts with the callbacks of the ones before
		 * it run, so that none inherits another's backlog.
		 */
		for (int k = 0; k < reps; k++)
			for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++) {
				struct mixer m[2];

				if (qb_rcuhash_tables[ti]->single_writer)
					continue;
				if (qb_rcuhash_tables[ti]->settle)
					qb_rcuhash_tables[ti]->settle(table[ti]);
				for (int i = 0; i < 2; i++)
					m[i] = (struct mixer){ .t = qb_rcuhash_tables[ti], .table = table[ti],
							       .update_pct = pcts[p],
							       .range = 2 * n,
							       .deadline = qb_now_ns() + ns,
							       .rng = (uint64_t)(k * 2 + i + 1) };
				qb_run_threads(2, mixer_main, m, sizeof(m[0]));
				samples[ti][k] = m[0].rate + m[1].rate;
			}
		for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++) {
			if (qb_rcuhash_tables[ti]->single_writer)
				continue;
			qb_record(EXP, qb_rcuhash_tables[ti]->name, metric, "ops/s", samples[ti], reps);
			qb_rcuhash_tables[ti]->destroy(table[ti]);
		}
		if (qb_rcuhash_ntables > 1 && !qb_rcuhash_tables[1]->single_writer)
			qb_ratio(EXP, metric, qb_rcuhash_tables[0]->name, qb_rcuhash_tables[1]->name, ">= 1.5");
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
		g->t->insert(g->table, qb_rcuhash_key(i));
	g->done = i;
	for (i = 0; i < g->done && (i % 1024 || qb_now_ns() < g->deadline); i++)
		g->t->remove(g->table, qb_rcuhash_key(i));
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
			keys[i] = qb_rcuhash_key((rng >> 20) % g->n);
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

void qb_rcuhash_run_grow(const struct qb_options *opt, size_t n, uint64_t deadline)
{
	int runs = 0;

	for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++)
		runs += !qb_rcuhash_tables[ti]->single_writer && qb_rcuhash_tables[ti] != &qb_hash_rwlock;
	for (size_t ti = 0; ti < qb_rcuhash_ntables; ti++) {
		const struct qb_hash_table *t = qb_rcuhash_tables[ti];
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
		g->deadline = qb_now_ns() + qb_rcuhash_share_ns(deadline, (uint64_t)runs--, 100000000);
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
		snprintf(metric, sizeof(metric), "grow %s worst 10ms", qb_rcuhash_size_label(n));
		qb_record(EXP, t->name, metric, "/s", &worst, 1);
		snprintf(metric, sizeof(metric), "grow %s 5th pct 10ms", qb_rcuhash_size_label(n));
		qb_record(EXP, t->name, metric, "/s", &p5, 1);
		snprintf(metric, sizeof(metric), "grow %s median 10ms", qb_rcuhash_size_label(n));
		qb_record(EXP, t->name, metric, "/s", &median, 1);
		snprintf(metric, sizeof(metric), "grow %s worst/median", qb_rcuhash_size_label(n));
		/* The goal: no 10 ms window below half the median, for quiesce's table. */
		qb_record_goal(EXP, t->name, metric, "ratio", &ratio, 1,
			       t == &qb_hash_quiesce ? ">= 0.5" : NULL);
		if (g->done < 2 * n)
			printf("  %-44s projected from %zu of %zu updates (time budget)\n", t->name,
			       g->done, 2 * n);
		free(g);
	}
}

