/*
 * hash_stress.h - the stress harness of the hash-table tests
 * (test_rcuhash_stress, test_rcuhash_ordered, test_rcuhash_domain and the
 * overlay's test_ds_lfht), which differ in what their readers check and
 * how their updaters change the table, not in how the threads run.
 *
 * Each node carries a struct hash_item: its key, the key's complement and
 * a live mark, which the test's call_rcu() callback poisons
 * (check_quarantine()), so a reader that finds a node freed under it, torn
 * or of another key can tell.
 *
 * hash_stress_run() starts readers, updaters and one resizer and runs them
 * until the updaters have made their operations and the readers and the
 * resizer their minimum counts, or until a violation; the busted controls
 * raise the resizer's minimum out of reach, so that they run until caught
 * (or until the hang limit).  Readers, under preemption injection, loop
 * over: every iterate_every passes an iterate() (its own read-side
 * section), then a batch of lookup() calls in one section, then a
 * quiescent state.  Updaters call update() with random keys and operation
 * numbers; the resizer calls resize() with random numbers.  A check that
 * fails calls hash_stress_violation(), and the run fails the test.
 */
#ifndef QUIESCE_TEST_HASH_STRESS_H
#define QUIESCE_TEST_HASH_STRESS_H

#include <stdatomic.h>
#include <stdbool.h>

#define HASH_ITEM_LIVE 0x4c495645u

struct hash_item {
	unsigned long key;
	unsigned long check;	/* ~key */
	unsigned magic;
};

void hash_item_init(struct hash_item *it, unsigned long key);
/* The key, loaded relaxed: a broken table may hand out a node freed under us. */
unsigned long hash_item_key(const struct hash_item *it);
/* Live and holding key, by relaxed loads: poisoned or torn items fail. */
bool hash_item_intact(const struct hash_item *it, unsigned long key);

struct hash_stress {
	unsigned readers, updaters;	/* at most HASH_STRESS_MAX_THREADS each */
	/* The domain: lock and unlock are NULL where lookups need no section (QSBR). */
	void (*register_thread)(void);
	void (*unregister_thread)(void);
	void (*read_lock)(void);
	void (*read_unlock)(void);
	void (*quiescent_state)(void);	/* NULL: the domain has none */
	/* Readers: iterate may be NULL, lookup too (with lookup_batch 0). */
	void (*iterate)(void);
	unsigned iterate_every;
	void (*lookup)(unsigned long key);
	unsigned lookup_batch;
	unsigned long lookup_keys;	/* lookups draw keys below this */
	/* Updaters: update_ops calls each, with keys below update_keys. */
	void (*update)(unsigned long key, unsigned op);
	unsigned long update_ops, update_keys;
	/* True when it changed the table's size. */
	bool (*resize)(unsigned long r);
	/* Progress every run needs before it may end. */
	unsigned long min_lookups, min_iterations, min_resizes;
};

#define HASH_STRESS_MAX_THREADS 4

/* The run's counts, zeroed by hash_stress_run(). */
extern atomic_bool hash_stress_stop;
extern atomic_ulong hash_stress_violations, hash_stress_lookups, hash_stress_iterations,
	hash_stress_resizes;

void hash_stress_violation(const char *fmt, unsigned long v);

/* Runs s as above; busted: until caught.  Fails the test on any violation. */
void hash_stress_run(const struct hash_stress *s, bool busted);

#endif
