/*
 * type_call_rcu.c - the call-rcu torture type, as rcutorture's deferred
 * free: a writer removes an element and hands it to call_rcu(); each
 * callback ages it by one grace period and queues it again until it reaches
 * RCU_PIPE_LEN, so the pipeline-age check of the RCU types applies as is.
 * Writer i's callbacks take route i % 3: the library's callback thread, a
 * callback worker pinned to the last CPU the run may use, an unpinned one
 * (<quiesce/call_rcu_worker.h>); one route a writer, so that one thread at
 * a time ages its elements and fills its quarantine.  Writers now and then
 * call rcu_barrier(), which must
 * wait for the workers too, and check that every callback they queued
 * before it has run; at the end, every element must have come through.
 * Evicted elements are freed with free_rcu().  Each callback checks that
 * a grace period has passed since its call (the polled state taken just
 * before it).  Busted, callbacks run without waiting for a grace period,
 * on the workers too; busted "barrier", rcu_barrier() forgets the workers;
 * busted "lost", callbacks go missing; busted "twice", a callback runs
 * twice in a row, and the second run finds no grace period since the call
 * that the first one made.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>

#include "rcu/cb_domain.h"
#include "rcu_pipeline.h"
#include "torture.h"

#define RCU_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_CHURN | TORTURE_FAULT_FORK | \
		    TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE | TORTURE_FAULT_STALL)
/* One writer operation in this many ends with an rcu_barrier() check. */
#define BARRIER_EVERY 64

static const struct torture_control controls[] = {
	{ .name = "", .doc = "callbacks run with no grace period, on the workers too",
	  .flag = &quiesce_test_busted_call_rcu },
	{ .name = "barrier", .doc = "rcu_barrier() does not wait for the callback workers",
	  .flag = &quiesce_test_busted_barrier },
	{ .name = "lost", .doc = "one callback in 64 is dropped, never run",
	  .flag = &quiesce_test_busted_cb_lost },
	{ .name = "twice", .doc = "one callback in 64 runs twice in a row",
	  .flag = &quiesce_test_busted_cb_twice },
	{ .name = NULL },
};

/* The writers' routes: NULL for call_rcu(), else a worker; made by setup(). */
static struct quiesce_call_rcu_worker *workers[3];

static int last_allowed_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				last = cpu;
	return last;
}

static void setup(struct torture_run *run)
{
	rcu_pipeline_setup(run, sizeof(struct rcu_pipeline), &rcu_pipeline_default_domain, NULL);
	workers[1] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, last_allowed_cpu());
	workers[2] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	if (!workers[1] || !workers[2]) {
		perror("quiesce-torture: call-rcu: quiesce_call_rcu_worker_create");
		exit(2);
	}
}

static void queue(struct rcu_elem *e, void (*func)(struct rcu_head *head))
{
	struct rcu_pipeline *p = e->owner->run->state;

	e->queued_cookie = p->domain->get_state(p);
	if (e->owner->cb_worker)
		quiesce_call_rcu_on(e->owner->cb_worker, &e->head, func);
	else
		call_rcu(&e->head, func);
}

static void thread_start(struct torture_thread *t)
{
	rcu_pipeline_thread_start(t);
	if (t->role == TORTURE_WRITER) {
		struct rcu_writer *w = t->priv;

		w->free_rcu = true;
		w->cb_worker = workers[t->id % 3];
	}
}

/* Runs on the writer's route: the library's callback thread or a worker. */
static void elem_callback(struct rcu_head *head)
{
	struct rcu_elem *e = container_of(head, struct rcu_elem, head);
	struct rcu_writer *w = e->owner;
	struct rcu_pipeline *p = w->run->state;

	if (!e->queued) {
		torture_violation(w->run, TV_CALLBACK, "the callback of %#lx ran twice", e->seq);
		return;
	}
	if (!p->domain->poll_state(p, e->queued_cookie)) {
		torture_violation(w->run, TV_CALLBACK,
				  "the callback of %#lx ran before a grace period had passed since "
				  "its call", e->seq);
		return;
	}
	e->queued = false;
	/* Read by the writer after rcu_barrier(), which orders it. */
	if (e->age == 1)
		__atomic_fetch_add(&w->first_invoked, 1, __ATOMIC_RELAXED);
	if (rcu_pipeline_age(w, e)) {
		__atomic_fetch_sub(&p->in_flight, 1, __ATOMIC_RELAXED);
		return;
	}
	e->queued = true;
	queue(e, elem_callback);
}

static void write_deferred(struct torture_thread *t)
{
	struct rcu_pipeline *p = t->run->state;
	struct rcu_writer *w = t->priv;
	struct rcu_elem *old = rcu_pipeline_replace(t);

	old->owner = w;
	old->queued = true;
	__atomic_fetch_add(&p->in_flight, 1, __ATOMIC_RELAXED);
	w->first_queued++;
	queue(old, elem_callback);
	if (torture_one_in(t, BARRIER_EVERY)) {
		uint64_t invoked;

		rcu_barrier();
		invoked = __atomic_load_n(&w->first_invoked, __ATOMIC_RELAXED);
		if (invoked < w->first_queued)
			torture_violation(t->run, TV_CALLBACK,
					  "%s: rcu_barrier() returned with %llu of its callbacks not run",
					  t->name, (unsigned long long)(w->first_queued - invoked));
	}
	torture_count_op(t);
	torture_writer_pause(t);
}

static void finish(struct torture_run *run)
{
	struct rcu_pipeline *p = run->state;
	long lost;

	/* Each barrier lets every element take at least one step. */
	for (int i = 0; i <= RCU_PIPE_LEN && __atomic_load_n(&p->in_flight, __ATOMIC_RELAXED); i++)
		rcu_barrier();
	/* And one more for the free_rcu() calls of the last steps. */
	rcu_barrier();
	lost = __atomic_load_n(&p->in_flight, __ATOMIC_RELAXED);
	quiesce_call_rcu_worker_destroy(workers[1]);
	quiesce_call_rcu_worker_destroy(workers[2]);
	if (lost)
		torture_violation(run, TV_CALLBACK,
				  "%ld elements still wait for callbacks after %d rcu_barrier() calls",
				  lost, RCU_PIPE_LEN + 2);
	else
		rcu_pipeline_finish(run);
}

/* The pipeline's evidence, and callbacks that ran (the aging is theirs). */
static void evidence(struct torture_run *run)
{
	struct rcu_pipeline *p = run->state;
	uint64_t invoked = 0;

	rcu_pipeline_evidence(run);
	/* The writers are on the retired list; callbacks may still run. */
	for (struct rcu_writer *w = p->retired; w; w = w->next_retired)
		invoked += __atomic_load_n(&w->first_invoked, __ATOMIC_RELAXED);
	if (!invoked)
		torture_unchecked(run, "no callback ran");
}

static void report(struct torture_run *run, FILE *out, bool json)
{
	struct quiesce_rcu_stats stats;

	rcu_pipeline_report(run, out, json);
	quiesce_rcu_get_stats(&stats);
	fprintf(out,
		json ? ",\"cb_invoked\":%llu,\"cb_batches\":%llu,\"cb_expedited\":%llu,"
		       "\"cb_throttled\":%llu"
		     : "  callbacks run %llu in %llu batches (%llu expedited), throttled calls %llu\n",
		(unsigned long long)stats.cb_invoked, (unsigned long long)stats.cb_batches,
		(unsigned long long)stats.cb_expedited, (unsigned long long)stats.cb_throttled);
}

const struct torture_type torture_type_call_rcu = {
	.name = "call-rcu",
	.doc = "RCU readers, writers retiring elements through call_rcu() callbacks and workers",
	.faults = RCU_FAULTS,
	.controls = controls,
	.setup = setup,
	.thread_start = thread_start,
	.thread_stop = rcu_pipeline_thread_stop,
	.read = rcu_pipeline_read,
	.write = write_deferred,
	.signal_read = rcu_pipeline_signal_read,
	.grace_periods = rcu_pipeline_grace_periods,
	.evidence = evidence,
	.finish = finish,
	.report = report,
};
