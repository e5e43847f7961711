/*
 * urcu/rculist.h (quiesce overlay) - liburcu's RCU forms of urcu/list.h.
 *
 * Updaters serialize among themselves (a lock of their own) and use the
 * _rcu calls below while readers traverse with cds_list_for_each_rcu() or
 * cds_list_for_each_entry_rcu() inside rcu_read_lock(); a removed entry is
 * freed only after a grace period (synchronize_rcu() or call_rcu()).
 *
 * Ordering: every store that makes an entry reachable by readers is a
 * release (quiesce_rcu_assign_pointer()), pairing with the dependency
 * ordering of the readers' quiesce_rcu_dereference() of the same link, so
 * a reader that reaches an entry sees what the updater wrote into it
 * before.  A removal only redirects a link to an entry readers could
 * already reach, so a plain (atomic) store suffices.  The removed entry
 * keeps its next pointer, so a reader standing on it goes on forward.
 * These are the operations of quiesce/rculist.h under liburcu's names.
 */
#ifndef QUIESCE_OVERLAY_URCU_RCULIST_H
#define QUIESCE_OVERLAY_URCU_RCULIST_H

#include <urcu/arch.h>
#include <urcu-pointer.h>

#include <urcu/list.h>

#ifndef QUIESCE_NO_SHORT_NAMES
#define QUIESCE_NO_SHORT_NAMES
#endif
#include <quiesce/rcu.h>

static inline void cds_list_add_rcu(struct cds_list_head *newp, struct cds_list_head *head)
{
	newp->next = head->next;
	newp->prev = head;
	head->next->prev = newp;
	quiesce_rcu_assign_pointer(head->next, newp);
}

static inline void cds_list_add_tail_rcu(struct cds_list_head *newp, struct cds_list_head *head)
{
	newp->next = head;
	newp->prev = head->prev;
	quiesce_rcu_assign_pointer(head->prev->next, newp);
	head->prev = newp;
}

/* _new takes old's place for readers in one store; old keeps its next. */
static inline void cds_list_replace_rcu(struct cds_list_head *old, struct cds_list_head *_new)
{
	_new->next = old->next;
	_new->prev = old->prev;
	quiesce_rcu_assign_pointer(_new->prev->next, _new);
	_new->next->prev = _new;
}

static inline void cds_list_del_rcu(struct cds_list_head *elem)
{
	elem->next->prev = elem->prev;
	QUIESCE_STORE(&elem->prev->next, elem->next);
}

#define cds_list_for_each_rcu(pos, head)						\
	for (pos = quiesce_rcu_dereference((head)->next); (pos) != (head);		\
	     pos = quiesce_rcu_dereference((pos)->next))

#define cds_list_for_each_entry_rcu(pos, head, member)					\
	for (pos = cds_list_entry(quiesce_rcu_dereference((head)->next),		\
				  __typeof__(*(pos)), member);				\
	     &(pos)->member != (head);							\
	     pos = cds_list_entry(quiesce_rcu_dereference((pos)->member.next),		\
				  __typeof__(*(pos)), member))

#endif /* QUIESCE_OVERLAY_URCU_RCULIST_H */
