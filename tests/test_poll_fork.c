/*
 * test_poll_fork.c - a grace period that start_poll asked for in a parent
 * of fork() passes in the child too, in each domain that a thread holds
 * (the default RCU, mb and QSBR), without anyone in the child blocking for
 * it.  (SRCU's sections belong to no thread: one the parent held stays
 * open in the child, registry.c, so its grace period cannot pass there.)
 *
 * The parent holds the domain's grace periods with a thread (inside a
 * section, or online without a quiescent state), asks with start_poll,
 * checks that the cookie has not passed, and forks.  The holder is not in
 * the child, so nothing holds the grace period there: the child polls
 * until the cookie passes.  The child calls nothing but poll_state, as a
 * program whose parent started the grace period would.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

#include "check.h"

enum domain { DOMAIN_RCU, DOMAIN_MB, DOMAIN_QSBR };
static const char *const domain_names[] = { "RCU", "RCU-mb", "QSBR" };

static struct {
	enum domain domain;
	pthread_t thread;
	atomic_bool ready, release;
} holder;

/* Holds the domain's grace periods until released. */
static void *hold(void *arg)
{
	(void)arg;
	switch (holder.domain) {
	case DOMAIN_RCU:
		rcu_read_lock();
		break;
	case DOMAIN_MB:
		rcu_mb_read_lock();
		break;
	case DOMAIN_QSBR:
		rcu_qsbr_register_thread();	/* online, and announces nothing */
		break;
	}
	atomic_store(&holder.ready, true);
	while (!atomic_load(&holder.release))
		check_sleep_us(1000);
	switch (holder.domain) {
	case DOMAIN_RCU:
		rcu_read_unlock();
		break;
	case DOMAIN_MB:
		rcu_mb_read_unlock();
		break;
	case DOMAIN_QSBR:
		rcu_qsbr_unregister_thread();
		break;
	}
	return NULL;
}

static bool holder_ready(void *arg)
{
	(void)arg;
	return atomic_load(&holder.ready);
}

static unsigned long start_poll(enum domain d)
{
	switch (d) {
	case DOMAIN_RCU:
		return start_poll_synchronize_rcu();
	case DOMAIN_MB:
		return start_poll_synchronize_rcu_mb();
	case DOMAIN_QSBR:
		return rcu_qsbr_start_poll_synchronize_rcu();
	}
	abort();
}

static bool poll_state(enum domain d, unsigned long cookie)
{
	switch (d) {
	case DOMAIN_RCU:
		return poll_state_synchronize_rcu(cookie);
	case DOMAIN_MB:
		return poll_state_synchronize_rcu_mb(cookie);
	case DOMAIN_QSBR:
		return rcu_qsbr_poll_state_synchronize_rcu(cookie);
	}
	abort();
}

static unsigned long cookie;

static bool cookie_done(void *arg)
{
	(void)arg;
	return poll_state(holder.domain, cookie);
}

static void child_polls(void *arg)
{
	(void)arg;
	check_wait_until(cookie_done, NULL,
			 "the child of fork(): start_poll's grace period, asked for in the "
			 "parent, never passed");
	exit(0);
}

static void test_domain(enum domain d)
{
	char err[4096];
	int status;

	holder.domain = d;
	atomic_store(&holder.ready, false);
	atomic_store(&holder.release, false);
	pthread_create(&holder.thread, NULL, hold, NULL);
	check_wait_until(holder_ready, NULL, "the holder never held the grace period");
	cookie = start_poll(d);
	check_sleep_us(20000);
	CHECK(!poll_state(d, cookie), "%s: a grace period passed while a reader held it",
	      domain_names[d]);
	status = check_run_child(child_polls, NULL, err, sizeof(err));
	CHECK(status == 0, "%s: child status %#x, stderr: %s", domain_names[d], status, err);
	atomic_store(&holder.release, true);
	check_join_within(holder.thread, CHECK_HANG_MS, "the holder");
	check_wait_until(cookie_done, NULL, "the parent: start_poll's grace period never passed");
	fprintf(stderr, "%s: passed\n", domain_names[d]);
}

int main(void)
{
	test_domain(DOMAIN_RCU);
	test_domain(DOMAIN_MB);
	test_domain(DOMAIN_QSBR);
	printf("poll fork: all checks passed\n");
	return 0;
}
