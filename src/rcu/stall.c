/*
 * stall.c - stall warnings: the timeout, the user's handler, the printer.
 *
 * The grace-period engine decides when to report (after the timeout, then
 * at doubling intervals, so a stuck reader never floods stderr); this file
 * decides how.
 */
#include "rcu/stall.h"

#include <inttypes.h>
#include <stdio.h>

#include "common/diag.h"

#define DEFAULT_STALL_TIMEOUT_MS 21000u

static uint64_t stall_timeout_ms = DEFAULT_STALL_TIMEOUT_MS;
static quiesce_rcu_stall_handler_fn stall_handler;
static uint64_t stall_count;

uint64_t quiesce_stall_timeout_ns(void)
{
	return QUIESCE_LOAD(&stall_timeout_ms) * 1000000u;
}

void quiesce_rcu_set_stall_timeout_ms(uint64_t ms)
{
	QUIESCE_STORE(&stall_timeout_ms, ms ? ms : DEFAULT_STALL_TIMEOUT_MS);
}

void quiesce_rcu_set_stall_handler(quiesce_rcu_stall_handler_fn fn)
{
	__atomic_store_n(&stall_handler, fn, __ATOMIC_RELEASE);
}

void quiesce_stall_report(const struct quiesce_rcu_stall *stall)
{
	quiesce_rcu_stall_handler_fn fn = __atomic_load_n(&stall_handler, __ATOMIC_ACQUIRE);

	__atomic_fetch_add(&stall_count, 1, __ATOMIC_RELAXED);
	if (fn) {
		fn(stall);
		return;
	}
	fprintf(stderr,
		"quiesce: RCU stall: thread %d (\"%s\") has held a read-side critical "
		"section while a grace period waited %" PRIu64 " ms\n",
		stall->tid, stall->thread_name, stall->waited_ms);
	fflush(stderr);
}

uint64_t quiesce_stall_warnings(void)
{
	return __atomic_load_n(&stall_count, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void stall_init(void)
{
	uint64_t ms;

	if (quiesce_env_u64("QUIESCE_STALL_TIMEOUT_MS", &ms))
		quiesce_rcu_set_stall_timeout_ms(ms);
}
