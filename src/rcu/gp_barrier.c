/*
 * gp_barrier.c - choosing between membarrier() and the signal handshake.
 *
 * membarrier(MEMBARRIER_CMD_GLOBAL) returns after every running thread of
 * every process has passed a full barrier; the kernel gets that from its
 * own grace period, so it sends no interrupt.  PRIVATE_EXPEDITED interrupts
 * just the CPUs running a thread of this process, and returns in
 * microseconds.  Without membarrier (an old kernel, a seccomp filter) a
 * signal handshake with each registered thread does the same job.
 *
 * PRIVATE_EXPEDITED_RSEQ interrupts the same CPUs and, on the way back to
 * user space, aborts any restartable sequence their threads were in; the
 * per-CPU semaphores close their gates with it (rcu_sync.c).
 */
#include "rcu/gp_barrier.h"

#include <linux/membarrier.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/diag.h"

static enum quiesce_rcu_backend backend;
static int normal_cmd;		/* membarrier command for normal grace periods */
static bool rseq_barrier_ready;	/* PRIVATE_EXPEDITED_RSEQ registered */
static uint64_t rseq_barriers;

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

void quiesce_gp_barrier_init(void)
{
	const char *forced = getenv("QUIESCE_RCU_BACKEND");
	int supported = membarrier(MEMBARRIER_CMD_QUERY);

	if (forced && strcmp(forced, "signal") && strcmp(forced, "membarrier"))
		quiesce_warn("ignoring QUIESCE_RCU_BACKEND=%s: use membarrier or signal", forced);
	if ((!forced || strcmp(forced, "signal")) && supported > 0 &&
	    (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
		backend = QUIESCE_RCU_BACKEND_MEMBARRIER;
		normal_cmd = (supported & MEMBARRIER_CMD_GLOBAL) ? MEMBARRIER_CMD_GLOBAL
							       : MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		rseq_barrier_ready = (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) &&
				     membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ) == 0;
		return;
	}
	backend = QUIESCE_RCU_BACKEND_SIGNAL;
	quiesce_gp_barrier_signal_init();
}

void quiesce_gp_barrier(bool expedited)
{
	if (backend == QUIESCE_RCU_BACKEND_SIGNAL) {
		quiesce_gp_barrier_signal();
		return;
	}
	if (membarrier(expedited ? MEMBARRIER_CMD_PRIVATE_EXPEDITED : normal_cmd))
		quiesce_die("membarrier() failed after it was registered");
}

bool quiesce_rseq_barrier_ready(void)
{
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
	return backend;
}

const char *quiesce_rcu_backend_name(void)
{
	return backend == QUIESCE_RCU_BACKEND_MEMBARRIER ? "membarrier" : "signal";
}
