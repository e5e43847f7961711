/*
 * fork() after the program's own constructor used the library first.
 * Tests link the static library, whose constructors run after the
 * program's: a part whose fork handlers are registered on first use (a
 * gate's reopening, rcu_sync.c) then registered them before the callback
 * machinery's, whose child handler empties the child's queues; the order
 * the library's handlers run in must not depend on who used what first.
 */
#include <quiesce/rcu.h>
#include <quiesce/rcu_sync.h>

#include "check.h"

static struct quiesce_rcu_sync early, gate;

__attribute__((constructor)) static void use_early(void)
{
	/* The first gate to close and reopen: rcu_sync.c's fork handlers are registered now. */
	rcu_sync_init(&early);
	rcu_sync_enter(&early);
	rcu_sync_exit(&early);
}

static bool gate_idle(void *arg)
{
	return rcu_sync_is_idle(arg);
}

/* The child gets no callback of the parent's: the gate's reopening is queued again there. */
static void child_of_closing_gate(void *arg)
{
	(void)arg;
	check_wait_until(gate_idle, &gate, "the gate never reopened in the child");
	rcu_sync_dtor(&gate);
}

int main(void)
{
	char err[2048];
	int status;

	check_wait_until(gate_idle, &early, "the early gate never reopened");
	rcu_sync_dtor(&early);

	rcu_sync_init(&gate);
	rcu_sync_enter(&gate);
	check_hold_reader();	/* the reopening grace period waits, in the parent */
	rcu_sync_exit(&gate);
	CHECK(!rcu_sync_is_idle(&gate), "closing: the reopening callback is pending");
	status = check_run_child(child_of_closing_gate, NULL, err, sizeof(err));
	CHECK(status == 0, "child of a closing gate: status %#x, %s", status, err);
	check_release_reader();
	rcu_sync_dtor(&gate);
	printf("fork handlers after early use: ok\n");
	return 0;
}
