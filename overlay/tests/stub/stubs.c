/*
 * stubs.c - the RCU functions program.c calls, as a single-threaded tool
 * may define them for itself (Knot DNS's kdig does): the read side and
 * grace periods do nothing, the pointer operations are plain, a callback
 * runs at once.  Like Knot's stub file, it includes <urcu.h> and names the
 * flavor's functions by whether liburcu's pre-0.11 compatibility names are
 * defined: if they are, the functions have their urcu_memb_* names; if not
 * (a liburcu before 0.11), they have the old ones, and program.c's calls
 * to the urcu_memb_* names do not link.
 */
#include <pthread.h>
#include <stddef.h>

#include <urcu.h>

#if defined(rcu_read_lock_memb)
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
#else
void rcu_read_lock_memb(void) {}
void rcu_read_unlock_memb(void) {}
void rcu_register_thread_memb(void) {}
void rcu_unregister_thread_memb(void) {}
void synchronize_rcu_memb(void) {}
void rcu_barrier_memb(void) {}

void call_rcu_memb(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	func(head);
}
#endif

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
