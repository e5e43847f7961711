/*
 * urcu/hlist.h (quiesce overlay) - liburcu's hash list: a head of one
 * pointer and nodes linked forward, each node's prev pointing to the node
 * (or the head, cast) before it.  Plain operations, serialized by the
 * caller; urcu/rcuhlist.h has the forms for lists read under RCU.  Defined
 * here with liburcu's names, for the reason urcu/list.h gives.
 */
#ifndef QUIESCE_OVERLAY_URCU_HLIST_H
#define QUIESCE_OVERLAY_URCU_HLIST_H

#include <stddef.h>

#include <urcu/compiler.h>

struct cds_hlist_node;

struct cds_hlist_head {
	struct cds_hlist_node *next;
};

/* A head's next lies where a node's does: prev may point to the head. */
struct cds_hlist_node {
	struct cds_hlist_node *next, *prev;
};

static inline void CDS_INIT_HLIST_HEAD(struct cds_hlist_head *ptr)
{
	ptr->next = NULL;
}

#define CDS_HLIST_HEAD(name) struct cds_hlist_head name = { NULL }
#define CDS_HLIST_HEAD_INIT(name) { .next = NULL }

#define cds_hlist_entry(ptr, type, member) caa_container_of(ptr, type, member)

/* NULL for a NULL node, the entry otherwise. */
#define cds_hlist_entry_safe(ptr, type, member)					\
	({									\
		__typeof__(ptr) cds_hlist_p_ = (ptr);				\
		cds_hlist_p_ ? cds_hlist_entry(cds_hlist_p_, type, member) : NULL; \
	})

static inline void cds_hlist_add_head(struct cds_hlist_node *newp, struct cds_hlist_head *head)
{
	if (head->next)
		head->next->prev = newp;
	newp->next = head->next;
	newp->prev = (struct cds_hlist_node *)head;
	head->next = newp;
}

/*
 * elem->prev may be the head, cast: the store goes through a plain pointer
 * to the link, whose type the head's next shares, rather than through a
 * struct cds_hlist_node, which the compiler may assume is not the head.
 */
static inline void cds_hlist_del(struct cds_hlist_node *elem)
{
	struct cds_hlist_node **link = &elem->prev->next;

	if (elem->next)
		elem->next->prev = elem->prev;
	*link = elem->next;
}

#define cds_hlist_for_each(pos, head) \
	for (pos = (head)->next; (pos) != NULL; pos = (pos)->next)

#define cds_hlist_for_each_safe(pos, p, head) \
	for (pos = (head)->next; (pos) != NULL && (p = (pos)->next, 1); pos = (p))

/*
 * The loop ends when pos is NULL (entry is then NULL too; liburcu leaves it
 * pointing below NULL, which sanitizers rightly reject).
 */
#define cds_hlist_for_each_entry(entry, pos, head, member)				\
	for (pos = (head)->next,							\
	     entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member);		\
	     (pos) != NULL;								\
	     pos = (pos)->next, entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member))

#define cds_hlist_for_each_entry_safe(entry, pos, p, head, member)			\
	for (pos = (head)->next,							\
	     entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member);		\
	     (pos) != NULL && (p = (pos)->next, 1);					\
	     pos = (p), entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member))

/* The _2 forms need no node cursor: entry is NULL at the end. */
#define cds_hlist_for_each_entry_2(entry, head, member)					\
	for (entry = cds_hlist_entry_safe((head)->next, __typeof__(*(entry)), member);	\
	     (entry) != NULL;								\
	     entry = cds_hlist_entry_safe((entry)->member.next, __typeof__(*(entry)), member))

#define cds_hlist_for_each_entry_safe_2(entry, e, head, member)			\
	for (entry = cds_hlist_entry_safe((head)->next, __typeof__(*(entry)), member);	\
	     (entry) != NULL &&								\
	     (e = cds_hlist_entry_safe((entry)->member.next, __typeof__(*(entry)), member), 1); \
	     entry = (e))

#endif /* QUIESCE_OVERLAY_URCU_HLIST_H */
