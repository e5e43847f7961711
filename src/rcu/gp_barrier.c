/*
 * gp_barrier.c - choosing the heavy barrier, and timing the kernel's.
 *
 * The chain, tried once, at start-up or on first use, in this order:
 *  - membarrier(): GLOBAL returns after every running thread of every
 *    process has passed a full barrier; the kernel gets that from its own
 *    grace period, so it sends no interrupt.  PRIVATE_EXPEDITED interrupts
 *    just the CPUs running a thread of this process, and returns in
 *    microseconds.  Missing on kernels before 4.3 (4.14 for the expedited
 *    command) and where a seccomp filter denies it.
 *  - mprotect(): a TLB shootdown, whose interrupts reach the same CPUs as
 *    PRIVATE_EXPEDITED; valid on x86 only (gp_barrier_mprotect.c).
 *  - signal: a handshake with each registered thread, which works
 *    everywhere but needs the threads' help (gp_barrier_signal.c).
 *
 * PRIVATE_EXPEDITED_RSEQ interrupts the same CPUs as PRIVATE_EXPEDITED and,
 * on the way back to user space, aborts any restartable sequence their
 * threads were in; the per-CPU semaphores close their gates with it
 * (rcu_sync.c).
 *
 * Stall warnings: the signal backend waits in user space and reports while
 * it waits.  membarrier() and mprotect() block in the kernel, which bounds
 * them by its own grace period (and has its own stall detector), so a call
 * that took longer than the stall timeout is reported once it returns, with
 * how long it took.
 */
#include "rcu/gp_barrier.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "rcu/stall.h"

static pthread_once_t backend_chosen = PTHREAD_ONCE_INIT;
static enum quiesce_rcu_backend backend;
static int normal_cmd;		/* membarrier command for normal grace periods */
static bool rseq_barrier_ready;	/* PRIVATE_EXPEDITED_RSEQ registered */
static uint64_t rseq_barriers;

unsigned quiesce_test_slow_barrier_ms;

static const char *const backend_names[] = {
	[QUIESCE_RCU_BACKEND_MEMBARRIER] = "membarrier",
	[QUIESCE_RCU_BACKEND_MPROTECT] = "mprotect",
	[QUIESCE_RCU_BACKEND_SIGNAL] = "signal",
};
#define BACKEND_COUNT (sizeof(backend_names) / sizeof(backend_names[0]))

static const enum quiesce_rcu_backend chain[] = {
	QUIESCE_RCU_BACKEND_MEMBARRIER,
	QUIESCE_RCU_BACKEND_MPROTECT,
	QUIESCE_RCU_BACKEND_SIGNAL,
};

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static bool membarrier_init(const char **why_not)
{
	int supported = membarrier(MEMBARRIER_CMD_QUERY);

	if (supported <= 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		*why_not = "membarrier(PRIVATE_EXPEDITED) is missing or denied";
		return false;
	}
	normal_cmd = (supported & MEMBARRIER_CMD_GLOBAL) ? MEMBARRIER_CMD_GLOBAL
						       : MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	rseq_barrier_ready = (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) &&
			     membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ) == 0;
	return true;
}

static bool backend_init(enum quiesce_rcu_backend b, const char **why_not)
{
	switch (b) {
	case QUIESCE_RCU_BACKEND_MEMBARRIER:
		return membarrier_init(why_not);
	case QUIESCE_RCU_BACKEND_MPROTECT:
		return quiesce_gp_barrier_mprotect_init(why_not);
	case QUIESCE_RCU_BACKEND_SIGNAL:
		quiesce_gp_barrier_signal_init();
		return true;
	}
	return false;
}

static void choose_backend(void)
{
	const char *forced = getenv("QUIESCE_RCU_BACKEND");
	const char *why_not = NULL;

	if (forced && *forced) {
		size_t b = 0;

		while (b < BACKEND_COUNT && strcmp(forced, backend_names[b]))
			b++;
		if (b == BACKEND_COUNT) {
			quiesce_warn("ignoring QUIESCE_RCU_BACKEND=%s: use membarrier, mprotect or signal",
				     forced);
		} else if (backend_init((enum quiesce_rcu_backend)b, &why_not)) {
			backend = (enum quiesce_rcu_backend)b;
			return;
		} else {
			quiesce_warn("ignoring QUIESCE_RCU_BACKEND=%s: %s", forced, why_not);
		}
	}
	/* The last link, the signal handshake, always initializes. */
	for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		if (backend_init(chain[i], &why_not)) {
			backend = chain[i];
			return;
		}
	}
}

/*
 * From gp_engine.c's constructor and on every use: a constructor of the
 * program may run before the library's (init_order.h) and already run
 * grace periods (before the backend was chosen, a grace period took the
 * unset command for a failed membarrier() and aborted) or set up per-CPU
 * semaphores (which ask quiesce_rseq_barrier_ready()).
 */
void quiesce_gp_barrier_init(void)
{
	pthread_once(&backend_chosen, choose_backend);
}

/* Reports a kernel barrier call that returned after more than the timeout. */
static void report_if_slow(uint64_t start, const char *call, const char *why)
{
	unsigned slow_ms = QUIESCE_LOAD(&quiesce_test_slow_barrier_ms);
	uint64_t took;
	char detail[256];

	if (slow_ms) {
		int cancel = quiesce_cancel_off();	/* usleep() is a cancellation point */

		usleep(slow_ms * 1000u);
		quiesce_cancel_restore(cancel);
	}
	took = quiesce_now_ns() - start;
	if (took < quiesce_stall_timeout_ns())
		return;
	snprintf(detail, sizeof(detail), "%s blocked in the kernel that long: %s", call, why);
	quiesce_stall_report_barrier(0, "kernel", took, detail);
}

void quiesce_gp_barrier(bool expedited)
{
	uint64_t start;
	int cmd;

	quiesce_gp_barrier_init();
	start = quiesce_now_ns();
	cmd = expedited ? MEMBARRIER_CMD_PRIVATE_EXPEDITED : normal_cmd;
	switch (backend) {
	case QUIESCE_RCU_BACKEND_SIGNAL:
		quiesce_gp_barrier_signal();
		return;
	case QUIESCE_RCU_BACKEND_MPROTECT:
		quiesce_gp_barrier_mprotect();
		report_if_slow(start, "mprotect()", "the machine is overloaded");
		return;
	case QUIESCE_RCU_BACKEND_MEMBARRIER:
		if (membarrier(cmd))
			quiesce_die("membarrier() failed after it was registered");
		if (cmd == MEMBARRIER_CMD_GLOBAL)
			report_if_slow(start, "membarrier(MEMBARRIER_CMD_GLOBAL)",
				       "it waits for the kernel's own grace period, slow on a loaded "
				       "machine; expedited grace periods do not");
		else
			report_if_slow(start, "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)",
				       "the machine is overloaded");
		return;
	}
}

bool quiesce_rseq_barrier_ready(void)
{
	quiesce_gp_barrier_init();
	return rseq_barrier_ready;
}

void quiesce_rseq_barrier(void)
{
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		quiesce_die("membarrier(PRIVATE_EXPEDITED_RSEQ) failed after it was registered");
	__atomic_fetch_add(&rseq_barriers, 1, __ATOMIC_RELAXED);
}

uint64_t quiesce_rseq_barrier_count(void)
{
	return __atomic_load_n(&rseq_barriers, __ATOMIC_RELAXED);
}

enum quiesce_rcu_backend quiesce_rcu_backend(void)
{
	quiesce_gp_barrier_init();
	return backend;
}

const char *quiesce_rcu_backend_name(void)
{
	return backend_names[quiesce_rcu_backend()];
}
