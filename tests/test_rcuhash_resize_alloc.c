/*
 * <quiesce/rcuhash.h>: the update that starts a resize allocates the new
 * bucket array without holding up anyone else.  malloc() can take tens of
 * milliseconds (glibc consolidating a million freed small chunks did in
 * the bench); while it runs, grace periods must end, and other updaters,
 * walks and resize() must go on.
 *
 * A test-only hook runs in the updater just after it allocates the array,
 * where a slow malloc() would still be running, and stalls it there until
 * the rest has happened: a synchronize_rcu() from the allocating thread
 * itself (it returns only if that thread is outside the table's read-side
 * critical section), then, from another thread, inserts while the resize is
 * due, a walk, and a resize() of its own.  The allocating update then
 * finds the table resized already and frees its array (ASan and valgrind
 * see a leak otherwise).  Every key is found afterwards.
 *
 * The control allocates under resize_lock in the updater's section, as the
 * table first did: the synchronize_rcu() in the hook aborts.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "rcuhash_check.h"
#include "ds/rcuhash_internal.h"

#define KEYS_A 4096	/* the main thread inserts until a resize is due, at most these */
#define KEYS_B 1000	/* the other updater's, while the first allocates */

static struct rcuhash *ht;
static struct rcuhash_check_item items_a[KEYS_A], items_b[KEYS_B];
static atomic_uint hook_calls;
static atomic_bool b_go, b_done;

static bool flag_set(void *flag)
{
	return atomic_load((atomic_bool *)flag);
}

/* In the updater that allocates; only the first allocation waits. */
static void alloc_hook(void)
{
	if (atomic_fetch_add(&hook_calls, 1))
		return;
	/* Returns only outside the table's section (aborts inside one). */
	synchronize_rcu();
	atomic_store(&b_go, true);
	check_wait_until(flag_set, &b_done, "the other updater, while the first allocates");
}

/* The other updater: runs while the first one is stalled in the hook. */
static void *other_updater(void *unused)
{
	size_t before;

	check_wait_until(flag_set, &b_go, "the first allocation");
	before = rcuhash_count(ht);
	CHECK(before > rcuhash_buckets(ht), "a resize is due: %zu elements, %zu buckets", before,
	      rcuhash_buckets(ht));
	for (unsigned long i = 0; i < KEYS_B; i++) {
		items_b[i].key = KEYS_A + i;
		CHECK(rcuhash_insert(ht, &items_b[i].node), "insert %lu while a resize is due",
		      items_b[i].key);
		CHECK(rcuhash_check_present(ht, items_b[i].key), "key %lu inserted, then not found",
		      items_b[i].key);
	}
	CHECK(rcuhash_check_walk_count(ht) == before + KEYS_B, "a walk while the first updater allocates");
	CHECK(rcuhash_resize(ht, 0), "resize() while the first updater allocates");
	CHECK(rcuhash_buckets(ht) >= before + KEYS_B, "resize() grew the table: %zu buckets",
	      rcuhash_buckets(ht));
	rcu_unregister_thread();
	atomic_store(&b_done, true);
	return NULL;
}

static void forget(struct rcuhash_node *node, void *arg)
{
}

static void run(void *busted)
{
	pthread_t b;
	unsigned long n = 0;
	size_t total;

	quiesce_test_busted_rcuhash = busted ? RCUHASH_BUSTED_ALLOC_LOCKED : RCUHASH_BUSTED_NONE;
	atomic_store(&hook_calls, 0);
	atomic_store(&b_go, false);
	atomic_store(&b_done, false);
	__atomic_store_n(&quiesce_test_rcuhash_alloc_hook, alloc_hook, __ATOMIC_RELAXED);
	ht = rcuhash_new(&rcuhash_check_item_params);
	pthread_create(&b, NULL, other_updater, NULL);
	/* Until an insert finds a resize due; it returns once b is done. */
	while (!atomic_load(&hook_calls)) {
		CHECK(n < KEYS_A, "%lu inserts started no resize", n);
		items_a[n].key = n;
		CHECK(rcuhash_insert(ht, &items_a[n].node), "insert %lu", n);
		n++;
	}
	CHECK(atomic_load(&b_done), "the allocating insert returned before the other updater ended");
	check_join_within(b, 60000, "other updater");
	CHECK(atomic_load(&hook_calls) == 2, "%u allocations: the first updater's and resize()'s",
	      atomic_load(&hook_calls));
	total = n + KEYS_B;
	for (unsigned long i = 0; i < n; i++)
		CHECK(rcuhash_check_present(ht, items_a[i].key), "key %lu lost", items_a[i].key);
	for (unsigned long i = 0; i < KEYS_B; i++)
		CHECK(rcuhash_check_present(ht, items_b[i].key), "key %lu lost", items_b[i].key);
	CHECK(rcuhash_count_exact(ht) == total && rcuhash_check_walk_count(ht) == total, "%zu elements", total);
	CHECK(rcuhash_buckets(ht) >= total && rcuhash_buckets(ht) <= 4 * total,
	      "%zu buckets for %zu elements", rcuhash_buckets(ht), total);
	__atomic_store_n(&quiesce_test_rcuhash_alloc_hook, NULL, __ATOMIC_RELAXED);
	printf("rcuhash resize allocation: %lu + %d inserts, %zu buckets at the end\n", n, KEYS_B,
	       rcuhash_buckets(ht));
	/* The items are static: nothing to free. */
	rcuhash_destroy(ht, forget, NULL);
	/* The old arrays, retired with call_rcu(). */
	rcu_barrier();
}

int main(void)
{
	run(NULL);
	check_child_detects_violation(run, (void *)1);
	return 0;
}
