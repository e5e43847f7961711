/*
 * stall.h - reporting what holds up a grace period too long: a reader
 * (gp_engine.c) or the heavy barrier (gp_barrier*.c).
 */
#ifndef QUIESCE_STALL_H
#define QUIESCE_STALL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

/* The threshold in ns after which a waiting grace period reports. */
uint64_t quiesce_stall_timeout_ns(void);

/*
 * The report schedule of one wait: the first report after the timeout,
 * each later one after an interval twice the one before, so that a stuck
 * thread never floods stderr.
 */
struct quiesce_stall_clock {
	uint64_t start, next, interval;
};
void quiesce_stall_clock_start(struct quiesce_stall_clock *c);
/* Whether a report is due now; if so, sets *waited_ns and schedules the next. */
bool quiesce_stall_clock_due(struct quiesce_stall_clock *c, uint64_t *waited_ns);
/* How long a sleep may last before the next report is due: at least 1 ns. */
uint64_t quiesce_stall_clock_sleep_ns(const struct quiesce_stall_clock *c);

/* Fills in a stalled reader that is a thread: its tid, and its name in name. */
void quiesce_stall_describe_thread(struct quiesce_rcu_stall *stall, char name[16], int tid,
				   pthread_t thread);

/*
 * Reports one stalled reader (its tid, name, waited_ms and phase: READER,
 * or QSBR_ONLINE for a QSBR thread; or, for readers that belong to no
 * thread, as an SRCU domain's, tid 0 and a detail line that says what
 * holds the grace period) to the handler, or prints it.
 */
void quiesce_stall_report(const struct quiesce_rcu_stall *stall);

/*
 * Reports a barrier that has waited waited_ns: for thread tid (0: for the
 * kernel), with a line that says why and what to do.
 */
void quiesce_stall_report_barrier(int tid, const char *thread_name, uint64_t waited_ns,
				  const char *detail);

/*
 * A stall warning that is no grace period's (a lock's writer that waits
 * for its readers): printed as quiesce_warn() prints, counted in
 * stall_warnings, not handed to the handler, whose reports describe grace
 * periods.
 */
void quiesce_stall_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

uint64_t quiesce_stall_warnings(void);

/* Test-only: quiesce_stall_report() drops every report ("busted"). */
extern bool quiesce_test_busted_stall;

#endif
