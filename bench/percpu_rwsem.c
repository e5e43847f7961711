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

#define EXP "percpu-rwsem"

static struct percpu_rw_semaphore sem;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static struct freezer fz;

struct reader_arg {
	int kind;
	long iterations;	/* at most; fewer when the deadline comes first */
	uint64_t deadline;
	double ns_per_pair;
};

/* Pairs between two looks at the clock. */
#define CHUNK 4096

enum { PERCPU, PTHREAD, RCU, FREEZER, KINDS };
static const char *const kind_names[KINDS] = {
	"percpu_rw_semaphore", "pthread_rwlock", "rcu_read_lock", "freezer start/end",
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	uint64_t t0;
	long done;

	rcu_register_thread();
	t0 = qb_now_ns();
	/* In chunks, so that a slow machine stops at the deadline. */
	for (done = 0; done < a->iterations; done += CHUNK) {
		if (done && qb_now_ns() > a->deadline)
			break;
		switch (a->kind) {
		case PERCPU:
			for (long i = 0; i < CHUNK; i++) {
				percpu_down_read(&sem);
				percpu_up_read(&sem);
			}
			break;
		case PTHREAD:
			for (long i = 0; i < CHUNK; i++) {
				pthread_rwlock_rdlock(&rwlock);
				pthread_rwlock_unlock(&rwlock);
			}
			break;
		case RCU:
			for (long i = 0; i < CHUNK; i++) {
				rcu_read_lock();
				rcu_read_unlock();
			}
			break;
		default:
			for (long i = 0; i < CHUNK; i++) {
				freezer_start(&fz, 0);
				freezer_end(&fz, 0);
			}
			break;
		}
	}
	a->ns_per_pair = (double)(qb_now_ns() - t0) / (double)done;
	rcu_unregister_thread();
	return NULL;
}

/* ns per pair for one thread of `threads` reading at once (the slowest). */
static double measure(int kind, int threads, long iterations, uint64_t deadline)
{
	struct reader_arg args[2];
	double worst = 0;

	for (int i = 0; i < threads; i++)
		args[i] = (struct reader_arg){ kind, iterations, deadline, 0 };
	qb_run_threads(threads, reader, args, sizeof(args[0]));
	for (int i = 0; i < threads; i++)
		if (args[i].ns_per_pair > worst)
			worst = args[i].ns_per_pair;
	return worst;
}

static void run_percpu_rwsem(const struct qb_options *opt)
{
	/* pthread_rwlock is ~10x slower per pair: fewer iterations, same time. */
	long fast = opt->quick ? 4000000 : 20000000, slow = fast / 8;
	char subject[KINDS][2][64];
	uint64_t start = qb_now_ns();
	int runs = 2 * KINDS * opt->repetitions, run = 0;

	percpu_init_rwsem(&sem);
	freezer_init(&fz, 3);
	for (int threads = 1; threads <= 2; threads++) {
		qb_heading("read pair, %d thread%s reading at once (ns per pair per thread)", threads,
			   threads > 1 ? "s" : "");
		for (int k = 0; k < KINDS; k++) {
			double samples[opt->repetitions];

			qb_progress(EXP ": %s, %d threads", kind_names[k], threads);
			snprintf(subject[k][threads - 1], sizeof(subject[k][threads - 1]), "%s, %d thr",
				 kind_names[k], threads);
			for (int r = 0; r < opt->repetitions; r++)
				samples[r] = measure(k, threads, k == PTHREAD ? slow : fast,
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
