/*
 * churn.c - the thread-churn fault: short-lived threads that start, do a
 * few read-side operations and exit, half of them still registered with
 * the primitive, so that registration and the exit-time cleanup race with
 * the writers.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "faults.h"
#include "torture.h"

#define CHURN_BATCH 4
#define CHURN_OPS_MAX 64
#define CHURN_PAUSE_NS_MAX 2000000u

static void *churn_thread_main(void *arg)
{
	struct torture_thread *t = arg;
	struct torture_run *run = t->run;
	const struct torture_type *type = run->type;
	unsigned ops = 1 + (unsigned)(torture_random(t) % CHURN_OPS_MAX), done = 0;

	torture_self = t;
	t->tid = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), t->name);
	if (type->thread_start)
		type->thread_start(t);
	while (done < ops && !torture_stopping(run)) {
		type->read(t);
		done++;
	}
	__atomic_fetch_add(&run->churn_ops, done, __ATOMIC_RELAXED);
	__atomic_fetch_add(&run->churn_delays, t->delays, __ATOMIC_RELAXED);
	__atomic_fetch_add(&run->churn_sleeps, t->sleeps, __ATOMIC_RELAXED);
	if (type->thread_stop)
		type->thread_stop(t, torture_one_in(t, 2));
	return NULL;
}

void *torture_churn_main(void *arg)
{
	struct torture_thread *self = arg;
	struct torture_run *run = self->run;
	unsigned next_id = 0;

	pthread_setname_np(pthread_self(), self->name);
	while (!torture_stopping(run)) {
		struct torture_thread batch[CHURN_BATCH];
		unsigned n = 1 + (unsigned)(torture_random(self) % CHURN_BATCH), started = 0;

		for (unsigned i = 0; i < n; i++) {
			char name[16];

			snprintf(name, sizeof(name), "tt-churn-%u", next_id % 100000);
			torture_thread_init(&batch[i], run, TORTURE_CHURN, next_id++, name);
			if (pthread_create(&batch[i].thread, NULL, churn_thread_main, &batch[i]))
				break;
			started++;
		}
		/* Each churn thread does at most CHURN_OPS_MAX operations. */
		for (unsigned i = 0; i < started; i++)
			pthread_join(batch[i].thread, NULL);
		__atomic_fetch_add(&run->churn_threads, started, __ATOMIC_RELAXED);
		torture_sleep_ns(torture_random(self) % CHURN_PAUSE_NS_MAX);
	}
	return NULL;
}
