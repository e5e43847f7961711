/*
 * SRCU's calls do what srcu.h says: static and initialized domains, nested
 * and cross-thread sections, readers that sleep in one domain while other
 * domains' and default RCU's grace periods complete, polled grace periods,
 * a section left open by a thread that exited (reported by the domain's
 * name, ended by another thread), domains that take the same slot of a
 * thread (srcu.h), a slot taken again after its domain's cleanup, and
 * thousands of domains.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/srcu.h>

#include "check.h"

DEFINE_SRCU(static_domain);
DEFINE_STATIC_SRCU(file_domain);

struct obj {
	int value;
};
static struct obj *shared;

static void static_domains_work_without_init(void)
{
	int a = srcu_read_lock(&static_domain);
	int b = srcu_read_lock(&file_domain);

	CHECK(a == 0 || a == 1, "index %d", a);
	srcu_read_unlock(&file_domain, b);
	srcu_read_unlock(&static_domain, a);
	synchronize_srcu(&static_domain);
	synchronize_srcu_expedited(&file_domain);
	/* A static domain first used by a grace period. */
	static DEFINE_SRCU(first_used_by_sync);
	synchronize_srcu(&first_used_by_sync);
	cleanup_srcu_struct(&first_used_by_sync);
}

static void publish_and_reclaim(void)
{
	struct srcu_struct ss;
	struct obj *o = malloc(sizeof(*o)), *old;
	int idx;

	init_srcu_struct(&ss);
	o->value = 1;
	rcu_assign_pointer(shared, o);
	idx = srcu_read_lock(&ss);
	CHECK(srcu_dereference(shared, &ss)->value == 1, "wrong object");
	/* Nested, and in another domain meanwhile. */
	int inner = srcu_read_lock(&ss);
	srcu_read_unlock(&ss, inner);
	srcu_read_unlock(&ss, idx);
	o = malloc(sizeof(*o));
	o->value = 2;
	old = rcu_xchg_pointer(&shared, o);
	synchronize_srcu(&ss);
	free(old);
	/* Many grace periods: the index flips each time, readers follow. */
	for (int i = 0; i < 20; i++) {
		idx = srcu_read_lock(&ss);
		srcu_read_unlock(&ss, idx);
		if (i % 2)
			synchronize_srcu(&ss);
		else
			synchronize_srcu_expedited(&ss);
	}
	cleanup_srcu_struct(&ss);
	free(shared);
	shared = NULL;
}

static void polled(void)
{
	struct srcu_struct ss;
	unsigned long cookie;

	init_srcu_struct(&ss);
	cookie = get_state_synchronize_srcu(&ss);
	CHECK(!poll_state_synchronize_srcu(&ss, cookie), "cookie done before any grace period");
	synchronize_srcu(&ss);
	CHECK(poll_state_synchronize_srcu(&ss, cookie), "cookie not done after a grace period");
	cleanup_srcu_struct(&ss);
}

/* A reader asleep inside one domain holds up neither another nor RCU. */
static struct srcu_struct sleepy, busy;
static atomic_int sleeper_state;	/* 1: inside; 2: may leave; 3: leaving */

static void *sleeper(void *arg)
{
	int idx = srcu_read_lock(&sleepy);

	atomic_store(&sleeper_state, 1);
	while (atomic_load(&sleeper_state) == 1)
		check_sleep_us(1000);
	atomic_store(&sleeper_state, 3);
	srcu_read_unlock(&sleepy, idx);
	return NULL;
}

static bool sleeper_inside(void *arg)
{
	return atomic_load(&sleeper_state) == 1;
}

struct sync_arg {
	struct srcu_struct *ss;
	atomic_bool done;
};

static void *sync_thread(void *arg)
{
	struct sync_arg *a = arg;

	synchronize_srcu(a->ss);
	atomic_store(&a->done, true);
	return NULL;
}

static void domains_are_independent(void)
{
	pthread_t t, s;
	struct sync_arg held = { .ss = &sleepy };

	init_srcu_struct(&sleepy);
	init_srcu_struct(&busy);
	pthread_create(&t, NULL, sleeper, NULL);
	check_wait_until(sleeper_inside, NULL, "the sleeper to enter");
	for (int i = 0; i < 10; i++) {
		synchronize_srcu(&busy);
		synchronize_rcu();
		int idx = srcu_read_lock(&busy);

		rcu_read_lock();
		rcu_read_unlock();
		srcu_read_unlock(&busy, idx);
	}
	/* The sleeper's own domain waits for it. */
	pthread_create(&s, NULL, sync_thread, &held);
	check_sleep_us(20000);
	CHECK(!atomic_load(&held.done), "synchronize_srcu() returned with a reader inside");
	atomic_store(&sleeper_state, 2);
	check_join_within(s, CHECK_HANG_MS, "synchronize_srcu() after the reader left");
	CHECK(atomic_load(&sleeper_state) == 3, "grace period ended before the reader left");
	pthread_join(t, NULL);
	cleanup_srcu_struct(&sleepy);
	cleanup_srcu_struct(&busy);
}

/* A section opened on one thread and closed on another. */
static struct srcu_struct handed;
static atomic_int handed_idx = -1;

static void *open_and_exit(void *arg)
{
	pthread_setname_np(pthread_self(), "opener");
	atomic_store(&handed_idx, srcu_read_lock(&handed));
	return NULL;	/* exits inside the section: it stays open */
}

static atomic_int srcu_stalls, stall_tid = -1;
static atomic_bool stall_claimed;
static char stall_line[512], stall_name[16];

/* The first report is copied, then counted: the test reads it once counted. */
static void on_stall(const struct quiesce_rcu_stall *stall)
{
	if (stall->phase != QUIESCE_RCU_STALL_READER || !stall->detail ||
	    atomic_exchange(&stall_claimed, true))
		return;
	snprintf(stall_line, sizeof(stall_line), "%s", stall->detail);
	snprintf(stall_name, sizeof(stall_name), "%s", stall->thread_name);
	atomic_store(&stall_tid, stall->tid);
	atomic_store(&srcu_stalls, 1);
}

static bool stall_reported(void *arg)
{
	return atomic_load(&srcu_stalls) > 0;
}

static void thread_exit_inside_section(void)
{
	pthread_t t, s;
	struct sync_arg held = { .ss = &handed };

	quiesce_init_srcu_struct_name(&handed, "handed");
	pthread_create(&t, NULL, open_and_exit, NULL);
	pthread_join(t, NULL);
	quiesce_rcu_set_stall_timeout_ms(200);
	quiesce_rcu_set_stall_handler(on_stall);
	pthread_create(&s, NULL, sync_thread, &held);
	check_wait_until(stall_reported, NULL, "a stall report for the open section");
	CHECK(!atomic_load(&held.done), "grace period ended with a section open");
	CHECK(atomic_load(&stall_tid) == 0, "stall names thread %d", atomic_load(&stall_tid));
	CHECK(strstr(stall_line, "SRCU stall: domain \"handed\": 1 reader inside"),
	      "report does not name the domain: %s", stall_line);
	CHECK(strcmp(stall_name, "handed") == 0, "stall names %s", stall_name);
	/* Another thread, given the index, ends the section. */
	srcu_read_unlock(&handed, atomic_load(&handed_idx));
	check_join_within(s, CHECK_HANG_MS, "synchronize_srcu() after another thread unlocked");
	quiesce_rcu_set_stall_handler(NULL);
	quiesce_rcu_set_stall_timeout_ms(0);
	/* This thread's synchronize is not taken for one inside its own section. */
	synchronize_srcu(&handed);
	cleanup_srcu_struct(&handed);
}

/*
 * Two domains a slot's width apart take the same slot of a thread: the
 * reader's sections of the second are counted per-CPU.  Grace periods of
 * each wait for the reader's section of that domain, whichever way it is
 * counted, and for nothing else.
 */
static struct srcu_struct same_slot[QUIESCE_SRCU_SLOTS + 1];
static atomic_int same_slot_state;	/* 1: both sections open; 2: close the second; 3: closing it */

static void *same_slot_reader(void *arg)
{
	int first = srcu_read_lock(&same_slot[0]);
	int second = srcu_read_lock(&same_slot[QUIESCE_SRCU_SLOTS]);

	atomic_store(&same_slot_state, 1);
	while (atomic_load(&same_slot_state) != 2)
		check_sleep_us(1000);	/* the test's store of 2 ends the wait */
	/* Stored before the unlock: a grace period that ends must see it. */
	atomic_store(&same_slot_state, 3);
	srcu_read_unlock(&same_slot[QUIESCE_SRCU_SLOTS], second);
	srcu_read_unlock(&same_slot[0], first);
	return NULL;
}

static bool same_slot_open(void *arg)
{
	return atomic_load(&same_slot_state) == 1;
}

static void domains_sharing_a_slot(void)
{
	struct srcu_struct *first = &same_slot[0], *second = &same_slot[QUIESCE_SRCU_SLOTS];
	struct sync_arg on_second = { .ss = second };
	pthread_t r, s;

	CHECK(quiesce_srcu_slot_of(first) == quiesce_srcu_slot_of(second),
	      "the two domains do not share a slot");
	init_srcu_struct(first);
	init_srcu_struct(second);
	pthread_create(&r, NULL, same_slot_reader, NULL);
	check_wait_until(same_slot_open, NULL, "the reader to open both sections");
	synchronize_srcu(&same_slot[1]);	/* a third domain waits for neither */
	pthread_create(&s, NULL, sync_thread, &on_second);
	check_sleep_us(20000);
	CHECK(!atomic_load(&on_second.done),
	      "synchronize_srcu() returned with a section counted per-CPU open");
	atomic_store(&same_slot_state, 2);
	check_join_within(s, CHECK_HANG_MS, "synchronize_srcu() after the reader left");
	CHECK(atomic_load(&same_slot_state) == 3, "grace period ended before the reader left");
	pthread_join(r, NULL);
	synchronize_srcu(first);
	cleanup_srcu_struct(first);
	cleanup_srcu_struct(second);
	cleanup_srcu_struct(&same_slot[1]);
}

/*
 * cleanup_srcu_struct() frees every thread's slot of the domain: a domain
 * set up again at the same address takes the slot again from zero, and
 * its grace periods wait for that thread's new section.
 */
static struct srcu_struct reused;
static atomic_int reused_state;	/* 1: section open; 2: close it; 3: closed */

static void *reused_reader(void *arg)
{
	int idx = srcu_read_lock(&reused);

	srcu_read_unlock(&reused, idx);
	atomic_store(&reused_state, 1);
	while (atomic_load(&reused_state) != 2)
		check_sleep_us(1000);	/* the test's store of 2 ends the wait */
	idx = srcu_read_lock(&reused);
	atomic_store(&reused_state, 3);
	while (atomic_load(&reused_state) != 4)
		check_sleep_us(1000);	/* the test's store of 4 ends the wait */
	atomic_store(&reused_state, 5);
	srcu_read_unlock(&reused, idx);
	return NULL;
}

static bool reused_at(void *state)
{
	return atomic_load(&reused_state) == (int)(intptr_t)state;
}

static void slot_taken_again_after_cleanup(void)
{
	struct sync_arg held = { .ss = &reused };
	pthread_t r, s;

	init_srcu_struct(&reused);
	pthread_create(&r, NULL, reused_reader, NULL);
	check_wait_until(reused_at, (void *)1, "the reader's first section");
	cleanup_srcu_struct(&reused);
	init_srcu_struct(&reused);
	atomic_store(&reused_state, 2);
	check_wait_until(reused_at, (void *)3, "the reader's section of the new domain");
	pthread_create(&s, NULL, sync_thread, &held);
	check_sleep_us(20000);
	CHECK(!atomic_load(&held.done), "synchronize_srcu() returned with a reader inside");
	atomic_store(&reused_state, 4);
	check_join_within(s, CHECK_HANG_MS, "synchronize_srcu() after the reader left");
	CHECK(atomic_load(&reused_state) == 5, "grace period ended before the reader left");
	pthread_join(r, NULL);
	cleanup_srcu_struct(&reused);
}

#define MANY 2000

static void thousands_of_domains(void)
{
	struct srcu_struct *many = calloc(MANY, sizeof(*many));

	for (int i = 0; i < MANY; i++)
		init_srcu_struct(&many[i]);
	for (int i = 0; i < MANY; i++) {
		int idx = srcu_read_lock(&many[i]);

		srcu_read_unlock(&many[i], idx);
		if (i % 10 == 0)
			synchronize_srcu(&many[i]);
	}
	for (int i = 0; i < MANY; i++)
		cleanup_srcu_struct(&many[i]);
	free(many);
}

int main(void)
{
	static_domains_work_without_init();
	publish_and_reclaim();
	polled();
	domains_are_independent();
	thread_exit_inside_section();
	domains_sharing_a_slot();
	slot_taken_again_after_cleanup();
	thousands_of_domains();
	printf("srcu api: all checks passed\n");
	return 0;
}
