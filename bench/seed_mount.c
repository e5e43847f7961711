/*
 * seed-mount: the analog of seed 000 ("percpu-rwsem: use
 * synchronize_sched_expedited", 2012): mount took 0.500 s while each
 * percpu-rwsem writer waited for a normal grace period, 0.013 s with an
 * expedited one.  Here: down_write + up_write on an idle semaphore (its
 * gate idle, so the writer waits for the readers that saw it open) on a
 * semaphore initialized under rcu_normal (RCU readers, a normal grace
 * period) and on one initialized by default (rseq readers: one expedited
 * membarrier that aborts their sequences); and a burst of 1000
 * back-to-back writers, which the rcu_sync gate lets share one.  Then how
 * long after percpu_up_write() the readers' fast path is back: the gate
 * reopens a grace period after the last writer leaves, by a callback.
 *
 * The rcu_normal semaphore's grace periods are the kernel's own
 * (membarrier GLOBAL): the seed's "normal" story.  On a kernel with
 * rcu_expedited = 0 each takes milliseconds, so its rows measure what fits
 * in their share of the budget and say how many writers that was.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <quiesce/percpu_rwsem.h>

#include "bench.h"

#define EXP "seed-mount"
#define BURST 1000
#define MAX_WRITERS 200

static struct percpu_rw_semaphore sem;

/*
 * A reader that takes the semaphore now and then, as a file system's writers
 * take sb_start_write(): the grace periods have someone to wait for.
 */
static atomic_bool reader_stop;

static void *occasional_reader(void *unused)
{
	while (!atomic_load_explicit(&reader_stop, memory_order_relaxed)) {
		percpu_down_read(&sem);
		percpu_up_read(&sem);
		usleep(100);
	}
	return NULL;
}

/* Waits until the gate has reopened: the next writer pays a grace period. */
static void wait_idle(void)
{
	while (!quiesce_rcu_sync_is_idle(&sem.rss))
		rcu_barrier();
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	return v[n / 2];
}

/*
 * Median latency of one writer on an idle semaphore, in microseconds, over
 * up to MAX_WRITERS writers (at least one) until the deadline.
 */
static double idle_writer_us(uint64_t deadline, int *writers)
{
	double lat[MAX_WRITERS];
	int n = 0;

	do {
		wait_idle();
		uint64_t t0 = qb_now_ns();

		percpu_down_write(&sem);
		percpu_up_write(&sem);
		lat[n++] = (double)(qb_now_ns() - t0) / 1000.0;
	} while (n < MAX_WRITERS && qb_now_ns() < deadline);
	*writers += n;
	return median(lat, n);
}

/*
 * Median time from percpu_up_write() to the gate being open again (the
 * readers' fast path back), in microseconds, over writers until the deadline.
 * Polled with a yield, which the gate's callback thread may need to run.
 */
static double reopen_us(uint64_t deadline, int *writers)
{
	double lat[MAX_WRITERS];
	int n = 0;

	do {
		uint64_t t0;

		wait_idle();
		percpu_down_write(&sem);
		percpu_up_write(&sem);
		t0 = qb_now_ns();
		while (!quiesce_rcu_sync_is_idle(&sem.rss))
			sched_yield();
		lat[n++] = (double)(qb_now_ns() - t0) / 1000.0;
	} while (n < MAX_WRITERS && qb_now_ns() < deadline);
	*writers += n;
	return median(lat, n);
}

/* A burst of back-to-back writers from an idle gate, total milliseconds. */
static double burst_ms(void)
{
	uint64_t t0;

	wait_idle();
	t0 = qb_now_ns();
	for (int i = 0; i < BURST; i++) {
		percpu_down_write(&sem);
		percpu_up_write(&sem);
	}
	return (double)(qb_now_ns() - t0) / 1e6;
}

/*
 * A kernel booted with rcupdate.rcu_expedited=1 expedites its own grace
 * periods, and with them membarrier(GLOBAL): the gap the seed saw shrinks.
 */
static void note_kernel_expedited(void)
{
	if (strcmp(qb_kernel_knob("rcu_expedited"), "1") == 0)
		qb_heading("note: /sys/kernel/rcu_expedited is 1 here, so even normal grace "
			   "periods are expedited by the kernel");
}

static void run_seed_mount(const struct qb_options *opt)
{
	const char *modes[2] = { "normal grace period", "expedited grace period" };
	struct qb_spread single[2];
	uint64_t start = qb_now_ns();
	/* A repetition's share: idle writers, then a burst, then reopenings. */
	const double rep_share = 0.5 / opt->repetitions;

	note_kernel_expedited();
	qb_heading("down_write + up_write on an idle semaphore; a burst of %d writers; "
		   "from up_write to the readers' fast path back", BURST);
	for (int m = 0; m < 2; m++) {
		double lat[opt->repetitions], burst[opt->repetitions], reopen[opt->repetitions];
		int writers = 0, reopened = 0;
		char subject[64];
		pthread_t reader;

		/* The semaphore's readers are chosen at init: RCU under rcu_normal. */
		rcu_set_normal(m == 0);
		percpu_init_rwsem(&sem);
		atomic_store(&reader_stop, false);
		pthread_create(&reader, NULL, occasional_reader, NULL);
		if (sem.rss.rseq_readers)
			qb_heading("%s: rseq readers, so the gate closes with one "
				   "membarrier(PRIVATE_EXPEDITED_RSEQ)", modes[m]);
		else if (m == 0)
			qb_heading("%s: RCU readers and rcu_normal, so every grace period is "
				   "membarrier(GLOBAL), the kernel's own", modes[m]);
		qb_progress(EXP ": %s", modes[m]);
		for (int r = 0; r < opt->repetitions; r++) {
			double base = (m * opt->repetitions + r) * rep_share;

			lat[r] = idle_writer_us(qb_deadline(opt, start, base + 0.7 * rep_share),
						&writers);
			burst[r] = burst_ms();
			reopen[r] = reopen_us(qb_deadline(opt, start, base + rep_share), &reopened);
		}
		single[m] = qb_record(EXP, modes[m], "idle writer", "us", lat, opt->repetitions);
		qb_note("%d writers in %d repetitions", writers, opt->repetitions);
		snprintf(subject, sizeof(subject), "%s, burst", modes[m]);
		qb_record(EXP, subject, "1000 writers", "ms", burst, opt->repetitions);
		/* What the burst would cost with a grace period each: 1000 x us = ms. */
		snprintf(subject, sizeof(subject), "%s, one each (1000 x idle writer)", modes[m]);
		qb_record(EXP, subject, "1000 writers", "ms", lat, opt->repetitions);
		qb_record(EXP, modes[m], "up_write to fast path", "us", reopen, opt->repetitions);
		qb_note("%d reopenings in %d repetitions", reopened, opt->repetitions);
		atomic_store(&reader_stop, true);
		pthread_join(reader, NULL);
		wait_idle();
		percpu_free_rwsem(&sem);
	}
	rcu_set_normal(false);

	qb_ratio(EXP, "idle writer", modes[0], modes[1], ">= 10");
	qb_ratio(EXP, "1000 writers", "normal grace period, burst",
		 "expedited grace period, burst", NULL);
	qb_heading("rcu_sync: a burst shares one grace period, against one each");
	for (int m = 0; m < 2; m++) {
		char burst[64], each[64];

		snprintf(burst, sizeof(burst), "%s, burst", modes[m]);
		snprintf(each, sizeof(each), "%s, one each (1000 x idle writer)", modes[m]);
		qb_ratio(EXP, "1000 writers", burst, each, "<= 0.1");
	}
	qb_seed_result(&(struct qb_seed_row){
		.seed = 0,
		.thread = "percpu-rwsem: use synchronize_sched_expedited",
		.kernel_before = "0.500 s (mount)",
		.kernel_after = "0.013 s",
		.kernel_change = "38x faster",
		.ours_before_label = "writer, normal grace period",
		.ours_after_label = "writer, expedited",
		.ours_before = single[0].median,
		.ours_after = single[1].median,
		.unit = "us",
	});
}

QB_EXPERIMENT(seed_mount, .name = "seed-mount",
	      .title = "percpu-rwsem writer latency, normal vs expedited grace periods",
	      .order = 1, .run = run_seed_mount)
