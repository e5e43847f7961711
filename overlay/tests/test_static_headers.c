/*
 * liburcu's urcu/static/ headers, included by a program itself: eBay's
 * sisl includes <urcu.h> and then <urcu/static/urcu-qsbr.h>, without
 * _LGPL_SOURCE, and a program may call the inline functions those headers
 * define (_urcu_memb_read_lock(), _urcu_qsbr_quiescent_state(),
 * _rcu_dereference(), ...).  Here they must be the flavors' own read sides:
 * a grace period of the flavor waits for a section entered through them,
 * and for a qsbr thread online through them until its quiescent state.
 * Also: the pointer operations and 0.15's cmm_ptr_eq() of static/pointer.h,
 * SIGRCU, map/urcu.h, and 0.15's annotations (whose misuse aborts under
 * ThreadSanitizer).  Each "not yet" is certain (the holder waits for the
 * test to look), not a race.  The busted control (grace periods that do
 * not wait) must be caught.
 */
#include <urcu/urcu-qsbr.h>	/* the qsbr flavor's prefixed names, for registration */

#include <urcu.h>
#include <urcu/static/urcu-qsbr.h>
#include <urcu-call-rcu.h>

#include <urcu/annotate.h>
#include <urcu/map/urcu.h>
#include <urcu/static/pointer.h>
#include <urcu/static/urcu-signal-nr.h>
#include <urcu/static/urcu.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "check.h"

static atomic_int step;	/* the holder's progress, driven by holds_until_step_2() */
static atomic_bool sync_done;

static bool at_step_1(void *arg) { return atomic_load(&step) == 1; }
static bool at_step_3(void *arg) { return atomic_load(&step) == 3; }
static bool sync_is_done(void *arg) { return atomic_load(&sync_done); }

static void wait_for_step(int s)
{
	while (atomic_load(&step) != s)
		check_sleep_us(100);	/* holds_until_step_2() moves the step on */
}

/* memb: a section through static/urcu-memb.h's names, until step 2. */
static void *memb_holder(void *arg)
{
	_urcu_memb_read_lock();
	CHECK(_urcu_memb_read_ongoing() && rcu_read_ongoing(),
	      "inside _urcu_memb_read_lock(): a memb section");
	atomic_store(&step, 1);
	wait_for_step(2);
	_urcu_memb_read_unlock();
	CHECK(!rcu_read_ongoing(), "after _urcu_memb_read_unlock(): outside");
	return NULL;
}

static void *memb_sync(void *arg)
{
	synchronize_rcu();
	atomic_store(&sync_done, true);
	return NULL;
}

/*
 * qsbr: online through the static header's names with no quiescent state
 * until step 2, then offline until step 4.
 */
static void *qsbr_holder(void *arg)
{
	urcu_qsbr_register_thread();
	_urcu_qsbr_read_lock();
	CHECK(_urcu_qsbr_read_ongoing(), "registered: online");
	_urcu_qsbr_read_unlock();
	atomic_store(&step, 1);
	wait_for_step(2);
	_urcu_qsbr_quiescent_state();
	_urcu_qsbr_thread_offline();
	CHECK(!_urcu_qsbr_read_ongoing(), "after _urcu_qsbr_thread_offline(): offline");
	atomic_store(&step, 3);
	wait_for_step(4);
	_urcu_qsbr_thread_online();
	CHECK(_urcu_qsbr_read_ongoing(), "after _urcu_qsbr_thread_online(): online");
	urcu_qsbr_unregister_thread();
	return NULL;
}

static void *qsbr_sync(void *arg)
{
	urcu_qsbr_synchronize_rcu();
	atomic_store(&sync_done, true);
	return NULL;
}

/* A grace period started while the holder holds it ends only after step 2. */
static void holds_until_step_2(void *(*holder)(void *), void *(*sync)(void *))
{
	pthread_t h, s;

	atomic_store(&step, 0);
	atomic_store(&sync_done, false);
	pthread_create(&h, NULL, holder, NULL);
	check_wait_until(at_step_1, NULL, "the holder holds the grace period");
	pthread_create(&s, NULL, sync, NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&sync_done), "a grace period ended while the holder held it");
	atomic_store(&step, 2);
	check_wait_until(sync_is_done, NULL, "the grace period after the holder let go");
	pthread_join(s, NULL);
	if (holder == qsbr_holder) {
		/* Offline now: a grace period does not wait for it. */
		check_wait_until(at_step_3, NULL, "the holder went offline");
		urcu_qsbr_synchronize_rcu();
		atomic_store(&step, 4);
	}
	pthread_join(h, NULL);
}

static void pointers(void)
{
	static int a, b, c;
	int *p = NULL;

	_rcu_set_pointer(&p, &a);
	CHECK(_rcu_dereference(p) == &a, "_rcu_set_pointer() then _rcu_dereference()");
	CHECK(_rcu_xchg_pointer(&p, &b) == &a && p == &b, "_rcu_xchg_pointer()");
	CHECK(_rcu_cmpxchg_pointer(&p, &b, &c) == &b && p == &c,
	      "_rcu_cmpxchg_pointer() that matches: returns old, stores new");
	CHECK(_rcu_cmpxchg_pointer(&p, &a, &b) == &c && p == &c,
	      "_rcu_cmpxchg_pointer() that does not: returns what it found, stores nothing");
	_rcu_assign_pointer(p, &a);
	CHECK(p == &a, "_rcu_assign_pointer()");
	CHECK(cmm_ptr_eq(p, &a) && !cmm_ptr_eq(p, &b), "cmm_ptr_eq()");
}

/*
 * A message passed through a flag, each side's fence annotated as 0.15's
 * own code does (on one thread: the order of the calls is what is checked).
 */
static void annotations(void)
{
	static int flag, data;
	cmm_annotate_define(release_group);
	cmm_annotate_define(acquire_group);

	CMM_STORE_SHARED(data, 42);
	cmm_smp_mb();
	cmm_annotate_group_mb_release(&release_group);
	CMM_STORE_SHARED(flag, 1);
	cmm_annotate_group_mem_release(&release_group, &flag);

	CHECK(CMM_LOAD_SHARED(flag) == 1, "the flag");
	cmm_annotate_group_mem_acquire(&acquire_group, &flag);
	cmm_smp_mb();
	cmm_annotate_group_mb_acquire(&acquire_group);
	CHECK(CMM_LOAD_SHARED(data) == 42, "the message after the flag");

	uatomic_store(&flag, 2, CMM_RELEASE);
	cmm_annotate_mem_release(&flag);
	CHECK(uatomic_load(&flag, CMM_ACQUIRE) == 2, "the flag again");
	cmm_annotate_mem_acquire(&flag);
}

#ifdef CMM_SANITIZE_THREAD
/* A release group's store before its fence: aborts under ThreadSanitizer. */
static void misused_release_group(void *arg)
{
	static int data;
	cmm_annotate_define(group);

	cmm_annotate_group_mem_release(&group, &data);
	exit(0);
}
#endif

static void run(void)
{
	holds_until_step_2(memb_holder, memb_sync);
	holds_until_step_2(qsbr_holder, qsbr_sync);
}

extern bool quiesce_test_busted_gp;

/* The busted control: grace periods that do not wait must be caught. */
static void busted_child(void *arg)
{
	quiesce_test_busted_gp = true;
	run();
	exit(0);
}

int main(void)
{
	CHECK(SIGRCU == SIGUSR1, "SIGRCU is SIGUSR1, as liburcu's without SIGURCU");
	pointers();
	annotations();
#ifdef CMM_SANITIZE_THREAD
	check_child_aborts(misused_release_group, NULL, "missing mb for release group");
#endif
	run();
	check_child_detects_violation(busted_child, NULL);
	printf("static headers: all checks passed\n");
	return 0;
}
