/*
 * rcu_stall.c - the stall fault: one reader at a time holds its section
 * for RCU_LONG_READ_TIMEOUTS stall timeouts.  A grace period that flips
 * the phase while it holds must wait for it, and after one timeout it
 * must warn, naming the reader.  The check watches for that flip rather
 * than assuming one: a normal grace period's heavy barrier can be the
 * kernel's own grace period, which on a loaded machine can take seconds,
 * and no reader is waited for (or warned about) before it returns.
 *
 * The check is on behaviour, not on speed: once a grace period has
 * flipped, the warning is due, and the reader holds on until it comes,
 * however late a loaded machine (a starved grace-period thread) makes it.
 * Only the run's hang limit, the join timeout, ends that wait with a
 * violation.
 */
#include "rcu_stall.h"

#include <sched.h>
#include <stdio.h>

#include <quiesce/rcu.h>

#include "torture.h"

/* The pause between two long reads. */
#define LONG_READ_GAP_NS 300000000ull

/* The stall fault's state; one run at a time uses it. */
static struct {
	uint64_t next_ns;	/* when the next long read may start */
	int tid;		/* the long reader now holding, or 0 */
	bool warned;		/* a stall warning named it */
} long_read;

static void stall_seen(const struct quiesce_rcu_stall *stall)
{
	struct torture_run *run = QUIESCE_LOAD(&torture_active_run);

	__atomic_fetch_add(&run->stall_warnings, 1, __ATOMIC_RELAXED);
	if (stall->tid == QUIESCE_LOAD(&long_read.tid))
		QUIESCE_STORE(&long_read.warned, true);
}

void rcu_stall_setup(struct torture_run *run)
{
	if (!(run->opt->faults & TORTURE_FAULT_STALL))
		return;
	long_read.next_ns = run->start_ns + LONG_READ_GAP_NS;
	long_read.tid = 0;
	quiesce_rcu_set_stall_timeout_ms(run->opt->stall_timeout_ms);
	quiesce_rcu_set_stall_handler(stall_seen);
}

/*
 * A long read is checked only when it held to its end and a grace period
 * flipped meanwhile.  The first may start LONG_READ_GAP_NS into the run
 * and holds RCU_LONG_READ_TIMEOUTS timeouts; a run with room for two of
 * them must have checked one.  A shorter run only says so.
 */
void rcu_stall_evidence(struct torture_run *run)
{
	uint64_t hold = run->opt->stall_timeout_ms * 1000000u * RCU_LONG_READ_TIMEOUTS;

	if (!(run->opt->faults & TORTURE_FAULT_STALL) || run->long_reads_checked)
		return;
	if (run->opt->duration_ns >= LONG_READ_GAP_NS + 2 * (hold + LONG_READ_GAP_NS))
		torture_unchecked(run, "the stall fault checked no long read");
	else if (!run->opt->quiet)
		fprintf(stderr, "quiesce-torture: note: the stall fault checked no long read "
			"(a run shorter than %.1f s may have none)\n",
			(double)(LONG_READ_GAP_NS + 2 * (hold + LONG_READ_GAP_NS)) / 1e9);
}

void rcu_stall_teardown(struct torture_run *run)
{
	if (!(run->opt->faults & TORTURE_FAULT_STALL))
		return;
	quiesce_rcu_set_stall_handler(NULL);
	quiesce_rcu_set_stall_timeout_ms(0);
}

static uint64_t timeout_ns(const struct torture_run *run)
{
	return run->opt->stall_timeout_ms * 1000000u;
}

bool rcu_long_read_due(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	uint64_t now, next;

	if (!(run->opt->faults & TORTURE_FAULT_STALL) || !torture_one_in(t, 512))
		return false;
	now = torture_now_ns();
	next = QUIESCE_LOAD(&long_read.next_ns);
	if (now < next)
		return false;
	/* One long reader at a time: the one that moves the next slot on. */
	return __atomic_compare_exchange_n(&long_read.next_ns, &next,
					   now + timeout_ns(run) * RCU_LONG_READ_TIMEOUTS +
						   LONG_READ_GAP_NS,
					   false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static unsigned long phase_of(unsigned long ctr)
{
	return ctr & ~QUIESCE_RCU_NEST_MASK;
}

void rcu_long_read_hold(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	uint64_t now, hang, flipped = 0;
	uint64_t end = torture_now_ns() + timeout_ns(run) * RCU_LONG_READ_TIMEOUTS;
	unsigned long entered = phase_of(quiesce_rcu_reader_self.ctr);

	QUIESCE_STORE(&long_read.warned, false);
	QUIESCE_STORE(&long_read.tid, t->tid);
	while ((now = torture_now_ns()) < end && !torture_stopping(run)) {
		/* The engine flips the phase just before it scans for readers. */
		if (!flipped && phase_of(QUIESCE_LOAD(&quiesce_rcu_gp_word.ctr)) != entered)
			flipped = now;
		sched_yield();
	}
	if (now >= end)
		__atomic_fetch_add(&run->long_reads, 1, __ATOMIC_RELAXED);
	/* Cut short by the end of the run, or no grace period came. */
	if (now < end || !flipped) {
		QUIESCE_STORE(&long_read.tid, 0);
		return;
	}
	/*
	 * A grace period waits for this section: its warning is due.  Hold on
	 * until it comes (the grace period goes on waiting, so it stays due),
	 * up to the hang limit, even past the end of the run.
	 */
	hang = now + run->opt->join_timeout_ns;
	while (!QUIESCE_LOAD(&long_read.warned) && (now = torture_now_ns()) < hang)
		sched_yield();
	QUIESCE_STORE(&long_read.tid, 0);
	__atomic_fetch_add(&run->long_reads_checked, 1, __ATOMIC_RELAXED);
	if (!QUIESCE_LOAD(&long_read.warned))
		torture_violation(run, TV_STALL_MISSING,
				  "a grace period waited %llu ms for %s; no stall warning named it",
				  (unsigned long long)(now - flipped) / 1000000u, t->name);
}
