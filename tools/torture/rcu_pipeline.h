/*
 * rcu_pipeline.h - the rcutorture check, shared by the RCU torture types.
 *
 * Writers replace the one current element and then wait for a grace period
 * in the way their type tests.  Every element carries a pipeline age: 0
 * while current, 1 once removed, one more after each grace period its
 * writer waits for afterwards.  A reader can hold an element across its
 * removal (age 1) but never across a whole grace period, so a reader that
 * finds age 2 or more at the end of its section has caught a grace period
 * that did not wait for it.  At age RCU_PIPE_LEN an element is poisoned
 * and quarantined before it is really freed, so a reader that still holds
 * it sees the poison rather than reused memory.
 *
 * The check is the same on every domain; what differs is written once per
 * domain in a struct rcu_pipeline_domain (how threads register, how a
 * section is marked, the polled grace-period state) and per type in the
 * writers' wait.  The default RCU domain's table is here, for the types
 * rcu, rcu-expedited, rcu-poll and call-rcu; type_srcu.c and type_qsbr.c
 * give theirs.
 */
#ifndef QUIESCE_TORTURE_RCU_PIPELINE_H
#define QUIESCE_TORTURE_RCU_PIPELINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <quiesce/rcu.h>

#include "torture.h"

#define RCU_PIPE_LEN 10
#define RCU_CHECK_WORDS 4
/* Retired elements each writer keeps poisoned before freeing them. */
#define RCU_QUARANTINE 8192
/* Reader-seen ages above RCU_PIPE_LEN share the last slot. */
#define RCU_HIST_SLOTS (RCU_PIPE_LEN + 2)

struct rcu_writer;
struct rcu_pipeline;

/* How a type's writers wait for a grace period after a removal. */
typedef void (*rcu_wait_fn)(struct torture_thread *t);

/*
 * The domain a pipeline tortures.  read_lock returns what read_unlock
 * takes (SRCU's index); read_hold, when set, runs inside a reader's
 * section after its delay and may hold the section longer (the default
 * domain's stall fault, SRCU's sleeps); get_state and poll_state are the
 * domain's polled grace-period API, which checks the cookie a removal
 * takes.
 */
struct rcu_pipeline_domain {
	void (*register_thread)(void);
	void (*unregister_thread)(void);
	int (*read_lock)(struct rcu_pipeline *p);
	void (*read_unlock)(struct rcu_pipeline *p, int idx);
	void (*read_hold)(struct torture_thread *t);
	unsigned long (*get_state)(struct rcu_pipeline *p);
	bool (*poll_state)(struct rcu_pipeline *p, unsigned long cookie);
};

/* The default RCU domain: rcu_read_lock() and synchronize_rcu()'s grace periods. */
extern const struct rcu_pipeline_domain rcu_pipeline_default_domain;

struct rcu_elem {
	unsigned magic;
	unsigned age;			/* pipeline age, see above */
	unsigned long seq;
	unsigned long check[RCU_CHECK_WORDS]; /* derived from seq: torn or poisoned? */
	unsigned long cookie;		/* polled grace-period state at removal */
	struct rcu_elem *next;		/* the writer's list of removed elements */
	struct rcu_writer *owner;	/* call-rcu: the writer that removed it */
	struct rcu_head head;		/* call-rcu */
	bool queued;			/* call-rcu: its callback is pending */
	unsigned long queued_cookie;	/* call-rcu: polled grace-period state at its call */
};

struct quiesce_call_rcu_worker;

struct rcu_writer {
	struct torture_run *run;
	unsigned long seq;
	struct rcu_elem *removed;	/* ages 1 to RCU_PIPE_LEN - 1, newest first */
	struct rcu_elem **quarantine;	/* a ring of poisoned elements */
	unsigned quarantine_next;
	bool free_rcu;			/* evict from the ring with free_rcu() */
	uint64_t first_queued;		/* call-rcu: callbacks queued at removal */
	uint64_t first_invoked;		/* call-rcu: and of those, run */
	struct quiesce_call_rcu_worker *cb_worker; /* call-rcu: where they run; NULL: call_rcu() */
	struct rcu_writer *next_retired; /* on the pipeline's list after stop */
};

struct rcu_pipeline {
	struct rcu_elem *current;
	const struct rcu_pipeline_domain *domain;
	rcu_wait_fn wait;
	uint64_t hist[RCU_HIST_SLOTS];	/* the readers' histograms, summed */
	long in_flight;			/* call-rcu: removed, not yet quarantined */
	pthread_mutex_t retired_lock;
	struct rcu_writer *retired;	/* stopped writers, freed in finish */
};

/*
 * Allocates the run's state, size bytes starting with the pipeline (a
 * type may keep state of its own after it), and sets the pipeline up on
 * domain.  wait is NULL for call-rcu, whose writers do not wait.
 */
struct rcu_pipeline *rcu_pipeline_setup(struct torture_run *run, size_t size,
					const struct rcu_pipeline_domain *domain, rcu_wait_fn wait);

/*
 * Publishes a new element and returns the one it replaced, now at age 1
 * with the cookie of the grace period it needs.
 */
struct rcu_elem *rcu_pipeline_replace(struct torture_thread *t);

/*
 * A grace period has passed since e's last step: ages it by one, checking
 * its cookie, and at RCU_PIPE_LEN poisons it into w's quarantine and
 * returns true.
 */
bool rcu_pipeline_age(struct rcu_writer *w, struct rcu_elem *e);

/*
 * The struct torture_type operations the pipeline's types share; a type
 * may wrap one (QSBR's read goes online around it).  The controls and
 * grace_periods are the default domain's.
 */
extern const struct torture_control rcu_pipeline_controls[];
void rcu_pipeline_thread_start(struct torture_thread *t);
void rcu_pipeline_thread_stop(struct torture_thread *t, bool unregister);
void rcu_pipeline_read(struct torture_thread *t);
void rcu_pipeline_signal_read(struct torture_thread *t);
void rcu_pipeline_write(struct torture_thread *t);
uint64_t rcu_pipeline_grace_periods(struct torture_run *run);
/* No read held an element across its removal, no grace period ended: unchecked. */
void rcu_pipeline_evidence(struct torture_run *run);
void rcu_pipeline_finish(struct torture_run *run);
void rcu_pipeline_report(struct torture_run *run, FILE *out, bool json);

#endif
