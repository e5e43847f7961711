/*
 * call_srcu(), srcu_barrier() and start_poll_synchronize_srcu(): every
 * callback runs once, after a grace period of its own domain (a reader
 * asleep in the domain holds it back, one asleep in another domain does
 * not); srcu_barrier() waits for all of them; a polled grace period ends
 * with nobody waiting for it; misuse aborts with a message; exit() inside
 * a section of a domain does not wait for that domain's callbacks (rcu.h).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/srcu.h>

#include "check.h"

struct obj {
	struct rcu_head head;
	atomic_int *ran;
};

static void count_and_free(struct rcu_head *head)
{
	struct obj *o = container_of(head, struct obj, head);

	atomic_fetch_add(o->ran, 1);
	free(o);
}

static void queue(struct srcu_struct *ss, atomic_int *ran)
{
	struct obj *o = malloc(sizeof(*o));

	o->ran = ran;
	call_srcu(ss, &o->head, count_and_free);
}

#define CALLERS 4
#define CALLS_EACH 2500

static struct srcu_struct many;
static atomic_int many_ran;

static void *caller(void *arg)
{
	for (int i = 0; i < CALLS_EACH; i++)
		queue(&many, &many_ran);
	return NULL;
}

static void every_callback_runs_once(void)
{
	pthread_t t[CALLERS];

	init_srcu_struct(&many);
	for (int i = 0; i < CALLERS; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	for (int i = 0; i < CALLERS; i++)
		pthread_join(t[i], NULL);
	srcu_barrier(&many);
	CHECK(atomic_load(&many_ran) == CALLERS * CALLS_EACH, "%d callbacks ran of %d",
	      atomic_load(&many_ran), CALLERS * CALLS_EACH);
	cleanup_srcu_struct(&many);
}

/* A reader that sleeps in one domain until told to leave. */
struct sleeper {
	struct srcu_struct *ss;
	atomic_int state;	/* 1: inside; 2: may leave; 3: leaving */
};

static void *sleeper(void *arg)
{
	struct sleeper *s = arg;
	int idx = srcu_read_lock(s->ss);

	atomic_store(&s->state, 1);
	while (atomic_load(&s->state) == 1)
		check_sleep_us(1000);
	atomic_store(&s->state, 3);
	srcu_read_unlock(s->ss, idx);
	return NULL;
}

static bool sleeper_inside(void *arg)
{
	return atomic_load(&((struct sleeper *)arg)->state) == 1;
}

static bool ran_once(void *arg)
{
	return atomic_load((atomic_int *)arg) == 1;
}

static void readers_hold_their_domain_only(void)
{
	struct srcu_struct held, free_domain;
	struct sleeper s = { .ss = &held };
	atomic_int held_ran = 0, free_ran = 0;
	unsigned long cookie;
	pthread_t t;

	init_srcu_struct(&held);
	init_srcu_struct(&free_domain);
	pthread_create(&t, NULL, sleeper, &s);
	check_wait_until(sleeper_inside, &s, "the sleeper to enter");
	queue(&held, &held_ran);
	cookie = start_poll_synchronize_srcu(&held);
	/* Another domain's callbacks and polled grace periods go on. */
	queue(&free_domain, &free_ran);
	srcu_barrier(&free_domain);
	CHECK(atomic_load(&free_ran) == 1, "the other domain's callback did not run");
	unsigned long free_cookie = start_poll_synchronize_srcu(&free_domain);

	check_wait_until(ran_once, &free_ran, "the other domain's callback");
	while (!poll_state_synchronize_srcu(&free_domain, free_cookie))
		check_sleep_us(100);
	check_sleep_us(20000);
	CHECK(atomic_load(&held_ran) == 0, "a callback ran while a reader of its domain was inside");
	CHECK(!poll_state_synchronize_srcu(&held, cookie), "a polled grace period ended with a reader inside");
	atomic_store(&s.state, 2);
	/* The domain's thread ends the polled grace period; nobody synchronizes. */
	while (!poll_state_synchronize_srcu(&held, cookie))
		check_sleep_us(100);
	CHECK(atomic_load(&s.state) == 3, "polled grace period ended before the reader left");
	srcu_barrier(&held);
	CHECK(atomic_load(&held_ran) == 1, "callback ran %d times", atomic_load(&held_ran));
	pthread_join(t, NULL);
	cleanup_srcu_struct(&held);
	cleanup_srcu_struct(&free_domain);
}

/* Misuse, in children. */
static struct srcu_struct victim;
static atomic_int blocker_go;

static void block_worker(struct rcu_head *head)
{
	while (!atomic_load(&blocker_go))
		check_sleep_us(1000);
	free(head);
}

static void cleanup_with_callbacks_pending(void *arg)
{
	atomic_int ran = 0;

	init_srcu_struct(&victim);
	call_srcu(&victim, malloc(sizeof(struct rcu_head)), block_worker);
	queue(&victim, &ran);
	cleanup_srcu_struct(&victim);
}

static void barrier_in_callback(struct rcu_head *head)
{
	free(head);
	srcu_barrier(&victim);
}

static void barrier_from_own_callback(void *arg)
{
	init_srcu_struct(&victim);
	call_srcu(&victim, malloc(sizeof(struct rcu_head)), barrier_in_callback);
	srcu_barrier(&victim);
}

/*
 * cleanup_srcu_struct() from a callback of the domain: it said "with
 * callbacks pending: call srcu_barrier() first" (the running callback
 * counts), and srcu_barrier() there aborts in turn.
 */
static void cleanup_in_callback(struct rcu_head *head)
{
	free(head);
	cleanup_srcu_struct(&victim);
}

static void cleanup_from_own_callback(void *arg)
{
	init_srcu_struct(&victim);
	call_srcu(&victim, malloc(sizeof(struct rcu_head)), cleanup_in_callback);
	srcu_barrier(&victim);
}

static void barrier_inside_own_section(void *arg)
{
	init_srcu_struct(&victim);
	srcu_read_lock(&victim);
	srcu_barrier(&victim);
}

/*
 * The section opens before the callback is queued, so that the callback's
 * grace period waits for it: exit() must not wait (its second, then
 * "callbacks still pending", for a section of its own caller).
 */
static void exit_inside_own_section(void *arg)
{
	atomic_int ran = 0;

	(void)arg;
	init_srcu_struct(&victim);
	srcu_read_lock(&victim);
	queue(&victim, &ran);
	exit(0);
}

/*
 * A callback that opens a section of its own domain and hands it to another
 * thread, which ends it later (srcu.h: any thread may unlock what another
 * locked; such a section belongs to no thread).  The callback thread's next
 * grace period waits for that thread, not for itself: the callbacks go on
 * once the section ends.  The closer waits well past the callback's return,
 * so that the section is still open when the callback thread looks.
 */
static struct srcu_struct handing;
static atomic_int handed_idx = -1;

static void lock_and_hand_off(struct rcu_head *head)
{
	(void)head;
	atomic_store(&handed_idx, srcu_read_lock(&handing));
}

static void *closer(void *arg)
{
	while (atomic_load(&handed_idx) < 0)
		check_sleep_us(1000);
	check_sleep_us(200000);
	srcu_read_unlock(&handing, atomic_load(&handed_idx));
	return arg;
}

static void callback_hands_section_off(void *arg)
{
	static struct rcu_head head;
	atomic_int ran = 0;
	pthread_t t;

	(void)arg;
	init_srcu_struct(&handing);
	pthread_create(&t, NULL, closer, NULL);
	call_srcu(&handing, &head, lock_and_hand_off);
	pthread_join(t, NULL);
	queue(&handing, &ran);
	srcu_barrier(&handing);
	CHECK(atomic_load(&ran) == 1, "the callback after the hand-off ran %d times",
	      atomic_load(&ran));
	cleanup_srcu_struct(&handing);
}

int main(void)
{
	char err[4096];
	int status;

	every_callback_runs_once();
	readers_hold_their_domain_only();
	check_child_aborts(cleanup_with_callbacks_pending, NULL,
			   "cleanup_srcu_struct() on SRCU domain \"victim\" with callbacks pending");
	check_child_aborts(barrier_from_own_callback, NULL,
			   "srcu_barrier() called from an SRCU callback");
	check_child_aborts(cleanup_from_own_callback, NULL,
			   "cleanup_srcu_struct() on SRCU domain \"victim\" from one of its own "
			   "callbacks");
	check_child_aborts(barrier_inside_own_section, NULL,
			   "srcu_barrier() called inside a read-side critical section of SRCU domain "
			   "\"victim\"");
	status = check_run_child(exit_inside_own_section, NULL, err, sizeof(err));
	CHECK(status == 0 && !strstr(err, "quiesce:"),
	      "exit() inside an SRCU section waited for the domain's callbacks: status %#x, %s",
	      status, err);
	status = check_run_child(callback_hands_section_off, NULL, err, sizeof(err));
	CHECK(status == 0 && !strstr(err, "quiesce:"),
	      "a callback that handed a section of its domain to another thread: status %#x, %s",
	      status, err);
	printf("srcu callbacks: all checks passed\n");
	return 0;
}
