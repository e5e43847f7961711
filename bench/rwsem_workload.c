#include "rwsem_workload.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <quiesce/rwsem.h>

const int qb_rwsem_threads[QB_RWSEM_THREAD_COUNTS] = { 1, 2, 4, 8 };
const int qb_rwsem_read_pct[QB_RWSEM_READ_MIXES] = { 100, 90, 50, 0 };

/* The shared table: a section reads or updates TOUCHED of its ROWS lines. */
#define ROWS 64
#define TOUCHED 4
/* Private work between sections (random-number steps): about 100 ns. */
#define OUTSIDE_STEPS 48
/* Operations between two looks at the clock. */
#define CLOCK_EVERY 16

struct row {
	unsigned long value[8];
} QUIESCE_CACHELINE_ALIGNED;

struct table_run {
	const struct qb_rwlock_ops *ops;
	void *lock;
	struct row *rows;
	int read_pct;
	uint64_t end_ns;	/* every worker stops at the same time */
};

struct table_worker {
	struct table_run *run;
	uint32_t seed;
	uint64_t ops;
	unsigned long sink;
} QUIESCE_CACHELINE_ALIGNED;

static uint32_t next_random(uint32_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

static void *table_worker_thread(void *p)
{
	struct table_worker *w = p;
	const struct table_run *run = w->run;
	unsigned long sink = 0;

	for (;;) {
		for (int n = 0; n < CLOCK_EVERY; n++) {
			uint32_t r = next_random(&w->seed);

			if ((int)(r % 100) < run->read_pct) {
				run->ops->read_lock(run->lock);
				for (int i = 0; i < TOUCHED; i++)
					sink += run->rows[(r >> (8 + 6 * i)) % ROWS].value[i];
				run->ops->read_unlock(run->lock);
			} else {
				run->ops->write_lock(run->lock);
				for (int i = 0; i < TOUCHED; i++)
					run->rows[(r >> (8 + 6 * i)) % ROWS].value[i] += r;
				run->ops->write_unlock(run->lock);
			}
			for (int i = 0; i < OUTSIDE_STEPS; i++)
				sink += next_random(&w->seed) & 1;
		}
		w->ops += CLOCK_EVERY;
		if (qb_now_ns() >= run->end_ns)
			break;
	}
	w->sink = sink;
	return NULL;
}

/* One cell: total operations per second, in millions. */
static double run_cell(const struct qb_rwlock_ops *ops, int threads, int read_pct, uint64_t run_ns)
{
	struct table_run run = { .ops = ops, .read_pct = read_pct };
	struct table_worker *workers;
	uint64_t ops_total = 0, t0, elapsed;

	if (ops->prepare)
		ops->prepare();
	run.lock = ops->create();
	run.rows = aligned_alloc(QUIESCE_CACHELINE, sizeof(struct row) * ROWS);
	workers = aligned_alloc(QUIESCE_CACHELINE, sizeof(*workers) * (size_t)threads);
	if (!run.rows || !workers) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(run.rows, 0, sizeof(struct row) * ROWS);
	for (int i = 0; i < threads; i++)
		workers[i] = (struct table_worker){ .run = &run, .seed = 0x9e3779b9u * (uint32_t)(i + 1) };
	t0 = qb_now_ns();
	run.end_ns = t0 + run_ns;
	qb_run_threads(threads, table_worker_thread, workers, sizeof(*workers));
	elapsed = qb_now_ns() - t0;
	for (int i = 0; i < threads; i++)
		ops_total += workers[i].ops;
	free(workers);
	free(run.rows);
	ops->destroy(run.lock);
	/* Wall time, which includes starting the threads, the same for every lock. */
	return (double)ops_total / (elapsed / 1e9) / 1e6;
}

void qb_rwsem_cell_name(char *buf, size_t len, int threads, int read_pct)
{
	snprintf(buf, len, "%d thr %d%% read", threads, read_pct);
}

void qb_rwsem_table(const char *experiment, const struct qb_options *opt, double share,
		    const struct qb_rwlock_ops *const *locks, int nlocks,
		    struct qb_spread (*out)[QB_RWSEM_THREAD_COUNTS][QB_RWSEM_READ_MIXES])
{
	int reps = opt->repetitions;
	uint64_t run_ns = (uint64_t)((double)opt->budget_ns * share /
				     (QB_RWSEM_THREAD_COUNTS * QB_RWSEM_READ_MIXES * nlocks * reps));

	for (int t = 0; t < QB_RWSEM_THREAD_COUNTS; t++) {
		for (int m = 0; m < QB_RWSEM_READ_MIXES; m++) {
			double samples[nlocks][reps];
			char cell[48];

			qb_rwsem_cell_name(cell, sizeof(cell), qb_rwsem_threads[t], qb_rwsem_read_pct[m]);
			qb_progress("%s: %s", experiment, cell);
			for (int r = 0; r < reps; r++)
				for (int l = 0; l < nlocks; l++)
					samples[l][r] = run_cell(locks[l], qb_rwsem_threads[t],
								 qb_rwsem_read_pct[m], run_ns);
			for (int l = 0; l < nlocks; l++) {
				struct qb_spread spread = qb_record(experiment, locks[l]->name, cell,
								    "Mops/s", samples[l], reps);
				char plot[64], title[64];

				snprintf(plot, sizeof(plot), "%s-%dread", experiment, qb_rwsem_read_pct[m]);
				snprintf(title, sizeof(title), "rwsem throughput, %d%% reads",
					 qb_rwsem_read_pct[m]);
				qb_plot_point(plot, title, "threads", "Mops/s", locks[l]->name,
					      qb_rwsem_threads[t], spread);
				if (out)
					out[l][t][m] = spread;
			}
		}
	}
}

struct flood_run {
	const struct qb_rwlock_ops *ops;
	void *lock;
	int stop;			/* atomic */
	uint64_t max_wait_ns;		/* the writer's */
};

struct flood_worker {
	struct flood_run *run;
	bool writer;
} QUIESCE_CACHELINE_ALIGNED;

/* Readers hold for 20 us and come straight back, so their sections overlap. */
#define FLOOD_READ_SECTION_NS 20000u
#define FLOOD_WRITER_PAUSE_NS 1000000u

static void *flood_worker_thread(void *p)
{
	struct flood_worker *w = p;
	struct flood_run *run = w->run;

	while (!__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) {
		if (w->writer) {
			uint64_t t0 = qb_now_ns(), waited;
			struct timespec pause = { 0, FLOOD_WRITER_PAUSE_NS };

			run->ops->write_lock(run->lock);
			waited = qb_now_ns() - t0;
			run->ops->write_unlock(run->lock);
			if (waited > run->max_wait_ns)
				run->max_wait_ns = waited;
			nanosleep(&pause, NULL);
		} else {
			uint64_t until = qb_now_ns() + FLOOD_READ_SECTION_NS;

			run->ops->read_lock(run->lock);
			while (qb_now_ns() < until)
				;
			run->ops->read_unlock(run->lock);
		}
	}
	return NULL;
}

struct flood_timer {
	struct flood_run *run;
	uint64_t run_ns;
};

static void *flood_timer_thread(void *p)
{
	struct flood_timer *t = p;
	struct timespec ts = { (time_t)(t->run_ns / 1000000000u), (long)(t->run_ns % 1000000000u) };

	nanosleep(&ts, NULL);
	__atomic_store_n(&t->run->stop, 1, __ATOMIC_RELAXED);
	return NULL;
}

double qb_rwsem_writer_wait_ms(const struct qb_rwlock_ops *ops, uint64_t run_ns)
{
	struct flood_run run = { .ops = ops };
	struct flood_worker workers[QB_RWSEM_FLOOD_READERS + 1];
	struct flood_timer timer = { &run, run_ns };
	pthread_t timer_tid;

	if (ops->prepare)
		ops->prepare();
	run.lock = ops->create();
	for (int i = 0; i <= QB_RWSEM_FLOOD_READERS; i++)
		workers[i] = (struct flood_worker){ .run = &run, .writer = i == QB_RWSEM_FLOOD_READERS };
	if (pthread_create(&timer_tid, NULL, flood_timer_thread, &timer)) {
		perror("pthread_create");
		exit(1);
	}
	qb_run_threads(QB_RWSEM_FLOOD_READERS + 1, flood_worker_thread, workers, sizeof(workers[0]));
	pthread_join(timer_tid, NULL);
	ops->destroy(run.lock);
	return run.max_wait_ns / 1e6;
}

static void *quiesce_create(void)
{
	struct rw_semaphore *sem = aligned_alloc(QUIESCE_CACHELINE, QUIESCE_CACHELINE);

	if (!sem) {
		perror("aligned_alloc");
		exit(1);
	}
	init_rwsem(sem);
	return sem;
}

static void quiesce_prepare(void)
{
	quiesce_rwsem_set_writer_precheck(true);
}

static void quiesce_read_lock(void *lock) { down_read(lock); }
static void quiesce_read_unlock(void *lock) { up_read(lock); }
static void quiesce_write_lock(void *lock) { down_write(lock); }
static void quiesce_write_unlock(void *lock) { up_write(lock); }

const struct qb_rwlock_ops qb_rwsem_quiesce = {
	.name = "quiesce rwsem",
	.prepare = quiesce_prepare,
	.create = quiesce_create,
	.destroy = free,
	.read_lock = quiesce_read_lock,
	.read_unlock = quiesce_read_unlock,
	.write_lock = quiesce_write_lock,
	.write_unlock = quiesce_write_unlock,
};

static void *pthread_create_lock(int kind)
{
	pthread_rwlock_t *lock = aligned_alloc(QUIESCE_CACHELINE, 2 * QUIESCE_CACHELINE);
	pthread_rwlockattr_t attr;

	if (!lock) {
		perror("aligned_alloc");
		exit(1);
	}
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, kind);
	pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return lock;
}

static void *pthread_create_default(void)
{
	return pthread_create_lock(PTHREAD_RWLOCK_DEFAULT_NP);
}

static void *pthread_create_writer(void)
{
	return pthread_create_lock(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
}

static void pthread_destroy(void *lock)
{
	pthread_rwlock_destroy(lock);
	free(lock);
}

static void pthread_read_lock(void *lock) { pthread_rwlock_rdlock(lock); }
static void pthread_write_lock(void *lock) { pthread_rwlock_wrlock(lock); }
static void pthread_unlock(void *lock) { pthread_rwlock_unlock(lock); }

const struct qb_rwlock_ops qb_rwsem_pthread_default = {
	.name = "pthread_rwlock default",
	.create = pthread_create_default,
	.destroy = pthread_destroy,
	.read_lock = pthread_read_lock,
	.read_unlock = pthread_unlock,
	.write_lock = pthread_write_lock,
	.write_unlock = pthread_unlock,
};

const struct qb_rwlock_ops qb_rwsem_pthread_writer = {
	.name = "pthread_rwlock prefer-writer",
	.create = pthread_create_writer,
	.destroy = pthread_destroy,
	.read_lock = pthread_read_lock,
	.read_unlock = pthread_unlock,
	.write_lock = pthread_write_lock,
	.write_unlock = pthread_unlock,
};
