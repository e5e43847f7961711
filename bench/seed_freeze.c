/*
 * seed-freeze: the analog of seed 003 ("fs: replace memory barrier in
 * __sb_end_write() with RCU", 2015): small writes to tmpfs spent their
 * time in the full barriers of sb_start_write()/sb_end_write(); the series
 * made the hot path barrier-free, +27.1% writes/s over the unpatched
 * kernel.  Here a "write" is freeze protection around a 256-byte memcpy,
 * from 1 and 2 threads, with:
 *
 *  - the unpatched design: a per-CPU counter and a full fence on both
 *    sides, pairing with a freezer that sets `frozen` and then waits for
 *    the counter (smp_mb() in __sb_start_write() and __sb_end_write());
 *  - quiesce's freezer: a percpu-rwsem read pair, no fence (the gate check
 *    and the count update in one restartable sequence, or in an RCU
 *    read-side section without rseq).
 *
 * Both count on the same per-CPU counters, so the difference is the
 * fences and nothing else.
 */
#include <stdio.h>
#include <string.h>

#include <quiesce/freeze.h>

#include "bench.h"

#define EXP "seed-freeze"
#define WRITE_BYTES 256

/* The pre-2015 freeze protection's hot path, one level. */
struct fenced_freezer {
	long *count;		/* per-CPU writers in flight */
	int frozen;		/* set by a freezer before it waits */
	int waiting;		/* a freezer waits for the count */
};

static void fenced_start(struct fenced_freezer *f)
{
	for (;;) {
		quiesce_percpu_count_add(f->count, 1);
		/* smp_mb(): the count before the load of frozen (the freezer: the reverse). */
		quiesce_fence_store_load();
		if (QUIESCE_LIKELY(!QUIESCE_LOAD(&f->frozen)))
			return;
		quiesce_percpu_count_add(f->count, -1);
		while (QUIESCE_LOAD(&f->frozen))
			sched_yield();
	}
}

static void fenced_end(struct fenced_freezer *f)
{
	quiesce_percpu_count_add(f->count, -1);
	/* smp_mb(), the one the seed removed: the count before the waiter check. */
	quiesce_fence_store_load();
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&f->waiting)))
		sched_yield();
}

static struct fenced_freezer fenced;
static struct freezer fz;

struct writer_arg {
	bool fence_free;
	long writes;		/* at most; fewer when the deadline comes first */
	uint64_t deadline;
	double seconds;
	char src[WRITE_BYTES], dst[WRITE_BYTES];
};

static void *writer(void *p)
{
	struct writer_arg *a = p;
	uint64_t t0;

	rcu_register_thread();
	memset(a->src, 'w', sizeof(a->src));
	t0 = qb_now_ns();
	for (long i = 0; i < a->writes; i++) {
		if (i % 4096 == 0 && i && qb_now_ns() > a->deadline) {
			a->writes = i;
			break;
		}
		if (a->fence_free)
			freezer_start(&fz, 0);
		else
			fenced_start(&fenced);
		a->src[0] = (char)i;
		memcpy(a->dst, a->src, sizeof(a->dst));
		quiesce_compiler_barrier();
		if (a->fence_free)
			freezer_end(&fz, 0);
		else
			fenced_end(&fenced);
	}
	a->seconds = (double)(qb_now_ns() - t0) / 1e9;
	rcu_unregister_thread();
	return NULL;
}

/* Millions of writes per second, all threads together. */
static double mwrites_per_s(bool fence_free, int threads, long writes, uint64_t deadline)
{
	struct writer_arg args[2];
	double slowest = 0, total = 0;

	for (int i = 0; i < threads; i++)
		args[i] = (struct writer_arg){ .fence_free = fence_free, .writes = writes,
					       .deadline = deadline };
	qb_run_threads(threads, writer, args, sizeof(args[0]));
	for (int i = 0; i < threads; i++) {
		total += (double)args[i].writes;
		if (args[i].seconds > slowest)
			slowest = args[i].seconds;
	}
	return total / slowest / 1e6;
}

static void run_seed_freeze(const struct qb_options *opt)
{
	long writes = opt->quick ? 3000000 : 15000000;
	const char *names[2] = { "full fence (unpatched)", "quiesce freezer (no fence)" };
	struct qb_spread one_thread[2];
	uint64_t start = qb_now_ns();
	int runs = 2 * 2 * opt->repetitions, run = 0;

	fenced.count = quiesce_percpu_count_alloc();
	freezer_init(&fz, 3);
	for (int threads = 1; threads <= 2; threads++) {
		char subjects[2][64];

		qb_heading("small writes (%d-byte memcpy in freeze protection), %d thread%s",
			   WRITE_BYTES, threads, threads > 1 ? "s" : "");
		for (int v = 0; v < 2; v++) {
			double samples[opt->repetitions];
			struct qb_spread s;

			qb_progress(EXP ": %s, %d threads", names[v], threads);
			snprintf(subjects[v], sizeof(subjects[v]), "%s, %d thr", names[v], threads);
			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = mwrites_per_s(v == 1, threads, writes,
							   qb_deadline(opt, start, (double)++run / runs));
			s = qb_record(EXP, subjects[v], "writes", "M/s", samples, opt->repetitions);
			if (threads == 1)
				one_thread[v] = s;
		}
		qb_ratio(EXP, "writes", subjects[1], subjects[0], ">= 1.271");
	}
	freezer_destroy(&fz);
	quiesce_percpu_count_free(fenced.count);
	qb_seed_result(&(struct qb_seed_row){
		.seed = 3,
		.thread = "fs: replace memory barrier in __sb_end_write() with RCU",
		.kernel_before = "unpatched (smp_mb() in start and end)",
		.kernel_after = "RCU read section",
		.kernel_change = "+27.1% writes/s",
		.ours_before_label = "full fence, 1 thread",
		.ours_after_label = "quiesce freezer, 1 thread",
		.ours_before = one_thread[0].median,
		.ours_after = one_thread[1].median,
		.unit = "Mwrites/s",
	});
}

QB_EXPERIMENT(seed_freeze, .name = "seed-freeze",
	      .title = "small writes under freeze protection, full fence vs none",
	      .order = 4, .run = run_seed_freeze)
