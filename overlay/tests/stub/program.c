/*
 * program.c - a tool built as Knot DNS builds kdig: written against
 * liburcu's API without _LGPL_SOURCE, linked with stubs.c (empty versions
 * of the RCU functions it calls) and no RCU library.  The link succeeds
 * only if every call the overlay's headers make without _LGPL_SOURCE is to
 * one of liburcu's out-of-line names, never to quiesce's TLS or
 * grace-period symbols.
 */
#include <stdio.h>
#include <stdlib.h>

#include <urcu.h>

struct zone {
	int serial;
	struct rcu_head head;
};

static struct zone *zone;

static void free_zone(struct rcu_head *head)
{
	free(caa_container_of(head, struct zone, head));
}

int main(void)
{
	struct zone *z = calloc(1, sizeof(*z)), *old, *seen;
	int serial;

	rcu_register_thread();
	z->serial = 7;
	rcu_assign_pointer(zone, z);
	rcu_read_lock();
	serial = rcu_dereference(zone)->serial;
	rcu_read_unlock();
	old = rcu_xchg_pointer(&zone, calloc(1, sizeof(*z)));
	seen = rcu_cmpxchg_pointer(&zone, NULL, NULL);
	synchronize_rcu();
	call_rcu(&old->head, free_zone);
	rcu_barrier();
	rcu_unregister_thread();
	printf("serial %d, %s\n", serial, seen ? "swapped" : "empty");
	return serial == 7 && seen ? 0 : 1;
}
