/*
 * fork() called from a call_rcu() callback, which the API forbids: the
 * child, a copy of the callback thread whose batches the child's fork
 * handler dropped, goes back into the library when the callback returns.
 * It must die there with a message, at once, not run on with the callback
 * thread's state reset under it (it counted its batches below zero, copied
 * past them and spun for ever with every signal blocked).  The parent's
 * callback thread goes on.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define HANG_S ((int)(CHECK_HANG_MS / 1000))

static int err_pipe[2];
static atomic_int child;
static atomic_ulong ran;

static void forking(struct rcu_head *head)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* The child's message goes to the parent; then back into the library. */
		dup2(err_pipe[1], STDERR_FILENO);
		return;
	}
	atomic_store(&child, pid);
}

static void count(struct rcu_head *head)
{
	atomic_fetch_add(&ran, 1);
}

int main(void)
{
	static struct rcu_head fork_head, later_head;
	uint64_t deadline;
	char err[4096];
	ssize_t len, n;
	int status;
	pid_t pid;

	CHECK(pipe(err_pipe) == 0, "pipe");
	call_rcu(&fork_head, forking);
	rcu_barrier();
	pid = atomic_load(&child);
	CHECK(pid > 0, "the callback's fork() failed");
	close(err_pipe[1]);
	deadline = check_now_ns() + HANG_S * 1000000000ull;
	/* Polled: the child ends by itself or not at all. */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (check_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			CHECK(false, "the child of a fork() in a callback still ran after %d s",
			      HANG_S);
		}
		check_sleep_us(1000);
	}
	for (len = 0; len < (ssize_t)sizeof(err) - 1; len += n)
		if ((n = read(err_pipe[0], err + len, sizeof(err) - 1 - len)) <= 0)
			break;
	err[len] = '\0';
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	      "the child of a fork() in a callback was not aborted (status %#x): %s", status,
	      err);
	CHECK(strstr(err, "fork() called from an RCU callback"),
	      "the child's message does not name the fork() in a callback: %s", err);
	call_rcu(&later_head, count);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 1, "the parent's callback thread went on: %lu",
	      atomic_load(&ran));
	printf("call_rcu fork in a callback: all checks passed\n");
	return 0;
}
