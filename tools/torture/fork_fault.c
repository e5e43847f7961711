/*
 * fork_fault.c - the fork fault: in the middle of the run (and every
 * FORK_PERIOD_NS in a long one) a thread that is registered with the
 * primitive, but holds nothing, calls fork().  The child keeps only that
 * thread; it runs a short torture of its own, with fresh state, and must
 * pass.  The parent carries on meanwhile.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults.h"
#include "torture.h"

#define FORK_PERIOD_NS (30ull * 1000000000u)
#define CHILD_DURATION_NS 1000000000ull
#define POLL_NS 50000000ull
#define REAP_POLL_NS 10000000ull

static int child_torture(struct torture_run *parent)
{
	struct torture_options opt = *parent->opt;

	opt.duration_ns = CHILD_DURATION_NS;
	opt.readers = 2;
	opt.writers = 1;
	opt.faults &= TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP;
	opt.seed ^= 0x5eed0f0f0f0f0f0fULL;
	opt.quiet = true;
	opt.is_child = true;
	opt.stop_on_violation = true;
	return torture_main(&opt, parent->type);
}

/*
 * Reaps the child, or kills it once it has had its run and half a join
 * timeout more: a child stuck in a primitive is a violation to report, and
 * this thread must still finish within its own join timeout after the
 * parent's run.  Returns false for a child that had to be killed.
 */
static bool reap_child(struct torture_run *run, pid_t pid, int *status)
{
	uint64_t deadline = torture_now_ns() + CHILD_DURATION_NS + run->opt->join_timeout_ns / 2;
	pid_t got;

	/* Polled: nothing wakes this thread when the child exits. */
	while ((got = waitpid(pid, status, WNOHANG)) == 0 && torture_now_ns() < deadline)
		torture_sleep_ns(REAP_POLL_NS);
	if (got == pid)
		return true;
	kill(pid, SIGKILL);
	/* Woken by the killed child's exit. */
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return false;
}

static void fork_and_check(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("quiesce-torture: fork");
		return;
	}
	if (pid == 0)
		_exit(child_torture(run));
	__atomic_fetch_add(&run->forks, 1, __ATOMIC_RELAXED);
	if (!reap_child(run, pid, &status)) {
		torture_violation(run, TV_FORK_CHILD, "the child of fork() did not finish its "
				  "torture in time (killed)");
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (WIFEXITED(status))
		torture_violation(run, TV_FORK_CHILD, "the child of fork() failed its torture (exit %d)",
				  WEXITSTATUS(status));
	else
		torture_violation(run, TV_FORK_CHILD, "the child of fork() died of signal %d",
				  WTERMSIG(status));
}

void *torture_fork_main(void *arg)
{
	struct torture_thread *t = arg;
	struct torture_run *run = t->run;
	const struct torture_type *type = run->type;
	uint64_t half = run->opt->duration_ns / 2;
	uint64_t next = run->start_ns + (half < FORK_PERIOD_NS ? half : FORK_PERIOD_NS);

	torture_self = t;
	pthread_setname_np(pthread_self(), t->name);
	if (type->thread_start)
		type->thread_start(t);
	while (!torture_stopping(run)) {
		uint64_t now = torture_now_ns();

		if (now < next) {
			torture_sleep_ns(next - now < POLL_NS ? next - now : POLL_NS);
			continue;
		}
		/* Registered with the primitive, as a reader, then forks. */
		type->read(t);
		fork_and_check(t);
		next += FORK_PERIOD_NS;
	}
	if (type->thread_stop)
		type->thread_stop(t, true);
	return NULL;
}
