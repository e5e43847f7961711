/*
 * Misuse of SRCU aborts with a message that names the mistake and the
 * domain; what srcu.h allows (synchronize inside another domain's section,
 * sections that end out of order, synchronize after another thread closed
 * the caller's section) does not.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include <quiesce/srcu.h>

#include "check.h"
#include "rcu/gp_engine.h"
#include "rcu/srcu.h"

static struct srcu_struct ss, other;

static void cleanup_with_reader_inside(void *arg)
{
	init_srcu_struct(&ss);
	srcu_read_lock(&ss);
	cleanup_srcu_struct(&ss);
}

static void *lock_and_exit(void *arg)
{
	srcu_read_lock(&ss);
	return NULL;
}

static void cleanup_with_reader_of_exited_thread(void *arg)
{
	pthread_t t;

	init_srcu_struct(&ss);
	pthread_create(&t, NULL, lock_and_exit, NULL);
	pthread_join(t, NULL);
	cleanup_srcu_struct(&ss);
}

static void unlock_bad_index(void *arg)
{
	init_srcu_struct(&ss);
	srcu_read_unlock(&ss, 2);
}

static void unlocks_outnumber_locks(void *arg)
{
	int idx;

	init_srcu_struct(&ss);
	idx = srcu_read_lock(&ss);
	srcu_read_unlock(&ss, idx);
	srcu_read_unlock(&ss, idx);
	synchronize_srcu(&ss);
}

static void *extra_unlock(void *arg)
{
	srcu_read_unlock(&ss, 0);
	return NULL;
}

/* An extra unlock from another thread, seen by a full grace period. */
static void unlocks_outnumber_locks_elsewhere(void *arg)
{
	pthread_t t;

	init_srcu_struct(&ss);
	synchronize_srcu(&ss);
	rcu_register_thread();	/* no shortcut: another thread is registered */
	pthread_create(&t, NULL, extra_unlock, NULL);
	pthread_join(t, NULL);
	synchronize_srcu(&ss);
	synchronize_srcu(&ss);
}

static void unlock_never_entered(void *arg)
{
	static DEFINE_SRCU(never_entered);

	srcu_read_unlock(&never_entered, 0);
}

static void sync_inside_own_section(void *arg)
{
	init_srcu_struct(&ss);
	srcu_read_lock(&ss);
	synchronize_srcu(&ss);
}

static void expedited_inside_nested_sections(void *arg)
{
	init_srcu_struct(&ss);
	init_srcu_struct(&other);
	srcu_read_lock(&ss);
	srcu_read_lock(&other);
	rcu_read_lock();
	rcu_read_unlock();
	srcu_read_lock(&other);
	synchronize_srcu_expedited(&ss);
}

static void sync_inside_static_section(void *arg)
{
	static DEFINE_SRCU(static_ss);

	srcu_read_lock(&static_ss);
	synchronize_srcu(&static_ss);
}

/* Unregistering moves the thread's counts; the check still sees the section. */
static void sync_inside_section_across_unregister(void *arg)
{
	init_srcu_struct(&ss);
	srcu_read_lock(&ss);
	rcu_unregister_thread();
	synchronize_srcu(&ss);
}

/* A section counted per-CPU: its domain shares the thread's slot with another. */
static struct srcu_struct slot_mates[QUIESCE_SRCU_SLOTS + 1];

static void sync_inside_section_counted_per_cpu(void *arg)
{
	quiesce_init_srcu_struct_name(&slot_mates[0], "first");
	quiesce_init_srcu_struct_name(&slot_mates[QUIESCE_SRCU_SLOTS], "second");
	srcu_read_lock(&slot_mates[0]);
	srcu_read_lock(&slot_mates[QUIESCE_SRCU_SLOTS]);
	synchronize_srcu(&slot_mates[QUIESCE_SRCU_SLOTS]);
}

static uint64_t registered_threads(void)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return s.registered_threads;
}

/*
 * A section open across rcu_unregister_thread(): its unlock registers the
 * thread again and takes the section off the record it had, so that later
 * grace periods of the domain from this thread do not abort, and its next
 * sections run the fast paths as before.
 */
static void unregister_inside_section(void)
{
	uint64_t before;
	int a, b;

	init_srcu_struct(&ss);
	a = srcu_read_lock(&ss);
	b = srcu_read_lock(&other);
	before = registered_threads();
	rcu_unregister_thread();
	CHECK(registered_threads() == before - 1, "rcu_unregister_thread() left the registry as it was");
	srcu_read_unlock(&other, b);
	CHECK(registered_threads() == before, "srcu_read_unlock() did not register the thread again");
	rcu_unregister_thread();
	srcu_read_unlock(&ss, a);
	CHECK(registered_threads() == before, "srcu_read_unlock() did not register the thread again");
	synchronize_srcu(&ss);
	synchronize_srcu(&other);
	rcu_unregister_thread();
	a = srcu_read_lock(&ss);
	CHECK(registered_threads() == before, "srcu_read_lock() did not register the thread");
	srcu_read_unlock(&ss, a);
	synchronize_srcu(&ss);
	cleanup_srcu_struct(&ss);
}

/*
 * A synchronize_srcu() held by the engine's hook right after its last
 * grace period ended (its owner still to wake the other callers): the
 * grace period no longer counts as running, but the call is not over.
 */
static atomic_int held_state;	/* 1: the owner is held; 2: let it go */
static _Thread_local bool hold_here;

static void hold_owner(struct quiesce_gp_domain *d, int where)
{
	(void)d;
	if (where != QUIESCE_GP_HOOK_ENDED_BUMPED || !hold_here)
		return;
	atomic_store(&held_state, 1);
	while (atomic_load(&held_state) != 2)
		check_sleep_us(1000);	/* the main thread's store of 2 ends the wait */
}

static void *synchronize_held(void *arg)
{
	hold_here = true;
	synchronize_srcu(&ss);
	return NULL;
}

static bool owner_held(void *arg)
{
	return atomic_load(&held_state) == 1;
}

static void cleanup_during_synchronize(void *arg)
{
	pthread_t t;

	init_srcu_struct(&ss);
	quiesce_test_gp_hook = hold_owner;
	pthread_create(&t, NULL, synchronize_held, NULL);
	check_wait_until(owner_held, NULL, "the synchronize_srcu() call to be held");
	cleanup_srcu_struct(&ss);
	atomic_store(&held_state, 2);
	pthread_join(t, NULL);
}

static void use_after_cleanup(void *arg)
{
	init_srcu_struct(&ss);
	cleanup_srcu_struct(&ss);
	srcu_read_lock(&ss);
}

/*
 * A closer that has counted a section of ss on its own slot closes one the
 * test's thread opened, then stays registered until told: its slot shows
 * the hand-off (more unlocks than locks) to the opener's check.
 */
static atomic_int closer_state;	/* 1: give the index; 2: closed; 3: exit */
static atomic_int closer_idx;

static void *closer(void *arg)
{
	int own = srcu_read_lock(&ss);

	srcu_read_unlock(&ss, own);
	while (atomic_load(&closer_state) != 1)
		check_sleep_us(1000);	/* the opener's store of 1 ends the wait */
	srcu_read_unlock(&ss, atomic_load(&closer_idx));
	atomic_store(&closer_state, 2);
	while (atomic_load(&closer_state) != 3)
		check_sleep_us(1000);	/* the opener's store of 3 ends the wait */
	return NULL;
}

static bool closed(void *arg)
{
	return atomic_load(&closer_state) == 2;
}

static void sync_after_hand_off(void)
{
	pthread_t t;

	init_srcu_struct(&ss);
	pthread_create(&t, NULL, closer, NULL);
	atomic_store(&closer_idx, srcu_read_lock(&ss));
	atomic_store(&closer_state, 1);
	check_wait_until(closed, NULL, "the other thread to close the section");
	synchronize_srcu(&ss);	/* this thread's slot still counts the section open */
	atomic_store(&closer_state, 3);
	pthread_join(t, NULL);
	synchronize_srcu(&ss);
	cleanup_srcu_struct(&ss);
}

static void *close_second_mate(void *idx)
{
	srcu_read_unlock(&slot_mates[QUIESCE_SRCU_SLOTS], *(int *)idx);
	return NULL;
}

/*
 * A section counted per-CPU that another thread closed stays on the
 * opener's record; a domain set up again at the same address is a new
 * one, which this thread has no section of.
 */
static void sync_after_per_cpu_hand_off_and_init_again(void)
{
	struct srcu_struct *first = &slot_mates[0], *second = &slot_mates[QUIESCE_SRCU_SLOTS];
	pthread_t t;
	int a, b;

	quiesce_init_srcu_struct_name(first, "first");
	quiesce_init_srcu_struct_name(second, "second");
	a = srcu_read_lock(first);	/* the slot that second would take */
	b = srcu_read_lock(second);	/* counted per-CPU, recorded */
	srcu_read_unlock(first, a);
	pthread_create(&t, NULL, close_second_mate, &b);
	pthread_join(t, NULL);
	synchronize_srcu(second);
	cleanup_srcu_struct(second);
	quiesce_init_srcu_struct_name(second, "second");
	synchronize_srcu(second);	/* no section of this domain is open anywhere */
	cleanup_srcu_struct(second);
	cleanup_srcu_struct(first);
}

/*
 * A signal handler that takes a section counted per-CPU while this thread
 * is between two stores of its own record's update: three domains that
 * share this thread's slot, the first holding it.
 */
static struct srcu_struct record_mates[2 * QUIESCE_SRCU_SLOTS + 1];

/* Once: the handler's own record update must not raise it again. */
static void raise_sigusr1(void)
{
	quiesce_test_srcu_record_hook = NULL;
	raise(SIGUSR1);
}

static void section_in_handler(int sig)
{
	(void)sig;
	srcu_read_unlock(&record_mates[2 * QUIESCE_SRCU_SLOTS],
			 srcu_read_lock(&record_mates[2 * QUIESCE_SRCU_SLOTS]));
}

static void signal_inside_record_update(void)
{
	struct srcu_struct *holder = &record_mates[0], *second = &record_mates[QUIESCE_SRCU_SLOTS],
			   *third = &record_mates[2 * QUIESCE_SRCU_SLOTS];
	int a, b;

	quiesce_init_srcu_struct_name(holder, "holder");
	quiesce_init_srcu_struct_name(second, "second");
	quiesce_init_srcu_struct_name(third, "third");
	signal(SIGUSR1, section_in_handler);
	a = srcu_read_lock(holder);
	quiesce_test_srcu_record_hook = raise_sigusr1;
	b = srcu_read_lock(second);	/* the handler runs inside its record's update */
	srcu_read_unlock(second, b);
	srcu_read_unlock(holder, a);
	/* No section of either is open: neither may abort. */
	synchronize_srcu(third);
	synchronize_srcu(second);
	signal(SIGUSR1, SIG_DFL);
	for (unsigned i = 0; i < 3; i++)
		cleanup_srcu_struct(&record_mates[i * QUIESCE_SRCU_SLOTS]);
}

static void allowed(void)
{
	int a, b, c;

	init_srcu_struct(&ss);
	init_srcu_struct(&other);
	/* Inside another domain's section and inside RCU's: fine. */
	a = srcu_read_lock(&other);
	synchronize_srcu(&ss);
	synchronize_srcu_expedited(&ss);
	srcu_read_unlock(&other, a);
	/* Sections that end out of order, then a grace period of each. */
	a = srcu_read_lock(&ss);
	b = srcu_read_lock(&other);
	c = srcu_read_lock(&ss);
	srcu_read_unlock(&ss, a);
	srcu_read_unlock(&other, b);
	srcu_read_unlock(&ss, c);
	synchronize_srcu(&ss);
	synchronize_srcu(&other);
	/* Deeper than the record: counted, then recorded again. */
	int deep[10];

	for (int i = 0; i < 10; i++)
		deep[i] = srcu_read_lock(&other);
	for (int i = 9; i >= 0; i--)
		srcu_read_unlock(&other, deep[i]);
	synchronize_srcu(&other);
	cleanup_srcu_struct(&ss);
	sync_after_hand_off();
	sync_after_per_cpu_hand_off_and_init_again();
	unregister_inside_section();
	cleanup_srcu_struct(&other);
}

int main(void)
{
	check_child_aborts(cleanup_with_reader_inside, NULL,
			   "cleanup_srcu_struct() on SRCU domain \"ss\" with 1 reader inside");
	check_child_aborts(cleanup_with_reader_of_exited_thread, NULL,
			   "cleanup_srcu_struct() on SRCU domain \"ss\" with 1 reader inside");
	check_child_aborts(unlock_bad_index, NULL,
			   "srcu_read_unlock() on SRCU domain \"ss\" with index 2: not one that "
			   "srcu_read_lock() returns (0 or 1)");
	check_child_aborts(unlocks_outnumber_locks, NULL,
			   "SRCU domain \"ss\": 1 more srcu_read_unlock() than srcu_read_lock()");
	check_child_aborts(unlocks_outnumber_locks_elsewhere, NULL,
			   "SRCU domain \"ss\": 1 more srcu_read_unlock() than srcu_read_lock()");
	check_child_aborts(unlock_never_entered, NULL,
			   "srcu_read_unlock() on SRCU domain \"never_entered\", which no "
			   "srcu_read_lock() has entered");
	check_child_aborts(sync_inside_own_section, NULL,
			   "synchronize_srcu() called inside a read-side critical section of SRCU "
			   "domain \"ss\"");
	check_child_aborts(expedited_inside_nested_sections, NULL,
			   "synchronize_srcu_expedited() called inside a read-side critical section "
			   "of SRCU domain \"ss\"");
	check_child_aborts(sync_inside_static_section, NULL,
			   "inside a read-side critical section of SRCU domain \"static_ss\"");
	check_child_aborts(sync_inside_section_across_unregister, NULL,
			   "synchronize_srcu() called inside a read-side critical section of SRCU "
			   "domain \"ss\"");
	check_child_aborts(sync_inside_section_counted_per_cpu, NULL,
			   "synchronize_srcu() called inside a read-side critical section of SRCU "
			   "domain \"second\"");
	check_child_aborts(cleanup_during_synchronize, NULL,
			   "cleanup_srcu_struct() on SRCU domain \"ss\" while another thread is inside "
			   "synchronize_srcu()");
	check_child_aborts(use_after_cleanup, NULL,
			   "srcu_read_lock() on SRCU domain \"ss\" after cleanup_srcu_struct()");
	allowed();
	signal_inside_record_update();
	printf("srcu misuse: all checks passed\n");
	return 0;
}
