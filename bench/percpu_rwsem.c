/*
 * percpu-rwsem: the read pair (percpu_down_read + percpu_up_read) on an
 * uncontended semaphore, per thread with 1 and 2 threads reading at once,
 * against pthread_rwlock_rdlock/unlock and an RCU read-side pair; and the
 * freezer's start/end, which is that read pair plus its misuse checks.
 */
#include <pthread.h>
#include <stdio.h>

#include <quiesce/freeze.h>
#include <quiesce/percpu_rwsem.h>

#include "bench.h"
#include "placed_timer.h"

#define EXP "percpu-rwsem"

static struct percpu_rw_semaphore sem;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static struct freezer fz;

struct reader_arg {
	int kind;
	uint64_t deadline;
	double ns_per_pair;
};

/* Pairs a timed batch: 10 us to a few ms, so that every code offset gets many. */
#define BATCH 16384

enum { PERCPU, PTHREAD, RCU, FREEZER, KINDS };
static const char *const kind_names[KINDS] = {
	"percpu_rw_semaphore", "pthread_rwlock", "rcu_read_lock", "freezer start/end",
};

/* The reader thread registers with RCU itself. */
QB_PLACED_TIMER(percpu_pair, (void)0, percpu_down_read(&sem); percpu_up_read(&sem));
QB_PLACED_TIMER(pthread_pair, (void)0, pthread_rwlock_rdlock(&rwlock);
		pthread_rwlock_unlock(&rwlock));
QB_PLACED_TIMER(rcu_pair, (void)0, rcu_read_lock(); rcu_read_unlock());
QB_PLACED_TIMER(freezer_pair, (void)0, freezer_start(&fz, 0); freezer_end(&fz, 0));
static const qb_placed_timer *const kind_timers[KINDS] = {
	percpu_pair, pthread_pair, rcu_pair, freezer_pair,
};

static void *reader(void *p)
{
	struct reader_arg *a = p;

	rcu_register_thread();
	a->ns_per_pair = qb_placed_ns(kind_timers[a->kind], BATCH, a->deadline);
	rcu_unregister_thread();
	return NULL;
}

/* ns per pair for one thread of `threads` reading at once (the slowest). */
static double measure(int kind, int threads, uint64_t deadline)
{
	struct reader_arg args[2];
	double worst = 0;

	for (int i = 0; i < threads; i++)
		args[i] = (struct reader_arg){ kind, deadline, 0 };
	qb_run_threads(threads, reader, args, sizeof(args[0]));
	for (int i = 0; i < threads; i++)
		if (args[i].ns_per_pair > worst)
			worst = args[i].ns_per_pair;
	return worst;
}

static void run_percpu_rwsem(const struct qb_options *opt)
{
	char subject[KINDS][2][64];
	uint64_t start = qb_now_ns();
	int runs = 2 * KINDS * opt->repetitions, run = 0;

	percpu_init_rwsem(&sem);
	freezer_init(&fz, 3);
	for (int threads = 1; threads <= 2; threads++) {
		qb_heading("read pair, %d thread%s reading at once (ns per pair per thread: the "
			   "slowest thread's median over %d code offsets)", threads,
			   threads > 1 ? "s" : "", QB_PLACEMENTS);
		for (int k = 0; k < KINDS; k++) {
			double samples[opt->repetitions];

			qb_progress(EXP ": %s, %d threads", kind_names[k], threads);
			snprintf(subject[k][threads - 1], sizeof(subject[k][threads - 1]), "%s, %d thr",
				 kind_names[k], threads);
			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = measure(k, threads,
						     qb_deadline(opt, start, (double)++run / runs));
			qb_record(EXP, subject[k][threads - 1], "read pair", "ns", samples,
				  opt->repetitions);
		}
		qb_ratio(EXP, "read pair", subject[PERCPU][threads - 1],
			 subject[PTHREAD][threads - 1], "<= 0.2");
		qb_ratio(EXP, "read pair", subject[PERCPU][threads - 1], subject[RCU][threads - 1],
			 "<= 2.0");
		qb_ratio(EXP, "read pair", subject[FREEZER][threads - 1],
			 subject[PERCPU][threads - 1], "<= 1.2");
	}
	qb_heading("per-thread cost, 2 readers / 1 reader (flat: no shared line written)");
	qb_ratio(EXP, "read pair", subject[PERCPU][1], subject[PERCPU][0], "<= 1.2");
	qb_ratio(EXP, "read pair", subject[RCU][1], subject[RCU][0], NULL);
	qb_ratio(EXP, "read pair", subject[PTHREAD][1], subject[PTHREAD][0], NULL);
	freezer_destroy(&fz);
	percpu_free_rwsem(&sem);
}

QB_EXPERIMENT(percpu_rwsem_experiment, .name = "percpu-rwsem",
	      .title = "percpu_rw_semaphore read pair against pthread_rwlock and RCU",
	      .order = 110, .run = run_percpu_rwsem)
