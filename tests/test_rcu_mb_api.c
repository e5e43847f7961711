/*
 * The mb domain's grace periods, against its readers and the default
 * domain's:
 *  - they issue no heavy barrier: under a seccomp filter that fails
 *    membarrier(), which the library dies on, an mb stress with readers
 *    held inside their sections runs to the end, where a default grace
 *    period with one other thread registered dies (the control that shows
 *    the filter catches a barrier);
 *  - an mb reader holds mb grace periods, polled cookies and callbacks,
 *    and not the default domain's; a default reader holds the default
 *    domain's and not the mb domain's; each domain's read_ongoing and
 *    synchronize ignore the other's sections;
 *  - start_poll completes a cookie without a caller that waits;
 *  - the child of fork() does not wait for the parent's other readers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu_mb.h>

#include "check.h"

/* One helper thread holds a section of one domain until told to leave. */
enum domain { DEFAULT_DOMAIN, MB_DOMAIN };

struct holder {
	enum domain domain;
	pthread_t thread;
	atomic_bool inside, leave;
};

static void *hold(void *arg)
{
	struct holder *h = arg;

	if (h->domain == MB_DOMAIN)
		rcu_mb_read_lock();
	else
		rcu_read_lock();
	atomic_store(&h->inside, true);
	while (!atomic_load(&h->leave))
		check_sleep_us(100);
	if (h->domain == MB_DOMAIN)
		rcu_mb_read_unlock();
	else
		rcu_read_unlock();
	return NULL;
}

static bool holder_inside(void *arg)
{
	return atomic_load(&((struct holder *)arg)->inside);
}

static void holder_start(struct holder *h, enum domain domain)
{
	h->domain = domain;
	atomic_store(&h->inside, false);
	atomic_store(&h->leave, false);
	pthread_create(&h->thread, NULL, hold, h);
	check_wait_until(holder_inside, h, "the holder to enter its section");
}

static void holder_stop(struct holder *h)
{
	atomic_store(&h->leave, true);
	check_join_within(h->thread, CHECK_HANG_MS, "the holder");
}

/* A grace period of one domain, on a thread of its own. */
struct gp_call {
	void (*sync)(void);
	pthread_t thread;
	atomic_bool done;
};

static void *run_gp(void *arg)
{
	struct gp_call *c = arg;

	c->sync();
	atomic_store(&c->done, true);
	return NULL;
}

static void gp_start(struct gp_call *c, void (*sync)(void))
{
	c->sync = sync;
	atomic_store(&c->done, false);
	pthread_create(&c->thread, NULL, run_gp, c);
}

static void sync_default(void)
{
	synchronize_rcu();
}

static void sync_mb(void)
{
	synchronize_rcu_mb();
}

static atomic_ulong cb_ran;

static void count_cb(struct rcu_head *head)
{
	(void)head;
	atomic_fetch_add(&cb_ran, 1);
}

/*
 * A reader of `held` blocks grace periods, cookies and callbacks of that
 * domain (hold_sync), and none of the other's (free_sync).
 */
static void check_holds_only_own(enum domain held, void (*hold_sync)(void),
				 void (*free_sync)(void))
{
	struct holder h;
	struct gp_call blocked, unblocked;
	struct rcu_head head;
	unsigned long cookie = 0;

	holder_start(&h, held);
	gp_start(&unblocked, free_sync);
	check_join_within(unblocked.thread, CHECK_HANG_MS,
			  "a grace period of the domain the holder is not reading");
	if (held == MB_DOMAIN) {
		cookie = get_state_synchronize_rcu_mb();
		call_rcu_mb(&head, count_cb);
	}
	gp_start(&blocked, hold_sync);
	/* The holder is inside: none of these can have completed, however long we wait. */
	check_sleep_us(50000);
	CHECK(!atomic_load(&blocked.done), "a grace period ended while a reader held it");
	if (held == MB_DOMAIN) {
		CHECK(!poll_state_synchronize_rcu_mb(cookie),
		      "a cookie completed while a reader held its grace period");
		CHECK(atomic_load(&cb_ran) == 0, "a callback ran while a reader held its grace period");
	}
	holder_stop(&h);
	check_join_within(blocked.thread, CHECK_HANG_MS, "the grace period the holder held");
	if (held == MB_DOMAIN) {
		CHECK(poll_state_synchronize_rcu_mb(cookie), "a cookie did not complete");
		rcu_barrier_mb();
		CHECK(atomic_load(&cb_ran) == 1, "the callback did not run");
	}
}

/* Sections of both domains, nested either way, and the other's calls inside each. */
static void check_sections_independent(void)
{
	rcu_read_lock();
	CHECK(!rcu_mb_read_ongoing(), "a default section counts as an mb one");
	synchronize_rcu_mb();
	rcu_mb_read_lock();
	CHECK(rcu_mb_read_ongoing() && rcu_read_ongoing(), "nested sections lost");
	rcu_mb_read_unlock();
	rcu_read_unlock();
	CHECK(!rcu_read_ongoing() && !rcu_mb_read_ongoing(), "sections left open");

	rcu_mb_read_lock();
	CHECK(!rcu_read_ongoing(), "an mb section counts as a default one");
	synchronize_rcu();
	synchronize_rcu_expedited();
	rcu_read_lock();
	rcu_read_unlock();
	rcu_mb_read_unlock();
	CHECK(!rcu_read_ongoing() && !rcu_mb_read_ongoing(), "sections left open");
}

static bool cookie_done(void *arg)
{
	return poll_state_synchronize_rcu_mb(*(unsigned long *)arg);
}

static void check_start_poll(void)
{
	unsigned long cookie = start_poll_synchronize_rcu_mb();

	check_wait_until(cookie_done, &cookie, "a start_poll cookie to complete");
	cookie = get_state_synchronize_rcu_mb();
	cond_synchronize_rcu_mb(cookie);
	CHECK(poll_state_synchronize_rcu_mb(cookie), "cond_synchronize returned early");
}

static void child_sync_mb(void *arg)
{
	(void)arg;
	synchronize_rcu_mb();
	rcu_mb_read_lock();
	rcu_mb_read_unlock();
	synchronize_rcu_mb();
	exit(0);
}

/* The parent's mb reader has no thread in the child: it holds nothing there. */
static void test_fork(void)
{
	struct holder h;
	char err[4096];
	int status;

	holder_start(&h, MB_DOMAIN);
	status = check_run_child(child_sync_mb, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child of fork() waited for the parent's reader: status %#x: %s", status, err);
	holder_stop(&h);
}

static atomic_bool stop;
static atomic_ulong reads, updates;
static int *current;

static void *filtered_reader(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		rcu_mb_read_lock();
		(void)*rcu_dereference(current);
		/* Long enough that grace periods go to sleep on readers. */
		check_sleep_us(20);
		rcu_mb_read_unlock();
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	return NULL;
}

static void free_int(struct rcu_head *head)
{
	free(head);
}

static void *filtered_updater(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int *n = malloc(sizeof(struct rcu_head));
		int *old = rcu_xchg_pointer(&current, n);

		*n = 1;
		if (atomic_load(&updates) % 2)
			call_rcu_mb((struct rcu_head *)(void *)old, free_int);
		else {
			synchronize_rcu_mb_expedited();
			free(old);
		}
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	return NULL;
}

static bool filtered_enough(void)
{
	return atomic_load(&reads) >= 200 && atomic_load(&updates) >= 200;
}

static void mb_without_membarrier(void *arg)
{
	(void)arg;
	check_deny_membarrier(EPERM);
	current = malloc(sizeof(struct rcu_head));
	*current = 1;
	check_run_until(200, filtered_enough, &stop, 2, filtered_reader, 1, filtered_updater);
	rcu_barrier_mb();
	free(current);
	exit(0);
}

static void *registered_idle(void *arg)
{
	(void)arg;
	rcu_register_thread();
	while (!atomic_load(&stop))
		check_sleep_us(100);
	rcu_unregister_thread();
	return NULL;
}

/* The control: a default grace period with another thread registered needs the barrier. */
static void default_without_membarrier(void *arg)
{
	pthread_t t;

	(void)arg;
	check_deny_membarrier(EPERM);
	pthread_create(&t, NULL, registered_idle, NULL);
	for (;;)
		synchronize_rcu();
}

static void check_no_heavy_barrier(void)
{
	char err[4096];
	int status;

	if (quiesce_rcu_backend() != QUIESCE_RCU_BACKEND_MEMBARRIER) {
		fprintf(stderr, "backend %s: no membarrier() to deny, barrier check skipped\n",
			quiesce_rcu_backend_name());
		return;
	}
	status = check_run_child(mb_without_membarrier, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "mb grace periods need membarrier(): status %#x: %s", status, err);
	check_child_aborts(default_without_membarrier, NULL, "membarrier() failed");
}

int main(void)
{
	fprintf(stderr, "backend: %s\n", quiesce_rcu_backend_name());
	/* First, while this process has no other thread (fork under ASan). */
	check_no_heavy_barrier();
	check_sections_independent();
	check_holds_only_own(MB_DOMAIN, sync_mb, sync_default);
	check_holds_only_own(DEFAULT_DOMAIN, sync_default, sync_mb);
	check_start_poll();
	test_fork();
	printf("rcu mb api: all checks passed\n");
	return 0;
}
