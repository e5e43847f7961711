/*
 * fork() just after a mover of a resize in progress let go of the stripe
 * it moved a bucket under, before it went on: the child must still be
 * able to finish that resize (rcuhash_fork.c, "moved").
 *
 * The parent grows the table until a resize is published and partly done,
 * then an updater thread's insert moves one more bucket and stops in the
 * test-only hook quiesce_test_rcuhash_moved_hook, just past the stripe's
 * unlock.  The parent forks there.  The child checks that the count of
 * moved buckets matches the heads that say MOVED (with a mover that
 * counted after its unlock it was one short, and the child's resize
 * never ended: walk_start() and resize() spun for ever), then walks the
 * table (which finishes the resize), resizes it again and looks up every
 * key.  A hang would be caught by check_run_child()'s alarm; the count
 * check fails first, at once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "rcuhash_check.h"
#include "ds/rcuhash_internal.h"

#define MAX_KEYS 1000

static struct rcuhash *ht;
static struct rcuhash_check_item items[MAX_KEYS];
static unsigned long nkeys;	/* items[0 .. nkeys) are in the table (the last: the mover's) */
/* The mover's state: 0 not yet stopped, 1 stopped in the hook, 2 may go on. */
static atomic_int mover_state;

static struct rcuhash_check_item *next_item(void)
{
	CHECK(nkeys < MAX_KEYS, "no resize published after %lu keys", nkeys);
	items[nkeys].key = nkeys;
	return &items[nkeys++];
}

static void insert(struct rcuhash_check_item *it)
{
	CHECK(rcuhash_insert(ht, &it->node), "insert %lu", it->key);
}

static void stop_after_move(void)
{
	atomic_store(&mover_state, 1);
	while (atomic_load(&mover_state) == 1)
		check_sleep_us(100);	/* main stores 2 once its child has exited */
}

static void *mover(void *arg)
{
	/* A resize is in progress: this insert moves a batch of it. */
	insert(arg);
	return NULL;
}

static bool mover_stopped(void *arg)
{
	return atomic_load(&mover_state) == 1;
}

static void child_checks(void *arg)
{
	struct rcuhash_table *t = ht->tbl;
	size_t heads = 0, walked, moved = QUIESCE_LOAD(&t->moved);

	CHECK(t->future, "no resize in progress at fork()");
	for (size_t b = 0; b <= t->mask; b++)
		heads += t->buckets[b] == RCUHASH_MOVED;
	CHECK(heads > 0 && heads < t->mask + 1, "%zu of %zu buckets moved at fork()", heads,
	      t->mask + 1);
	CHECK(moved == heads,
	      "the child counts %zu buckets moved where %zu heads say MOVED: its resize "
	      "can never finish", moved, heads);
	/* walk_start() finishes the resize in progress. */
	walked = rcuhash_check_walk_count(ht);
	CHECK(walked == nkeys, "the child's walk found %zu of %lu keys", walked, nkeys);
	CHECK(!quiesce_rcu_dereference(ht->tbl)->future, "walk_start() left the resize unfinished");
	CHECK(rcuhash_resize(ht, 8 * nkeys), "resize() in the child");
	for (unsigned long k = 0; k < nkeys; k++)
		CHECK(rcuhash_check_present(ht, k), "the child lost key %lu", k);
	/* Not exit(): the retired arrays' callbacks have no thread to run them here. */
	_exit(0);
}

static void keep_item(struct rcuhash_node *node, void *arg)
{
}

int main(void)
{
	char err[4096];
	pthread_t t;
	int status;

	ht = rcuhash_new(&rcuhash_check_item_params);
	/* The insert that publishes a resize moves its first batch only. */
	while (!quiesce_rcu_dereference(ht->tbl)->future)
		insert(next_item());
	rcu_barrier();	/* no callback thread frees memory across the fork (ASan) */
	QUIESCE_STORE(&quiesce_test_rcuhash_moved_hook, stop_after_move);
	pthread_create(&t, NULL, mover, next_item());
	check_wait_until(mover_stopped, NULL, "the mover to stop past its stripe's unlock");
	QUIESCE_STORE(&quiesce_test_rcuhash_moved_hook, NULL);
	status = check_run_child(child_checks, NULL, err, sizeof(err));
	CHECK(status == 0, "fork() past a mover's unlock: child status %#x, stderr: %s", status,
	      err);
	atomic_store(&mover_state, 2);
	pthread_join(t, NULL);

	CHECK(rcuhash_resize(ht, 0), "resize() in the parent");
	for (unsigned long k = 0; k < nkeys; k++)
		CHECK(rcuhash_check_present(ht, k), "the parent lost key %lu", k);
	rcuhash_destroy(ht, keep_item, NULL);	/* the items are static */
	rcu_barrier();
	printf("rcuhash fork past a mover's unlock: the child finished the resize\n");
	return 0;
}
