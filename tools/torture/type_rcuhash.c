/*
 * type_rcuhash.c - the rcuhash torture type: readers look keys up and now
 * and then walk the whole table, while writers insert, replace and remove
 * keys and now and then force a resize to a random size (on top of the
 * automatic ones).
 *
 * Keys below STABLE are always present (writers only replace their nodes),
 * the others come and go.  Nodes that leave the table are retired with
 * call_rcu(), poisoned by the callback and kept in quarantine a while
 * before they are freed.  A reader reports a poisoned node or one with the
 * wrong key (freed), and a stable key missing from a lookup or a walk, or
 * any key returned twice by a walk (hash).  Busted, a resize unlinks each
 * node it moves from the old chain before linking it into the new one;
 * busted "walk", walks let resizes run under them; busted "again", a walk
 * returns the nodes of one chain in 64 twice.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcuhash.h>

#include "ds/rcuhash_internal.h"
#include "torture.h"

#define HASH_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_CHURN | TORTURE_FAULT_SIGNALS | \
		     TORTURE_FAULT_SHUFFLE)
#define KEYS 4096
#define STABLE 512
#define LOOKUPS_PER_READ 8
#define WALK_EVERY 512		/* reads */
#define RESIZE_EVERY 256	/* writes */
#define QUARANTINE 1024
#define LIVE 0x4c495645u
#define POISON 0x6b6b6b6bu

struct hash_elem {
	unsigned long key;
	unsigned long check;	/* ~key */
	unsigned magic;
	struct rcuhash_node node;
	struct rcu_head rcu;
	struct hash_state *state;
};

struct hash_state {
	struct rcuhash *ht;
	pthread_mutex_t quarantine_lock;
	struct hash_elem *quarantine[QUARANTINE];
	unsigned quarantine_next;
	uint64_t walks, resizes;
};

static const struct rcuhash_params hash_params = {
	.node_offset = offsetof(struct hash_elem, node),
	.key_offset = offsetof(struct hash_elem, key),
	.key_len = sizeof(unsigned long),
};

static void set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_rcuhash,
		      on ? RCUHASH_BUSTED_UNLINK_FIRST : RCUHASH_BUSTED_NONE);
}

static void set_busted_walk(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_rcuhash,
		      on ? RCUHASH_BUSTED_UNGUARDED_WALK : RCUHASH_BUSTED_NONE);
}

static void set_busted_again(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_rcuhash,
		      on ? RCUHASH_BUSTED_WALK_AGAIN : RCUHASH_BUSTED_NONE);
}

static const struct torture_control controls[] = {
	{ .name = "", .doc = "a node a resize moves leaves its old chain before joining its new one",
	  .set = set_busted },
	{ .name = "walk", .doc = "walks hold no resize off: nodes move between chains under them",
	  .set = set_busted_walk },
	{ .name = "again", .doc = "a walk goes through the chain of every 64th bucket twice",
	  .set = set_busted_again },
	{ .name = NULL },
};

static struct hash_elem *elem_new(struct hash_state *s, unsigned long key)
{
	struct hash_elem *e = malloc(sizeof(*e));

	e->key = key;
	e->check = ~key;
	e->magic = LIVE;
	e->state = s;
	return e;
}

/* Relaxed loads: a broken table may hand out a node freed under us. */
static bool elem_intact(const struct hash_elem *e, unsigned long key)
{
	return __atomic_load_n(&e->magic, __ATOMIC_RELAXED) == LIVE &&
	       __atomic_load_n(&e->key, __ATOMIC_RELAXED) == key &&
	       __atomic_load_n(&e->check, __ATOMIC_RELAXED) == ~key;
}

/* On the callback thread: poison, and free what leaves the quarantine. */
static void elem_retired(struct rcu_head *head)
{
	struct hash_elem *e = container_of(head, struct hash_elem, rcu), *evicted;
	struct hash_state *s = e->state;

	__atomic_store_n(&e->magic, POISON, __ATOMIC_RELAXED);
	__atomic_store_n(&e->key, ~0UL, __ATOMIC_RELAXED);
	pthread_mutex_lock(&s->quarantine_lock);
	evicted = s->quarantine[s->quarantine_next];
	s->quarantine[s->quarantine_next] = e;
	s->quarantine_next = (s->quarantine_next + 1) % QUARANTINE;
	pthread_mutex_unlock(&s->quarantine_lock);
	free(evicted);
}

static void retire(struct rcuhash_node *node)
{
	call_rcu(&container_of(node, struct hash_elem, node)->rcu, elem_retired);
}

static void setup(struct torture_run *run)
{
	struct hash_state *s = calloc(1, sizeof(*s));

	s->ht = rcuhash_new(&hash_params);
	pthread_mutex_init(&s->quarantine_lock, NULL);
	for (unsigned long k = 0; k < KEYS; k += 1 + (k >= STABLE))
		rcuhash_insert(s->ht, &elem_new(s, k)->node);
	run->state = s;
}

static void walk(struct torture_thread *t, struct hash_state *s)
{
	unsigned char seen[KEYS] = { 0 };
	struct rcuhash_walk w;
	struct rcuhash_node *n;

	rcu_read_lock();
	rcuhash_walk_start(s->ht, &w);
	while ((n = rcuhash_walk_next(&w))) {
		struct hash_elem *e = container_of(n, struct hash_elem, node);
		unsigned long key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);

		if (key >= KEYS || !elem_intact(e, key))
			torture_violation(t->run, TV_FREED, "%s: a walk returned a poisoned node",
					  t->name);
		else if (seen[key]++)
			torture_violation(t->run, TV_HASH, "%s: a walk returned key %lu twice",
					  t->name, key);
		torture_section_delay(t);
	}
	rcuhash_walk_stop(&w);
	rcu_read_unlock();
	for (unsigned long k = 0; k < STABLE; k++)
		if (!seen[k])
			torture_violation(t->run, TV_HASH, "%s: a walk missed stable key %lu",
					  t->name, k);
	__atomic_fetch_add(&s->walks, 1, __ATOMIC_RELAXED);
}

static void read_op(struct torture_thread *t)
{
	struct hash_state *s = t->run->state;

	if (torture_one_in(t, WALK_EVERY)) {
		walk(t, s);
		torture_count_op(t);
		return;
	}
	rcu_read_lock();
	for (int i = 0; i < LOOKUPS_PER_READ; i++) {
		unsigned long key = torture_random(t) % (2 * KEYS);	/* half absent */
		struct rcuhash_node *n = rcuhash_lookup(s->ht, &key);

		if (n && !elem_intact(container_of(n, struct hash_elem, node), key))
			torture_violation(t->run, TV_FREED,
					  "%s: lookup of %lu found a poisoned or foreign node",
					  t->name, key);
		else if (!n && key < STABLE)
			torture_violation(t->run, TV_HASH, "%s: lookup missed stable key %lu",
					  t->name, key);
		if (i == LOOKUPS_PER_READ / 2)
			torture_section_delay(t);
	}
	rcu_read_unlock();
	torture_count_op(t);
}

static void write_op(struct torture_thread *t)
{
	struct hash_state *s = t->run->state;
	unsigned long key = torture_random(t) % KEYS;
	struct rcuhash_node *n;

	if (torture_one_in(t, RESIZE_EVERY)) {
		if (rcuhash_resize(s->ht, 1 + torture_random(t) % (8 * KEYS)))
			__atomic_fetch_add(&s->resizes, 1, __ATOMIC_RELAXED);
	} else if (key < STABLE) {
		n = rcuhash_insert_or_replace(s->ht, &elem_new(s, key)->node);
		if (!n)
			torture_violation(t->run, TV_HASH, "%s: stable key %lu missing at replace",
					  t->name, key);
		else
			retire(n);
	} else if (torture_one_in(t, 2)) {
		struct hash_elem *e = elem_new(s, key);

		if (!rcuhash_insert(s->ht, &e->node))
			free(e);	/* never published */
	} else if (torture_one_in(t, 2)) {
		n = rcuhash_remove_key(s->ht, &key);
		if (n)
			retire(n);
	} else {
		rcu_read_lock();
		n = rcuhash_lookup(s->ht, &key);
		if (n && rcuhash_remove(s->ht, n))
			retire(n);
		rcu_read_unlock();
	}
	torture_count_op(t);
	torture_writer_pause(t);
}

static void free_node(struct rcuhash_node *node, void *arg)
{
	free(container_of(node, struct hash_elem, node));
}

static void finish(struct torture_run *run)
{
	struct hash_state *s = run->state;

	rcuhash_destroy(s->ht, free_node, NULL);
	rcu_barrier();	/* every retired node is in quarantine */
	for (unsigned i = 0; i < QUARANTINE; i++)
		free(s->quarantine[i]);
	pthread_mutex_destroy(&s->quarantine_lock);
}

/* Walks and forced resizes (the moves busted breaks) must have happened. */
static void evidence(struct torture_run *run)
{
	struct hash_state *s = run->state;

	if (!s->walks)
		torture_unchecked(run, "no reader walked the table");
	if (!s->resizes)
		torture_unchecked(run, "no writer resized the table");
}

static void report(struct torture_run *run, FILE *out, bool json)
{
	struct hash_state *s = run->state;

	fprintf(out, json ? ",\"walks\":%llu,\"forced_resizes\":%llu"
			  : "  walks %llu, forced resizes %llu\n",
		(unsigned long long)s->walks, (unsigned long long)s->resizes);
}

const struct torture_type torture_type_rcuhash = {
	.name = "rcuhash",
	.doc = "RCU hash table: lookups and walks against updates and resizes",
	.faults = HASH_FAULTS,
	.controls = controls,
	.setup = setup,
	.read = read_op,
	.write = write_op,
	.evidence = evidence,
	.finish = finish,
	.report = report,
};
