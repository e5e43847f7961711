/*
 * exit() lets pending callbacks run before it stops their threads
 * (src/rcu/cb_lifecycle.c, "Exit and fork").  A callback that runs then and
 * is the first to use another domain (here the mb flavor's call_rcu())
 * lists that domain, which must not wait for exit()'s walk of the list:
 * that walk waits for the callback, until its deadline, and then reports
 * the callbacks as held up and leaves them unrun.
 */
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>

#include "check.h"

static struct rcu_head head, mb_head, last_head;

static void nothing(struct rcu_head *h)
{
	(void)h;
}

static void first_mb_call(struct rcu_head *h)
{
	(void)h;
	quiesce_call_rcu_mb(&mb_head, nothing);
}

static void last_ran(struct rcu_head *h)
{
	(void)h;
	fprintf(stderr, "the last callback ran\n");
}

static void child_exits(void *arg)
{
	(void)arg;
	call_rcu(&head, first_mb_call);
	call_rcu(&last_head, last_ran);
	exit(0);
}

int main(void)
{
	char err[4096];
	int status = check_run_child(child_exits, NULL, err, sizeof(err));

	CHECK(status == 0, "child: status %#x, %s", status, err);
	CHECK(!strstr(err, "quiesce:") && strstr(err, "the last callback ran"),
	      "exit() waited for a callback that listed a domain: %s", err);
	printf("call_rcu at exit, first use of a domain: ok\n");
	return 0;
}
