/*
 * <quiesce/rcuhash.h> read under another RCU than the default: a table
 * whose params.rcu names quiesce's QSBR domain, as the liburcu overlay's
 * qsbr flavor makes one.
 *
 * Readers are QSBR threads: online, they look keys up with no read lock
 * and announce quiescent states between batches.  Updaters (online QSBR
 * threads too) replace the nodes of keys that are always present, and
 * free the old ones through quiesce_qsbr_call_rcu(), which poisons them;
 * a resizer forces resizes, whose old bucket arrays the table retires
 * through the same call_rcu.  A reader fails the test on a poisoned node,
 * a wrong key or a present key not found.  The control frees old arrays
 * with no grace period at all, which the readers must catch.  A lookup
 * from a thread that is offline must abort with a message (the domain's
 * read_ongoing() is the table's check).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/rcuhash.h>

#include "check.h"
#include "ds/rcuhash_internal.h"

#define KEYS 512
#define LIVE 0x4c495645u
#define READERS 2
#define UPDATER_OPS 50000
#define MIN_LOOKUPS 200000
#define MIN_RESIZES 100
#define BUSTED_MIN_RESIZES 100000
#define DEADLINE_NS (240ull * 1000000000ull)

struct elem {
	unsigned long key;
	unsigned long check;	/* ~key */
	unsigned magic;
	struct rcuhash_node node;
	struct rcu_head rcu;
};

static void qsbr_read_lock(void)
{
	quiesce_qsbr_read_lock();
}

static void qsbr_read_unlock(void)
{
	quiesce_qsbr_read_unlock();
}

static int qsbr_read_ongoing(void)
{
	return quiesce_qsbr_read_ongoing();
}

static const struct quiesce_rcuhash_rcu qsbr_ops = {
	.read_lock = qsbr_read_lock,
	.read_unlock = qsbr_read_unlock,
	.read_ongoing = qsbr_read_ongoing,
	.call_rcu = quiesce_qsbr_call_rcu,
};

static const struct rcuhash_params params = {
	.node_offset = offsetof(struct elem, node),
	.key_offset = offsetof(struct elem, key),
	.key_len = sizeof(unsigned long),
	.rcu = &qsbr_ops,
};

static struct rcuhash *ht;
static atomic_bool stop;
static atomic_ulong violations, lookups, resizes, updaters_done, min_resizes;

static struct elem *new_elem(unsigned long key)
{
	struct elem *e = malloc(sizeof(*e));

	e->key = key;
	e->check = ~key;
	e->magic = LIVE;
	return e;
}

static void poison_elem(struct rcu_head *head)
{
	check_quarantine(container_of(head, struct elem, rcu), offsetof(struct elem, rcu));
}

static void *reader(void *arg)
{
	uint64_t rng = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL;

	quiesce_qsbr_register_thread();
	while (!atomic_load(&stop)) {
		for (int j = 0; j < 64; j++) {
			unsigned long key;
			struct rcuhash_node *n;
			struct elem *e;

			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			key = (rng >> 33) % KEYS;
			n = rcuhash_lookup(ht, &key);
			e = n ? container_of(n, struct elem, node) : NULL;
			if (!e) {
				fprintf(stderr, "violation: key %lu not found\n", key);
				atomic_fetch_add(&violations, 1);
			} else if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != LIVE ||
				   __atomic_load_n(&e->key, __ATOMIC_RELAXED) != key ||
				   __atomic_load_n(&e->check, __ATOMIC_RELAXED) != ~key) {
				fprintf(stderr, "violation: key %lu found poisoned or foreign\n", key);
				atomic_fetch_add(&violations, 1);
			}
		}
		quiesce_qsbr_quiescent_state();
		if (atomic_fetch_add(&lookups, 64) >= MIN_LOOKUPS && atomic_load(&updaters_done) &&
		    atomic_load(&resizes) >= atomic_load(&min_resizes))
			atomic_store(&stop, true);
	}
	quiesce_qsbr_unregister_thread();
	return NULL;
}

static void *updater(void *arg)
{
	uint64_t rng = 77;

	quiesce_qsbr_register_thread();
	for (unsigned i = 0; i < UPDATER_OPS && !atomic_load(&stop); i++) {
		unsigned long key;
		struct rcuhash_node *old;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		key = (rng >> 33) % KEYS;
		old = rcuhash_insert_or_replace(ht, &new_elem(key)->node);
		if (!old) {
			fprintf(stderr, "violation: key %lu missing at its replacement\n", key);
			atomic_fetch_add(&violations, 1);
		} else {
			quiesce_qsbr_call_rcu(&container_of(old, struct elem, node)->rcu, poison_elem);
		}
		quiesce_qsbr_quiescent_state();
	}
	atomic_store(&updaters_done, 1);
	quiesce_qsbr_unregister_thread();
	return NULL;
}

static void *resizer(void *arg)
{
	uint64_t rng = 12345;

	quiesce_qsbr_register_thread();
	while (!atomic_load(&stop)) {
		size_t before = rcuhash_buckets(ht);

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if (rcuhash_resize(ht, 1 + (rng >> 33) % (8 * KEYS)) && rcuhash_buckets(ht) != before)
			atomic_fetch_add(&resizes, 1);
		quiesce_qsbr_quiescent_state();
	}
	quiesce_qsbr_unregister_thread();
	return NULL;
}

static void free_elem(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct elem, node));
}

static void run(void *arg)
{
	bool busted = arg != NULL;
	pthread_t r[READERS], u, z;
	uint64_t deadline = check_now_ns() + DEADLINE_NS;

	quiesce_test_busted_rcuhash = busted ? RCUHASH_BUSTED_FREE_EARLY : RCUHASH_BUSTED_NONE;
	ht = rcuhash_new(&params);
	for (unsigned long k = 0; k < KEYS; k++)
		rcuhash_insert(ht, &new_elem(k)->node);
	atomic_store(&stop, false);
	atomic_store(&violations, 0);
	atomic_store(&lookups, 0);
	atomic_store(&resizes, 0);
	atomic_store(&updaters_done, 0);
	atomic_store(&min_resizes, busted ? BUSTED_MIN_RESIZES : MIN_RESIZES);
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	pthread_create(&u, NULL, updater, NULL);
	pthread_create(&z, NULL, resizer, NULL);
	check_preempt_start(r, READERS, 200);
	while (!atomic_load(&stop) && !atomic_load(&violations)) {
		CHECK(check_now_ns() < deadline, "hung: %lu lookups, %lu resizes",
		      atomic_load(&lookups), atomic_load(&resizes));
		check_sleep_us(10000);
	}
	atomic_store(&stop, true);
	check_preempt_stop();
	for (int i = 0; i < READERS; i++)
		check_join_within(r[i], 60000, "reader");
	check_join_within(u, 60000, "updater");
	check_join_within(z, 60000, "resizer");
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	rcuhash_destroy(ht, free_elem, NULL);
	quiesce_qsbr_barrier();
	printf("rcuhash under QSBR: %lu lookups, %lu forced resizes, no violation\n",
	       atomic_load(&lookups), atomic_load(&resizes));
}

static void offline_lookup(void *arg)
{
	unsigned long key = 1;

	ht = rcuhash_new(&params);
	quiesce_qsbr_register_thread();
	quiesce_qsbr_thread_offline();
	rcuhash_lookup(ht, &key);
}

int main(void)
{
	run(NULL);
	check_child_detects_violation(run, "busted");
	check_child_aborts(offline_lookup, NULL, "outside an RCU read-side critical section");
	return 0;
}
