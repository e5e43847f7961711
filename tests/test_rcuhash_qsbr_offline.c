/*
 * Updates of a table from a thread outside its read-side critical
 * sections, as quiesce/rcuhash.h allows ("they enter one themselves"):
 * every use of the table's bucket arrays must lie in a section that the
 * table's grace periods wait for, or a resize finished meanwhile by
 * another thread frees the array under the update.
 *
 * Under QSBR (quiesce_rcuhash_rcu_qsbr) a section is the time a thread is
 * online, and read_lock() is empty: an update from a thread that is
 * offline, or not registered, must bring it online for its duration and
 * leave it as it was.  A thread in each of the three states (online,
 * offline, not registered) makes every kind of update: insert, add,
 * insert_or_replace, insert_match, replace_match, replace, remove,
 * remove_key, inserts that grow the table (its resize published and
 * moved by the updates themselves: start_resize()), resize(), buckets()
 * and removals that shrink it.  The test-only hooks look at the thread
 * where the update holds the arrays: under its stripe lock
 * (quiesce_test_rcuhash_locked_hook) and past each move of a resize
 * (quiesce_test_rcuhash_moved_hook), where the thread must be online; and
 * where an update allocates a resize's array
 * (quiesce_test_rcuhash_alloc_hook), outside its section, where the
 * thread must be as the caller left it (so that no grace period waits for
 * a malloc()).  After each update the thread must be back in its state.
 *
 * The same updates from a thread registered with nothing, on a table of
 * quiesce's default RCU and one of its mb domain, whose read_lock()
 * registers the thread itself: the hooks find it inside a section there.
 */
#include <pthread.h>
#include <stdatomic.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "rcuhash_check.h"
#include "ds/rcuhash_internal.h"

#define GROW_KEYS 400	/* enough to grow a table of 64 buckets twice */
#define ITEMS (16 + GROW_KEYS)

enum thread_state { ONLINE, OFFLINE, UNREGISTERED };
static const char *const state_names[] = { "online", "offline", "not registered" };

struct run {
	const char *domain;
	const struct quiesce_rcuhash_rcu *rcu;	/* NULL: the default RCU */
	enum thread_state state;		/* QSBR: the updater's, before each update */
};

static struct rcuhash *ht;
static const struct run *cur;
static struct rcuhash_check_item items[ITEMS];
static unsigned nitems;
/* What the hooks saw: calls, and calls that found the thread unprotected. */
static atomic_ulong in_table, unprotected, allocs, allocs_inside;
static const char *_Atomic unprotected_where;

static enum thread_state qsbr_state(void)
{
	unsigned long ctr = quiesce_qsbr_reader_self.ctr;

	if (ctr == QUIESCE_QSBR_UNREGISTERED)
		return UNREGISTERED;
	return ctr == QUIESCE_QSBR_OFFLINE ? OFFLINE : ONLINE;
}

/* Whether a grace period of the table's RCU now waits for this thread. */
static bool protected_now(void)
{
	if (ht->reader == RCUHASH_READER_QSBR)
		return qsbr_state() == ONLINE;
	return rcuhash_read_ongoing(ht);
}

static void saw_arrays(const char *where)
{
	atomic_fetch_add(&in_table, 1);
	if (!protected_now()) {
		const char *none = NULL;

		atomic_fetch_add(&unprotected, 1);
		atomic_compare_exchange_strong(&unprotected_where, &none, where);
	}
}

static void locked_hook(void)
{
	saw_arrays("under its stripe lock");
}

static void moved_hook(void)
{
	saw_arrays("moving buckets of a resize");
}

/* The array is allocated outside the update's section: as the caller left the thread. */
static void alloc_hook(void)
{
	atomic_fetch_add(&allocs, 1);
	if (ht->reader == RCUHASH_READER_QSBR ? qsbr_state() != cur->state : rcuhash_read_ongoing(ht))
		atomic_fetch_add(&allocs_inside, 1);
}

/*
 * After each update: every use of the arrays protected (hooked: the update
 * reaches a hook), the thread as it was.
 */
static void check_update(const char *what, bool hooked, unsigned long calls_before)
{
	CHECK(atomic_load(&unprotected) == 0,
	      "%s, %s, from a thread %s: %lu of its uses of the bucket arrays (first: %s) "
	      "were outside any read-side critical section, where a grace period may free "
	      "the array", cur->domain, what, state_names[cur->state], atomic_load(&unprotected),
	      atomic_load(&unprotected_where));
	CHECK(!hooked || atomic_load(&in_table) > calls_before, "%s, %s: no hook ran",
	      cur->domain, what);
	CHECK(atomic_load(&allocs_inside) == 0,
	      "%s, %s, from a thread %s: a resize's array was allocated inside the update's "
	      "section", cur->domain, what, state_names[cur->state]);
	if (cur->rcu == &quiesce_rcuhash_rcu_qsbr)
		CHECK(qsbr_state() == cur->state, "%s, %s: the thread was %s and is left %s",
		      cur->domain, what, state_names[cur->state], state_names[qsbr_state()]);
}

static struct rcuhash_check_item *item(unsigned long key)
{
	CHECK(nitems < ITEMS, "out of items");
	items[nitems].key = key;
	return &items[nitems++];
}

static bool any(const struct rcuhash_node *node, const void *arg)
{
	return true;
}

static bool present(unsigned long key)
{
	struct rcuhash_node *n;

	/* A lookup needs the caller's own section. */
	if (cur->rcu == &quiesce_rcuhash_rcu_qsbr) {
		enum thread_state was = qsbr_state();

		if (was == UNREGISTERED)
			quiesce_qsbr_register_thread();
		else if (was == OFFLINE)
			quiesce_qsbr_thread_online();
		n = rcuhash_lookup(ht, &key);
		if (was == UNREGISTERED)
			quiesce_qsbr_unregister_thread();
		else if (was == OFFLINE)
			quiesce_qsbr_thread_offline();
		return n != NULL;
	}
	if (cur->rcu == &quiesce_rcuhash_rcu_mb) {
		quiesce_rcu_mb_read_lock();
		n = rcuhash_lookup(ht, &key);
		quiesce_rcu_mb_read_unlock();
		return n != NULL;
	}
	rcu_read_lock();
	n = rcuhash_lookup(ht, &key);
	rcu_read_unlock();
	return n != NULL;
}

/* Runs stmt, an update named what that reaches a hook or not, then checks it. */
#define UPDATE_HOOKED(what, hooked, stmt)                                       \
	do {                                                                    \
		unsigned long before_ = atomic_load(&in_table);                  \
		stmt;                                                           \
		check_update(what, hooked, before_);                            \
	} while (0)
#define UPDATE(what, stmt) UPDATE_HOOKED(what, true, stmt)

static void *updater(void *arg)
{
	struct rcuhash_check_item *a = item(1), *b = item(2), *c = item(3), *c2 = item(3), *d = item(4),
		    *d2 = item(4), *d3 = item(4);
	size_t before, buckets;
	unsigned long allocs_before;
	bool ok = false;

	if (cur->state != UNREGISTERED)
		quiesce_qsbr_register_thread();
	if (cur->state == OFFLINE)
		quiesce_qsbr_thread_offline();

	UPDATE("insert()", ok = rcuhash_insert(ht, &a->node));
	CHECK(ok, "insert()");
	UPDATE("add()", rcuhash_add(ht, &b->node));
	UPDATE("insert_or_replace() of a new key", ok = !rcuhash_insert_or_replace(ht, &c->node));
	CHECK(ok, "insert_or_replace() of a new key");
	UPDATE("insert_or_replace()", ok = rcuhash_insert_or_replace(ht, &c2->node) == &c->node);
	CHECK(ok, "insert_or_replace()");
	UPDATE("insert_match()", ok = !rcuhash_insert_match(ht, &d->node, any, NULL));
	CHECK(ok, "insert_match()");
	UPDATE("replace_match()", ok = rcuhash_replace_match(ht, &d2->node, any, NULL) == &d->node);
	CHECK(ok, "replace_match()");
	UPDATE("replace()", ok = rcuhash_replace(ht, &d2->node, &d3->node));
	CHECK(ok, "replace()");
	UPDATE("remove()", ok = rcuhash_remove(ht, &a->node));
	CHECK(ok, "remove()");
	UPDATE("remove_key()", ok = rcuhash_remove_key(ht, &b->key) == &b->node);
	CHECK(ok, "remove_key()");

	/* Growing: the inserts publish resizes and move their buckets. */
	before = rcuhash_buckets(ht);
	allocs_before = atomic_load(&allocs);
	for (unsigned long k = 0; k < GROW_KEYS; k++) {
		UPDATE("an insert that grows the table", ok = rcuhash_insert(ht, &item(100 + k)->node));
		CHECK(ok, "insert %lu", 100 + k);
	}
	CHECK(atomic_load(&allocs) > allocs_before, "%s: the inserts started no resize", cur->domain);
	UPDATE("resize()", ok = rcuhash_resize(ht, 16 * GROW_KEYS));
	CHECK(ok, "resize()");
	UPDATE_HOOKED("buckets()", false, buckets = rcuhash_buckets(ht));
	CHECK(buckets > before, "%s: %zu buckets, %zu before growing", cur->domain, buckets, before);
	for (unsigned long k = 0; k < GROW_KEYS; k++)
		CHECK(present(100 + k), "%s: key %lu lost", cur->domain, 100 + k);
	/* Shrinking: the removals do. */
	allocs_before = atomic_load(&allocs);
	for (unsigned long k = 0; k < GROW_KEYS; k++) {
		unsigned long key = 100 + k;

		UPDATE("a removal that shrinks the table", ok = rcuhash_remove_key(ht, &key) != NULL);
		CHECK(ok, "remove_key(%lu)", key);
	}
	CHECK(atomic_load(&allocs) > allocs_before, "%s: the removals started no resize",
	      cur->domain);
	CHECK(present(3) && present(4) && !present(1) && !present(2), "%s: keys 1-4", cur->domain);

	if (cur->state != UNREGISTERED) {
		if (cur->state == OFFLINE)
			quiesce_qsbr_thread_online();
		quiesce_qsbr_unregister_thread();
	}
	return NULL;
}

static void keep_item(struct rcuhash_node *node, void *arg)
{
}

static void run(const struct run *r)
{
	struct rcuhash_params params = rcuhash_check_item_params;
	pthread_t t;

	params.rcu = r->rcu;
	cur = r;
	nitems = 0;
	atomic_store(&in_table, 0);
	atomic_store(&unprotected, 0);
	atomic_store(&allocs_inside, 0);
	ht = rcuhash_new(&params);
	QUIESCE_STORE(&quiesce_test_rcuhash_locked_hook, locked_hook);
	QUIESCE_STORE(&quiesce_test_rcuhash_moved_hook, moved_hook);
	QUIESCE_STORE(&quiesce_test_rcuhash_alloc_hook, alloc_hook);
	pthread_create(&t, NULL, updater, NULL);
	pthread_join(t, NULL);
	QUIESCE_STORE(&quiesce_test_rcuhash_locked_hook, NULL);
	QUIESCE_STORE(&quiesce_test_rcuhash_moved_hook, NULL);
	QUIESCE_STORE(&quiesce_test_rcuhash_alloc_hook, NULL);
	rcuhash_destroy(ht, keep_item, NULL);	/* the items are static */
	/* The retired arrays and the items replaced or removed: before they are reused. */
	if (r->rcu == &quiesce_rcuhash_rcu_qsbr)
		quiesce_qsbr_barrier();
	else if (r->rcu == &quiesce_rcuhash_rcu_mb)
		quiesce_rcu_barrier_mb();
	else
		rcu_barrier();
	printf("%s, updates from a thread %s: %lu uses of the arrays, all in a section\n",
	       r->domain, r->rcu == &quiesce_rcuhash_rcu_qsbr ? state_names[r->state]
							     : "registered with nothing",
	       atomic_load(&in_table));
}

int main(void)
{
	static const struct run runs[] = {
		{ "QSBR", &quiesce_rcuhash_rcu_qsbr, ONLINE },
		{ "QSBR", &quiesce_rcuhash_rcu_qsbr, OFFLINE },
		{ "QSBR", &quiesce_rcuhash_rcu_qsbr, UNREGISTERED },
		{ "mb", &quiesce_rcuhash_rcu_mb, UNREGISTERED },
		{ "the default RCU", NULL, UNREGISTERED },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		run(&runs[i]);
	return 0;
}
