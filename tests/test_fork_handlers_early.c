/*
 * fork() after the program's own constructor used the library first.
 * Tests link the static library, whose constructors have priorities
 * (src/common/init_order.h); this one has the first priority, as a
 * program's may, so it runs before them.  The parts whose fork handlers
 * are registered on first use (a gate's reopening, rcu_sync.c; defer.c)
 * then register them before the callback machinery's constructor would:
 * the order the library's handlers run in must not depend on who used
 * what first.
 *  - rcu_sync.c's child handler queues the reopening of a closing gate
 *    again; call_rcu.c's, which empties the child's queues, must run
 *    before it, or the child's gate never reopens.
 *  - defer.c's prepare handler takes the lock under which its flusher
 *    calls call_rcu(); call_rcu.c's, which takes that call's locks, must
 *    run after it, or fork() deadlocks with a flusher handing a block
 *    over.  A handler of the program's (registered between the two when
 *    the order is wrong) holds the forking thread there until the
 *    flusher, which has not queued a callback before, is in call_rcu().
 */
#include <signal.h>
#include <unistd.h>

#include <quiesce/defer.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_sync.h>

#include "check.h"

/* The flusher marks a block, then hands it over at its next sweep, 10 ms on. */
#define PAUSE_IN_PREPARE_US 100000u
#define FORK_HANG_S 30u

static struct quiesce_rcu_sync early, gate;
static bool pause_in_prepare;

static void noop(void *p)
{
	(void)p;
}

__attribute__((constructor(101))) static void use_early(void)
{
	/* The first gate to close and reopen: rcu_sync.c's fork handlers are registered now. */
	rcu_sync_init(&early);
	rcu_sync_enter(&early);
	rcu_sync_exit(&early);
	/* defer.c's too; its barrier hands the block over, so the flusher never called call_rcu(). */
	defer_rcu(noop, NULL);
	rcu_defer_barrier();
}

static void pausing_prepare(void)
{
	if (pause_in_prepare)
		check_sleep_us(PAUSE_IN_PREPARE_US);
}

/* After defer.c's handlers; before call_rcu.c's if the library's constructors register them. */
__attribute__((constructor(102))) static void add_pausing_handler(void)
{
	pthread_atfork(pausing_prepare, NULL, NULL);
}

static void fork_hung(int sig)
{
	static const char msg[] = "fork() with a defer_rcu() block being handed over: deadlocked\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
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

static void child_defers(void *arg)
{
	(void)arg;
	defer_rcu(noop, NULL);
	rcu_defer_barrier();
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

	/* A partial block: the flusher hands it over while the fork is being prepared. */
	defer_rcu(noop, NULL);
	signal(SIGALRM, fork_hung);
	alarm(FORK_HANG_S);
	pause_in_prepare = true;
	status = check_run_child(child_defers, NULL, err, sizeof(err));
	pause_in_prepare = false;
	alarm(0);
	CHECK(status == 0, "child of a deferring parent: status %#x, %s", status, err);
	rcu_defer_barrier();
	printf("fork handlers after early use: ok\n");
	return 0;
}
