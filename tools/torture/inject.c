/*
 * inject.c - faults injected from inside the torture threads: delays and
 * yields while holding, sleeping holders, and the pacing of writers.
 */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include <quiesce/compiler.h>

#include "torture.h"

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
	unsigned spins = (unsigned)(torture_random(t) % 32);
	unsigned pick;

	/* Always a little width, so that sections overlap updates. */
	for (unsigned i = 0; i < spins; i++)
		quiesce_cpu_relax();
	if (!(t->run->opt->faults & TORTURE_FAULT_DELAY))
		return;
	pick = (unsigned)(torture_random(t) % 1024);
	if (pick <= 80)
		torture_count_delay(t);
	if (pick < 64)
		torture_spin_ns(torture_random(t) % 20000);
	else if (pick < 80)
		sched_yield();
	else if (pick == 80)
		torture_spin_ns(torture_random(t) % 1000000);
}

void torture_hold_sleep(struct torture_thread *t)
{
	if ((t->run->opt->faults & TORTURE_FAULT_SLEEP) && torture_one_in(t, 16)) {
		torture_count_sleep(t);
		torture_sleep_ns(10000 + torture_random(t) % 500000);
	}
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
