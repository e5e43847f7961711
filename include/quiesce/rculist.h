/*
 * quiesce/rculist.h - the kernel's doubly linked list and hash list (hlist),
 * with their RCU operations.
 *
 * Readers traverse with list_for_each_entry_rcu() or
 * hlist_for_each_entry_rcu() inside rcu_read_lock()/rcu_read_unlock(),
 * taking no lock.  Updaters serialize among themselves with a lock of their
 * own, use the _rcu forms to insert and remove while readers may be
 * traversing, and free a removed entry only after a grace period
 * (synchronize_rcu(), call_rcu() or free_rcu()).
 *
 * What a reader may see
 * - An entry is visible to readers once list_add_rcu() (or its kin) has
 *   published it; its contents, written before, are visible with it.
 * - A reader standing on an entry that list_del_rcu() removes still finds
 *   its way forward: the removed entry keeps its next pointer until the
 *   updater reuses it after a grace period.  It may not walk backwards.
 * - The plain operations (list_add(), list_del(), ...) are for lists that
 *   no reader traverses concurrently, or for an entry that readers can no
 *   longer reach.  list_del() and hlist_del() poison the removed entry's
 *   pointers, so that a reader that should not be there faults.
 *
 * These are the kernel's names, all static inline; a program that has its
 * own list_head must not include this header alongside it.
 */
#ifndef QUIESCE_RCULIST_H
#define QUIESCE_RCULIST_H

#include <stdbool.h>
#include <stddef.h>

#include <quiesce/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values a removed entry's pointers take: dereferencing them faults. */
#define QUIESCE_LIST_POISON_NEXT ((void *)0x100)
#define QUIESCE_LIST_POISON_PREV ((void *)0x122)

/* Doubly linked circular list. */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	/* Relaxed atomic: a reader may be loading next concurrently. */
	QUIESCE_STORE(&list->next, list);
	list->prev = list;
}

static inline bool list_empty(const struct list_head *head)
{
	return QUIESCE_LOAD(&head->next) == head;
}

/* Links new between two known consecutive entries. */
static inline void quiesce_list_link(struct list_head *new_entry, struct list_head *prev,
				     struct list_head *next)
{
	next->prev = new_entry;
	new_entry->next = next;
	new_entry->prev = prev;
	QUIESCE_STORE(&prev->next, new_entry);
}

static inline void list_add(struct list_head *new_entry, struct list_head *head)
{
	quiesce_list_link(new_entry, head, head->next);
}

static inline void list_add_tail(struct list_head *new_entry, struct list_head *head)
{
	quiesce_list_link(new_entry, head->prev, head);
}

/* Joins prev and next, dropping whatever was between them. */
static inline void quiesce_list_unlink(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	/* Relaxed atomic: readers of an RCU list load next concurrently. */
	QUIESCE_STORE(&prev->next, next);
}

static inline void list_del(struct list_head *entry)
{
	quiesce_list_unlink(entry->prev, entry->next);
	QUIESCE_STORE(&entry->next, (struct list_head *)QUIESCE_LIST_POISON_NEXT);
	entry->prev = (struct list_head *)QUIESCE_LIST_POISON_PREV;
}

static inline void list_del_init(struct list_head *entry)
{
	quiesce_list_unlink(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
}

static inline void list_replace(struct list_head *old, struct list_head *new_entry)
{
	new_entry->next = old->next;
	new_entry->next->prev = new_entry;
	new_entry->prev = old->prev;
	QUIESCE_STORE(&new_entry->prev->next, new_entry);
}

#define list_entry(ptr, type, member) quiesce_container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#define list_for_each_entry(pos, head, member)                         \
	for ((pos) = list_first_entry(head, __typeof__(*(pos)), member); \
	     &(pos)->member != (head); (pos) = list_next_entry(pos, member))

/* Tolerates the removal of pos by the loop body. */
#define list_for_each_entry_safe(pos, n, head, member)                     \
	for ((pos) = list_first_entry(head, __typeof__(*(pos)), member),    \
	    (n) = list_next_entry(pos, member);                              \
	     &(pos)->member != (head); (pos) = (n), (n) = list_next_entry(n, member))

/* RCU list operations: updaters hold their own lock. */

static inline void quiesce_list_link_rcu(struct list_head *new_entry, struct list_head *prev,
					 struct list_head *next)
{
	new_entry->next = next;
	new_entry->prev = prev;
	/*
	 * Release: a reader that loads the new entry from prev->next (with
	 * rcu_dereference(), a dependency or acquire load) sees it whole.
	 */
	quiesce_rcu_assign_pointer(prev->next, new_entry);
	next->prev = new_entry;
}

static inline void list_add_rcu(struct list_head *new_entry, struct list_head *head)
{
	quiesce_list_link_rcu(new_entry, head, head->next);
}

static inline void list_add_tail_rcu(struct list_head *new_entry, struct list_head *head)
{
	quiesce_list_link_rcu(new_entry, head->prev, head);
}

/*
 * Removes entry; readers on it still move forward through its next pointer,
 * which stays intact until a grace period has passed.
 */
static inline void list_del_rcu(struct list_head *entry)
{
	quiesce_list_unlink(entry->prev, entry->next);
	entry->prev = (struct list_head *)QUIESCE_LIST_POISON_PREV;
}

/* Puts new_entry in old's place; a reader sees one or the other. */
static inline void list_replace_rcu(struct list_head *old, struct list_head *new_entry)
{
	new_entry->next = old->next;
	new_entry->prev = old->prev;
	/* Release: new_entry is whole before a reader can reach it. */
	quiesce_rcu_assign_pointer(new_entry->prev->next, new_entry);
	new_entry->next->prev = new_entry;
	old->prev = (struct list_head *)QUIESCE_LIST_POISON_PREV;
}

#define list_entry_rcu(ptr, type, member) \
	quiesce_container_of(quiesce_rcu_dereference(ptr), type, member)

/* Inside a read-side critical section, or with the updaters' lock held. */
#define list_for_each_entry_rcu(pos, head, member)                                  \
	for ((pos) = list_entry_rcu((head)->next, __typeof__(*(pos)), member);    \
	     &(pos)->member != (head);                                               \
	     (pos) = list_entry_rcu((pos)->member.next, __typeof__(*(pos)), member))

/* Hash list: a one-pointer head, for tables of buckets. */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define HLIST_HEAD_INIT { .first = NULL }
#define HLIST_HEAD(name) struct hlist_head name = { .first = NULL }

static inline void INIT_HLIST_HEAD(struct hlist_head *head)
{
	QUIESCE_STORE(&head->first, NULL);
}

static inline void INIT_HLIST_NODE(struct hlist_node *node)
{
	node->next = NULL;
	node->pprev = NULL;
}

/* Whether node is on no list (never added, or removed with a _init form). */
static inline bool hlist_unhashed(const struct hlist_node *node)
{
	return !node->pprev;
}

static inline bool hlist_empty(const struct hlist_head *head)
{
	return !QUIESCE_LOAD(&head->first);
}

static inline void hlist_add_head(struct hlist_node *node, struct hlist_head *head)
{
	struct hlist_node *first = head->first;

	node->next = first;
	if (first)
		first->pprev = &node->next;
	QUIESCE_STORE(&head->first, node);
	node->pprev = &head->first;
}

static inline void quiesce_hlist_unlink(struct hlist_node *node)
{
	struct hlist_node *next = node->next;
	struct hlist_node **pprev = node->pprev;

	/* Relaxed atomic: readers load this pointer concurrently. */
	QUIESCE_STORE(pprev, next);
	if (next)
		next->pprev = pprev;
}

static inline void hlist_del(struct hlist_node *node)
{
	quiesce_hlist_unlink(node);
	QUIESCE_STORE(&node->next, (struct hlist_node *)QUIESCE_LIST_POISON_NEXT);
	node->pprev = (struct hlist_node **)QUIESCE_LIST_POISON_PREV;
}

static inline void hlist_del_init(struct hlist_node *node)
{
	if (hlist_unhashed(node))
		return;
	quiesce_hlist_unlink(node);
	INIT_HLIST_NODE(node);
}

#define hlist_entry(ptr, type, member) quiesce_container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member)                                  \
	({                                                                   \
		__typeof__(ptr) quiesce_hlist_ptr_ = (ptr);                  \
		quiesce_hlist_ptr_ ? hlist_entry(quiesce_hlist_ptr_, type, member) : NULL; \
	})

#define hlist_for_each_entry(pos, head, member)                                  \
	for ((pos) = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     (pos); (pos) = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))

/* Tolerates the removal of pos by the loop body; n is a struct hlist_node *. */
#define hlist_for_each_entry_safe(pos, n, head, member)                          \
	for ((pos) = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     (pos) && ((n) = (pos)->member.next, 1);                              \
	     (pos) = hlist_entry_safe(n, __typeof__(*(pos)), member))

/* RCU hash-list operations: updaters hold their own lock. */

static inline void hlist_add_head_rcu(struct hlist_node *node, struct hlist_head *head)
{
	struct hlist_node *first = head->first;

	node->next = first;
	node->pprev = &head->first;
	/* Release: node is whole before a reader can reach it. */
	quiesce_rcu_assign_pointer(head->first, node);
	if (first)
		first->pprev = &node->next;
}

/* Removes node; readers on it still move forward, as with list_del_rcu(). */
static inline void hlist_del_rcu(struct hlist_node *node)
{
	quiesce_hlist_unlink(node);
	node->pprev = (struct hlist_node **)QUIESCE_LIST_POISON_PREV;
}

/*
 * As hlist_del_rcu(), but leaves node unhashed (hlist_unhashed() is then
 * true) instead of poisoned; its next pointer stays for readers on it.
 */
static inline void hlist_del_init_rcu(struct hlist_node *node)
{
	if (hlist_unhashed(node))
		return;
	quiesce_hlist_unlink(node);
	node->pprev = NULL;
}

/* Inside a read-side critical section, or with the updaters' lock held. */
#define hlist_for_each_entry_rcu(pos, head, member)                                \
	for ((pos) = hlist_entry_safe(quiesce_rcu_dereference((head)->first),      \
				      __typeof__(*(pos)), member);                 \
	     (pos);                                                                 \
	     (pos) = hlist_entry_safe(quiesce_rcu_dereference((pos)->member.next), \
				      __typeof__(*(pos)), member))

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_RCULIST_H */
