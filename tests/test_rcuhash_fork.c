/*
 * fork() and the hash table, as rcuhash.h says: the child gets the table
 * whole, whatever the parent's other threads were doing to it.
 *
 * Each child looks up every key, inserts and removes a key in each of the
 * 64 lock stripes, grows the table by its automatic resizing, and resizes
 * it with resize().  The parent forks it:
 *   - with a resize half done (the child's updates finish it);
 *   - while another thread's update holds a stripe lock (a test-only hook
 *     stalls it there; fork() must wait for it), with a resize in progress
 *     (that update then claims buckets to move, which the child must not
 *     wait for) and without (the thread's next update must not enter its
 *     stripe until the fork is done);
 *   - while another thread allocates a resize's array (the alloc hook
 *     stalls it; the child must not wait for that allocation, or its table
 *     never grows again);
 *   - while another thread has a walk open (the child's resize() must not
 *     wait for that walk) and while the forking thread itself has one (in
 *     the child, resize() waits for it until the child stops it).
 * A hang is caught by check_run_child()'s alarm; every other failure by
 * the child's exit status.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "rcuhash_check.h"
#include "ds/rcuhash_internal.h"

#define KEYS 10000		/* the parent's */
#define CHILD_KEYS 20000	/* the child's, to make its table grow */

static struct rcuhash *ht;
static struct rcuhash_check_item items[KEYS];
static unsigned long nkeys;	/* items[0 .. nkeys) are in the table */
/* The stalled threads' states: 1 stalled (in a hook), 2 may go on, 3 done. */
static atomic_int locked_state, alloc_state, walker_state;
static atomic_int inside;	/* an update is inside its stripe (stall_in_stripe()) */

static void insert_parent_key(void)
{
	CHECK(nkeys < KEYS, "more parent keys than items");
	items[nkeys].key = nkeys;
	CHECK(rcuhash_insert(ht, &items[nkeys].node), "insert %lu", nkeys);
	nkeys++;
}

/* The stripe of key's hash, as the table computes it. */
static unsigned stripe_of(unsigned long key)
{
	return (unsigned)(quiesce_rcuhash_hash_bytes(&key, sizeof(key)) & (RCUHASH_STRIPES - 1));
}

static void child_checks(void *arg)
{
	static struct rcuhash_check_item mine[CHILD_KEYS];
	bool stripe_done[RCUHASH_STRIPES] = { false };
	unsigned stripes = 0;
	size_t before;

	/* Inherited from the parent: this child has no thread to stall. */
	QUIESCE_STORE(&quiesce_test_rcuhash_alloc_hook, NULL);
	QUIESCE_STORE(&quiesce_test_rcuhash_locked_hook, NULL);
	CHECK(!atomic_load(&inside), "an update was inside its stripe lock at fork()");
	for (unsigned long k = 0; k < nkeys; k++)
		CHECK(rcuhash_check_present(ht, k), "the child lost key %lu", k);
	/* An insert and a removal under each of the 64 stripe locks. */
	for (unsigned long k = 1000000; stripes < RCUHASH_STRIPES; k++) {
		struct rcuhash_check_item it = { .key = k };

		if (stripe_done[stripe_of(k)])
			continue;
		stripe_done[stripe_of(k)] = true;
		stripes++;
		CHECK(rcuhash_insert(ht, &it.node) && rcuhash_check_present(ht, k),
		      "insert %lu in the child", k);
		CHECK(rcuhash_remove(ht, &it.node), "remove %lu in the child", k);
	}
	/* Automatic growth: more elements than buckets start a resize. */
	before = rcuhash_buckets(ht);
	for (unsigned long i = 0; i < CHILD_KEYS; i++) {
		mine[i].key = 2000000 + i;
		CHECK(rcuhash_insert(ht, &mine[i].node), "child key %lu", i);
	}
	CHECK(rcuhash_buckets(ht) > before, "the child's table did not grow: %zu buckets", before);
	CHECK(rcuhash_resize(ht, 2 * (nkeys + CHILD_KEYS)), "resize() in the child");
	for (unsigned long k = 0; k < nkeys; k++)
		CHECK(rcuhash_check_present(ht, k), "key %lu after the child's resizes", k);
	/* Not exit(): the parent's pending callbacks, dropped here, would be leaks. */
	_exit(0);
}

static void keep_item(struct rcuhash_node *node, void *arg)
{
}

static void run_child(void (*fn)(void *), const char *what)
{
	char err[4096];
	int status;

	status = check_run_child(fn, NULL, err, sizeof(err));
	CHECK(status == 0, "%s: child status %#x, stderr: %s", what, status, err);
}


static bool flag_set(void *flag)
{
	return atomic_load((atomic_bool *)flag);
}

static bool state_is_1(void *state)
{
	return atomic_load((atomic_int *)state) == 1;
}

static bool state_is_3(void *state)
{
	return atomic_load((atomic_int *)state) == 3;
}

/*
 * The first update stalls in its stripe until main is about to fork, then
 * for a while more, so that fork() comes while it holds the lock.  With a
 * resize in progress, that update then claims buckets to move and finds
 * the table frozen: the child inherits the claims.  Without one, a second
 * update starts once the prepare handlers have run past rcuhash's (the
 * test's own prepare handler, which runs after it, sets `swept`, then
 * gives the second update a while to get in): it must find the table
 * frozen and wait; if it enters its stripe, the child sees `inside`.
 */
static atomic_bool second_update, swept;

static void stall_in_stripe(void)
{
	if (atomic_load(&locked_state) == 0) {
		atomic_store(&locked_state, 1);
		while (atomic_load(&locked_state) == 1)
			check_sleep_us(100);	/* main stores 2 just before it forks */
		check_sleep_us(100000);
	} else {
		atomic_store(&inside, 1);
	}
}

static void *locked_updater(void *arg)
{
	static struct rcuhash_check_item first[2] = { { .key = 500000 }, { .key = 500002 } };
	static struct rcuhash_check_item second = { .key = 500001 };
	bool again = atomic_load(&second_update);

	CHECK(rcuhash_insert(ht, &first[again].node), "the stalled insert");
	if (again) {
		check_wait_until(flag_set, &swept, "the prepare handlers");
		CHECK(rcuhash_insert(ht, &second.node), "the insert after the sweep");
	}
	atomic_store(&locked_state, 3);
	return NULL;
}

/*
 * Installed before the table exists, so that prepare handlers, which run
 * in the reverse order of installation, run this one after rcuhash's, and
 * parent handlers, in that order, run this one before rcuhash's thaws.
 */
static void test_prepare_fork(void)
{
	uint64_t start = check_now_ns();

	if (atomic_load(&locked_state) != 2 || !atomic_load(&second_update))
		return;
	atomic_store(&swept, true);
	/* Up to 50 ms for the second update to get in, if nothing stops it. */
	while (!atomic_load(&inside) && check_now_ns() - start < 50000000u)
		check_sleep_us(1000);
}

static void test_parent_after_fork(void)
{
	atomic_store(&swept, false);
}

static void stall_in_alloc(void)
{
	atomic_store(&alloc_state, 1);
	while (atomic_load(&alloc_state) == 1)
		check_sleep_us(100);	/* main stores 2 once its child has exited */
}

static void *allocating_updater(void *arg)
{
	/* Inserts until an insert makes a resize due and allocates its array. */
	while (atomic_load(&alloc_state) == 0)
		insert_parent_key();
	atomic_store(&alloc_state, 3);
	return NULL;
}

static void *walker(void *arg)
{
	struct rcuhash_walk w;

	rcu_read_lock();
	rcuhash_walk_start(ht, &w);
	atomic_store(&walker_state, 1);
	while (atomic_load(&walker_state) == 1)
		check_sleep_us(100);	/* main stores 2 once its child has exited */
	rcuhash_walk_stop(&w);
	rcu_read_unlock();
	return NULL;
}

static void run_locked_case(bool again, const char *what)
{
	pthread_t t;

	rcu_barrier();
	atomic_store(&locked_state, 0);
	atomic_store(&second_update, again);
	QUIESCE_STORE(&quiesce_test_rcuhash_locked_hook, stall_in_stripe);
	pthread_create(&t, NULL, locked_updater, NULL);
	check_wait_until(state_is_1, &locked_state, "the update to stall in its stripe");
	atomic_store(&locked_state, 2);
	run_child(child_checks, what);
	check_wait_until(state_is_3, &locked_state, "the stalled updates to end");
	pthread_join(t, NULL);
	QUIESCE_STORE(&quiesce_test_rcuhash_locked_hook, NULL);
	atomic_store(&inside, 0);	/* a second update got in, after the fork */
}

static struct rcuhash_walk forkers_walk;

static void child_with_own_walk(void *arg)
{
	CHECK(!rcuhash_resize(ht, 4 * nkeys), "resize() went on during this thread's walk");
	rcuhash_walk_stop(&forkers_walk);
	rcu_read_unlock();
	child_checks(arg);
}

int main(void)
{
	pthread_t t;

	pthread_atfork(test_prepare_fork, test_parent_after_fork, NULL);
	ht = rcuhash_new(&rcuhash_check_item_params);

	/*
	 * A resize half done: inserts until one is published (each update
	 * moves 8 buckets of it, so the one that publishes it does not finish
	 * it).  Before each case, rcu_barrier(): no callback thread frees
	 * memory across the fork (ASan's allocator is not fork-safe).
	 */
	while (nkeys < 200 || !quiesce_rcu_dereference(ht->tbl)->future)
		insert_parent_key();
	run_child(child_checks, "a resize in progress");

	/* The resize is still in progress: the stalled update claims buckets. */
	run_locked_case(false, "an update holding a stripe lock, a resize in progress");
	/*
	 * No resize in progress or due: the stalled update then takes no
	 * other lock after its stripe, and is free to start the second.
	 */
	CHECK(rcuhash_resize(ht, 4 * nkeys), "resize() before the stalled update");
	run_locked_case(true, "an update holding a stripe lock, then another");

	rcu_barrier();
	QUIESCE_STORE(&quiesce_test_rcuhash_alloc_hook, stall_in_alloc);
	pthread_create(&t, NULL, allocating_updater, NULL);
	check_wait_until(state_is_1, &alloc_state, "an update to stall allocating a resize");
	QUIESCE_STORE(&quiesce_test_rcuhash_alloc_hook, NULL);
	run_child(child_checks, "an update allocating a resize");
	atomic_store(&alloc_state, 2);
	check_wait_until(state_is_3, &alloc_state, "the allocating update to end");
	pthread_join(t, NULL);

	rcu_barrier();
	pthread_create(&t, NULL, walker, NULL);
	check_wait_until(state_is_1, &walker_state, "the walker to start");
	run_child(child_checks, "another thread's walk");
	atomic_store(&walker_state, 2);
	pthread_join(t, NULL);

	rcu_barrier();
	rcu_read_lock();
	rcuhash_walk_start(ht, &forkers_walk);
	run_child(child_with_own_walk, "the forking thread's walk");
	rcuhash_walk_stop(&forkers_walk);
	rcu_read_unlock();

	for (unsigned long k = 0; k < nkeys; k++)
		CHECK(rcuhash_check_present(ht, k), "the parent lost key %lu", k);
	rcuhash_destroy(ht, keep_item, NULL);	/* the items are static */
	rcu_barrier();
	printf("rcuhash fork: all checks passed\n");
	return 0;
}
