/*
 * The stall timeout set by the program's own constructor, before the
 * library's (priority 101, src/common/init_order.h): the environment's
 * QUIESCE_STALL_TIMEOUT_MS, which the program's own setting overrides
 * (rcu.h), must not overwrite it when the library's constructors run.
 */
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/stall.h"

#define PROGRAM_MS 12345u

__attribute__((constructor(101))) static void set_early(void)
{
	/* Read by the library's constructor, which runs after this one. */
	setenv("QUIESCE_STALL_TIMEOUT_MS", "600000", 1);
	quiesce_rcu_set_stall_timeout_ms(PROGRAM_MS);
}

int main(void)
{
	uint64_t ms = quiesce_stall_timeout_ns() / 1000000u;

	CHECK(ms == PROGRAM_MS,
	      "the stall timeout a constructor set (%u ms) was overwritten by the environment's: "
	      "%llu ms", PROGRAM_MS, (unsigned long long)ms);
	printf("stall timeout set early: ok\n");
	return 0;
}
