/*
 * test_gp_fork_listing.c - a fork() around a domain's first grace period,
 * which puts the domain on the grace-period engine's list of domains,
 * gives the child a whole list and a domain it can use (gp_engine.c,
 * "fork()").  In each case thread A runs an SRCU domain's first grace
 * period and the engine's test hook holds A at one point of it:
 *
 * - listing: between A's two stores (the list's head, then the domain's
 *   "listed" mark).  Thread F forks meanwhile; A is let go 100 ms later.
 *   The fork must wait for A: a child copied between the two stores would
 *   find the domain at the head of the list but not marked, list it again
 *   on its own first grace period, and make the list a cycle (its next
 *   fork() would then loop forever in the engine's child handler).  The
 *   child checks the list after a grace period of its own.
 * - owned: right after the compare-exchange that made A the grace
 *   period's owner.  The main thread forks meanwhile.  The child has no A:
 *   its handler must take the grace period back, which it does only for a
 *   domain on the list, so the domain must be listed before anyone owns
 *   one of its grace periods.  The child checks that no grace period runs,
 *   and runs one of its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

#include <quiesce/srcu.h>

#include "check.h"
#include "rcu/gp_engine.h"
#include "rcu/gp_seq.h"

static struct srcu_struct ss;
static int hold_at;			/* the hook's point that holds A */
static struct quiesce_gp_domain *held;	/* ss's domain, once A is held */
static atomic_bool holding, release;

static void hook(struct quiesce_gp_domain *d, int where)
{
	if (where != hold_at || d == &quiesce_rcu_domain || held)
		return;
	held = d;
	atomic_store(&holding, true);
	while (!atomic_load(&release))	/* until main lets A go */
		check_sleep_us(100);
}

static void *first_grace_period(void *arg)
{
	(void)arg;
	synchronize_srcu(&ss);
	return NULL;
}

static void child_after_listing(void *arg)
{
	(void)arg;
	quiesce_test_gp_hook = NULL;
	synchronize_srcu(&ss);
	if (held->next_listed == held) {
		fprintf(stderr, "the child's list of domains is a cycle\n");
		check_child_exit(1);
	}
	exit(0);
}

static void child_after_owned(void *arg)
{
	(void)arg;
	quiesce_test_gp_hook = NULL;
	if (quiesce_gp_seq_running(quiesce_gp_seq_current(held))) {
		fprintf(stderr, "the child has a grace period running that no thread runs: "
				"its synchronize_srcu() would wait forever\n");
		check_child_exit(1);
	}
	synchronize_srcu(&ss);
	exit(0);
}

static void check_child(void (*child)(void *))
{
	char err[256];
	int status = check_run_child(child, NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x: %s", (unsigned)status, err);
}

static void *forker(void *arg)
{
	(void)arg;
	check_child(child_after_listing);
	return NULL;
}

static bool a_held(void *arg) { (void)arg; return atomic_load(&holding); }

/* Holds A at `where` in ss's first grace period, runs fork_while_held(), lets A go. */
static void with_first_grace_period_held(int where, const char *what,
					 void (*fork_while_held)(void))
{
	pthread_t a;

	CHECK(init_srcu_struct(&ss) == 0, "init_srcu_struct");
	hold_at = where;
	held = NULL;
	atomic_store(&holding, false);
	atomic_store(&release, false);
	quiesce_test_gp_hook = hook;
	pthread_create(&a, NULL, first_grace_period, NULL);
	check_wait_until(a_held, NULL, what);
	fork_while_held();
	atomic_store(&release, true);
	pthread_join(a, NULL);
	quiesce_test_gp_hook = NULL;
	cleanup_srcu_struct(&ss);
}

static void fork_from_f(void)
{
	pthread_t f;

	pthread_create(&f, NULL, forker, NULL);
	check_sleep_us(100000);
	atomic_store(&release, true);	/* the fork waits for A (see the top) */
	pthread_join(f, NULL);
}

static void fork_from_main(void)
{
	check_child(child_after_owned);
}

int main(void)
{
	with_first_grace_period_held(QUIESCE_GP_HOOK_LISTING, "A listing the domain", fork_from_f);
	printf("ok: the child's list is whole\n");
	with_first_grace_period_held(QUIESCE_GP_HOOK_OWNED, "A owning the first grace period",
				     fork_from_main);
	printf("ok: the child runs the grace period A owned in the parent\n");
	return 0;
}
