/*
 * <quiesce/rculist.h>: the plain operations single-threaded, then a list and
 * a hash table under concurrent readers and updaters.  Updaters insert,
 * remove and replace entries under their own lock and retire removed ones
 * with call_rcu(), whose callback poisons them and keeps them in quarantine
 * a while before freeing.  Readers check every entry they pass (intact,
 * in the right bucket) and that each walk ends.  The control removes with
 * the plain list_del()/hlist_del(), which poison the removed entry's
 * pointers at once: a reader standing on it must fault or be caught.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <quiesce/rcu.h>
#include <quiesce/rculist.h>

#include "check.h"

#define LIVE 0x4c495645u
#define TARGET_SIZE 48
#define MAX_WALK 100000
#define BUCKETS 16
#define QUARANTINE 256
#define READERS 2

struct entry {
	unsigned magic;
	unsigned long key, check;
	struct list_head link;
	struct hlist_node hnode;
	struct rcu_head rcu;
};

static struct entry *new_entry(unsigned long key)
{
	struct entry *e = malloc(sizeof(*e));

	e->magic = LIVE;
	e->key = key;
	e->check = ~key;
	return e;
}

static bool entry_intact(const struct entry *e)
{
	return __atomic_load_n(&e->magic, __ATOMIC_RELAXED) == LIVE &&
	       __atomic_load_n(&e->check, __ATOMIC_RELAXED) ==
		       ~__atomic_load_n(&e->key, __ATOMIC_RELAXED);
}

/* Runs on the callback thread only, one callback at a time. */
static struct entry *quarantine[QUARANTINE];
static unsigned quarantine_next;

static void poison_and_quarantine(struct rcu_head *head)
{
	struct entry *e = container_of(head, struct entry, rcu);

	check_poison(e, offsetof(struct entry, rcu));
	free(quarantine[quarantine_next]);
	quarantine[quarantine_next] = e;
	quarantine_next = (quarantine_next + 1) % QUARANTINE;
}

static void empty_quarantine(void)
{
	rcu_barrier();
	for (unsigned i = 0; i < QUARANTINE; i++) {
		free(quarantine[i]);
		quarantine[i] = NULL;
	}
}

static void test_plain_list(void)
{
	LIST_HEAD(head);
	struct entry e[4], *pos, *n;
	unsigned long keys = 0;
	int count = 0;

	CHECK(list_empty(&head), "a new list is empty");
	for (int i = 0; i < 4; i++)
		e[i].key = (unsigned long)i;
	list_add(&e[1].link, &head);
	list_add(&e[0].link, &head);
	list_add_tail(&e[2].link, &head);
	list_for_each_entry(pos, &head, link)
		keys = keys * 10 + pos->key;
	CHECK(keys == 12, "list_add() at the front, list_add_tail() at the back: %lu", keys);
	list_replace(&e[1].link, &e[3].link);
	keys = 0;
	list_for_each_entry(pos, &head, link)
		keys = keys * 10 + pos->key;
	CHECK(keys == 32, "list_replace() took the old entry's place: %lu", keys);
	list_del(&e[3].link);
	CHECK(e[3].link.next == QUIESCE_LIST_POISON_NEXT, "list_del() poisons");
	list_del_init(&e[0].link);
	CHECK(list_empty(&e[0].link), "list_del_init() leaves an empty entry");
	list_for_each_entry_safe(pos, n, &head, link) {
		list_del(&pos->link);
		count++;
	}
	CHECK(count == 1 && list_empty(&head), "the _safe walk removed the last entry");

	list_add_tail_rcu(&e[0].link, &head);
	list_add_rcu(&e[1].link, &head);
	list_replace_rcu(&e[0].link, &e[2].link);
	keys = 0;
	list_for_each_entry_rcu(pos, &head, link)
		keys = keys * 10 + pos->key;
	CHECK(keys == 12, "list_add_rcu(), list_replace_rcu(): %lu", keys);
	list_del_rcu(&e[1].link);
	CHECK(e[1].link.next == &e[2].link, "list_del_rcu() keeps the way forward");
	CHECK(head.next == &e[2].link && head.prev == &e[2].link, "one entry left");
}

static void test_plain_hlist(void)
{
	HLIST_HEAD(head);
	struct entry e[3], *pos;
	struct hlist_node *n;
	unsigned long keys = 0;

	CHECK(hlist_empty(&head), "a new hlist is empty");
	for (int i = 0; i < 3; i++) {
		e[i].key = (unsigned long)i + 1;
		INIT_HLIST_NODE(&e[i].hnode);
		CHECK(hlist_unhashed(&e[i].hnode), "a new node is unhashed");
	}
	hlist_add_head(&e[0].hnode, &head);
	hlist_add_head_rcu(&e[1].hnode, &head);
	hlist_add_head(&e[2].hnode, &head);
	hlist_for_each_entry(pos, &head, hnode)
		keys = keys * 10 + pos->key;
	CHECK(keys == 321, "hlist_add_head() at the front: %lu", keys);
	hlist_del_init_rcu(&e[1].hnode);
	CHECK(hlist_unhashed(&e[1].hnode), "hlist_del_init_rcu() unhashes");
	CHECK(e[1].hnode.next == &e[0].hnode, "hlist_del_init_rcu() keeps the way forward");
	hlist_del_init_rcu(&e[1].hnode);
	keys = 0;
	hlist_for_each_entry_rcu(pos, &head, hnode)
		keys = keys * 10 + pos->key;
	CHECK(keys == 31, "removed from the middle: %lu", keys);
	hlist_del_rcu(&e[2].hnode);
	CHECK(head.first == &e[0].hnode, "removed from the front");
	hlist_for_each_entry_safe(pos, n, &head, hnode)
		hlist_del(&pos->hnode);
	CHECK(hlist_empty(&head), "the _safe walk removed the last node");
	CHECK(e[0].hnode.next == QUIESCE_LIST_POISON_NEXT, "hlist_del() poisons");
}

/* The concurrent part. */
static LIST_HEAD(list);
static struct hlist_head table[BUCKETS];
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static atomic_ulong violations, walks, updates;
static bool busted;		/* the control: plain deletion */

static void *list_reader(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct entry *e;
		unsigned n = 0;

		rcu_read_lock();
		list_for_each_entry_rcu(e, &list, link) {
			if (!entry_intact(e) || ++n > MAX_WALK) {
				atomic_fetch_add(&violations, 1);
				break;
			}
			quiesce_cpu_relax();
		}
		rcu_read_unlock();
		atomic_fetch_add_explicit(&walks, 1, memory_order_relaxed);
	}
	return NULL;
}

static struct entry *nth_entry(unsigned n)
{
	struct entry *e;

	list_for_each_entry(e, &list, link)
		if (!n--)
			return e;
	return NULL;
}

static void *list_updater(void *arg)
{
	unsigned seed = 7, size = 0;
	unsigned long key = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned r = (unsigned)rand_r(&seed);
		struct entry *victim;

		pthread_mutex_lock(&update_lock);
		if (size < TARGET_SIZE / 2 || (size < TARGET_SIZE * 2 && r % 3 == 0)) {
			if (r & 8)
				list_add_rcu(&new_entry(++key)->link, &list);
			else
				list_add_tail_rcu(&new_entry(++key)->link, &list);
			size++;
		} else if ((victim = nth_entry((r >> 4) % size)) && r % 3 == 1) {
			list_replace_rcu(&victim->link, &new_entry(++key)->link);
			call_rcu(&victim->rcu, poison_and_quarantine);
		} else if (victim) {
			if (busted)
				list_del(&victim->link);
			else
				list_del_rcu(&victim->link);
			call_rcu(&victim->rcu, poison_and_quarantine);
			size--;
		}
		pthread_mutex_unlock(&update_lock);
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *hlist_reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned bucket = (unsigned)rand_r(&seed) % BUCKETS, n = 0;
		struct entry *e;

		rcu_read_lock();
		hlist_for_each_entry_rcu(e, &table[bucket], hnode) {
			if (!entry_intact(e) || e->key % BUCKETS != bucket || ++n > MAX_WALK) {
				atomic_fetch_add(&violations, 1);
				break;
			}
			quiesce_cpu_relax();
		}
		rcu_read_unlock();
		atomic_fetch_add_explicit(&walks, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *hlist_updater(void *arg)
{
	unsigned seed = 11, size = 0;
	unsigned long key = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned r = (unsigned)rand_r(&seed), bucket = r % BUCKETS;
		struct entry *e = NULL;

		pthread_mutex_lock(&update_lock);
		if (size < BUCKETS * 4 && (r >> 4) % 2) {
			e = new_entry(++key * BUCKETS + bucket);
			hlist_add_head_rcu(&e->hnode, &table[bucket]);
			size++;
		} else {
			unsigned skip = (r >> 5) % 4;

			hlist_for_each_entry(e, &table[bucket], hnode)
				if (!skip--)
					break;
		}
		if (e && e->key / BUCKETS != key) {
			if (busted)
				hlist_del(&e->hnode);
			else if (r & 64)
				hlist_del_rcu(&e->hnode);
			else
				hlist_del_init_rcu(&e->hnode);
			call_rcu(&e->rcu, poison_and_quarantine);
			size--;
		}
		pthread_mutex_unlock(&update_lock);
		atomic_fetch_add_explicit(&updates, 1, memory_order_relaxed);
	}
	return NULL;
}

/* Updates a busted control gets (after its second) before it counts as missed. */
#define BUSTED_UPDATES 100000

/*
 * Runs the readers and the updater for at least ms, then until both made
 * progress, or for a busted run, until it was caught or has had
 * BUSTED_UPDATES chances.  Fails as a hang after CHECK_HANG_MS.
 */
static unsigned long run(void *(*reader)(void *), void *(*updater)(void *), unsigned ms)
{
	pthread_t r[READERS], u;
	uint64_t hang;

	atomic_store(&stop, false);
	atomic_store(&violations, 0);
	atomic_store(&walks, 0);
	atomic_store(&updates, 0);
	for (uintptr_t i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)(i + 1));
	pthread_create(&u, NULL, updater, NULL);
	check_sleep_us(ms * 1000);
	hang = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u;
	while (busted ? !atomic_load(&violations) && atomic_load(&updates) < BUSTED_UPDATES
		      : atomic_load(&walks) < 1000 || atomic_load(&updates) < 1000) {
		CHECK(check_now_ns() < hang, "no progress after %u ms (a hang)", CHECK_HANG_MS);
		check_sleep_us(1000);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(u, NULL);
	fprintf(stderr, "%lu walks, %lu updates, %lu violations\n", atomic_load(&walks),
		atomic_load(&updates), atomic_load(&violations));
	return atomic_load(&violations);
}

static void clear_structures(void)
{
	struct entry *e, *n;
	struct hlist_node *hn;

	list_for_each_entry_safe(e, n, &list, link) {
		list_del(&e->link);
		free(e);
	}
	for (int b = 0; b < BUCKETS; b++) {
		hlist_for_each_entry_safe(e, hn, &table[b], hnode) {
			hlist_del(&e->hnode);
			free(e);
		}
	}
	empty_quarantine();
}

static void busted_list(void *unused)
{
	busted = true;
	check_child_exit(run(list_reader, list_updater, 1000) ? 1 : 0);
}

static void busted_hlist(void *unused)
{
	busted = true;
	check_child_exit(run(hlist_reader, hlist_updater, 1000) ? 1 : 0);
}

int main(void)
{
	test_plain_list();
	test_plain_hlist();
	CHECK(run(list_reader, list_updater, 1000) == 0, "list readers saw retired entries");
	CHECK(run(hlist_reader, hlist_updater, 1000) == 0, "hlist readers saw retired entries");
	clear_structures();
	/* No running callback thread at the children's fork (check.h, check_fork()). */
	quiesce_call_rcu_shutdown();
	check_child_detects_violation(busted_list, NULL);
	check_child_detects_violation(busted_hlist, NULL);
	printf("rculist: all checks passed\n");
	return 0;
}
