/*
 * inject.c - faults injected from inside the torture threads: delays and
 * yields while holding, sleeping holders, pacing of writers, and the
 * occasional long reader that a stall warning must name.
 */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include <quiesce/rcu.h>

#include "torture.h"

/* A long reader holds this many stall timeouts, then waits this long. */
#define LONG_READ_TIMEOUTS 4
#define LONG_READ_GAP_NS 300000000ull

uint64_t torture_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void torture_spin_ns(uint64_t ns)
{
	uint64_t end = torture_now_ns() + ns;

	while (torture_now_ns() < end)
		for (int i = 0; i < 32; i++)
			quiesce_cpu_relax();
}

void torture_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	/* A signal (the signals fault) cuts the sleep short: sleep the rest. */
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

void torture_section_delay(struct torture_thread *t)
{
	unsigned spins = (unsigned)(torture_random(t) % 128);
	unsigned pick;

	/* Always a little width, so that sections overlap updates. */
	for (unsigned i = 0; i < spins; i++)
		quiesce_cpu_relax();
	if (!(t->run->opt->faults & TORTURE_FAULT_DELAY))
		return;
	pick = (unsigned)(torture_random(t) % 1024);
	if (pick < 64)
		torture_spin_ns(torture_random(t) % 20000);
	else if (pick < 80)
		sched_yield();
	else if (pick == 80)
		torture_spin_ns(torture_random(t) % 1000000);
}

void torture_hold_sleep(struct torture_thread *t)
{
	if ((t->run->opt->faults & TORTURE_FAULT_SLEEP) && torture_one_in(t, 16))
		torture_sleep_ns(10000 + torture_random(t) % 500000);
}

void torture_writer_pause(struct torture_thread *t)
{
	/*
	 * Paces updates, as rcutorture's writer does: a busted primitive
	 * must not retire elements faster than the quarantine holds them.
	 */
	if (torture_one_in(t, 4))
		torture_sleep_ns(10000 + torture_random(t) % 40000);
	else
		torture_spin_ns(torture_random(t) % 2000);
}

static void stall_seen(const struct quiesce_rcu_stall *stall)
{
	struct torture_run *run = QUIESCE_LOAD(&torture_active_run);

	__atomic_fetch_add(&run->stall_warnings, 1, __ATOMIC_RELAXED);
	if (stall->tid == QUIESCE_LOAD(&run->long_read_tid))
		QUIESCE_STORE(&run->long_read_warned, true);
}

void torture_stall_setup(struct torture_run *run)
{
	if (!(run->opt->faults & TORTURE_FAULT_STALL))
		return;
	run->long_read_next_ns = run->start_ns + LONG_READ_GAP_NS;
	quiesce_rcu_set_stall_timeout_ms(run->opt->stall_timeout_ms);
	quiesce_rcu_set_stall_handler(stall_seen);
}

void torture_stall_teardown(struct torture_run *run)
{
	if (!(run->opt->faults & TORTURE_FAULT_STALL))
		return;
	quiesce_rcu_set_stall_handler(NULL);
	quiesce_rcu_set_stall_timeout_ms(0);
}

bool torture_long_read_due(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	uint64_t now, next, hold;

	if (!(run->opt->faults & TORTURE_FAULT_STALL) || !torture_one_in(t, 512))
		return false;
	now = torture_now_ns();
	next = QUIESCE_LOAD(&run->long_read_next_ns);
	if (now < next)
		return false;
	hold = run->opt->stall_timeout_ms * 1000000u * LONG_READ_TIMEOUTS;
	/* One long reader at a time: the one that moves the next slot on. */
	return __atomic_compare_exchange_n(&run->long_read_next_ns, &next,
					   now + hold + LONG_READ_GAP_NS, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void torture_long_read_hold(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	uint64_t end = torture_now_ns() + run->opt->stall_timeout_ms * 1000000u * LONG_READ_TIMEOUTS;

	QUIESCE_STORE(&run->long_read_warned, false);
	QUIESCE_STORE(&run->long_read_tid, t->tid);
	while (torture_now_ns() < end) {
		if (torture_stopping(run)) {
			QUIESCE_STORE(&run->long_read_tid, 0);
			return;
		}
		sched_yield();
	}
	QUIESCE_STORE(&run->long_read_tid, 0);
	__atomic_fetch_add(&run->long_reads, 1, __ATOMIC_RELAXED);
	/*
	 * The writers never stop asking for grace periods, so one began to
	 * wait for this reader soon after it entered, waited for far longer
	 * than the timeout, and warned, naming it, well before now.
	 */
	if (!QUIESCE_LOAD(&run->long_read_warned) && !run->opt->busted)
		torture_violation(run, TV_STALL_MISSING,
				  "%s held a read-side section for %llu ms; no stall warning named it",
				  t->name,
				  (unsigned long long)run->opt->stall_timeout_ms * LONG_READ_TIMEOUTS);
}
