/*
 * gp_worker.c - the background thread that drives grace periods asked for
 * by start_poll_synchronize_rcu(), so that nobody has to block for them.
 *
 * Started on the first request; after fork() the child starts its own on
 * its first request.  It runs normal grace periods: whoever polls is, by
 * choosing to poll, not in a hurry.
 */
#include <pthread.h>
#include <signal.h>

#include <quiesce/rcu.h>

#include "common/diag.h"
#include "rcu/gp_engine.h"
#include "rcu/gp_seq.h"

static pthread_mutex_t worker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t worker_wake = PTHREAD_COND_INITIALIZER;
static unsigned long worker_target;	/* the latest snapshot asked for */
static bool worker_started;

static void *gp_worker(void *unused)
{
	pthread_mutex_lock(&worker_lock);
	for (;;) {
		unsigned long target = worker_target;

		if (quiesce_gp_seq_done(quiesce_gp_seq_current(&quiesce_rcu_domain), target)) {
			/* Woken by quiesce_start_poll_synchronize_rcu(). */
			pthread_cond_wait(&worker_wake, &worker_lock);
			continue;
		}
		pthread_mutex_unlock(&worker_lock);
		quiesce_gp_wait_for(&quiesce_rcu_domain, target, false);
		pthread_mutex_lock(&worker_lock);
	}
	return NULL;
}

static void start_worker(void)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* The worker inherits a full signal mask: the process's signals are
	 * for its own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&thread, &attr, gp_worker, NULL))
		quiesce_die("cannot start the grace-period worker thread");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	pthread_setname_np(thread, "quiesce-gp");
	worker_started = true;
}

unsigned long quiesce_start_poll_synchronize_rcu(void)
{
	unsigned long cookie = quiesce_get_state_synchronize_rcu();

	pthread_mutex_lock(&worker_lock);
	if (!worker_started)
		start_worker();
	if ((long)(cookie - worker_target) > 0)
		worker_target = cookie;
	pthread_cond_signal(&worker_wake);
	pthread_mutex_unlock(&worker_lock);
	return cookie;
}

static void worker_child_after_fork(void)
{
	pthread_mutex_init(&worker_lock, NULL);
	pthread_cond_init(&worker_wake, NULL);
	worker_started = false;
}

__attribute__((constructor)) static void gp_worker_init(void)
{
	pthread_atfork(NULL, NULL, worker_child_after_fork);
}
