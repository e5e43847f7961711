/*
 * type_srcu.c - SRCU readers, which may sleep inside their sections, and
 * writers that wait in synchronize_srcu(), its expedited form or the
 * polled API (start_poll's grace periods run by the domain's callback
 * thread), on one domain of the run's own.
 *
 * The check is the RCU types' pipeline age (rcu_pipeline.h): an element
 * is 0 while current, 1 once removed, one more after each grace period its
 * writer waits for; a reader that finds age 2 or more at the end of its
 * section, or a poisoned element, caught a grace period that did not wait
 * for it.  Under the delay fault, one lock in 16 also stops between the
 * look at the domain's index and the add (QUIESCE_TEST_SRCU_LOCK_WINDOW),
 * as a preempted reader would: such readers add to an index grace periods
 * flipped away from, which is what the busted variant gets wrong (it skips
 * the wait for the index readers are not taking: src/rcu/srcu.h).
 */
#include <inttypes.h>

#include "rcu_pipeline.h"
#include "torture.h"

static void srcu_lock_window(void);
#define QUIESCE_TEST_SRCU_LOCK_WINDOW() srcu_lock_window()
#include <quiesce/srcu.h>

#include "rcu/srcu.h"

#define SRCU_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN | \
		     TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE)

/* The run's state: the pipeline first, then its domain. */
struct srcu_torture {
	struct rcu_pipeline pipeline;
	struct srcu_struct ss;
	uint64_t sleeps;		/* sections that slept */
	uint64_t final_grace_periods;	/* counted in finish, before the cleanup */
	bool cleaned_up;
};

static struct srcu_torture *srcu_of(struct rcu_pipeline *p)
{
	return container_of(p, struct srcu_torture, pipeline);
}

static void srcu_lock_window(void)
{
	struct torture_thread *t = torture_self;

	if (t && (t->run->opt->faults & TORTURE_FAULT_DELAY) && torture_one_in(t, 16)) {
		torture_count_delay(t);
		torture_sleep_ns(torture_random(t) % 500000);
	}
}

static int torture_srcu_read_lock(struct rcu_pipeline *p)
{
	return srcu_read_lock(&srcu_of(p)->ss);
}

static void torture_srcu_read_unlock(struct rcu_pipeline *p, int idx)
{
	srcu_read_unlock(&srcu_of(p)->ss, idx);
}

/* SRCU readers may sleep: now and then, hold the section across one. */
static void torture_srcu_read_hold(struct torture_thread *t)
{
	struct srcu_torture *s = srcu_of(t->run->state);

	if ((t->run->opt->faults & TORTURE_FAULT_SLEEP) && torture_one_in(t, 16)) {
		torture_count_sleep(t);
		torture_sleep_ns(10000 + torture_random(t) % 500000);
		__atomic_fetch_add(&s->sleeps, 1, __ATOMIC_RELAXED);
	}
}

static unsigned long torture_srcu_get_state(struct rcu_pipeline *p)
{
	return get_state_synchronize_srcu(&srcu_of(p)->ss);
}

static bool torture_srcu_poll_state(struct rcu_pipeline *p, unsigned long cookie)
{
	return poll_state_synchronize_srcu(&srcu_of(p)->ss, cookie);
}

/*
 * A thread's first section registers it as rcu_read_lock() does, which
 * takes a lock: a section in a signal handler may not be the first.
 */
static const struct rcu_pipeline_domain srcu_domain = {
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = torture_srcu_read_lock,
	.read_unlock = torture_srcu_read_unlock,
	.read_hold = torture_srcu_read_hold,
	.get_state = torture_srcu_get_state,
	.poll_state = torture_srcu_poll_state,
};

static const struct torture_control controls[] = {
	/* Its window is the delay fault's stop in srcu_lock_window(). */
	{ .name = "", .doc = "a grace period skips its wait for the index readers are not taking",
	  .flag = &quiesce_test_busted_srcu, .faults = TORTURE_FAULT_DELAY },
	{ .name = NULL },
};

static void wait_grace_period(struct torture_thread *t)
{
	struct srcu_struct *ss = &srcu_of(t->run->state)->ss;
	unsigned long cookie;

	switch (torture_random(t) % 5) {
	case 0:
		synchronize_srcu_expedited(ss);
		break;
	case 1:
		cookie = get_state_synchronize_srcu(ss);
		while (!poll_state_synchronize_srcu(ss, cookie))
			synchronize_srcu(ss);
		break;
	case 2:
		/* The domain's callback thread ends it; woken by the timer. */
		cookie = start_poll_synchronize_srcu(ss);
		while (!poll_state_synchronize_srcu(ss, cookie))
			torture_sleep_ns(20000 + torture_random(t) % 80000);
		break;
	default:
		synchronize_srcu(ss);
	}
}

static void srcu_setup(struct torture_run *run)
{
	struct rcu_pipeline *p =
		rcu_pipeline_setup(run, sizeof(struct srcu_torture), &srcu_domain, wait_grace_period);

	quiesce_init_srcu_struct_name(&srcu_of(p)->ss, "torture");
}

static uint64_t srcu_grace_periods(struct torture_run *run)
{
	struct srcu_torture *s = srcu_of(run->state);

	if (QUIESCE_LOAD_ACQUIRE(&s->cleaned_up))
		return s->final_grace_periods;
	/* A cookie names the end of the next grace period: two steps ahead. */
	return (get_state_synchronize_srcu(&s->ss) >> 1) - 1;
}

static void srcu_finish(struct torture_run *run)
{
	struct srcu_torture *s = srcu_of(run->state);

	rcu_pipeline_finish(run);
	/* Every thread has finished: no section is open, no grace period runs. */
	s->final_grace_periods = srcu_grace_periods(run);
	QUIESCE_STORE_RELEASE(&s->cleaned_up, true);
	cleanup_srcu_struct(&s->ss);
}

static void srcu_report(struct torture_run *run, FILE *out, bool json)
{
	uint64_t sleeps = QUIESCE_LOAD(&srcu_of(run->state)->sleeps);

	rcu_pipeline_report(run, out, json);
	if (json)
		fprintf(out, ",\"sections_slept\":%" PRIu64, sleeps);
	else
		fprintf(out, "  sections that slept: %" PRIu64 "\n", sleeps);
}

const struct torture_type torture_type_srcu = {
	.name = "srcu",
	.doc = "SRCU readers that may sleep, writers in synchronize_srcu() and friends",
	.faults = SRCU_FAULTS,
	.controls = controls,
	.setup = srcu_setup,
	.thread_start = rcu_pipeline_thread_start,
	.thread_stop = rcu_pipeline_thread_stop,
	.read = rcu_pipeline_read,
	.write = rcu_pipeline_write,
	.signal_read = rcu_pipeline_signal_read,
	.grace_periods = srcu_grace_periods,
	.evidence = rcu_pipeline_evidence,
	.finish = srcu_finish,
	.report = srcu_report,
};
