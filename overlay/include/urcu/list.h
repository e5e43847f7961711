/*
 * urcu/list.h (quiesce overlay) - liburcu's circular doubly linked list,
 * struct cds_list_head and the cds_list_* calls and iterators.
 *
 * These are plain list operations with no concurrency of their own: the
 * caller serializes every change to a list, and readers that traverse it
 * without that lock use urcu/rculist.h.  They are defined here with
 * liburcu's names and behaviour rather than mapped onto quiesce/rculist.h,
 * whose kernel names (list_head, list_add, ...) would collide with the
 * lists many liburcu programs define themselves.  Unlike quiesce's
 * list_del(), cds_list_del() leaves the removed entry's pointers as they
 * were (a reader standing on it under RCU still finds its way forward).
 */
#ifndef QUIESCE_OVERLAY_URCU_LIST_H
#define QUIESCE_OVERLAY_URCU_LIST_H

#include <urcu/compiler.h>

struct cds_list_head {
	struct cds_list_head *next, *prev;
};

#define CDS_LIST_HEAD_INIT(name) { .next = &(name), .prev = &(name) }
#define CDS_LIST_HEAD(name) struct cds_list_head name = CDS_LIST_HEAD_INIT(name)
#define CDS_INIT_LIST_HEAD(ptr) ((ptr)->next = (ptr)->prev = (ptr))

/* Links newp between two adjacent entries. */
static inline void __cds_list_link(struct cds_list_head *newp, struct cds_list_head *prev,
				   struct cds_list_head *next)
{
	next->prev = newp;
	newp->next = next;
	newp->prev = prev;
	prev->next = newp;
}

/* newp after head (a stack). */
static inline void cds_list_add(struct cds_list_head *newp, struct cds_list_head *head)
{
	__cds_list_link(newp, head, head->next);
}

/*
 * newp before head (a queue).  The stores go in liburcu's order, the old
 * last entry's link first, so that a program that adds its last entry
 * again finds what it found with liburcu: the list unchanged going forward
 * (that entry's prev then points to itself), where linking head->prev
 * first made the entry its own next.
 */
static inline void cds_list_add_tail(struct cds_list_head *newp, struct cds_list_head *head)
{
	head->prev->next = newp;
	newp->next = head;
	newp->prev = head->prev;
	head->prev = newp;
}

/* Joins prev and next, dropping whatever lay between them. */
static inline void __cds_list_del(struct cds_list_head *prev, struct cds_list_head *next)
{
	next->prev = prev;
	prev->next = next;
}

static inline void cds_list_del(struct cds_list_head *elem)
{
	__cds_list_del(elem->prev, elem->next);
}

static inline void cds_list_del_init(struct cds_list_head *elem)
{
	cds_list_del(elem);
	CDS_INIT_LIST_HEAD(elem);
}

/* Moves elem to just after head. */
static inline void cds_list_move(struct cds_list_head *elem, struct cds_list_head *head)
{
	__cds_list_del(elem->prev, elem->next);
	cds_list_add(elem, head);
}

/*
 * _new takes old's place; old's pointers are left as they were (old is
 * only read: const, as in liburcu 0.15).
 */
static inline void cds_list_replace(const struct cds_list_head *old, struct cds_list_head *_new)
{
	_new->next = old->next;
	_new->prev = old->prev;
	_new->prev->next = _new;
	_new->next->prev = _new;
}

/* Inserts the entries of list add (not its head) after head. */
static inline void cds_list_splice(struct cds_list_head *add, struct cds_list_head *head)
{
	if (add->next == add)
		return;
	add->next->prev = head;
	add->prev->next = head->next;
	head->next->prev = add->prev;
	head->next = add->next;
}

static inline int cds_list_empty(const struct cds_list_head *head)
{
	return head->next == head;
}

/* _new takes old's place, and old becomes an empty list. */
static inline void cds_list_replace_init(struct cds_list_head *old, struct cds_list_head *_new)
{
	struct cds_list_head *next = old->next;

	cds_list_del(old);
	cds_list_add_tail(_new, next);
	CDS_INIT_LIST_HEAD(old);
}

#define cds_list_entry(ptr, type, member) caa_container_of(ptr, type, member)
#define cds_list_first_entry(ptr, type, member) cds_list_entry((ptr)->next, type, member)

#define cds_list_for_each(pos, head) \
	for (pos = (head)->next; (pos) != (head); pos = (pos)->next)

#define cds_list_for_each_safe(pos, p, head) \
	for (pos = (head)->next, p = (pos)->next; (pos) != (head); pos = (p), p = (pos)->next)

#define cds_list_for_each_prev(pos, head) \
	for (pos = (head)->prev; (pos) != (head); pos = (pos)->prev)

#define cds_list_for_each_prev_safe(pos, p, head) \
	for (pos = (head)->prev, p = (pos)->prev; (pos) != (head); pos = (p), p = (pos)->prev)

#define cds_list_for_each_entry(pos, head, member)					\
	for (pos = cds_list_entry((head)->next, __typeof__(*(pos)), member);		\
	     &(pos)->member != (head);							\
	     pos = cds_list_entry((pos)->member.next, __typeof__(*(pos)), member))

#define cds_list_for_each_entry_reverse(pos, head, member)				\
	for (pos = cds_list_entry((head)->prev, __typeof__(*(pos)), member);		\
	     &(pos)->member != (head);							\
	     pos = cds_list_entry((pos)->member.prev, __typeof__(*(pos)), member))

/* The body may remove pos: the next entry is read before it runs. */
#define cds_list_for_each_entry_safe(pos, p, head, member)				\
	for (pos = cds_list_entry((head)->next, __typeof__(*(pos)), member),		\
	     p = cds_list_entry((pos)->member.next, __typeof__(*(pos)), member);	\
	     &(pos)->member != (head);							\
	     pos = (p), p = cds_list_entry((pos)->member.next, __typeof__(*(pos)), member))

/* The same, starting at pos itself rather than at the first entry. */
#define cds_list_for_each_entry_safe_from(pos, p, head, member)			\
	for (p = cds_list_entry((pos)->member.next, __typeof__(*(pos)), member);	\
	     &(pos)->member != (head);							\
	     pos = (p), p = cds_list_entry((pos)->member.next, __typeof__(*(pos)), member))

#endif /* QUIESCE_OVERLAY_URCU_LIST_H */
