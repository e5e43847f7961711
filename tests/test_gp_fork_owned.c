/*
 * test_gp_fork_owned.c - a fork() right after another thread took a
 * domain's first grace period leaves the child a domain it can use
 * (gp_engine.c, "fork()").
 *
 * Thread A runs an SRCU domain's first grace period; the engine's test
 * hook holds A right after the compare-exchange that made A the owner.
 * The main thread forks meanwhile.  The child has no A: its handler must
 * take the grace period back, which it does only for a domain on the
 * engine's list, so the domain must be listed before anyone owns one of
 * its grace periods.  The child checks that no grace period runs, and
 * runs one of its own.
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
static struct quiesce_gp_domain *owned;
static atomic_bool holding, release;

static void hook(struct quiesce_gp_domain *d, int where)
{
	if (where != QUIESCE_GP_HOOK_OWNED || d == &quiesce_rcu_domain || owned)
		return;
	owned = d;
	atomic_store(&holding, true);
	while (!atomic_load(&release))	/* until main lets A go */
		check_sleep_us(100);
}

static void *owner(void *arg)
{
	(void)arg;
	synchronize_srcu(&ss);
	return NULL;
}

static void child(void *arg)
{
	(void)arg;
	quiesce_test_gp_hook = NULL;
	if (quiesce_gp_seq_running(quiesce_gp_seq_current(owned))) {
		fprintf(stderr, "the child has a grace period running that no thread runs: "
				"its synchronize_srcu() would wait forever\n");
		exit(1);
	}
	synchronize_srcu(&ss);
	exit(0);
}

static bool a_holds(void *arg) { (void)arg; return atomic_load(&holding); }

int main(void)
{
	char err[256];
	pthread_t a;
	int status;

	CHECK(init_srcu_struct(&ss) == 0, "init_srcu_struct");
	quiesce_test_gp_hook = hook;
	pthread_create(&a, NULL, owner, NULL);
	check_wait_until(a_holds, NULL, "A owning the domain's first grace period");
	status = check_run_child(child, NULL, err, sizeof(err));
	atomic_store(&release, true);
	pthread_join(a, NULL);
	quiesce_test_gp_hook = NULL;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x: %s",
	      (unsigned)status, err);
	cleanup_srcu_struct(&ss);
	printf("ok: the child runs the grace period A owned in the parent\n");
	return 0;
}
