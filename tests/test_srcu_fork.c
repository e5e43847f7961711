/*
 * fork() and SRCU domains, as srcu.h says: the child uses a domain it
 * inherited; it may close the sections the forking thread had open; a
 * grace period that was running in the parent is finished by the child's
 * first; a section another thread of the parent had open stays open in
 * the child, whose grace periods wait for it and report it by the
 * domain's name.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <quiesce/srcu.h>

#include "check.h"

static struct srcu_struct ss;
static int forker_idx;

static void child_uses_domain(void *arg)
{
	for (int i = 0; i < 10; i++) {
		int idx = srcu_read_lock(&ss);

		srcu_read_unlock(&ss, idx);
		synchronize_srcu(&ss);
		synchronize_srcu_expedited(&ss);
	}
	cleanup_srcu_struct(&ss);
	exit(0);
}

static void child_closes_forkers_section(void *arg)
{
	srcu_read_unlock(&ss, forker_idx);
	synchronize_srcu(&ss);
	cleanup_srcu_struct(&ss);
	exit(0);
}

/* A grace period of the parent waits for the forking thread's section. */
static atomic_bool parent_gp_done;

static void *parent_sync(void *arg)
{
	synchronize_srcu(&ss);
	atomic_store(&parent_gp_done, true);
	return NULL;
}

/* Another thread of the parent sleeps inside a section across fork(). */
static atomic_int sleeper_state;	/* 1: inside; 2: may leave */

static void *sleeper(void *arg)
{
	int idx = srcu_read_lock(&ss);

	atomic_store(&sleeper_state, 1);
	while (atomic_load(&sleeper_state) == 1)
		check_sleep_us(1000);
	srcu_read_unlock(&ss, idx);
	return NULL;
}

static bool sleeper_inside(void *arg)
{
	return atomic_load(&sleeper_state) == 1;
}

static atomic_int child_stalls;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->detail && strstr(stall->detail, "SRCU stall: domain \"ss\": 1 reader inside"))
		atomic_fetch_add(&child_stalls, 1);
}

static void *child_sync(void *arg)
{
	synchronize_srcu(&ss);
	exit(3);	/* must not end: the parent's reader is still inside */
}

static bool child_stall_reported(void *arg)
{
	return atomic_load(&child_stalls) > 0;
}

static void child_waits_for_parents_reader(void *arg)
{
	pthread_t t;

	quiesce_rcu_set_stall_timeout_ms(100);
	quiesce_rcu_set_stall_handler(on_stall);
	pthread_create(&t, NULL, child_sync, NULL);
	check_wait_until(child_stall_reported, NULL, "the child's stall report");
	_exit(0);
}

static void run(void (*fn)(void *), const char *what)
{
	char err[4096];
	int status = check_run_child(fn, NULL, err, sizeof(err));

	CHECK(status == 0, "%s: child status %#x, stderr: %s", what, status, err);
}

int main(void)
{
	pthread_t t;

	init_srcu_struct(&ss);
	synchronize_srcu(&ss);
	run(child_uses_domain, "a domain with no reader inside");

	forker_idx = srcu_read_lock(&ss);
	run(child_closes_forkers_section, "the forking thread's section");

	/* Still inside: a grace period of the parent waits while we fork. */
	pthread_create(&t, NULL, parent_sync, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&parent_gp_done), "grace period ended with a section open");
	run(child_closes_forkers_section, "a grace period running at fork()");
	srcu_read_unlock(&ss, forker_idx);
	check_join_within(t, CHECK_HANG_MS, "the parent's grace period");

	pthread_create(&t, NULL, sleeper, NULL);
	check_wait_until(sleeper_inside, NULL, "the sleeper to enter");
	run(child_waits_for_parents_reader, "another thread's section at fork()");
	atomic_store(&sleeper_state, 2);
	pthread_join(t, NULL);
	synchronize_srcu(&ss);
	cleanup_srcu_struct(&ss);
	printf("srcu fork: all checks passed\n");
	return 0;
}
