/*
 * pair-work: what a read pair adds to a loop that does some work of its own.
 *
 * The read-pair rows of the other experiments time pairs back to back, the
 * loop doing nothing else.  That is the pair's latency as much as its cost
 * where a pair adds to a count in memory (SRCU: one of the thread's counts
 * on the way in, another on the way out; percpu_rw_semaphore and the
 * freezer: the CPU's slot, up, then down): each add waits for the previous
 * add to the same word to forward its result, about 5 cycles on a core
 * that forwards a store to a load with that latency (the Intel Xeon of our
 * machines; on the AMD EPYC of earlier ones the pairs took about what they
 * execute).  RCU's pair stores values that no load feeds, and does not
 * wait.  A program puts work between its sections, and the wait overlaps
 * it.
 *
 * Here each pair sits between two chains of WORK_STEPS dependent
 * multiply-adds (a few nanoseconds of work that does not touch memory), and
 * the row is the ns a pair adds to that loop run without it: 1 thread, the
 * median over 16 code offsets (placed_timer.h) for both loops.
 */
#include <pthread.h>
#include <stdio.h>

#include <quiesce/freeze.h>
#include <quiesce/percpu_rwsem.h>
#include <quiesce/srcu.h>

#include "bench.h"
#include "placed_timer.h"

#define EXP "pair-work"

/* Multiply-adds between two pairs: about 5 ns of dependent work. */
#define WORK_STEPS 8
/* Iterations a timed batch. */
#define BATCH 16384

static struct percpu_rw_semaphore sem;
static struct freezer fz;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static DEFINE_SRCU(work_srcu);

/* The work: a chain the compiler cannot shorten, in a register. */
#define WORK(x)                                                                 \
	do {                                                                    \
		for (int w_ = 0; w_ < WORK_STEPS; w_++) {                       \
			(x) = (x) * 3 + 1;                                      \
			__asm__ volatile("" : "+r"(x));                          \
		}                                                               \
	} while (0)

QB_PLACED_TIMER(work_alone, uint64_t x = 1, WORK(x));
QB_PLACED_TIMER(rcu_work, uint64_t x = 1, rcu_read_lock(); rcu_read_unlock(); WORK(x));
QB_PLACED_TIMER(srcu_work, uint64_t x = 1, int idx = srcu_read_lock(&work_srcu);
		srcu_read_unlock(&work_srcu, idx); WORK(x));
QB_PLACED_TIMER(percpu_work, uint64_t x = 1, percpu_down_read(&sem); percpu_up_read(&sem);
		WORK(x));
QB_PLACED_TIMER(freezer_work, uint64_t x = 1, freezer_start(&fz, 0); freezer_end(&fz, 0);
		WORK(x));
QB_PLACED_TIMER(pthread_work, uint64_t x = 1, pthread_rwlock_rdlock(&rwlock);
		pthread_rwlock_unlock(&rwlock); WORK(x));

enum { RCU, SRCU, PERCPU, FREEZER, PTHREAD, KINDS };
static const char *const kind_names[KINDS] = {
	"rcu_read_lock+unlock", "srcu_read_lock+unlock", "percpu_rw_semaphore",
	"freezer start/end", "pthread_rwlock",
};
static const qb_placed_timer *const kind_timers[KINDS] = {
	rcu_work, srcu_work, percpu_work, freezer_work, pthread_work,
};

static void run_pair_work(const struct qb_options *opt)
{
	uint64_t start = qb_now_ns();
	int runs = 2 * KINDS * opt->repetitions, run = 0;
	double alone[opt->repetitions];

	rcu_register_thread();
	percpu_init_rwsem(&sem);
	freezer_init(&fz, 3);
	qb_heading("read pair between chains of %d dependent multiply-adds, 1 thread (ns the "
		   "pair adds to the loop without it; medians over %d code offsets)", WORK_STEPS,
		   QB_PLACEMENTS);
	for (int k = 0; k < KINDS; k++) {
		double samples[opt->repetitions];

		qb_progress(EXP ": %s", kind_names[k]);
		for (int r = 0; r < opt->repetitions; r++) {
			/* The loop alone just before, so that both see the same machine. */
			alone[r] = qb_placed_ns(work_alone, BATCH,
						qb_deadline(opt, start, (double)++run / runs));
			samples[r] = qb_placed_ns(kind_timers[k], BATCH,
						  qb_deadline(opt, start, (double)++run / runs)) -
				     alone[r];
		}
		qb_record(EXP, kind_names[k], "pair beside work", "ns", samples, opt->repetitions);
	}
	qb_record(EXP, "the work alone", "loop iteration", "ns", alone, opt->repetitions);
	freezer_destroy(&fz);
	percpu_free_rwsem(&sem);
	rcu_unregister_thread();
}

QB_EXPERIMENT(pair_work_experiment, .name = "pair-work",
	      .title = "read pairs between other work: the cost a program sees",
	      .order = 111, .run = run_pair_work)
