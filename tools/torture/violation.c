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

/*
 * Writes "<tool>: <what><fmt ...>" and a newline to stderr in one write(2),
 * cut to a line of 256 bytes.
 */
void torture_say(const struct torture_run *run, const char *what, const char *fmt, va_list ap)
{
	char msg[256];
	int len = snprintf(msg, sizeof(msg), "%s: %s",
			   run->opt->is_child ? "quiesce-torture (fork child)" : "quiesce-torture",
			   what);

	len += vsnprintf(msg + len, sizeof(msg) - (size_t)len - 1, fmt, ap);
	if (len > (int)sizeof(msg) - 2)
		len = (int)sizeof(msg) - 2;
	msg[len++] = '\n';
	if (write(STDERR_FILENO, msg, (size_t)len) < 0)
		return;
}

void torture_violation(struct torture_run *run, enum torture_violation_kind kind,
		       const char *fmt, ...)
{
	unsigned seen = __atomic_fetch_add(&run->messages, 1, __ATOMIC_RELAXED);
	char what[64];
	va_list ap;

	__atomic_fetch_add(&run->violations[kind], 1, __ATOMIC_RELAXED);
	if (run->opt->stop_on_violation)
		QUIESCE_STORE(&run->end_early, true);
	if (seen > MESSAGES_MAX)
		return;
	va_start(ap, fmt);
	if (seen == MESSAGES_MAX) {
		torture_say(run, "", "further violations are counted only", ap);
	} else {
		snprintf(what, sizeof(what), "violation (%s): ", kind_names[kind]);
		torture_say(run, what, fmt, ap);
	}
	va_end(ap);
}

uint64_t torture_violations(const struct torture_run *run)
{
	uint64_t total = 0;

	for (int k = 0; k < TV_KINDS; k++)
		total += __atomic_load_n(&run->violations[k], __ATOMIC_RELAXED);
	return total;
}
