/*
 * stubs.c - the RCU functions program.c calls, as a single-threaded tool
 * may define them for itself (Knot DNS's kdig does): the read side and
 * grace periods do nothing, the pointer operations are plain, a callback
 * runs at once.  These are liburcu's out-of-line names for the memb
 * flavor, which is all program.c may need.
 */
#include <pthread.h>
#include <stddef.h>

struct rcu_head;

void urcu_memb_read_lock(void) {}
void urcu_memb_read_unlock(void) {}
void urcu_memb_register_thread(void) {}
void urcu_memb_unregister_thread(void) {}
void urcu_memb_synchronize_rcu(void) {}
void urcu_memb_barrier(void) {}

void urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	func(head);
}

void *rcu_dereference_sym(void *p)
{
	return p;
}

void *rcu_set_pointer_sym(void **p, void *v)
{
	*p = v;
	return v;
}

void *rcu_xchg_pointer_sym(void **p, void *v)
{
	void *old = *p;

	*p = v;
	return old;
}

void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *_new)
{
	void *seen = *p;

	if (seen == old)
		*p = _new;
	return seen;
}
