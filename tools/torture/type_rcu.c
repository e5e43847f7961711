/*
 * type_rcu.c - the RCU torture types, which differ only in how writers
 * wait for a grace period: synchronize_rcu(), its expedited form, or the
 * polled API.  Busted, grace periods return without waiting for readers.
 */
#include <quiesce/rcu.h>

#include "rcu_pipeline.h"
#include "torture.h"

#define RCU_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_CHURN | TORTURE_FAULT_FORK | \
		    TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE | TORTURE_FAULT_STALL)
#define POLL_SLEEP_NS_MIN 20000u
#define POLL_SLEEP_NS_SPAN 80000u

static void wait_normal(struct torture_thread *t)
{
	synchronize_rcu();
}

static void wait_expedited(struct torture_thread *t)
{
	synchronize_rcu_expedited();
}

/*
 * Either polls a cookie from start_poll (the library's worker ends the
 * grace period; we sleep between polls) or hands one from get_state to
 * cond_synchronize_rcu() after a while, which may then find it done.
 */
static void wait_polled(struct torture_thread *t)
{
	unsigned long cookie;

	if (torture_one_in(t, 2)) {
		cookie = start_poll_synchronize_rcu();
		/* Woken by the timer: nobody signals the end of a polled wait. */
		while (!poll_state_synchronize_rcu(cookie))
			torture_sleep_ns(POLL_SLEEP_NS_MIN + torture_random(t) % POLL_SLEEP_NS_SPAN);
	} else {
		cookie = get_state_synchronize_rcu();
		torture_sleep_ns(torture_random(t) % POLL_SLEEP_NS_SPAN);
		cond_synchronize_rcu(cookie);
	}
}

static void setup_normal(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &rcu_pipeline_default_domain, wait_normal);
}

static void setup_expedited(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &rcu_pipeline_default_domain, wait_expedited);
}

static void setup_polled(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &rcu_pipeline_default_domain, wait_polled);
}

#define RCU_TYPE(type_name, type_doc, setup_fn)                 \
	{                                                       \
		.name = type_name,                              \
		.doc = type_doc,                                \
		.faults = RCU_FAULTS,                           \
		.controls = rcu_pipeline_controls,              \
		.setup = setup_fn,                              \
		.thread_start = rcu_pipeline_thread_start,      \
		.thread_stop = rcu_pipeline_thread_stop,        \
		.read = rcu_pipeline_read,                      \
		.write = rcu_pipeline_write,                    \
		.signal_read = rcu_pipeline_signal_read,        \
		.signal_writers = true,                         \
		.grace_periods = rcu_pipeline_grace_periods,    \
		.evidence = rcu_pipeline_evidence,              \
		.finish = rcu_pipeline_finish,                  \
		.report = rcu_pipeline_report,                  \
	}

const struct torture_type torture_type_rcu =
	RCU_TYPE("rcu", "RCU readers, writers waiting in synchronize_rcu()", setup_normal);
const struct torture_type torture_type_rcu_expedited =
	RCU_TYPE("rcu-expedited", "RCU readers, writers in synchronize_rcu_expedited()",
		 setup_expedited);
const struct torture_type torture_type_rcu_poll =
	RCU_TYPE("rcu-poll", "RCU readers, writers on the polled grace-period API", setup_polled);
