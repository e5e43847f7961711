/*
 * violation.c - recording what the checkers found.
 *
 * Called from any torture thread and from signal handlers, so it counts
 * with atomics and writes its message with one write(2): no stdio lock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"

/* Violations described on stderr; the rest are only counted. */
#define MESSAGES_MAX 10

static const char *const kind_names[TV_KINDS] = {
	[TV_AGE] = "age",
	[TV_FREED] = "freed",
	[TV_COOKIE] = "cookie",
	[TV_CALLBACK] = "callback",
	[TV_EXCLUSION] = "exclusion",
	[TV_DATA] = "data",
	[TV_SHARING] = "sharing",
	[TV_FORK_CHILD] = "fork-child",
	[TV_STALL_MISSING] = "stall-missing",
	[TV_HASH] = "hash",
};

const char *torture_violation_name(enum torture_violation_kind kind)
{
	return kind_names[kind];
}

void torture_violation(struct torture_run *run, enum torture_violation_kind kind,
		       const char *fmt, ...)
{
	unsigned seen = __atomic_fetch_add(&run->messages, 1, __ATOMIC_RELAXED);
	char msg[256];
	int len;
	va_list ap;

	__atomic_fetch_add(&run->violations[kind], 1, __ATOMIC_RELAXED);
	if (run->opt->stop_on_violation)
		QUIESCE_STORE(&run->end_early, true);
	if (seen > MESSAGES_MAX)
		return;
	if (seen == MESSAGES_MAX) {
		len = snprintf(msg, sizeof(msg), "%s: further violations are counted only\n",
			       run->opt->is_child ? "quiesce-torture (fork child)" : "quiesce-torture");
	} else {
		len = snprintf(msg, sizeof(msg), "%s: violation (%s): ",
			       run->opt->is_child ? "quiesce-torture (fork child)" : "quiesce-torture",
			       kind_names[kind]);
		va_start(ap, fmt);
		len += vsnprintf(msg + len, sizeof(msg) - (size_t)len - 1, fmt, ap);
		va_end(ap);
		if (len > (int)sizeof(msg) - 2)
			len = (int)sizeof(msg) - 2;
		msg[len++] = '\n';
	}
	if (write(STDERR_FILENO, msg, (size_t)len) < 0)
		return;
}

uint64_t torture_violations(const struct torture_run *run)
{
	uint64_t total = 0;

	for (int k = 0; k < TV_KINDS; k++)
		total += __atomic_load_n(&run->violations[k], __ATOMIC_RELAXED);
	return total;
}
