/*
 * call-rcu: call_rcu() end to end, against liburcu's call_rcu; quiesce's
 * call_srcu() on one SRCU domain runs the same rows beside them.
 *
 * One and two threads each allocate small objects and queue each for
 * freeing after a grace period; the figure is callbacks per second from the
 * start until rcu_barrier() returns.  Then a flood of 10^7 callbacks (10^6
 * quick): the peak number of objects queued and not yet freed, which is the
 * memory the pending callbacks hold.  Then the latency from call_rcu() to
 * its callback on an otherwise idle process.  Then what one call costs its
 * caller, in ns, with the objects allocated beforehand (the throughput rows
 * count malloc() and the callbacks' free() too), on 1 and 2 threads, and on
 * 1 thread whose objects another thread has just read, as an updater's are
 * when it reclaims what it just unpublished (the call's first store into
 * the object then waits for the line to come back from the reader).  Then
 * the 2-thread throughput with a callback worker pinned to each CPU, each
 * thread queueing on its CPU's (<quiesce/call_rcu_worker.h>), against
 * liburcu's per-CPU call_rcu_data (create_all_cpu_call_rcu_data()).  Last,
 * rcu_barrier() over 16 callback threads of the program's (a machine's
 * worth of per-CPU workers), a callback pending on each, against liburcu's
 * over 16 call_rcu_data.  Each part stops at its share of the budget (with
 * fewer callbacks than planned, which a note says).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>
#include <quiesce/srcu.h>

#include "bench.h"
#include "call_rcu_flavor.h"

#define EXPERIMENT "call-rcu"
#define SAMPLE_EVERY 1024

_Static_assert(sizeof(struct rcu_head) == QB_CB_HEAD_BYTES, "quiesce's head size");

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void free_object(struct rcu_head *head)
{
	qb_cb_free(head);
}

static void queue(void *obj)
{
	call_rcu((struct rcu_head *)obj, free_object);
}

const struct qb_cb_flavor qb_quiesce_call_rcu = {
	.name = "quiesce call_rcu",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.queue = queue,
	.barrier = quiesce_rcu_barrier,
};

static DEFINE_SRCU(bench_cb_srcu);

static void queue_srcu(void *obj)
{
	call_srcu(&bench_cb_srcu, (struct rcu_head *)obj, free_object);
}

static void barrier_srcu(void)
{
	srcu_barrier(&bench_cb_srcu);
}

/* One SRCU domain's callbacks: its shared queue, with no reader to wait for. */
static const struct qb_cb_flavor srcu_flavor = {
	.name = "quiesce call_srcu",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.queue = queue_srcu,
	.barrier = barrier_srcu,
};

/* A worker pinned to each CPU the process may run on; NULL elsewhere. */
static struct quiesce_call_rcu_worker *cpu_workers[CPU_SETSIZE];

static void make_cpu_workers(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpu_workers[cpu] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, cpu);
}

static void drop_cpu_workers(void)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		quiesce_call_rcu_worker_destroy(cpu_workers[cpu]);
		cpu_workers[cpu] = NULL;
	}
}

static void queue_per_cpu(void *obj)
{
	int cpu = sched_getcpu();
	struct quiesce_call_rcu_worker *w = cpu >= 0 && cpu < CPU_SETSIZE ? cpu_workers[cpu] : NULL;

	if (w)
		quiesce_call_rcu_on(w, (struct rcu_head *)obj, free_object);
	else
		call_rcu((struct rcu_head *)obj, free_object);
}

static const struct qb_cb_flavor per_cpu_flavor = {
	.name = "quiesce per-CPU workers",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.queue = queue_per_cpu,
	.barrier = quiesce_rcu_barrier,	/* waits for the workers too */
	.setup = make_cpu_workers,
	.teardown = drop_cpu_workers,
};

struct enqueuer {
	const struct qb_cb_flavor *flavor;
	atomic_long allocated;
	long per_thread;
	uint64_t deadline;
	char pad[32];
};

/*
 * Shares of the budget: throughput (1 and 2 threads), flood, latency, call
 * cost, per-CPU throughput, barrier over workers.
 */
#define THROUGHPUT_SHARE 0.25
#define FLOOD_SHARE 0.25
#define LATENCY_SHARE 0.2
#define CALL_COST_SHARE 0.15
#define PER_CPU_SHARE 0.1
#define BARRIER_SHARE 0.05
/* Calls each caller times, per repetition (at most). */
#define CALL_COST_CALLS 200000

static atomic_long freed, peak;
static struct enqueuer *enqueuers;
static int enqueuer_count;

void qb_cb_free(void *obj)
{
	free(obj);
	atomic_fetch_add_explicit(&freed, 1, memory_order_relaxed);
}

static long alive(void)
{
	long a = 0;

	for (int i = 0; i < enqueuer_count; i++)
		a += atomic_load_explicit(&enqueuers[i].allocated, memory_order_relaxed);
	return a - atomic_load_explicit(&freed, memory_order_relaxed);
}

static void *enqueue(void *arg)
{
	struct enqueuer *self = arg;

	self->flavor->register_thread();
	for (long i = 1; i <= self->per_thread; i++) {
		long *obj = malloc(QB_CB_OBJECT_BYTES);

		obj[QB_CB_HEAD_BYTES / sizeof(long)] = i;
		self->flavor->queue(obj);
		if (i % SAMPLE_EVERY == 0) {
			long now, p;

			if (qb_now_ns() > self->deadline)
				self->per_thread = i;
			atomic_store_explicit(&self->allocated, i, memory_order_relaxed);
			now = alive();
			p = atomic_load(&peak);
			while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
				;
		}
	}
	atomic_store_explicit(&self->allocated, self->per_thread, memory_order_relaxed);
	self->flavor->unregister_thread();
	return NULL;
}

/*
 * Callbacks per second, from the start until the barrier has returned; each
 * thread queues per_thread callbacks or stops at the deadline, and *queued
 * gets how many they queued in all.
 */
static double run(const struct qb_cb_flavor *flavor, int threads, long per_thread,
		  uint64_t deadline, long *queued)
{
	struct enqueuer all[threads];
	uint64_t start;

	for (int i = 0; i < threads; i++) {
		all[i].flavor = flavor;
		atomic_store(&all[i].allocated, 0);
		all[i].per_thread = per_thread;
		all[i].deadline = deadline;
	}
	enqueuers = all;
	enqueuer_count = threads;
	atomic_store(&freed, 0);
	atomic_store(&peak, 0);
	start = qb_now_ns();
	qb_run_threads(threads, enqueue, all, sizeof(all[0]));
	flavor->barrier();
	*queued = 0;
	for (int i = 0; i < threads; i++)
		*queued += all[i].per_thread;
	return (double)*queued / ((qb_now_ns() - start) / 1e9);
}

static const struct qb_cb_flavor *const flavors[] = {
	&qb_quiesce_call_rcu,
	&srcu_flavor,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_call_rcu,
#endif
};
#define FLAVORS (sizeof(flavors) / sizeof(flavors[0]))

static void throughput(const struct qb_options *opt, int threads, uint64_t start)
{
	long per_thread = (opt->quick ? 200000 : 2000000) / threads;
	const int runs = 2 * (int)FLAVORS * opt->repetitions;
	int run_index = (threads - 1) * (int)FLAVORS * opt->repetitions;
	char metric[32];

	snprintf(metric, sizeof(metric), "%d enqueuer%s", threads, threads > 1 ? "s" : "");
	for (size_t f = 0; f < FLAVORS; f++) {
		double rate[opt->repetitions];
		long queued = 0;

		qb_progress(EXPERIMENT ": %s, %s", flavors[f]->name, metric);
		for (int r = 0; r < opt->repetitions; r++) {
			long n;

			rate[r] = run(flavors[f], threads, per_thread,
				      qb_run_deadline(opt, start, THROUGHPUT_SHARE * ++run_index / runs,
						      THROUGHPUT_SHARE / runs),
				      &n) / 1e6;
			queued += n;
		}
		qb_record(EXPERIMENT, flavors[f]->name, metric, "M cb/s", rate, opt->repetitions);
		if (queued < per_thread * threads * opt->repetitions)
			qb_note("%ld callbacks in %d repetitions", queued, opt->repetitions);
	}
	qb_ratio(EXPERIMENT, metric, srcu_flavor.name, qb_quiesce_call_rcu.name, NULL);
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, metric, qb_quiesce_call_rcu.name, qb_urcu_call_rcu.name, ">= 1.0");
	qb_ratio(EXPERIMENT, metric, srcu_flavor.name, qb_urcu_call_rcu.name, NULL);
#endif
}

static void flood(const struct qb_options *opt, uint64_t start)
{
	long per_thread = (opt->quick ? 1000000 : 10000000) / 2;

	qb_heading("flood of up to %ld callbacks from 2 threads: peak held by pending callbacks",
		   2 * per_thread);
	for (size_t f = 0; f < FLAVORS; f++) {
		double pending, mib;
		long queued;

		qb_progress(EXPERIMENT ": flood, %s", flavors[f]->name);
		run(flavors[f], 2, per_thread,
		    qb_run_deadline(opt, start, THROUGHPUT_SHARE + FLOOD_SHARE * (f + 1) / FLAVORS,
				    FLOOD_SHARE / FLAVORS),
		    &queued);
		pending = (double)atomic_load(&peak);
		mib = pending * (double)QB_CB_OBJECT_BYTES / (1 << 20);
		qb_record(EXPERIMENT, flavors[f]->name, "flood peak pending", "callbacks", &pending, 1);
		qb_record(EXPERIMENT, flavors[f]->name, "flood peak memory", "MiB", &mib, 1);
		if (queued < 2 * per_thread)
			qb_note("a flood of %ld callbacks", queued);
	}
}

/* Latencies measured at most per repetition. */
#define MAX_LATENCIES 1000

/* The median of n > 0 latencies, which it sorts. */
static double median_of(double *lat, int n)
{
	qsort(lat, (size_t)n, sizeof(lat[0]), compare_doubles);
	return lat[n / 2];
}

struct latency_run {
	const struct qb_cb_flavor *flavor;
	uint64_t deadline;
	int calls;
	double median_us;
};

/*
 * From call_rcu() to its callback, one at a time, on a thread of its own
 * (registered with the flavor, as a reader the grace period has to look
 * at); the median over the calls until the deadline, in us.
 */
static void *callback_latency(void *arg)
{
	struct latency_run *run = arg;
	double lat[MAX_LATENCIES];
	int n = 0;

	run->flavor->register_thread();
	do {
		long before = atomic_load(&freed);
		uint64_t t0 = qb_now_ns();

		run->flavor->queue(malloc(QB_CB_OBJECT_BYTES));
		/* The callback's qb_cb_free() moves the count. */
		while (atomic_load(&freed) == before)
			sched_yield();
		lat[n++] = (double)(qb_now_ns() - t0) / 1000.0;
	} while (n < MAX_LATENCIES && qb_now_ns() < run->deadline);
	run->flavor->unregister_thread();
	run->calls = n;
	run->median_us = median_of(lat, n);
	return NULL;
}

static void latency(const struct qb_options *opt, uint64_t start)
{
	const int runs = (int)FLAVORS * opt->repetitions;
	const double base = THROUGHPUT_SHARE + FLOOD_SHARE;
	int run_index = 0;

	qb_heading("from call_rcu() to its callback, one at a time");
	for (size_t f = 0; f < FLAVORS; f++) {
		double lat[opt->repetitions];
		int calls = 0;

		qb_progress(EXPERIMENT ": latency, %s", flavors[f]->name);
		for (int r = 0; r < opt->repetitions; r++) {
			struct latency_run run = {
				.flavor = flavors[f],
				.deadline = qb_run_deadline(opt, start,
							    base + LATENCY_SHARE * ++run_index / runs,
							    LATENCY_SHARE / runs),
			};

			qb_run_threads(1, callback_latency, &run, sizeof(run));
			lat[r] = run.median_us;
			calls += run.calls;
		}
		qb_record(EXPERIMENT, flavors[f]->name, "callback latency", "us", lat,
			  opt->repetitions);
		qb_note("%d callbacks in %d repetitions", calls, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, "callback latency", qb_quiesce_call_rcu.name,
		 qb_urcu_call_rcu.name, "<= 1.0");
#endif
}

struct call_cost_run {
	const struct qb_cb_flavor *flavor;
	uint64_t deadline;	/* planned; the floor applies once the objects are allocated */
	uint64_t floor_ns;
	bool shared;		/* a reader reads each batch of objects first */
	long calls;
	double ns;
};

/* The objects that a reader reads, a batch at a time, before the caller queues them. */
#define SHARED_BATCH 64

struct shared_objects {
	void **objs;
	long n;
	atomic_long read;	/* objects [0, read) have been read */
	atomic_long queued;	/* objects [0, queued) have been queued */
	atomic_bool stopped;	/* the caller queues no more */
};

/*
 * Reads each object's first word (the callback head's line), a batch at a
 * time: the batch the caller has not reached yet, so that the caller's
 * first store into each object finds the line shared with this thread.
 */
static void *shared_reader(void *arg)
{
	struct shared_objects *so = arg;
	long sum = 0;

	for (long b = 0; b < so->n; b += SHARED_BATCH) {
		/* Woken by the caller's store of queued after its previous batch, or of stopped. */
		while (atomic_load_explicit(&so->queued, memory_order_acquire) < b) {
			if (atomic_load_explicit(&so->stopped, memory_order_relaxed))
				goto out;
			sched_yield();
		}
		for (long i = b; i < b + SHARED_BATCH && i < so->n; i++)
			sum += *(volatile long *)so->objs[i];
		/* Release: the reads above before the caller's stores into the batch. */
		atomic_store_explicit(&so->read, b + SHARED_BATCH, memory_order_release);
	}
out:
	__asm__ __volatile__("" : : "r"(sum));
	return NULL;
}

/*
 * Queues objs[0, n) a batch at a time, each batch once the reader has read
 * it, and times the calls only; returns the calls made (the deadline may
 * stop it early) and adds their ns to *ns.
 */
static long queue_shared(const struct qb_cb_flavor *flavor, void **objs, long n,
			 uint64_t deadline, uint64_t *ns)
{
	struct shared_objects so = { .objs = objs, .n = n };
	pthread_t reader;
	long b;

	atomic_init(&so.read, 0);
	atomic_init(&so.queued, 0);
	atomic_init(&so.stopped, false);
	pthread_create(&reader, NULL, shared_reader, &so);
	for (b = 0; b < n; b += SHARED_BATCH) {
		long end = b + SHARED_BATCH < n ? b + SHARED_BATCH : n;
		uint64_t t0;

		/* Woken by the reader's store of read after this batch. */
		while (atomic_load_explicit(&so.read, memory_order_acquire) < end)
			sched_yield();
		t0 = qb_now_ns();
		for (long i = b; i < end; i++)
			flavor->queue(objs[i]);
		*ns += qb_now_ns() - t0;
		if (qb_now_ns() > deadline) {
			b = end;
			break;
		}
		/* Release: pairs with the reader's acquire of queued. */
		atomic_store_explicit(&so.queued, end, memory_order_release);
	}
	/*
	 * Stops the reader, which would otherwise read the rest, which nobody
	 * queues.  Relaxed: no data rides on the flag, and the join orders
	 * the reader's last reads before the objects are freed.
	 */
	atomic_store_explicit(&so.stopped, true, memory_order_relaxed);
	pthread_join(reader, NULL);
	return b < n ? b : n;
}

/* ns per call over up to CALL_COST_CALLS calls, objects allocated first. */
static void *call_cost(void *arg)
{
	struct call_cost_run *run = arg;
	void **objs = malloc(CALL_COST_CALLS * sizeof(*objs));
	long n = 0;

	run->flavor->register_thread();
	for (long i = 0; i < CALL_COST_CALLS; i++)
		objs[i] = malloc(QB_CB_OBJECT_BYTES);
	run->deadline = qb_not_before(run->deadline, run->floor_ns);
	if (run->shared) {
		uint64_t ns = 0;

		n = queue_shared(run->flavor, objs, CALL_COST_CALLS, run->deadline, &ns);
		run->ns = (double)ns / (double)n;
	} else {
		uint64_t t0 = qb_now_ns();

		while (n < CALL_COST_CALLS) {
			run->flavor->queue(objs[n++]);
			if (n % SAMPLE_EVERY == 0 && qb_now_ns() > run->deadline)
				break;
		}
		run->ns = (double)(qb_now_ns() - t0) / (double)n;
	}
	run->calls = n;
	for (long i = n; i < CALL_COST_CALLS; i++)
		free(objs[i]);
	free(objs);
	run->flavor->unregister_thread();
	return NULL;
}

/* The call-cost share's parts: 1 caller, 2 callers, 1 caller whose objects a reader shares. */
#define CALL_COST_PARTS 3

static void call_costs(const struct qb_options *opt, int part, uint64_t start)
{
	const int runs = CALL_COST_PARTS * (int)FLAVORS * opt->repetitions;
	const double base = THROUGHPUT_SHARE + FLOOD_SHARE + LATENCY_SHARE;
	const int threads = part == 1 ? 2 : 1;
	const bool shared = part == 2;
	int run_index = part * (int)FLAVORS * opt->repetitions;
	char metric[48];

	if (shared)
		snprintf(metric, sizeof(metric), "call cost, objects a reader shares");
	else
		snprintf(metric, sizeof(metric), "call cost, %d caller%s", threads,
			 threads > 1 ? "s" : "");
	for (size_t f = 0; f < FLAVORS; f++) {
		double ns[opt->repetitions];
		long calls = 0;

		qb_progress(EXPERIMENT ": %s, %s", flavors[f]->name, metric);
		for (int r = 0; r < opt->repetitions; r++) {
			struct call_cost_run all[threads];
			uint64_t deadline = qb_deadline(opt, start,
							base + CALL_COST_SHARE * ++run_index / runs);

			for (int i = 0; i < threads; i++)
				all[i] = (struct call_cost_run){
					.flavor = flavors[f],
					.deadline = deadline,
					.floor_ns = qb_run_floor_ns(opt, CALL_COST_SHARE / runs),
					.shared = shared,
				};
			qb_run_threads(threads, call_cost, all, sizeof(all[0]));
			flavors[f]->barrier();
			ns[r] = 0;
			for (int i = 0; i < threads; i++) {
				ns[r] += all[i].ns / threads;
				calls += all[i].calls;
			}
		}
		qb_record(EXPERIMENT, flavors[f]->name, metric, "ns", ns, opt->repetitions);
		if (calls < (long)CALL_COST_CALLS * threads * opt->repetitions)
			qb_note("%ld calls in %d repetitions", calls, opt->repetitions);
	}
	qb_ratio(EXPERIMENT, metric, srcu_flavor.name, qb_quiesce_call_rcu.name, NULL);
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, metric, qb_quiesce_call_rcu.name, qb_urcu_call_rcu.name, "<= 1.0");
	qb_ratio(EXPERIMENT, metric, srcu_flavor.name, qb_urcu_call_rcu.name, NULL);
#endif
}

static const struct qb_cb_flavor *const per_cpu_flavors[] = {
	&per_cpu_flavor,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_call_rcu_per_cpu,
#endif
};
#define PER_CPU_FLAVORS (sizeof(per_cpu_flavors) / sizeof(per_cpu_flavors[0]))

static void per_cpu_throughput(const struct qb_options *opt, uint64_t start)
{
	const int threads = 2;
	const long per_thread = (opt->quick ? 200000 : 2000000) / threads;
	const int runs = (int)PER_CPU_FLAVORS * opt->repetitions;
	const double base = THROUGHPUT_SHARE + FLOOD_SHARE + LATENCY_SHARE + CALL_COST_SHARE;
	const char *metric = "2 enqueuers, per-CPU";
	int run_index = 0;

	for (size_t f = 0; f < PER_CPU_FLAVORS; f++) {
		const struct qb_cb_flavor *flavor = per_cpu_flavors[f];
		double rate[opt->repetitions];
		long queued = 0;

		qb_progress(EXPERIMENT ": %s, %s", flavor->name, metric);
		flavor->setup();
		for (int r = 0; r < opt->repetitions; r++) {
			long n;

			rate[r] = run(flavor, threads, per_thread,
				      qb_run_deadline(opt, start, base + PER_CPU_SHARE * ++run_index / runs,
						      PER_CPU_SHARE / runs),
				      &n) / 1e6;
			queued += n;
		}
		flavor->teardown();
		qb_record(EXPERIMENT, flavor->name, metric, "M cb/s", rate, opt->repetitions);
		if (queued < per_thread * threads * opt->repetitions)
			qb_note("%ld callbacks in %d repetitions", queued, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, metric, per_cpu_flavor.name, qb_urcu_call_rcu_per_cpu.name, ">= 1.0");
#endif
}

/* The barrier row's callback threads. */
static struct quiesce_call_rcu_worker *workers[QB_CB_WORKERS];

static void make_workers(void)
{
	for (int i = 0; i < QB_CB_WORKERS; i++)
		workers[i] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
}

static void queue_on(int i, void *obj)
{
	quiesce_call_rcu_on(workers[i], (struct rcu_head *)obj, free_object);
}

static void drop_workers(void)
{
	for (int i = 0; i < QB_CB_WORKERS; i++)
		quiesce_call_rcu_worker_destroy(workers[i]);
}

static const struct qb_cb_workers quiesce_workers = {
	.name = "quiesce workers",
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.make = make_workers,
	.queue_on = queue_on,
	.barrier = quiesce_rcu_barrier,	/* waits for the workers too */
	.drop = drop_workers,
};

static const struct qb_cb_workers *const barrier_flavors[] = {
	&quiesce_workers,
#ifdef QUIESCE_HAVE_URCU
	&qb_urcu_call_rcu_workers,
#endif
};
#define BARRIER_FLAVORS (sizeof(barrier_flavors) / sizeof(barrier_flavors[0]))

struct barrier_run {
	const struct qb_cb_workers *workers;
	uint64_t deadline;
	int rounds;
	double median_us;
};

/* A callback on each thread, then the barrier: the median round, in us. */
static void *barrier_rounds(void *arg)
{
	struct barrier_run *run = arg;
	double lat[MAX_LATENCIES];
	int n = 0;

	run->workers->register_thread();
	do {
		uint64_t t0 = qb_now_ns();

		for (int i = 0; i < QB_CB_WORKERS; i++)
			run->workers->queue_on(i, malloc(QB_CB_OBJECT_BYTES));
		run->workers->barrier();
		lat[n++] = (double)(qb_now_ns() - t0) / 1000.0;
	} while (n < MAX_LATENCIES && qb_now_ns() < run->deadline);
	run->workers->unregister_thread();
	run->rounds = n;
	run->median_us = median_of(lat, n);
	return NULL;
}

static void barrier_over_workers(const struct qb_options *opt, uint64_t start)
{
	const int runs = (int)BARRIER_FLAVORS * opt->repetitions;
	const double base = THROUGHPUT_SHARE + FLOOD_SHARE + LATENCY_SHARE + CALL_COST_SHARE +
			    PER_CPU_SHARE;
	const char *metric = "barrier, 16 threads";
	int run_index = 0;

	for (size_t f = 0; f < BARRIER_FLAVORS; f++) {
		const struct qb_cb_workers *w = barrier_flavors[f];
		double lat[opt->repetitions];
		int rounds = 0;

		qb_progress(EXPERIMENT ": %s, %s", w->name, metric);
		w->make();
		for (int r = 0; r < opt->repetitions; r++) {
			struct barrier_run run = {
				.workers = w,
				.deadline = qb_run_deadline(opt, start,
							    base + BARRIER_SHARE * ++run_index / runs,
							    BARRIER_SHARE / runs),
			};

			qb_run_threads(1, barrier_rounds, &run, sizeof(run));
			lat[r] = run.median_us;
			rounds += run.rounds;
		}
		w->drop();
		qb_record(EXPERIMENT, w->name, metric, "us", lat, opt->repetitions);
		qb_note("%d rounds in %d repetitions", rounds, opt->repetitions);
	}
#ifdef QUIESCE_HAVE_URCU
	qb_ratio(EXPERIMENT, metric, quiesce_workers.name, qb_urcu_call_rcu_workers.name, "<= 1.0");
#endif
}

static void run_call_rcu(const struct qb_options *opt)
{
	uint64_t start = qb_now_ns();

#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXPERIMENT, "liburcu call_rcu", "liburcu-dev");
#endif
	throughput(opt, 1, start);
	throughput(opt, 2, start);
	flood(opt, start);
	latency(opt, start);
	qb_heading("what one call costs its caller, objects allocated beforehand");
	for (int part = 0; part < CALL_COST_PARTS; part++)
		call_costs(opt, part, start);
	qb_heading("2 threads, each queueing on a worker of its own CPU");
	per_cpu_throughput(opt, start);
	qb_heading("a callback on each of %d callback threads, then rcu_barrier()", QB_CB_WORKERS);
	barrier_over_workers(opt, start);
}

QB_EXPERIMENT(call_rcu_experiment, .name = EXPERIMENT,
	      .title = "call_rcu() end to end (callbacks/s, rcu_barrier included), flood memory, latency, call cost, barrier over 16 workers, vs liburcu",
	      .order = 120, .run = run_call_rcu);
