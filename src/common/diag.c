#include "common/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cancel.h"

int quiesce_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

uint64_t quiesce_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void vreport(const char *fmt, va_list ap)
{
	char msg[512];
	int cancel = quiesce_cancel_off();	/* stdio may be a cancellation point */

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "quiesce: %s (thread %d)\n", msg, quiesce_gettid());
	fflush(stderr);
	quiesce_cancel_restore(cancel);
}

void quiesce_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	abort();
}

void quiesce_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

bool quiesce_env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
		     !strcasecmp(v, "true"));
}

bool quiesce_env_u64(const char *name, uint64_t *out)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return false;
	n = strtoull(v, &end, 10);
	if (*end) {
		quiesce_warn("ignoring %s=%s: not a number", name, v);
		return false;
	}
	*out = n;
	return true;
}
