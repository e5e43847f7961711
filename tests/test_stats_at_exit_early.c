/*
 * QUIESCE_STATS=1 after the program's own constructor used call_rcu()
 * first.  Its priority (101) runs it before the library's constructors
 * (src/common/init_order.h), so the callback threads' exit handler is
 * registered before the stats' unless first use sees to the order: the
 * stats must still be printed after exit() has run the callbacks.
 */
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>

#include "check.h"

static struct rcu_head early_head, late_head;
static bool early_ran;

static void early_cb(struct rcu_head *head)
{
	(void)head;
	QUIESCE_STORE(&early_ran, true);
}

static void late_cb(struct rcu_head *head)
{
	(void)head;
}

__attribute__((constructor(101))) static void use_early(void)
{
	/* Starts the callback thread, whose exit handler is registered now. */
	call_rcu(&early_head, early_cb);
}

static bool early_done(void *arg)
{
	(void)arg;
	return QUIESCE_LOAD(&early_ran);
}

/* A callback still pending at exit(): exit() runs it, then the stats are printed. */
static void child_exits(void *arg)
{
	(void)arg;
	call_rcu(&late_head, late_cb);
	setenv("QUIESCE_STATS", "1", 1);
	exit(0);
}

int main(void)
{
	char err[4096];
	int status;

	check_wait_until(early_done, NULL, "the constructor's callback never ran");
	status = check_run_child(child_exits, NULL, err, sizeof(err));
	CHECK(status == 0, "child: status %#x, %s", status, err);
	CHECK(strstr(err, "callbacks queued 1, invoked 1, pending 0;"),
	      "the stats were printed before exit() ran the callbacks: %s", err);
	printf("stats at exit after early use: ok\n");
	return 0;
}
