/*
 * <quiesce/rcuhash.h> read under another RCU than the default: a table
 * whose params.rcu names quiesce's QSBR domain, both ways a caller can:
 * quiesce_rcuhash_rcu_qsbr, which the table calls inline (the liburcu
 * overlay's qsbr flavor uses it), and a struct of the caller's own (a
 * copy of it), which the table calls through.
 *
 * Readers are QSBR threads: online, they look keys up with no read lock
 * and announce quiescent states between batches.  Updaters (online QSBR
 * threads too) replace the nodes of keys that are always present, and
 * free the old ones through quiesce_qsbr_call_rcu(), which poisons them;
 * a resizer forces resizes, whose old bucket arrays the table retires
 * through the same call_rcu.  A reader fails the test on a poisoned node,
 * a wrong key or a present key not found.  The control frees old arrays
 * with no grace period at all, which the readers must catch, either way.
 * A lookup from a thread that is offline must abort with a message (the
 * domain's read_ongoing() is the table's check), either way.
 */
#include <stdlib.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "ds/rcuhash_internal.h"
#include "hash_stress.h"
#include "rcuhash_check.h"

#define KEYS 512
#define READERS 2
#define UPDATERS 1
#define UPDATER_OPS 50000
#define LOOKUP_BATCH 64
#define MIN_LOOKUPS 200000
#define MIN_RESIZES 100

struct elem {
	struct hash_item item;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

/* QSBR named by a struct of the caller's own: a copy, made in main(). */
static struct quiesce_rcuhash_rcu qsbr_ops;

/* .rcu: set by each run, to one of these. */
static struct rcuhash_params params = {
	.node_offset = offsetof(struct elem, node),
	.key_offset = offsetof(struct elem, item.key),
	.key_len = sizeof(unsigned long),
};

struct domain {
	const struct quiesce_rcuhash_rcu *rcu;
	const char *name;
};

static const struct domain inline_qsbr = { &quiesce_rcuhash_rcu_qsbr, "quiesce_rcuhash_rcu_qsbr" };
static const struct domain own_calls = { &qsbr_ops, "the caller's calls" };
static const struct domain busted_inline = { &quiesce_rcuhash_rcu_qsbr, NULL };
static const struct domain busted_calls = { &qsbr_ops, NULL };

static struct rcuhash *ht;

static struct elem *new_elem(unsigned long key)
{
	struct elem *e = malloc(sizeof(*e));

	hash_item_init(&e->item, key);
	return e;
}

static void poison_elem(struct rcu_head *head)
{
	check_quarantine(container_of(head, struct elem, rcu), offsetof(struct elem, rcu));
}

/* Online, with no read lock: QSBR readers are protected between quiescent states. */
static void check_lookup(unsigned long key)
{
	struct rcuhash_node *n = rcuhash_lookup(ht, &key);

	if (!n)
		hash_stress_violation("key %lu not found", key);
	else if (!hash_item_intact(&container_of(n, struct elem, node)->item, key))
		hash_stress_violation("key %lu found poisoned or foreign", key);
}

static void replace(unsigned long key, unsigned op)
{
	struct rcuhash_node *old = rcuhash_insert_or_replace(ht, &new_elem(key)->node);

	if (!old)
		hash_stress_violation("key %lu missing at its replacement", key);
	else
		quiesce_qsbr_call_rcu(&container_of(old, struct elem, node)->rcu, poison_elem);
}

static bool resize(unsigned long r)
{
	return rcuhash_check_resize(ht, KEYS, r);
}

static const struct hash_stress stress = {
	.readers = READERS,
	.updaters = UPDATERS,
	.register_thread = quiesce_qsbr_register_thread,
	.unregister_thread = quiesce_qsbr_unregister_thread,
	.quiescent_state = quiesce_qsbr_quiescent_state,
	.lookup = check_lookup,
	.lookup_batch = LOOKUP_BATCH,
	.lookup_keys = KEYS,
	.update = replace,
	.update_ops = UPDATER_OPS,
	.update_keys = KEYS,
	.resize = resize,
	.min_lookups = MIN_LOOKUPS,
	.min_resizes = MIN_RESIZES,
};

static void free_elem(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct elem, node));
}

/* A domain with no name: the control, whose resizes free arrays early. */
static void run(void *arg)
{
	const struct domain *d = arg;
	bool busted = d->name == NULL;

	params.rcu = d->rcu;
	quiesce_test_busted_rcuhash = busted ? RCUHASH_BUSTED_FREE_EARLY : RCUHASH_BUSTED_NONE;
	ht = rcuhash_new(&params);
	CHECK(ht->reader == (d->rcu == &quiesce_rcuhash_rcu_qsbr ? RCUHASH_READER_QSBR
								 : RCUHASH_READER_CALLS),
	      "the table calls QSBR %s", d->rcu == &qsbr_ops ? "through the copy" : "inline");
	for (unsigned long k = 0; k < KEYS; k++)
		rcuhash_insert(ht, &new_elem(k)->node);
	hash_stress_run(&stress, busted);
	rcuhash_destroy(ht, free_elem, NULL);
	quiesce_qsbr_barrier();
	printf("rcuhash under QSBR (%s): %lu lookups, %lu forced resizes, no violation\n",
	       d->name, atomic_load(&hash_stress_lookups), atomic_load(&hash_stress_resizes));
}

static void offline_lookup(void *arg)
{
	unsigned long key = 1;

	params.rcu = ((const struct domain *)arg)->rcu;
	ht = rcuhash_new(&params);
	quiesce_qsbr_register_thread();
	quiesce_qsbr_thread_offline();
	rcuhash_lookup(ht, &key);
}

int main(void)
{
	qsbr_ops = quiesce_rcuhash_rcu_qsbr;
	for (int i = 0; i < 2; i++) {
		const struct domain *d = i ? &own_calls : &inline_qsbr;

		run((void *)d);
		check_child_detects_violation(run, (void *)(i ? &busted_calls : &busted_inline));
		check_child_aborts(offline_lookup, (void *)d,
				   "outside an RCU read-side critical section");
	}
	return 0;
}
