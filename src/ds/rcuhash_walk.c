/*
 * rcuhash_walk.c - visiting every element of the hash table in one
 * read-side critical section.
 *
 * A walk goes through the buckets of one array in order.  Only a resize
 * moves nodes between chains, and a node moved from a bucket the walk has
 * not reached yet into one it has passed would be missed, one moved the
 * other way seen twice.  So a walk registers under resize_lock, which keeps
 * any resize from being published (publish_locked() checks the walkers
 * under the same lock), then finishes the resize in progress, if any: from
 * then until walk_stop() the array it walks is the table's and no node
 * changes bucket.
 *
 * Within one chain, inserts link a node in (at the head, or in a sorted
 * chain at its place), removals and replacements link around a node
 * whose next stays intact (rcuhash.c): a node present
 * throughout is passed exactly once, and the walk never meets a node twice
 * because a chain never loops and a node stays in its bucket.
 *
 * Each thread keeps its open walks on a list of its own, so that the child
 * of fork() counts only the forking thread's (rcuhash_fork.c), and so that
 * walk_stop() can tell a walk this thread did not start.  A walk started
 * again while open would link the list to itself (a cycle that the next
 * search of it, walk_stop()'s or the fork() child's, never leaves), so
 * walk_start() refuses one, as walk_next() refuses a stopped walk.
 */
#include "common/diag.h"
#include "ds/rcuhash_internal.h"

static __thread struct quiesce_rcuhash_walk *open_walks;

/* The busted control: walks neither hold resizes off nor finish them. */
static bool busted_walk(void)
{
	return QUIESCE_LOAD(&quiesce_test_busted_rcuhash) == RCUHASH_BUSTED_UNGUARDED_WALK;
}

/*
 * The busted control "again": at the end of the chain of every 64th bucket
 * the walk goes through that chain once more, so it returns each of the
 * chain's nodes twice.  again_bucket, the bucket array slot gone through a
 * second time, keeps that to once: cleared when the walk leaves it.
 */
static __thread const void *again_bucket;

static bool busted_again(struct rcuhash_table *t, size_t bucket)
{
	if (QUIESCE_LIKELY(QUIESCE_LOAD(&quiesce_test_busted_rcuhash) !=
			   RCUHASH_BUSTED_WALK_AGAIN) || bucket % 64 != 0)
		return false;
	if (again_bucket == &t->buckets[bucket]) {
		again_bucket = NULL;
		return false;
	}
	again_bucket = &t->buckets[bucket];
	return true;
}

unsigned quiesce_rcuhash_own_walks(const struct quiesce_rcuhash *ht)
{
	unsigned n = 0;

	for (struct quiesce_rcuhash_walk *w = open_walks; w; w = w->open_next)
		n += w->ht == ht;
	return n;
}

void quiesce_rcuhash_walk_start(struct quiesce_rcuhash *ht, struct quiesce_rcuhash_walk *walk)
{
	struct rcuhash_table *t;

	rcuhash_check_reader(ht, "rcuhash_walk_start()");
	for (struct quiesce_rcuhash_walk *w = open_walks; w; w = w->open_next)
		if (w == walk)
			quiesce_die("rcuhash_walk_start() on a walk this thread has open: "
				    "stop it first (rcuhash_walk_stop())");
	if (QUIESCE_LIKELY(!busted_walk())) {
		rcuhash_lock(ht, &ht->resize_lock);
		ht->walkers++;
		pthread_mutex_unlock(&ht->resize_lock);
		quiesce_rcuhash_finish_resize(ht);
	}
	t = quiesce_rcu_dereference(ht->tbl);
	walk->ht = ht;
	walk->table = t;
	walk->bucket = 0;
	walk->next = quiesce_rcu_dereference(t->buckets[0]);
	walk->open_next = open_walks;
	open_walks = walk;
}

struct quiesce_rcuhash_node *quiesce_rcuhash_walk_next(struct quiesce_rcuhash_walk *walk)
{
	struct rcuhash_table *t = walk->table;
	struct quiesce_rcuhash_node *node = walk->next;

	if (QUIESCE_UNLIKELY(!t))
		quiesce_die("rcuhash_walk_next() on a walk that has been stopped");
	rcuhash_check_reader(walk->ht, "rcuhash_walk_next()");
	while (!rcuhash_is_node(node)) {
		if (QUIESCE_UNLIKELY(busted_again(t, walk->bucket))) {
			node = quiesce_rcu_dereference(t->buckets[walk->bucket]);
			continue;
		}
		if (walk->bucket == t->mask) {
			walk->next = NULL;
			return NULL;
		}
		node = quiesce_rcu_dereference(t->buckets[++walk->bucket]);
	}
	walk->next = quiesce_rcu_dereference(node->next);
	return node;
}

void quiesce_rcuhash_walk_stop(struct quiesce_rcuhash_walk *walk)
{
	struct quiesce_rcuhash_walk **link = &open_walks;
	struct quiesce_rcuhash *ht = walk->ht;

	while (*link && *link != walk)
		link = &(*link)->open_next;
	if (!*link)
		quiesce_die("rcuhash_walk_stop() on a walk this thread has not started, "
			    "or has stopped already");
	*link = walk->open_next;
	if (QUIESCE_LIKELY(!busted_walk())) {
		rcuhash_lock(ht, &ht->resize_lock);
		ht->walkers--;
		pthread_mutex_unlock(&ht->resize_lock);
	}
	walk->table = NULL;
}
