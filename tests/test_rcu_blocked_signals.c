/*
 * Reader threads that block every signal, as many servers' threads do, on
 * whichever backend the environment chose (tests/rcu.cmake runs it on each).
 *
 *  - A reader that blocks every signal and sleeps in the kernel inside its
 *    section holds the grace period until it leaves; once it sleeps outside
 *    any section, grace periods end without it and without stall warnings.
 *  - A reader that blocks every signal and keeps running: on membarrier and
 *    mprotect, grace periods end and its reads stay safe.  On the signal
 *    backend nothing can make it fence: the grace period must wait (it must
 *    not end early), and a stall warning must name the thread, its name and
 *    the signal it blocks within the timeout; once it unblocks the signal
 *    the grace period ends.  The busted control, a backend that takes every
 *    thread for asleep, ends the grace period early and must be caught.
 *
 *  - On the signal backend, a thread that blocks every signal and, again
 *    and again, registers, sleeps while a grace period signals it, and
 *    leaves the registry, has at most one of the backend's signals queued
 *    (real-time signals queue: one more per registration would exhaust
 *    RLIMIT_SIGPENDING, which all of the user's processes share).
 *
 * Under valgrind a "running" thread spends most of its time asleep in the
 * kernel, waiting for valgrind's one-thread-at-a-time lock, and is rightly
 * excused as asleep: there the signal backend's waiting checks are left out.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_barrier.h"

#define STALL_TIMEOUT_MS 300
#define SECTION_SLEEP_MS 200
#define UPDATES 200

static struct check_record *current;
static atomic_ulong violations, reads;
static atomic_bool stop;

static atomic_bool in_section, left_section;

/* The last barrier-phase stall warning. */
static atomic_int barrier_reports, reported_tid;
static char reported_name[16], reported_detail[512];
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* Warnings naming the sleeper, which it must never get once outside its section. */
static atomic_int sleeper_tid, sleeper_reports;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->tid && stall->tid == atomic_load(&sleeper_tid) && atomic_load(&left_section))
		atomic_fetch_add(&sleeper_reports, 1);
	if (stall->phase != QUIESCE_RCU_STALL_BARRIER)
		return;
	pthread_mutex_lock(&report_lock);
	snprintf(reported_name, sizeof(reported_name), "%s", stall->thread_name);
	snprintf(reported_detail, sizeof(reported_detail), "%s", stall->detail);
	pthread_mutex_unlock(&report_lock);
	atomic_store(&reported_tid, stall->tid);
	atomic_fetch_add(&barrier_reports, 1);
}

static void block_all_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* The sleeper: a section with a sleep in it, then a long sleep outside. */
static int wake_pipe[2];

static void *sleeper(void *arg)
{
	char byte;

	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	atomic_store(&sleeper_tid, (int)syscall(SYS_gettid));
	block_all_signals();
	rcu_read_lock();
	atomic_store(&in_section, true);
	check_sleep_us(SECTION_SLEEP_MS * 1000);
	atomic_store(&left_section, true);
	rcu_read_unlock();
	/* Asleep in the kernel until the test closes the pipe. */
	while (read(wake_pipe[0], &byte, 1) > 0)
		;
	return NULL;
}

/* The spinner: read sections without end, the signals blocked until asked. */
static atomic_int spinner_tid;
static atomic_bool unblock_asked, unblocked;

static void *spinner(void *arg)
{
	sigset_t none;

	(void)arg;
	pthread_setname_np(pthread_self(), "spinner");
	block_all_signals();
	rcu_register_thread();
	atomic_store(&spinner_tid, (int)syscall(SYS_gettid));
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (!check_record_read(&current, 0, false))
			atomic_fetch_add(&violations, 1);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
		if (atomic_load_explicit(&unblock_asked, memory_order_relaxed) &&
		    !atomic_load(&unblocked)) {
			/* Set first: a grace period that sees it may end. */
			atomic_store(&unblocked, true);
			sigemptyset(&none);
			pthread_sigmask(SIG_SETMASK, &none, NULL);
		}
	}
	return NULL;
}

static void *updater(void *arg)
{
	(void)arg;
	for (unsigned long seq = 1; seq <= UPDATES; seq++)
		check_record_replace(&current, seq, seq % 2);
	return NULL;
}

/* One grace period, and whether the spinner still blocked signals at its end. */
static atomic_bool gp_done, gp_ended_early;

static void *one_grace_period(void *arg)
{
	(void)arg;
	synchronize_rcu();
	atomic_store(&gp_ended_early, !atomic_load(&unblocked));
	atomic_store(&gp_done, true);
	return NULL;
}

static void sleeper_checks(pthread_t *t)
{
	pthread_t u;

	CHECK(pipe(wake_pipe) == 0, "pipe");
	pthread_create(t, NULL, sleeper, NULL);
	while (!atomic_load(&in_section))
		check_sleep_us(100);
	synchronize_rcu();
	CHECK(atomic_load(&left_section),
	      "a grace period ended while a reader that blocks all signals was in its section");

	/* It sleeps outside any section now: grace periods need nothing from it. */
	pthread_create(&u, NULL, updater, NULL);
	check_join_within(u, CHECK_HANG_MS, "updates beside a sleeping reader that blocks all signals");
	CHECK(atomic_load(&sleeper_reports) == 0,
	      "%d stall warnings for a reader asleep outside its section",
	      atomic_load(&sleeper_reports));
}

static void start_spinner(pthread_t *t)
{
	pthread_create(t, NULL, spinner, NULL);
	while (!atomic_load(&spinner_tid))
		check_sleep_us(100);
}

/* Signal backend: the grace period waits for the spinner, and says why. */
static void signal_backend_waits(void)
{
	uint64_t deadline = check_now_ns() + CHECK_HANG_MS * 1000000ull;
	pthread_t gp;
	char signal_text[32];

	pthread_create(&gp, NULL, one_grace_period, NULL);
	while (!atomic_load(&barrier_reports) && !atomic_load(&gp_done) &&
	       check_now_ns() < deadline)
		check_sleep_us(1000);
	CHECK(!atomic_load(&gp_done),
	      "the grace period ended while a running reader blocked its signal");
	CHECK(atomic_load(&barrier_reports) > 0, "no stall warning for the blocking reader");
	CHECK(atomic_load(&reported_tid) == atomic_load(&spinner_tid),
	      "the warning names tid %d, the spinner is %d", atomic_load(&reported_tid),
	      atomic_load(&spinner_tid));
	pthread_mutex_lock(&report_lock);
	snprintf(signal_text, sizeof(signal_text), "blocks signal %d", SIGRTMIN + 5);
	CHECK(!strcmp(reported_name, "spinner"), "the warning names \"%s\"", reported_name);
	CHECK(strstr(reported_detail, signal_text) && strstr(reported_detail, "membarrier"),
	      "the warning says neither which signal is blocked nor what to do: %s",
	      reported_detail);
	fprintf(stderr, "stall warning: %s\n", reported_detail);
	pthread_mutex_unlock(&report_lock);

	atomic_store(&unblock_asked, true);
	check_join_within(gp, CHECK_HANG_MS, "the grace period after the reader unblocked its signal");
	CHECK(!atomic_load(&gp_ended_early), "the grace period ended before the unblock");
}

static void busted_child(void *arg)
{
	pthread_t t, gp;
	/* Half the hang limit, so that the child answers before its alarm. */
	uint64_t deadline = check_now_ns() + CHECK_HANG_MS / 2 * 1000000ull;

	(void)arg;
	quiesce_test_busted_asleep = true;
	current = check_record_new(0);
	atomic_store(&stop, false);
	atomic_store(&spinner_tid, 0);
	atomic_store(&unblock_asked, false);
	atomic_store(&unblocked, false);
	atomic_store(&gp_done, false);
	start_spinner(&t);
	pthread_create(&gp, NULL, one_grace_period, NULL);
	while (!atomic_load(&gp_done) && check_now_ns() < deadline)
		check_sleep_us(1000);
	/*
	 * Caught: the grace period ended while the spinner blocked its signal
	 * (with a correct backend it would wait until the deadline).
	 */
	if (atomic_load(&gp_done) && atomic_load(&gp_ended_early))
		_exit(1);
	atomic_store(&unblock_asked, true);
	pthread_join(gp, NULL);
	_exit(0);
}

#define CYCLES 20
static atomic_int cycler_registered, cycler_passed;
static atomic_uint cycler_queued;

static void *cycler(void *arg)
{
	struct timespec zero = { 0, 0 };
	sigset_t all;
	unsigned queued = 0;

	(void)arg;
	block_all_signals();
	for (int i = 1; i <= CYCLES; i++) {
		rcu_register_thread();
		atomic_store(&cycler_registered, i);
		/* Asleep in the kernel, so that the barrier excuses it. */
		while (atomic_load(&cycler_passed) < i)
			check_sleep_us(200);
		rcu_unregister_thread();
	}
	/*
	 * Every signal is blocked here: those sent to this thread are still
	 * queued, and only the backend sends it any.
	 */
	sigfillset(&all);
	while (sigtimedwait(&all, NULL, &zero) >= 0)
		queued++;
	atomic_store(&cycler_queued, queued);
	return NULL;
}

static bool cycler_at(void *arg)
{
	return atomic_load(&cycler_registered) == *(int *)arg;
}

static void signal_backend_one_in_flight(void)
{
	pthread_t t;

	pthread_create(&t, NULL, cycler, NULL);
	for (int i = 1; i <= CYCLES; i++) {
		check_wait_until(cycler_at, &i, "the cycler to register");
		synchronize_rcu();	/* its barrier signals the cycler */
		atomic_store(&cycler_passed, i);
	}
	check_join_within(t, CHECK_HANG_MS, "the cycler");
	CHECK(atomic_load(&cycler_queued) <= 1,
	      "%u of the backend's signals queued to a thread that blocks them, after %d "
	      "registrations: one more each time it registered again",
	      atomic_load(&cycler_queued), CYCLES);
}

int main(void)
{
	bool signal_backend = quiesce_rcu_backend() == QUIESCE_RCU_BACKEND_SIGNAL;
	pthread_t sleeper_thread, spinner_thread, u;

	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	quiesce_rcu_set_stall_timeout_ms(STALL_TIMEOUT_MS);
	quiesce_rcu_set_stall_handler(on_stall);
	current = check_record_new(0);

	sleeper_checks(&sleeper_thread);

	start_spinner(&spinner_thread);
	if (signal_backend && !check_under_valgrind())
		signal_backend_waits();
	else if (signal_backend)
		atomic_store(&unblock_asked, true);
	pthread_create(&u, NULL, updater, NULL);
	check_join_within(u, CHECK_HANG_MS, "updates beside a running reader that blocks all signals");
	atomic_store(&stop, true);
	pthread_join(spinner_thread, NULL);
	CHECK(atomic_load(&violations) == 0, "%lu reads saw freed objects",
	      atomic_load(&violations));
	CHECK(atomic_load(&reads) > 0, "the spinner read");
	free(current);

	close(wake_pipe[1]);
	pthread_join(sleeper_thread, NULL);

	if (signal_backend)
		signal_backend_one_in_flight();
	if (signal_backend && !check_under_valgrind())
		check_child_detects_violation(busted_child, NULL);
	printf("rcu blocked signals: all checks passed\n");
	return 0;
}
