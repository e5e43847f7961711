/*
 * urcu/rcuhlist.h (quiesce overlay) - liburcu's RCU forms of urcu/hlist.h,
 * with the rules and the ordering of urcu/rculist.h: updaters serialized
 * by the caller, readers inside rcu_read_lock(), removed nodes freed after
 * a grace period; publication is a release, removal a plain store.
 */
#ifndef QUIESCE_OVERLAY_URCU_RCUHLIST_H
#define QUIESCE_OVERLAY_URCU_RCUHLIST_H

#include <urcu/arch.h>
#include <urcu-pointer.h>

#include <urcu/hlist.h>

#ifndef QUIESCE_NO_SHORT_NAMES
#define QUIESCE_NO_SHORT_NAMES
#endif
#include <quiesce/rcu.h>

static inline void cds_hlist_add_head_rcu(struct cds_hlist_node *newp,
					  struct cds_hlist_head *head)
{
	newp->next = head->next;
	newp->prev = (struct cds_hlist_node *)head;
	if (head->next)
		head->next->prev = newp;
	quiesce_rcu_assign_pointer(head->next, newp);
}

static inline void cds_hlist_del_rcu(struct cds_hlist_node *elem)
{
	if (elem->next)
		elem->next->prev = elem->prev;
	QUIESCE_STORE(&elem->prev->next, elem->next);
}

#define cds_hlist_for_each_rcu(pos, head)						\
	for (pos = quiesce_rcu_dereference((head)->next); (pos) != NULL;		\
	     pos = quiesce_rcu_dereference((pos)->next))

/* As cds_hlist_for_each_entry(): entry is NULL, not below NULL, at the end. */
#define cds_hlist_for_each_entry_rcu(entry, pos, head, member)				\
	for (pos = quiesce_rcu_dereference((head)->next),				\
	     entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member);		\
	     (pos) != NULL;								\
	     pos = quiesce_rcu_dereference((pos)->next),				\
	     entry = cds_hlist_entry_safe(pos, __typeof__(*(entry)), member))

#define cds_hlist_for_each_entry_rcu_2(entry, head, member)				\
	for (entry = cds_hlist_entry_safe(quiesce_rcu_dereference((head)->next),	\
					  __typeof__(*(entry)), member);		\
	     (entry) != NULL;								\
	     entry = cds_hlist_entry_safe(quiesce_rcu_dereference((entry)->member.next), \
					  __typeof__(*(entry)), member))

#endif /* QUIESCE_OVERLAY_URCU_RCUHLIST_H */
