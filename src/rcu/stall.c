/*
 * stall.c - stall warnings: the timeout, the user's handler, the printer.
 *
 * The waiting code decides when to report, after the timeout and then at
 * doubling intervals (struct quiesce_stall_clock, or the engine's own loop
 * for readers); this file decides how.
 */
#include "rcu/stall.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/init_order.h"

#define DEFAULT_STALL_TIMEOUT_MS 21000u
/*
 * The longest timeout, in ns: a quarter of the range (about 146 years), so
 * that a wait that adds it, or twice it after a report, to the monotonic
 * clock never wraps to a deadline in the past.  A longer one, UINT64_MAX
 * ms among them, is this one: never reached.
 */
#define MAX_STALL_TIMEOUT_NS (UINT64_MAX / 4)

static uint64_t stall_timeout_ms = DEFAULT_STALL_TIMEOUT_MS;
static pthread_once_t environment_read = PTHREAD_ONCE_INIT;
static quiesce_rcu_stall_handler_fn stall_handler;
static uint64_t stall_count;
bool quiesce_test_busted_stall;

/*
 * QUIESCE_STALL_TIMEOUT_MS, from the constructor below or on first use,
 * whichever comes first: a constructor of the program may run before the
 * library's (init_order.h) and set the timeout, which the environment must
 * not then overwrite.
 */
static void read_environment(void)
{
	uint64_t ms;

	if (quiesce_env_u64("QUIESCE_STALL_TIMEOUT_MS", &ms))
		QUIESCE_STORE(&stall_timeout_ms, ms ? ms : DEFAULT_STALL_TIMEOUT_MS);
}

static void set_up_timeout(void)
{
	pthread_once(&environment_read, read_environment);
}

uint64_t quiesce_stall_timeout_ns(void)
{
	uint64_t ms;

	set_up_timeout();
	ms = QUIESCE_LOAD(&stall_timeout_ms);

	return ms > MAX_STALL_TIMEOUT_NS / 1000000u ? MAX_STALL_TIMEOUT_NS : ms * 1000000u;
}

void quiesce_rcu_set_stall_timeout_ms(uint64_t ms)
{
	set_up_timeout();
	QUIESCE_STORE(&stall_timeout_ms, ms ? ms : DEFAULT_STALL_TIMEOUT_MS);
}

/* Also the header-only link waits' timeout, when linked (quiesce/link_wait.h). */
uint64_t quiesce_rcu_stall_timeout_ms(void)
{
	set_up_timeout();
	return QUIESCE_LOAD(&stall_timeout_ms);
}

void quiesce_rcu_set_stall_handler(quiesce_rcu_stall_handler_fn fn)
{
	__atomic_store_n(&stall_handler, fn, __ATOMIC_RELEASE);
}

void quiesce_stall_clock_start(struct quiesce_stall_clock *c)
{
	c->start = quiesce_now_ns();
	c->interval = quiesce_stall_timeout_ns();
	c->next = c->start + c->interval;
}

bool quiesce_stall_clock_due(struct quiesce_stall_clock *c, uint64_t *waited_ns)
{
	uint64_t now = quiesce_now_ns();

	if (now < c->next)
		return false;
	*waited_ns = now - c->start;
	c->interval *= 2;
	c->next = now + c->interval;
	return true;
}

uint64_t quiesce_stall_clock_sleep_ns(const struct quiesce_stall_clock *c)
{
	uint64_t now = quiesce_now_ns();

	return c->next > now ? c->next - now : 1;
}

void quiesce_stall_warn(const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	quiesce_warn("%s", msg);
	/*
	 * Counted once printed: a caller that sees the count finds the line
	 * written.  Release: the write() before the count, paired with the
	 * acquire in quiesce_stall_warnings() (a relaxed add is ordered
	 * after nothing on arm64; x86's locked add hid that).
	 */
	__atomic_fetch_add(&stall_count, 1, __ATOMIC_RELEASE);
}

static void print_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->phase == QUIESCE_RCU_STALL_READER && stall->detail)
		fprintf(stderr, "quiesce: %s; a grace period has waited %" PRIu64 " ms\n",
			stall->detail, stall->waited_ms);
	else if (stall->phase == QUIESCE_RCU_STALL_READER)
		fprintf(stderr,
			"quiesce: %s stall: thread %d (\"%s\") has held a read-side critical "
			"section while a grace period waited %" PRIu64 " ms\n",
			stall->domain ? stall->domain : "RCU", stall->tid, stall->thread_name,
			stall->waited_ms);
	else if (stall->phase == QUIESCE_RCU_STALL_QSBR_ONLINE)
		fprintf(stderr,
			"quiesce: QSBR stall: thread %d (\"%s\") has stayed online without a "
			"quiescent state while a grace period waited %" PRIu64 " ms (call "
			"rcu_quiescent_state() in its loop, or go offline around what blocks)\n",
			stall->tid, stall->thread_name, stall->waited_ms);
	else if (stall->tid)
		fprintf(stderr,
			"quiesce: RCU stall: thread %d (\"%s\") has held up a grace period's "
			"barrier for %" PRIu64 " ms: %s\n",
			stall->tid, stall->thread_name, stall->waited_ms, stall->detail);
	else
		fprintf(stderr, "quiesce: RCU stall: a grace period's barrier took %" PRIu64 " ms: %s\n",
			stall->waited_ms, stall->detail);
	fflush(stderr);
}

/* The printer's output and the handler's calls are not cancellation points (cancel.h). */
static void deliver(const struct quiesce_rcu_stall *stall)
{
	quiesce_rcu_stall_handler_fn fn = __atomic_load_n(&stall_handler, __ATOMIC_ACQUIRE);
	int cancel = quiesce_cancel_off();

	__atomic_fetch_add(&stall_count, 1, __ATOMIC_RELAXED);
	if (fn)
		fn(stall);
	else
		print_stall(stall);
	quiesce_cancel_restore(cancel);
}

/* Under the registry lock; naming another thread may read /proc (cancel.h). */
void quiesce_stall_describe_thread(struct quiesce_rcu_stall *stall, char name[16], int tid,
				   pthread_t thread)
{
	int cancel = quiesce_cancel_off();

	stall->tid = tid;
	if (pthread_getname_np(thread, name, 16))
		strcpy(name, "?");
	stall->thread_name = name;
	quiesce_cancel_restore(cancel);
}

void quiesce_stall_report(const struct quiesce_rcu_stall *stall)
{
	if (QUIESCE_LOAD(&quiesce_test_busted_stall))
		return;
	deliver(stall);
}

void quiesce_stall_report_barrier(int tid, const char *thread_name, uint64_t waited_ns,
				  const char *detail)
{
	struct quiesce_rcu_stall barrier = {
		.tid = tid,
		.thread_name = thread_name,
		.waited_ms = waited_ns / 1000000u,
		.phase = QUIESCE_RCU_STALL_BARRIER,
		.detail = detail,
	};

	deliver(&barrier);
}

uint64_t quiesce_stall_warnings(void)
{
	/* Acquire: pairs with the release in quiesce_stall_warn(). */
	return __atomic_load_n(&stall_count, __ATOMIC_ACQUIRE);
}

QUIESCE_CONSTRUCTOR(STALL) static void stall_init(void)
{
	set_up_timeout();
}
