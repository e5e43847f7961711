/*
 * gp_barrier_signal.c - the fallback heavy barrier: a signal to each
 * registered thread, whose handler executes the fence and answers.
 *
 * The signal is SIGRTMIN+5 unless QUIESCE_RCU_SIGNAL names another.  A
 * reader thread must not block it for long: a grace period waits for the
 * answer.  Handlers use SA_RESTART, so most interrupted system calls resume.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/diag.h"
#include "rcu/gp_barrier.h"
#include "rcu/registry.h"

static int barrier_signal;

static void barrier_handler(int sig, siginfo_t *info, void *ctx)
{
	struct quiesce_registry_entry *self = quiesce_registry_self();

	/*
	 * The reader's full fence: its earlier stores become visible and its
	 * later loads see what the grace period stored before signalling.
	 * Pairs with the fences in quiesce_gp_barrier_signal().
	 */
	quiesce_fence_store_load();
	QUIESCE_STORE_RELEASE(&self->barrier_pending, 0);
}

void quiesce_gp_barrier_signal_init(void)
{
	struct sigaction sa;
	uint64_t sig;

	barrier_signal = SIGRTMIN + 5;
	if (quiesce_env_u64("QUIESCE_RCU_SIGNAL", &sig))
		barrier_signal = (int)sig;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = barrier_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(barrier_signal, &sa, NULL))
		quiesce_die("cannot install the grace-period signal %d: %s", barrier_signal,
			    strerror(errno));
}

static bool answers_pending(int self_tid)
{
	bool pending = false;

	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		/* Acquire: pairs with the handler's release. */
		if (e->tid != self_tid && QUIESCE_LOAD_ACQUIRE(&e->barrier_pending))
			pending = true;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return pending;
}

void quiesce_gp_barrier_signal(void)
{
	pid_t pid = getpid();
	int self_tid = quiesce_gettid();

	/* Orders the caller's earlier stores before the readers' fences. */
	quiesce_fence_store_load();
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		if (e->tid == self_tid)
			continue;
		QUIESCE_STORE(&e->barrier_pending, 1);
		if (syscall(SYS_tgkill, pid, e->tid, barrier_signal))
			quiesce_die("tgkill(%d) failed: %s", e->tid, strerror(errno));
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	/*
	 * Woken by nothing: each handler clears its thread's flag, and a
	 * thread that unregisters meanwhile leaves the list (its unregistering
	 * fence answers for it).  The lock is not held between polls, so that
	 * such a thread can take it.
	 */
	while (answers_pending(self_tid))
		sched_yield();
	/* Orders the readers' answered fences before the caller's scan. */
	quiesce_fence_store_load();
}
