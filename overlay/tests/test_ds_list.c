/*
 * liburcu's lists through the overlay: the plain cds_list_* and
 * cds_hlist_* operations and iterators, then RCU lists (GlusterFS,
 * NFS-Ganesha) under concurrent readers.
 *
 * RCU part: an updater, holding its own mutex, adds entries at the head
 * and the tail, replaces and deletes them, on a cds_list and on a
 * cds_hlist, and frees what it removed through call_rcu(), which poisons
 * it.  Readers traverse with the _rcu iterators inside rcu_read_lock()
 * and fail the test on a poisoned entry or when the sentinel entries,
 * never removed, are not all seen.  The control poisons removed entries at
 * once, with no grace period, which the readers must catch.
 */
#include <urcu.h>
#include <urcu/hlist.h>
#include <urcu/list.h>
#include <urcu/rcuhlist.h>
#include <urcu/rculist.h>

#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

/*
 * liburcu 0.15 takes cds_list_empty()'s list and cds_list_replace()'s old
 * entry as const: a program that passes const pointers must build cleanly.
 */
#ifdef __clang__
#pragma clang diagnostic error "-Wincompatible-pointer-types-discards-qualifiers"
#else
#pragma GCC diagnostic error "-Wdiscarded-qualifiers"
#endif

#define LIVE 0x4c495645u
#define SENTINELS 8
#define UPDATES 50000
#define MIN_READS 2000

struct ent {
	int v;
	unsigned magic;
	struct cds_list_head list;
	struct cds_hlist_node hnode;
	struct rcu_head rcu;
};

static int const_empty(const struct cds_list_head *head)
{
	return cds_list_empty(head);
}

static void const_replace(const struct cds_list_head *old, struct cds_list_head *_new)
{
	cds_list_replace(old, _new);
}

static void plain_lists(void)
{
	CDS_LIST_HEAD(l);
	struct cds_list_head other, *pos, *p;
	struct ent e[5], *it, *nx;
	struct cds_hlist_head h;
	struct cds_hlist_node *hp, *hn;
	int sum = 0, n = 0;

	for (int i = 0; i < 5; i++)
		e[i].v = i;
	CHECK(cds_list_empty(&l), "empty");
	cds_list_add(&e[1].list, &l);
	cds_list_add(&e[0].list, &l);
	cds_list_add_tail(&e[2].list, &l);
	cds_list_for_each_entry(it, &l, list)
		CHECK(it->v == n++, "add and add_tail order: %d at %d", it->v, n - 1);
	CHECK(cds_list_first_entry(&l, struct ent, list) == &e[0], "first entry");
	cds_list_for_each_entry_reverse(it, &l, list)
		sum = sum * 10 + it->v;
	CHECK(sum == 210, "reverse order: %d", sum);
	const_replace(&e[1].list, &e[3].list);
	cds_list_move(&e[2].list, &l);
	n = 0;
	cds_list_for_each(pos, &l)
		n = n * 10 + cds_list_entry(pos, struct ent, list)->v;
	CHECK(n == 203, "replace and move: %d", n);
	CDS_INIT_LIST_HEAD(&other);
	cds_list_add(&e[4].list, &other);
	cds_list_splice(&other, &l);
	n = 0;
	cds_list_for_each_prev_safe(pos, p, &l) {
		n = n * 10 + cds_list_entry(pos, struct ent, list)->v;
		cds_list_del(pos);
	}
	CHECK(n == 3024 && cds_list_empty(&l), "splice, then delete every entry backwards: %d", n);
	cds_list_add(&e[0].list, &l);
	cds_list_replace_init(&e[0].list, &e[1].list);
	CHECK(const_empty(&e[0].list) && l.next == &e[1].list, "replace_init");
	cds_list_del_init(&e[1].list);
	CHECK(cds_list_empty(&l) && cds_list_empty(&e[1].list), "del_init");
	for (int i = 0; i < 3; i++)
		cds_list_add_tail(&e[i].list, &l);
	n = 0;
	cds_list_for_each_entry_safe(it, nx, &l, list) {
		n++;
		cds_list_del(&it->list);
	}
	CHECK(n == 3 && cds_list_empty(&l), "for_each_entry_safe deletes");

	/*
	 * A program's mistake that liburcu survives: adding its last entry
	 * at the tail again.  liburcu's four stores leave the list as it was
	 * going forward (only that entry's prev points to itself); the same
	 * stores in another order made the entry its own next, and every
	 * forward walk a loop.
	 */
	cds_list_add_tail(&e[0].list, &l);
	cds_list_add_tail(&e[1].list, &l);
	cds_list_add_tail(&e[1].list, &l);
	n = 0;
	for (pos = l.next; pos != &l && n < 10; pos = pos->next)
		n++;
	CHECK(n == 2 && e[1].list.next == &l && l.prev == &e[1].list && e[1].list.prev == &e[1].list,
	      "tail entry added again: %d entries forward, next %s the head", n,
	      e[1].list.next == &l ? "is" : "is not");
	CDS_INIT_LIST_HEAD(&l);

	CDS_INIT_HLIST_HEAD(&h);
	for (int i = 0; i < 3; i++)
		cds_hlist_add_head(&e[i].hnode, &h);
	n = 0;
	cds_hlist_for_each_entry(it, hp, &h, hnode)
		n = n * 10 + it->v;
	CHECK(n == 210, "hlist order: %d", n);
	cds_hlist_del(&e[1].hnode);
	n = 0;
	cds_hlist_for_each_entry_2(it, &h, hnode)
		n = n * 10 + it->v;
	CHECK(n == 20, "hlist del: %d", n);
	cds_hlist_for_each_entry_safe(it, hp, hn, &h, hnode)
		cds_hlist_del(&it->hnode);
	CHECK(h.next == NULL, "hlist emptied");
}

static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static CDS_LIST_HEAD(rlist);
static struct cds_hlist_head rhlist;
static atomic_bool stop;
static atomic_ulong reads, violations;
static bool busted;

static struct ent *new_ent(int v)
{
	struct ent *e = calloc(1, sizeof(*e));

	e->v = v;
	e->magic = LIVE;
	return e;
}

static void poison_ent(struct rcu_head *rcu)
{
	check_quarantine(caa_container_of(rcu, struct ent, rcu), offsetof(struct ent, rcu));
}

/* Frees a removed entry: after a grace period, or (control) at once. */
static void retire(struct ent *e)
{
	if (busted)
		check_quarantine(e, offsetof(struct ent, rcu));
	else
		call_rcu(&e->rcu, poison_ent);
}

static void *reader(void *arg)
{
	rcu_register_thread();
	while (!atomic_load(&stop)) {
		struct ent *e;
		struct cds_hlist_node *hp;
		unsigned sentinels = 0, hsentinels = 0;

		rcu_read_lock();
		cds_list_for_each_entry_rcu(e, &rlist, list) {
			if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != LIVE)
				atomic_fetch_add(&violations, 1);
			else if (__atomic_load_n(&e->v, __ATOMIC_RELAXED) < 0)
				sentinels++;
		}
		cds_hlist_for_each_entry_rcu(e, hp, &rhlist, hnode) {
			if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != LIVE)
				atomic_fetch_add(&violations, 1);
			else if (__atomic_load_n(&e->v, __ATOMIC_RELAXED) < 0)
				hsentinels++;
		}
		rcu_read_unlock();
		if (sentinels != SENTINELS || hsentinels != SENTINELS) {
			fprintf(stderr, "violation: %u and %u sentinels seen, not %u\n", sentinels,
				hsentinels, SENTINELS);
			atomic_fetch_add(&violations, 1);
		}
		atomic_fetch_add(&reads, 1);
	}
	rcu_unregister_thread();
	return NULL;
}

static void update_one(unsigned i)
{
	struct ent *e = new_ent((int)i), *victim = NULL;

	pthread_mutex_lock(&update_lock);
	if (i % 2)
		cds_list_add_rcu(&e->list, &rlist);
	else
		cds_list_add_tail_rcu(&e->list, &rlist);
	cds_hlist_add_head_rcu(&e->hnode, &rhlist);
	/* Now and then replace the entry before last, if not a sentinel. */
	if (i % 3 == 0) {
		struct ent *old = cds_list_entry(rlist.prev->prev, struct ent, list);

		if (old->v >= 0 && old != e) {
			struct ent *repl = new_ent(old->v);

			cds_list_replace_rcu(&old->list, &repl->list);
			cds_hlist_del_rcu(&old->hnode);
			cds_hlist_add_head_rcu(&repl->hnode, &rhlist);
			victim = old;
		}
	}
	pthread_mutex_unlock(&update_lock);
	if (victim)
		retire(victim);
	/* Keep the lists short: remove the first non-sentinel entry. */
	pthread_mutex_lock(&update_lock);
	victim = NULL;
	{
		struct ent *it;

		cds_list_for_each_entry(it, &rlist, list)
			if (it->v >= 0) {
				victim = it;
				break;
			}
	}
	if (victim) {
		cds_list_del_rcu(&victim->list);
		cds_hlist_del_rcu(&victim->hnode);
	}
	pthread_mutex_unlock(&update_lock);
	if (victim)
		retire(victim);
}

static void rcu_lists(void *arg)
{
	pthread_t r[2];
	struct ent *e, *n;

	busted = arg != NULL;
	CDS_INIT_LIST_HEAD(&rlist);
	CDS_INIT_HLIST_HEAD(&rhlist);
	atomic_store(&stop, false);
	atomic_store(&reads, 0);
	atomic_store(&violations, 0);
	for (int i = 0; i < SENTINELS; i++) {
		e = new_ent(-1 - i);
		cds_list_add_tail_rcu(&e->list, &rlist);
		cds_hlist_add_head_rcu(&e->hnode, &rhlist);
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	rcu_register_thread();
	/*
	 * The control runs until caught, or for many more chances: more
	 * updates, and more traversals alongside them (on a loaded machine
	 * the readers may barely run while the updates go by).
	 */
	for (unsigned i = 0; i < (busted ? 100 * UPDATES : UPDATES) ||
			     atomic_load(&reads) < (busted ? 100 * MIN_READS : MIN_READS);
	     i++) {
		update_one(i);
		CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	}
	rcu_unregister_thread();
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		check_join_within(r[i], CHECK_HANG_MS, "reader");
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	cds_list_for_each_entry_safe(e, n, &rlist, list)
		free(e);
	rcu_barrier();
	printf("RCU lists: %d updates, %lu traversals, no violation\n", UPDATES,
	       atomic_load(&reads));
}

int main(void)
{
	plain_lists();
	rcu_lists(NULL);
	check_child_detects_violation(rcu_lists, "busted");
	return 0;
}
