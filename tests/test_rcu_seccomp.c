/*
 * The automatic backend choice when membarrier() is denied, for real.  A
 * child installs a seccomp filter that fails membarrier() with ENOSYS (as
 * an old kernel does) or EPERM (as a container profile does), then runs
 * this program again under it (the choice is made at library start-up).
 * There the library must have chosen the next backend of the chain that
 * works here (mprotect on x86, signal elsewhere), and RCU must hold: a
 * stress loop whose readers check for poisoned memory, and readers that
 * block every signal.  A third run forces QUIESCE_RCU_BACKEND=membarrier
 * under the filter: it must say why it cannot, and fall back.  The stress
 * loop's busted control (grace periods that do not wait) must be caught.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_barrier.h"
#include "rcu/gp_engine.h"

#define READERS 2
#define STRESS_MS 400

static struct check_record *current;
static atomic_bool stop;
static atomic_ulong violations, updates, reads;

static void read_once(void)
{
	if (!check_record_read(&current, 200, false))
		atomic_fetch_add(&violations, 1);
	atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
}

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		read_once();
	return NULL;
}

static void block_all_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* Readers that block every signal: one sleeps between sections, one never. */
static void *sleeping_blocker(void *arg)
{
	(void)arg;
	block_all_signals();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		read_once();
		check_sleep_us(20000);
	}
	return NULL;
}

static void *running_blocker(void *arg)
{
	(void)arg;
	block_all_signals();
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		read_once();
	return NULL;
}

static void *updater(void *arg)
{
	unsigned long seq = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		++seq;
		check_record_replace(&current, seq, seq % 2);
		atomic_fetch_add(&updates, 1);
	}
	return NULL;
}

/* Progress both sides must make: the sleeping reader reads 50 times a second. */
static bool stress_enough(void)
{
	return atomic_load(&reads) >= 20 && atomic_load(&updates) >= 50;
}

/* The busted control: caught, or given this many updates. */
static bool busted_enough(void)
{
	return atomic_load(&violations) || atomic_load(&updates) >= 20000;
}

static unsigned long stress(void *(*readers)(void *), int n, bool (*enough)(void))
{
	atomic_store(&stop, false);
	atomic_store(&violations, 0);
	atomic_store(&updates, 0);
	atomic_store(&reads, 0);
	current = check_record_new(0);
	check_run_until(STRESS_MS, enough, &stop, n, readers, 1, updater);
	fprintf(stderr, "%lu reads, %lu updates, %lu violations\n", atomic_load(&reads),
		atomic_load(&updates), atomic_load(&violations));
	free(current);
	return atomic_load(&violations);
}

/* Under the filter: the backend chosen, and RCU on it. */
static int under_filter(const char *expected_errno)
{
	int expected = !strcmp(expected_errno, "EPERM") ? EPERM : ENOSYS;
	const char *why_not = NULL;
	enum quiesce_rcu_backend want =
		quiesce_gp_barrier_mprotect_init(&why_not) ? QUIESCE_RCU_BACKEND_MPROTECT
							   : QUIESCE_RCU_BACKEND_SIGNAL;

	errno = 0;
	CHECK(syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) == -1 && errno == expected,
	      "the filter does not deny membarrier() with %s (errno %d)", expected_errno, errno);
	fprintf(stderr, "membarrier() denied with %s: backend %s%s%s\n", expected_errno,
		quiesce_rcu_backend_name(), why_not ? "; mprotect not valid here: " : "",
		why_not ? why_not : "");
	CHECK(quiesce_rcu_backend() == want, "chose %s", quiesce_rcu_backend_name());

	CHECK(stress(reader, READERS, stress_enough) == 0,
	      "readers saw freed objects under the %s backend", quiesce_rcu_backend_name());
	CHECK(stress(sleeping_blocker, 1, stress_enough) == 0,
	      "a reader that blocks all signals and sleeps");
	/* Such a reader that never sleeps holds the signal backend (by design). */
	if (want != QUIESCE_RCU_BACKEND_SIGNAL)
		CHECK(stress(running_blocker, 1, stress_enough) == 0,
		      "a reader that blocks all signals and runs");
	return 0;
}

struct filtered_run {
	int err;
	const char *err_name;
	const char *force;	/* QUIESCE_RCU_BACKEND for the run, or NULL */
};

static void run_filtered(void *arg)
{
	const struct filtered_run *run = arg;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	CHECK(n > 0, "readlink(/proc/self/exe): %s", strerror(errno));
	self[n] = '\0';
	if (run->force)
		setenv("QUIESCE_RCU_BACKEND", run->force, 1);
	else
		unsetenv("QUIESCE_RCU_BACKEND");
	check_deny_membarrier(run->err);
	execl(self, self, "--under-filter", run->err_name, (char *)NULL);
	CHECK(0, "exec %s: %s", self, strerror(errno));
}

static void busted_child(void *arg)
{
	(void)arg;
	quiesce_test_busted_gp = true;
	check_child_exit(stress(reader, READERS, busted_enough) ? 1 : 0);
}

int main(int argc, char **argv)
{
	const struct filtered_run runs[] = {
		{ ENOSYS, "ENOSYS", NULL },
		{ EPERM, "EPERM", NULL },
		{ EPERM, "EPERM", "membarrier" },
	};
	char err[8192];

	if (argc == 3 && !strcmp(argv[1], "--under-filter"))
		return under_filter(argv[2]);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		int status = check_run_child(run_filtered, (void *)&runs[i], err, sizeof(err));

		fprintf(stderr, "--- membarrier() denied with %s%s%s:\n%s", runs[i].err_name,
			runs[i].force ? ", QUIESCE_RCU_BACKEND=" : "",
			runs[i].force ? runs[i].force : "", err);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
		if (runs[i].force)
			CHECK(strstr(err, "ignoring QUIESCE_RCU_BACKEND=membarrier"),
			      "a forced backend that cannot work is not reported");
	}
	check_child_detects_violation(busted_child, NULL);
	printf("rcu seccomp: all checks passed\n");
	return 0;
}
