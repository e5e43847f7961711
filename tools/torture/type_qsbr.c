/*
 * type_qsbr.c - the qsbr torture type: rcutorture's pipeline-age check
 * (rcu_pipeline.h says how it works) on the QSBR domain, whose readers
 * announce quiescent states instead of marking sections.
 *
 * Readers stay online, announce a quiescent state after each section and
 * now and then go offline around a sleep; threads that are not readers
 * (writers, the fork fault's thread) are registered and offline, going
 * online only for a section, so that none sleeps online.  Churn threads
 * exit online and registered half the time: the exit destructor must let
 * grace periods go on.  A signal handler reads only when its thread is
 * online.  Writers wait with synchronize or a start_poll cookie.  Busted,
 * grace periods do not wait for the first thread that holds them.
 */
#include <quiesce/rcu_qsbr.h>

#include "rcu/gp_engine.h"
#include "rcu/qsbr.h"
#include "rcu_pipeline.h"
#include "torture.h"

#define QSBR_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN | \
		     TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE)
#define POLL_SLEEP_NS 50000u

/* Sections only document intent: a thread is protected while online. */
static int qsbr_read_lock(struct rcu_pipeline *p)
{
	rcu_qsbr_read_lock();
	return 0;
}

static void qsbr_read_unlock(struct rcu_pipeline *p, int idx)
{
	rcu_qsbr_read_unlock();
}

static unsigned long qsbr_get_state(struct rcu_pipeline *p)
{
	return rcu_qsbr_get_state_synchronize_rcu();
}

static bool qsbr_poll_state(struct rcu_pipeline *p, unsigned long cookie)
{
	return rcu_qsbr_poll_state_synchronize_rcu(cookie);
}

static const struct rcu_pipeline_domain qsbr_domain = {
	.register_thread = quiesce_qsbr_register_thread,
	.unregister_thread = quiesce_qsbr_unregister_thread,
	.read_lock = qsbr_read_lock,
	.read_unlock = qsbr_read_unlock,
	.get_state = qsbr_get_state,
	.poll_state = qsbr_poll_state,
};

static const struct torture_control controls[] = {
	{ .name = "", .doc = "grace periods do not wait for the first thread that holds them",
	  .flag = &quiesce_test_busted_qsbr },
	{ .name = NULL },
};

static void qsbr_wait(struct torture_thread *t)
{
	if (torture_one_in(t, 4)) {
		unsigned long cookie = rcu_qsbr_start_poll_synchronize_rcu();

		/* Woken by the timer: the callback thread ends the grace period. */
		while (!rcu_qsbr_poll_state_synchronize_rcu(cookie))
			torture_sleep_ns(POLL_SLEEP_NS);
	} else {
		rcu_qsbr_synchronize_rcu();
	}
}

static void setup(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &qsbr_domain, qsbr_wait);
}

static bool stays_online(const struct torture_thread *t)
{
	return t->role == TORTURE_READER || t->role == TORTURE_CHURN;
}

static void thread_start(struct torture_thread *t)
{
	rcu_pipeline_thread_start(t);
	if (!stays_online(t))
		rcu_qsbr_thread_offline();
}

static void qsbr_read(struct torture_thread *t)
{
	if (!stays_online(t)) {
		rcu_qsbr_thread_online();
		rcu_pipeline_read(t);
		rcu_qsbr_thread_offline();
		return;
	}
	rcu_pipeline_read(t);
	if (!torture_one_in(t, 8))
		rcu_qsbr_quiescent_state();
	if (torture_one_in(t, 32))
		rcu_qsbr_offline_while(torture_hold_sleep(t));
}

static void signal_read(struct torture_thread *t)
{
	if (rcu_qsbr_thread_online_p())
		rcu_pipeline_signal_read(t);
}

static uint64_t grace_periods(struct torture_run *run)
{
	return quiesce_gp_seq_current(&quiesce_qsbr_domain) >> 1;
}

const struct torture_type torture_type_qsbr = {
	.name = "qsbr",
	.doc = "QSBR readers announcing quiescent states, writers synchronize or poll",
	.faults = QSBR_FAULTS,
	.controls = controls,
	.setup = setup,
	.thread_start = thread_start,
	.thread_stop = rcu_pipeline_thread_stop,
	.read = qsbr_read,
	.write = rcu_pipeline_write,
	.signal_read = signal_read,
	.grace_periods = grace_periods,
	.evidence = rcu_pipeline_evidence,
	.finish = rcu_pipeline_finish,
	.report = rcu_pipeline_report,
};
