/*
 * run.c - one torture run: start the threads, print status while they
 * work, stop them, make sure every one finished, and judge the result.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "faults.h"
#include "report.h"
#include "torture.h"

/* The main thread checks for an early stop at least this often. */
#define POLL_NS 50000000ull

struct torture_run *torture_active_run;
__thread struct torture_thread *torture_self;

/*
 * An injector that names writers by their pthread_t (on_writers, or the
 * signals fault of a type that signals writers) stops at writers_stop and
 * is joined before them: a joined thread's pthread_t points into its
 * stack, which glibc caches and may unmap or hand to a new thread.  The
 * others stop at stop and are joined after the writers.
 */
static const struct {
	unsigned fault;
	const char *name;
	void *(*fn)(void *);
	bool on_writers;
} fault_threads[] = {
	{ TORTURE_FAULT_CHURN, "tt-churn", torture_churn_main, false },
	{ TORTURE_FAULT_FORK, "tt-fork", torture_fork_main, false },
	{ TORTURE_FAULT_SIGNALS, "tt-signals", torture_signals_main, false },
	{ TORTURE_FAULT_SHUFFLE, "tt-shuffle", torture_shuffle_main, true },
};
#define FAULT_THREADS (sizeof(fault_threads) / sizeof(fault_threads[0]))

static bool names_writers(const struct torture_run *run, unsigned id)
{
	return fault_threads[id].on_writers ||
	       (fault_threads[id].fault == TORTURE_FAULT_SIGNALS && run->type->signal_writers);
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void torture_thread_init(struct torture_thread *t, struct torture_run *run,
			 enum torture_role role, unsigned id, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->run = run;
	t->role = role;
	t->id = id;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->rng = splitmix64(run->opt->seed ^ ((uint64_t)role << 32 | id)) | 1;
}

/* Readers and writers: the type's operation, over and over. */
static void *worker_main(void *arg)
{
	struct torture_thread *t = arg;
	struct torture_run *run = t->run;
	const struct torture_type *type = run->type;

	torture_self = t;
	t->tid = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), t->name);
	if (type->thread_start)
		type->thread_start(t);
	/*
	 * Read by this thread's own signal handler only: no fence needed.  The
	 * handler reads (signal_read) or, in a type without one, sleeps: a
	 * preemption at a random point, which any holder may suffer.
	 */
	QUIESCE_STORE(&t->signal_ready, t->role == TORTURE_READER ||
						(t->role == TORTURE_WRITER && type->signal_writers));
	if (t->role == TORTURE_WRITER) {
		while (!QUIESCE_LOAD(&run->writers_stop))
			type->write(t);
	} else {
		while (!torture_stopping(run))
			type->read(t);
	}
	QUIESCE_STORE(&t->signal_ready, false);
	if (type->thread_stop)
		type->thread_stop(t, true);
	return NULL;
}

static void start_thread(struct torture_thread *t, void *(*fn)(void *))
{
	int err = pthread_create(&t->thread, NULL, fn, t);

	if (err) {
		fprintf(stderr, "quiesce-torture: cannot start thread %s: %s\n", t->name,
			strerror(err));
		exit(1);
	}
}

static void join_thread(struct torture_thread *t, const struct timespec *deadline)
{
	int err = pthread_timedjoin_np(t->thread, NULL, deadline);

	if (!err) {
		/* Relaxed atomic: the shuffle fault's check reads it (shuffle.c). */
		QUIESCE_STORE(&t->finished, true);
		return;
	}
	fprintf(stderr, "quiesce-torture: thread %s did not finish: %s\n", t->name,
		err == ETIMEDOUT ? "still running at the deadline" : strerror(err));
	t->run->unfinished++;
}

static struct timespec join_deadline(const struct torture_run *run)
{
	uint64_t ns = run->opt->join_timeout_ns;
	struct timespec ts;

	/* pthread_timedjoin_np() takes CLOCK_REALTIME.  Long holds end early. */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000u);
	ts.tv_nsec += (long)(ns % 1000000000u);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/*
 * Test-only holds (tests/torture.cmake), each set by the environment
 * variable named, in ms:
 * - QUIESCE_TORTURE_TEST_HOLD_AFTER_WRITERS_MS keeps the other threads
 *   running after the writers are joined, so that an injector still
 *   naming writers then meets a joined one at its next move, which
 *   shuffle.c's check catches, rather than in a window of microseconds;
 * - QUIESCE_TORTURE_TEST_HOLD_IN_FINISH_MS holds the final checks, as a
 *   hang in them would, which their deadline must catch.
 */
static void test_hold(const char *variable)
{
	const char *ms = getenv(variable);

	if (ms && *ms)
		torture_sleep_ns(strtoull(ms, NULL, 10) * 1000000u);
}

static void *finish_main(void *arg)
{
	struct torture_run *run = arg;

	pthread_setname_np(pthread_self(), "tt-finish");
	test_hold("QUIESCE_TORTURE_TEST_HOLD_IN_FINISH_MS");
	run->type->finish(run);
	return NULL;
}

/*
 * The type's final checks, in a thread of their own that the join timeout
 * bounds as it bounds the others: checks that hang (an rcu_barrier() that
 * never returns) fail the run with a line that says so, not as a test
 * killed by its timeout with nothing said.
 */
static void finish_by_deadline(struct torture_run *run)
{
	struct timespec deadline = join_deadline(run);
	pthread_t thread;
	int err = pthread_create(&thread, NULL, finish_main, run);

	if (err) {
		fprintf(stderr, "quiesce-torture: cannot start thread tt-finish: %s\n", strerror(err));
		exit(1);
	}
	err = pthread_timedjoin_np(thread, NULL, &deadline);
	if (!err)
		return;
	fprintf(stderr, "quiesce-torture: the final checks of %s did not finish: %s\n",
		run->type->name, err == ETIMEDOUT ? "still running at the deadline" : strerror(err));
	run->unfinished++;
}

/* Sleeps until the end of the run, printing status lines on the way. */
static void wait_for_end(struct torture_run *run)
{
	const struct torture_options *opt = run->opt;
	uint64_t end = run->start_ns + opt->duration_ns;
	uint64_t next_status = run->start_ns + opt->status_interval_ns;

	while (!QUIESCE_LOAD(&run->end_early)) {
		uint64_t now = torture_now_ns(), wake = end < next_status ? end : next_status;

		if (now >= end)
			break;
		if (now >= next_status) {
			if (!opt->quiet)
				torture_report_status(run);
			next_status += opt->status_interval_ns;
			continue;
		}
		torture_sleep_ns(wake - now < POLL_NS ? wake - now : POLL_NS);
	}
}

static void set_control(const struct torture_control *c, bool on)
{
	if (c->flag)
		QUIESCE_STORE(c->flag, on);
	else
		c->set(on);
}

int torture_main(const struct torture_options *opt, const struct torture_type *type)
{
	struct torture_run *run = calloc(1, sizeof(*run));
	struct torture_thread fault[FAULT_THREADS];
	unsigned nfault = 0;
	struct timespec deadline;
	uint64_t elapsed;
	bool passed;

	run->opt = opt;
	run->type = type;
	run->readers = aligned_alloc(QUIESCE_CACHELINE, opt->readers * sizeof(*run->readers));
	run->writers = aligned_alloc(QUIESCE_CACHELINE, opt->writers * sizeof(*run->writers));
	QUIESCE_STORE(&torture_active_run, run);
	run->start_ns = torture_now_ns();
	if (opt->control)
		set_control(opt->control, true);
	if (type->setup)
		type->setup(run);
	if (opt->faults & TORTURE_FAULT_SIGNALS)
		torture_signals_install();

	for (unsigned i = 0; i < opt->readers; i++) {
		char name[16];

		snprintf(name, sizeof(name), "tt-reader-%u", i % 1024);
		torture_thread_init(&run->readers[i], run, TORTURE_READER, i, name);
		start_thread(&run->readers[i], worker_main);
	}
	for (unsigned i = 0; i < opt->writers; i++) {
		char name[16];

		snprintf(name, sizeof(name), "tt-writer-%u", i % 1024);
		torture_thread_init(&run->writers[i], run, TORTURE_WRITER, i, name);
		start_thread(&run->writers[i], worker_main);
	}
	for (unsigned i = 0; i < FAULT_THREADS; i++) {
		if (!(opt->faults & fault_threads[i].fault))
			continue;
		torture_thread_init(&fault[nfault], run, TORTURE_FAULT, i, fault_threads[i].name);
		start_thread(&fault[nfault++], fault_threads[i].fn);
	}

	wait_for_end(run);
	elapsed = torture_now_ns() - run->start_ns;

	/*
	 * Writers first, while readers still run, after the injectors that
	 * name writers (fault_threads[]); then the other injectors, as the
	 * signals fault must not target a joined reader; then the readers.
	 */
	deadline = join_deadline(run);
	QUIESCE_STORE(&run->writers_stop, true);
	for (unsigned i = 0; i < nfault; i++)
		if (names_writers(run, fault[i].id))
			join_thread(&fault[i], &deadline);
	for (unsigned i = 0; i < opt->writers; i++)
		join_thread(&run->writers[i], &deadline);
	test_hold("QUIESCE_TORTURE_TEST_HOLD_AFTER_WRITERS_MS");
	deadline = join_deadline(run);
	QUIESCE_STORE(&run->stop, true);
	for (unsigned i = 0; i < nfault; i++)
		if (!names_writers(run, fault[i].id))
			join_thread(&fault[i], &deadline);
	for (unsigned i = 0; i < opt->readers; i++)
		join_thread(&run->readers[i], &deadline);
	/* A run that checked nothing fails too (evidence.c). */
	if (!run->unfinished && !torture_violations(run))
		torture_check_evidence(run);
	if (!run->unfinished && type->finish)
		finish_by_deadline(run);

	passed = !torture_violations(run) && !run->unfinished && !run->unchecked;
	if (!opt->quiet)
		torture_report_summary(run, elapsed, passed);
	if (opt->control)
		set_control(opt->control, false);
	if (run->unfinished) {
		/* Threads still run: no exit handlers, no freeing under them. */
		fflush(NULL);
		_exit(1);
	}
	QUIESCE_STORE(&torture_active_run, NULL);
	free(run->state);
	free(run->readers);
	free(run->writers);
	free(run);
	return passed ? 0 : 1;
}
