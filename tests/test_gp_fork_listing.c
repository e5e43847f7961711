/*
 * test_gp_fork_listing.c - a fork() while another thread puts a domain on
 * the grace-period engine's list of domains gives the child a whole list
 * (gp_engine.c, "fork()").
 *
 * Thread A runs an SRCU domain's first grace period, which lists the
 * domain; the engine's test hook holds A between its two stores (the
 * list's head, then the domain's "listed" mark).  Thread F forks meanwhile;
 * A is let go 100 ms later.  The fork must wait for A: a child copied
 * between the two stores would find the domain at the head of the list but
 * not marked, list it again on its own first grace period, and make the
 * list a cycle (its next fork() would then loop forever in the engine's
 * child handler).  The child checks the list after a grace period of its
 * own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

#include <quiesce/srcu.h>

#include "check.h"
#include "rcu/gp_engine.h"

static struct srcu_struct ss;
static struct quiesce_gp_domain *listed;
static atomic_bool holding, release;

static void hook(struct quiesce_gp_domain *d, int where)
{
	if (where != QUIESCE_GP_HOOK_LISTING || d == &quiesce_rcu_domain)
		return;
	listed = d;
	atomic_store(&holding, true);
	while (!atomic_load(&release))	/* until main lets A go */
		check_sleep_us(100);
}

static void *lister(void *arg)
{
	(void)arg;
	synchronize_srcu(&ss);
	return NULL;
}

static void child(void *arg)
{
	(void)arg;
	quiesce_test_gp_hook = NULL;
	synchronize_srcu(&ss);
	if (listed->next_listed == listed) {
		fprintf(stderr, "the child's list of domains is a cycle\n");
		exit(1);
	}
	exit(0);
}

static void *forker(void *arg)
{
	char err[256];
	int status = check_run_child(child, NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child status %#x: %s", (unsigned)status, err);
	(void)arg;
	return NULL;
}

static bool a_held(void *arg) { (void)arg; return atomic_load(&holding); }

int main(void)
{
	pthread_t a, f;

	CHECK(init_srcu_struct(&ss) == 0, "init_srcu_struct");
	quiesce_test_gp_hook = hook;
	pthread_create(&a, NULL, lister, NULL);
	check_wait_until(a_held, NULL, "A listing the domain");
	pthread_create(&f, NULL, forker, NULL);
	check_sleep_us(100000);
	atomic_store(&release, true);
	pthread_join(a, NULL);
	pthread_join(f, NULL);
	quiesce_test_gp_hook = NULL;
	cleanup_srcu_struct(&ss);
	printf("ok: the child's list is whole\n");
	return 0;
}
