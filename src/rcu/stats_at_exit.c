/*
 * stats_at_exit.c - QUIESCE_STATS=1 prints the library's counters on stderr
 * at exit.
 *
 * Registered before main(), or by the first callback thread's start if a
 * program's constructor comes first (cb_lifecycle.c), so it runs after every
 * exit handler registered later, the callback threads' among them.  The
 * variable is read at exit, so a program may set it while it runs.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "rcu/gp_engine.h"
#include "rcu/stats_at_exit.h"

static void print_stats(void)
{
	struct quiesce_rcu_stats s;
	uint64_t no_barrier;
	int cancel;

	if (!quiesce_env_flag("QUIESCE_STATS"))
		return;
	cancel = quiesce_cancel_off();	/* stdio (cancel.h) */
	quiesce_rcu_get_stats(&s);
	/* Not in struct quiesce_rcu_stats, whose layout is ABI: the engine's own count. */
	no_barrier = __atomic_load_n(&quiesce_rcu_domain.gp_no_barrier, __ATOMIC_RELAXED);
	fprintf(stderr,
		"quiesce stats: grace periods %" PRIu64 " normal, %" PRIu64 " expedited "
		"(%" PRIu64 " with no other reader registered, %" PRIu64 " with no barrier); "
		"synchronize_rcu calls %" PRIu64 "; rseq gate closings %" PRIu64 "; "
		"stall warnings %" PRIu64 "; "
		"registered threads %" PRIu64 "\n"
		"quiesce stats: callbacks queued %" PRIu64 ", invoked %" PRIu64
		", pending %" PRIu64 "; batches %" PRIu64 " (%" PRIu64 " expedited); "
		"throttled calls %" PRIu64 "\n",
		s.gp_normal, s.gp_expedited, s.gp_skipped, no_barrier, s.sync_calls, s.rseq_barriers,
		s.stall_warnings,
		s.registered_threads, s.cb_queued, s.cb_invoked, s.cb_pending, s.cb_batches,
		s.cb_expedited, s.cb_throttled);
	quiesce_cancel_restore(cancel);
}

static pthread_once_t printer_registered = PTHREAD_ONCE_INIT;

static void register_printer(void)
{
	atexit(print_stats);
}

void quiesce_stats_at_exit_init(void)
{
	pthread_once(&printer_registered, register_printer);
}
