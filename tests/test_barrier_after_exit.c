/*
 * Barriers in atexit handlers, on either side of the library's, which
 * stops the callback threads at exit():
 *  - a handler registered from main(), even before the program's first
 *    call_rcu(), runs before the library's (registered by its constructor,
 *    src/common/init_order.h): its barriers wait for their callbacks, as
 *    liburcu's do (multipathd's exit handler calls rcu_barrier());
 *  - a handler registered before the library's constructor ran (by a
 *    program's constructor of a higher priority, this test being linked
 *    statically) runs after it: the callbacks queued there never run, and
 *    the barrier says so on stderr rather than return as if they had
 *    (rcu.h: "rcu_barrier() returns after every callback queued before
 *    it has run").  A barrier with nothing queued says nothing.
 */
#include <string.h>
#include <unistd.h>

#include <quiesce/rcu.h>
#include <quiesce/srcu.h>

#include "check.h"

static struct rcu_head head, late_head, srcu_head, late_srcu_head;
DEFINE_STATIC_SRCU(test_srcu);

static void said(const char *what)
{
	ssize_t n = write(STDERR_FILENO, what, strlen(what));

	(void)n;
}

static void ran(struct rcu_head *h)
{
	(void)h;
	said("callback ran\n");
}

static void late_ran(struct rcu_head *h)
{
	(void)h;
	said("late callback ran\n");
}

/* What the handler registered before the library's does, set by the child. */
static void (*after_library)(void);

static void run_after_library(void)
{
	if (after_library)
		after_library();
}

/* Before the library's constructor that registers its exit handlers (init_order.h). */
__attribute__((constructor(101))) static void register_before_library(void)
{
	atexit(run_after_library);
}

/* Runs after the library's exit handler, which stopped the threads. */
static void empty_barriers_at_exit(void)
{
	rcu_barrier();
	srcu_barrier(&test_srcu);
	said("empty barriers returned\n");
}

static void barriers_at_exit(void)
{
	call_rcu(&late_head, late_ran);
	rcu_barrier();
	said("rcu_barrier returned\n");
	call_srcu(&test_srcu, &late_srcu_head, late_ran);
	srcu_barrier(&test_srcu);
	said("srcu_barrier returned\n");
}

static void child_after_library(void *arg)
{
	after_library = (void (*)(void))arg;
	call_rcu(&head, ran);
	call_srcu(&test_srcu, &srcu_head, ran);
	rcu_barrier();
	srcu_barrier(&test_srcu);
	exit(0);
}

/* Registered from main(), before the first call_rcu(): runs before the library's. */
static void child_from_main(void *arg)
{
	atexit((void (*)(void))arg);
	call_rcu(&head, ran);
	exit(0);
}

int main(void)
{
	char err[4096];
	const char *rcu_ran, *srcu_ran, *rcu_said, *srcu_said;
	int status;

	status = check_run_child(child_from_main, (void *)barriers_at_exit, err, sizeof(err));
	CHECK(status == 0 && strstr(err, "srcu_barrier returned"), "child: status %#x, %s", status,
	      err);
	rcu_ran = strstr(err, "late callback ran");
	srcu_ran = rcu_ran ? strstr(rcu_ran + 1, "late callback ran") : NULL;
	CHECK(rcu_ran && rcu_ran < strstr(err, "rcu_barrier returned") && srcu_ran &&
	      srcu_ran < strstr(err, "srcu_barrier returned") && !strstr(err, "quiesce:"),
	      "barriers in a handler registered from main() did not wait for their callbacks: %s",
	      err);

	status = check_run_child(child_after_library, (void *)empty_barriers_at_exit, err,
				 sizeof(err));
	CHECK(status == 0 && strstr(err, "empty barriers returned") && !strstr(err, "quiesce:"),
	      "empty barriers after exit(): status %#x, %s", status, err);

	status = check_run_child(child_after_library, (void *)barriers_at_exit, err, sizeof(err));
	CHECK(status == 0 && strstr(err, "srcu_barrier returned"), "child: status %#x, %s", status,
	      err);
	CHECK(!strstr(err, "late callback ran"), "a callback ran during exit(): %s", err);
	rcu_said = strstr(err, "quiesce: rcu_barrier() after exit() stopped the RCU callback thread");
	srcu_said = strstr(err, "quiesce: srcu_barrier() after exit() stopped the SRCU callback "
				"thread");
	CHECK(rcu_said && rcu_said < strstr(err, "rcu_barrier returned") && srcu_said &&
	      srcu_said < strstr(err, "srcu_barrier returned"),
	      "a barrier after exit() returned without its callbacks and said nothing: %s", err);
	printf("barriers after exit: ok\n");
	return 0;
}
