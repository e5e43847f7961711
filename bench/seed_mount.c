/*
 * seed-mount: the analog of seed 000 ("percpu-rwsem: use
 * synchronize_sched_expedited", 2012): mount took 0.500 s while each
 * percpu-rwsem writer waited for a normal grace period, 0.013 s with an
 * expedited one.  Here: down_write + up_write on an idle semaphore (its
 * gate idle, so the writer waits for the readers that saw it open) on a
 * semaphore initialized under rcu_normal (RCU readers, a normal grace
 * period) and on one initialized by default (rseq readers: one expedited
 * membarrier that aborts their sequences); and a burst of 1000
 * back-to-back writers, which the rcu_sync gate lets share one.
 */
#include <stdio.h>

#include <quiesce/percpu_rwsem.h>

#include "bench.h"

#define EXP "seed-mount"
#define BURST 1000

static struct percpu_rw_semaphore sem;

/* Waits until the gate has reopened: the next writer pays a grace period. */
static void wait_idle(void)
{
	while (!quiesce_rcu_sync_is_idle(&sem.rss))
		rcu_barrier();
}

/* Median latency of one writer on an idle semaphore, in microseconds. */
static double idle_writer_us(int writers)
{
	double lat[writers];

	for (int i = 0; i < writers; i++) {
		wait_idle();
		uint64_t t0 = qb_now_ns();

		percpu_down_write(&sem);
		percpu_up_write(&sem);
		lat[i] = (double)(qb_now_ns() - t0) / 1000.0;
	}
	for (int i = 1; i < writers; i++)
		for (int j = i; j > 0 && lat[j - 1] > lat[j]; j--) {
			double t = lat[j];

			lat[j] = lat[j - 1];
			lat[j - 1] = t;
		}
	return lat[writers / 2];
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
	FILE *f = fopen("/sys/kernel/rcu_expedited", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	if (on)
		qb_heading("note: /sys/kernel/rcu_expedited is 1 here, so even normal grace "
			   "periods are expedited by the kernel");
}

static void run_seed_mount(const struct qb_options *opt)
{
	int writers = opt->quick ? 40 : 200;
	const char *modes[2] = { "normal grace period", "expedited grace period" };
	struct qb_spread single[2];

	note_kernel_expedited();
	qb_heading("down_write + up_write on an idle semaphore; a burst of %d writers", BURST);
	for (int m = 0; m < 2; m++) {
		double lat[opt->repetitions], burst[opt->repetitions];
		char subject[64];

		/* The semaphore's readers are chosen at init: RCU under rcu_normal. */
		rcu_set_normal(m == 0);
		percpu_init_rwsem(&sem);
		if (sem.rss.rseq_readers)
			qb_heading("%s: rseq readers, so the gate closes with one "
				   "membarrier(PRIVATE_EXPEDITED_RSEQ)", modes[m]);
		qb_progress(EXP ": %s", modes[m]);
		for (int r = 0; r < opt->repetitions; r++) {
			lat[r] = idle_writer_us(writers);
			burst[r] = burst_ms();
		}
		single[m] = qb_record(EXP, modes[m], "idle writer", "us", lat, opt->repetitions);
		snprintf(subject, sizeof(subject), "%s, burst", modes[m]);
		qb_record(EXP, subject, "1000 writers", "ms", burst, opt->repetitions);
		/* What the burst would cost with a grace period each: 1000 x us = ms. */
		snprintf(subject, sizeof(subject), "%s, one each (1000 x idle writer)", modes[m]);
		qb_record(EXP, subject, "1000 writers", "ms", lat, opt->repetitions);
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
