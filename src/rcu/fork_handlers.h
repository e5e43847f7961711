/*
 * fork_handlers.h - registering the library's fork handlers in the order
 * of init_order.h.  Each part's constructor registers its own at its
 * place; a part that registers its handlers on first use (defer.c,
 * rcu_sync.c), whose handlers must come after all of those, calls
 * quiesce_fork_handlers_in_order() first: a program's constructor may
 * use it before the library's constructors have run.  Each registers
 * once, whoever comes first.
 */
#ifndef QUIESCE_FORK_HANDLERS_H
#define QUIESCE_FORK_HANDLERS_H

void quiesce_gp_fork_handlers(void);
void quiesce_call_rcu_fork_handlers(void);
void quiesce_cb_workers_fork_handlers(void);
void quiesce_qsbr_registry_fork_handlers(void);
void quiesce_registry_fork_handlers(void);
void quiesce_srcu_fork_handlers(void);

/* Every one above, in init_order.h's order. */
static inline void quiesce_fork_handlers_in_order(void)
{
	quiesce_gp_fork_handlers();
	quiesce_call_rcu_fork_handlers();
	quiesce_cb_workers_fork_handlers();
	quiesce_qsbr_registry_fork_handlers();
	quiesce_registry_fork_handlers();
	quiesce_srcu_fork_handlers();
}

#endif
