/*
 * evidence.c - a run that checked nothing must not pass.  A checker only
 * proves something about the runs in which the event it watches for
 * happened: readers that never got a CPU, writers that never updated, a
 * fault that was asked for but never injected (fork() failing, one CPU to
 * shuffle over) leave every check silent.  After every thread has
 * finished, the framework looks for its own events (reads, updates, one
 * injection of each enabled fault) and the type for those of its checks
 * (its evidence hook: a read that overlapped a removal, ...); each one
 * missing is described on stderr and fails the run, as a violation would.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "torture.h"

void torture_unchecked(struct torture_run *run, const char *fmt, ...)
{
	va_list ap;

	/* Every thread has finished: nobody else counts. */
	run->unchecked++;
	va_start(ap, fmt);
	torture_say(run, "not checked: ", fmt, ap);
	va_end(ap);
}

void torture_check_evidence(struct torture_run *run)
{
	const struct torture_options *opt = run->opt;
	uint64_t reads = run->churn_ops, updates = 0, handled = 0;
	uint64_t delays = run->churn_delays, sleeps = run->churn_sleeps;

	for (unsigned i = 0; i < opt->readers; i++) {
		reads += run->readers[i].ops;
		handled += run->readers[i].signals_handled;
		delays += run->readers[i].delays;
		sleeps += run->readers[i].sleeps;
	}
	for (unsigned i = 0; i < opt->writers; i++) {
		updates += run->writers[i].ops;
		handled += run->writers[i].signals_handled;
		delays += run->writers[i].delays;
		sleeps += run->writers[i].sleeps;
	}
	if (!reads)
		torture_unchecked(run, "no read-side operation was done");
	if (!updates)
		torture_unchecked(run, "no update was done");
	if ((opt->faults & TORTURE_FAULT_DELAY) && !delays)
		torture_unchecked(run, "the delay fault never delayed a holder");
	if ((opt->faults & TORTURE_FAULT_SLEEP) && !sleeps)
		torture_unchecked(run, "the sleep fault never put a holder to sleep");
	if ((opt->faults & TORTURE_FAULT_CHURN) && !run->churn_threads)
		torture_unchecked(run, "the churn fault started no thread");
	if ((opt->faults & TORTURE_FAULT_FORK) && !run->forks)
		torture_unchecked(run, "the fork fault did not fork");
	if ((opt->faults & TORTURE_FAULT_SIGNALS) && !handled)
		torture_unchecked(run, "no thread handled a signal of the signals fault");
	if ((opt->faults & TORTURE_FAULT_SHUFFLE) && !run->shuffles)
		torture_unchecked(run, "the shuffle fault moved no thread");
	if (run->type->evidence)
		run->type->evidence(run);
}
