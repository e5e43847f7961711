/*
 * type_rcu_mb.c - the rcu-mb torture type: rcutorture's pipeline-age
 * check (rcu_pipeline.h says how it works) on the mb domain
 * (quiesce/rcu_mb.h), whose readers fence and whose grace periods issue
 * no heavy barrier.  Writers wait with synchronize, its expedited form, a
 * start_poll cookie or cond_synchronize.  Busted, grace periods wait for
 * no reader.
 */
#include <quiesce/rcu_mb.h>

#include "rcu/rcu_mb.h"
#include "rcu_pipeline.h"
#include "torture.h"

#define RCU_MB_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_CHURN | TORTURE_FAULT_FORK | \
		       TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE)
#define POLL_SLEEP_NS_MIN 20000u
#define POLL_SLEEP_NS_SPAN 80000u

static int mb_read_lock(struct rcu_pipeline *p)
{
	rcu_mb_read_lock();
	return 0;
}

static void mb_read_unlock(struct rcu_pipeline *p, int idx)
{
	rcu_mb_read_unlock();
}

static unsigned long mb_get_state(struct rcu_pipeline *p)
{
	return get_state_synchronize_rcu_mb();
}

static bool mb_poll_state(struct rcu_pipeline *p, unsigned long cookie)
{
	return poll_state_synchronize_rcu_mb(cookie);
}

static const struct rcu_pipeline_domain mb_domain = {
	.register_thread = quiesce_rcu_mb_register_thread,
	.unregister_thread = quiesce_rcu_mb_unregister_thread,
	.read_lock = mb_read_lock,
	.read_unlock = mb_read_unlock,
	.get_state = mb_get_state,
	.poll_state = mb_poll_state,
};

static const struct torture_control controls[] = {
	{ .name = "", .doc = "mb grace periods do not wait for any reader",
	  .flag = &quiesce_test_busted_rcu_mb },
	{ .name = NULL },
};

static void mb_wait(struct torture_thread *t)
{
	unsigned long cookie;

	switch (torture_random(t) % 4) {
	case 0:
		cookie = start_poll_synchronize_rcu_mb();
		/* Woken by the timer: the callback thread ends the grace period. */
		while (!poll_state_synchronize_rcu_mb(cookie))
			torture_sleep_ns(POLL_SLEEP_NS_MIN + torture_random(t) % POLL_SLEEP_NS_SPAN);
		break;
	case 1:
		cookie = get_state_synchronize_rcu_mb();
		torture_sleep_ns(torture_random(t) % POLL_SLEEP_NS_SPAN);
		cond_synchronize_rcu_mb(cookie);
		break;
	case 2:
		synchronize_rcu_mb_expedited();
		break;
	default:
		synchronize_rcu_mb();
		break;
	}
}

static void setup(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &mb_domain, mb_wait);
}

static uint64_t grace_periods(struct torture_run *run)
{
	return quiesce_gp_seq_current(&quiesce_rcu_mb_domain) >> 1;
}

const struct torture_type torture_type_rcu_mb = {
	.name = "rcu-mb",
	.doc = "mb-domain readers (fenced), writers synchronize, expedite or poll",
	.faults = RCU_MB_FAULTS,
	.controls = controls,
	.setup = setup,
	.thread_start = rcu_pipeline_thread_start,
	.thread_stop = rcu_pipeline_thread_stop,
	.read = rcu_pipeline_read,
	.write = rcu_pipeline_write,
	.signal_read = rcu_pipeline_signal_read,
	.grace_periods = grace_periods,
	.evidence = rcu_pipeline_evidence,
	.finish = rcu_pipeline_finish,
	.report = rcu_pipeline_report,
};
