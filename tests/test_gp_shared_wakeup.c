/*
 * test_gp_shared_wakeup.c - a caller asleep on a grace period another caller
 * runs is woken when that grace period ends, whatever the owners before it
 * did meanwhile (gp_engine.c, "Sleeping on gp_ended").
 *
 * The order that once lost the wake-up, forced with the engine's test hook:
 *
 *   O1: ends its grace period and bumps gp_ended; held there.
 *   R enters a section; O2 takes the next grace period and waits for R.
 *   W finds O2's grace period running and goes to sleep on gp_ended (the
 *     value after O1's bump); held just before its futex wait until O1 has
 *     returned.
 *   O1 goes on: a wake-up decision made after W's going to sleep, for a
 *     bump made before it (the engine once cleared a "somebody sleeps" flag
 *     there, woke nobody, and left W's sleep unannounced).
 *   R leaves; O2's grace period ends: W must wake and return.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <quiesce/rcu.h>

#include "check.h"
#include "rcu/gp_engine.h"
#include "rcu/gp_seq.h"

enum role { NONE, O1, W };

static _Thread_local enum role role;
static atomic_int stage;		/* 1: O1 bumped; 2: W about to sleep */
static atomic_bool o1_returned, w_returned, reader_in, reader_release, held_o1, held_w;

static void hook(struct quiesce_gp_domain *d, int where)
{
	(void)d;
	if (role == O1 && where == QUIESCE_GP_HOOK_ENDED_BUMPED && !atomic_exchange(&held_o1, true)) {
		atomic_store(&stage, 1);
		while (atomic_load(&stage) < 2)	/* until W is about to sleep */
			check_sleep_us(100);
	} else if (role == W && where == QUIESCE_GP_HOOK_ENDED_SLEEPING &&
		   !atomic_exchange(&held_w, true)) {
		atomic_store(&stage, 2);
		while (!atomic_load(&o1_returned))	/* until O1 has decided and returned */
			check_sleep_us(100);
	}
}

static void *reader(void *arg)
{
	(void)arg;
	rcu_read_lock();	/* registers */
	rcu_read_unlock();
	while (atomic_load(&stage) < 1)
		check_sleep_us(100);
	rcu_read_lock();	/* holds O2's grace period */
	atomic_store(&reader_in, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(100);
	rcu_read_unlock();
	return NULL;
}

static void *owner1(void *arg)
{
	(void)arg;
	role = O1;
	synchronize_rcu();
	atomic_store(&o1_returned, true);
	return NULL;
}

static void *owner2(void *arg)
{
	(void)arg;
	synchronize_rcu();
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	role = W;
	synchronize_rcu();
	atomic_store(&w_returned, true);
	return NULL;
}

static bool at_stage1(void *arg) { (void)arg; return atomic_load(&stage) >= 1; }
static bool in_section(void *arg) { (void)arg; return atomic_load(&reader_in); }
static bool at_stage2(void *arg) { (void)arg; return atomic_load(&stage) >= 2; }
static bool o1_back(void *arg) { (void)arg; return atomic_load(&o1_returned); }
static bool w_back(void *arg) { (void)arg; return atomic_load(&w_returned); }

static bool gp_running(void *arg)
{
	(void)arg;
	return quiesce_gp_seq_running(quiesce_gp_seq_current(&quiesce_rcu_domain));
}

int main(void)
{
	pthread_t r, o1, o2, w;

	quiesce_test_gp_hook = hook;
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&o1, NULL, owner1, NULL);
	check_wait_until(at_stage1, NULL, "O1 bumping gp_ended");
	check_wait_until(in_section, NULL, "the reader entering its section");
	pthread_create(&o2, NULL, owner2, NULL);
	check_wait_until(gp_running, NULL, "O2 taking the next grace period");
	pthread_create(&w, NULL, waiter, NULL);
	check_wait_until(at_stage2, NULL, "W going to sleep");
	check_wait_until(o1_back, NULL, "O1 returning");
	atomic_store(&reader_release, true);
	check_wait_until(w_back, NULL, "W waking after O2's grace period (a lost wake-up)");
	pthread_join(r, NULL);
	pthread_join(o1, NULL);
	pthread_join(o2, NULL);
	pthread_join(w, NULL);
	quiesce_test_gp_hook = NULL;
	printf("ok: the sleeper woke\n");
	return 0;
}
