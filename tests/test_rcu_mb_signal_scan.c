/*
 * A signal handler's first mb section, on a registered thread that is in
 * the middle of an mb grace period's scan, holding the registry lock.
 *
 * The thread is registered (the default RCU) and has never used the mb
 * domain.  It calls synchronize_rcu_mb(); the engine's test hook raises
 * SIGUSR1 in it from inside the scan, where it holds the registry lock,
 * and the handler enters and leaves an mb section: the domain's first use
 * by this thread, which must not take that lock (it would wait for ever
 * on its own thread).  Then the mb domain must wait for the thread's
 * sections: a grace period that another thread runs while this one holds
 * a section is reported as a stall on a reader before it may end.  All of
 * it runs in a child, so that a hang is reported as one after
 * CHECK_HANG_MS.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>

#include "check.h"
#include "rcu/gp_engine.h"
#include "rcu/rcu_mb.h"

#define STALL_TIMEOUT_MS 50

static atomic_bool handled, handler_in_section, stalled, synchronized;
static _Thread_local bool armed;

static void on_signal(int sig)
{
	int saved_errno = errno;

	(void)sig;
	rcu_mb_read_lock();
	atomic_store(&handler_in_section, rcu_mb_read_ongoing());
	rcu_mb_read_unlock();
	atomic_store(&handled, true);
	errno = saved_errno;
}

/* The engine's hook: raises the signal in the scanning thread, lock held. */
static void hook(struct quiesce_gp_domain *d, int where)
{
	if (where != QUIESCE_GP_HOOK_SCANNING || d != &quiesce_rcu_mb_domain || !armed)
		return;
	armed = false;
	raise(SIGUSR1);
}

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->phase == QUIESCE_RCU_STALL_READER)
		atomic_store(&stalled, true);
}

static void *synchronizer(void *unused)
{
	(void)unused;
	synchronize_rcu_mb();
	atomic_store(&synchronized, true);
	return NULL;
}

static bool stalled_or_synchronized(void *unused)
{
	(void)unused;
	return atomic_load(&stalled) || atomic_load(&synchronized);
}

static void first_section_in_scan(void *unused)
{
	struct sigaction sa;
	pthread_t t;

	(void)unused;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	rcu_register_thread();
	CHECK(quiesce_rcu_mb_reader_self.ctr == QUIESCE_RCU_UNREGISTERED,
	      "the thread used the mb domain before the test");

	quiesce_test_gp_hook = hook;
	armed = true;
	synchronize_rcu_mb();
	quiesce_test_gp_hook = NULL;
	CHECK(atomic_load(&handled), "the hook never raised the signal in the scan");
	CHECK(atomic_load(&handler_in_section),
	      "the handler's rcu_mb_read_lock() did not enter a section");

	/* The thread's next section holds up another thread's grace period. */
	quiesce_rcu_set_stall_timeout_ms(STALL_TIMEOUT_MS);
	quiesce_rcu_set_stall_handler(on_stall);
	rcu_mb_read_lock();
	pthread_create(&t, NULL, synchronizer, NULL);
	check_wait_until(stalled_or_synchronized, NULL, "the grace period neither ended nor stalled");
	CHECK(!atomic_load(&synchronized),
	      "an mb grace period ended while a thread whose first mb section was a signal "
	      "handler's held a section");
	rcu_mb_read_unlock();
	pthread_join(t, NULL);
	rcu_unregister_thread();
	exit(0);
}

int main(void)
{
	char err[512];
	int status = check_run_child(first_section_in_scan, NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child failed (%s): %s",
	      WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "hung" : "status", err);
	return 0;
}
