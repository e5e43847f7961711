/*
 * program.c - the parts of liburcu that are header-only, used as a library
 * that links no RCU library uses them: LTTng-tools' liblttng-ctl keeps
 * urcu_ref counts and includes <urcu/rculfhash.h> for its types, and links
 * libc alone.  With _LGPL_SOURCE liburcu's lists, reference counts,
 * atomics and the wait-free and lock-free queues and stacks are inline,
 * and including a flavor's or the hash table's header costs nothing until
 * one of their functions is called.  The overlay must keep that: this
 * program is linked with no quiesce library (the build is the first half
 * of the test) and then runs each structure once, single-threaded, and
 * checks that the queues' link wait takes its timeout from the environment.
 */
#define _LGPL_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include <urcu.h>
#include <urcu/cds.h>
#include <urcu/rculfhash.h>
#include <urcu/ref.h>
#include <urcu/wfqueue.h>

struct object {
	struct urcu_ref ref;
	struct cds_list_head list;
	struct cds_hlist_node hlist;
	struct cds_wfcq_node wfcq;
	struct cds_wfs_node wfs;
	struct cds_lfs_node lfs;
	struct cds_wfq_node wfq;
	struct cds_lfht_node table;	/* the type only, as liblttng-ctl */
	int value;
};

static int released;

static void release(struct urcu_ref *ref)
{
	struct object *o = caa_container_of(ref, struct object, ref);

	released += o->value;
}

/* The calls that only look take const queues and stacks, as in liburcu 0.15. */
static bool looks_empty(const struct cds_wfcq_head *head, const struct cds_wfcq_tail *tail,
			const struct cds_wfs_stack *wfs, const struct cds_lfs_stack *lfs)
{
	return cds_wfcq_empty(head, tail) && cds_wfs_empty(wfs) && cds_lfs_empty(lfs);
}

static int fail(const char *what)
{
	fprintf(stderr, "header_only: %s\n", what);
	return 1;
}

int main(void)
{
	struct object a = { .value = 1 }, b = { .value = 2 }, *o;
	CDS_LIST_HEAD(list);
	CDS_HLIST_HEAD(hlist);
	struct cds_wfcq_head wfcq_head;
	struct cds_wfcq_tail wfcq_tail;
	struct cds_wfs_stack wfs;
	struct cds_lfs_stack lfs;
	struct cds_wfq_queue wfq;
	struct cds_wfcq_node *qn;
	struct cds_wfs_node *sn;
	struct cds_lfs_node *ln;
	struct cds_wfq_node *wn;
	long counter = 0;
	int sum = 0;

	urcu_ref_init(&a.ref);
	urcu_ref_init(&b.ref);
	if (!urcu_ref_get_unless_zero(&a.ref))
		return fail("urcu_ref_get_unless_zero");
	urcu_ref_put(&a.ref, release);
	urcu_ref_put(&a.ref, release);
	urcu_ref_put(&b.ref, release);
	if (released != 3)
		return fail("urcu_ref_put released the wrong objects");

	cds_list_add_tail(&a.list, &list);
	cds_list_add_tail_rcu(&b.list, &list);
	cds_list_for_each_entry(o, &list, list)
		sum += o->value;
	cds_list_for_each_entry_rcu(o, &list, list)
		sum += o->value;
	cds_hlist_add_head_rcu(&a.hlist, &hlist);
	cds_hlist_for_each_entry_rcu_2(o, &hlist, hlist)
		sum += o->value;
	if (sum != 7)
		return fail("lists");

	cds_wfcq_init(&wfcq_head, &wfcq_tail);
	cds_wfcq_node_init(&a.wfcq);
	cds_wfcq_node_init(&b.wfcq);
	cds_wfcq_enqueue(&wfcq_head, &wfcq_tail, &a.wfcq);
	cds_wfcq_enqueue(&wfcq_head, &wfcq_tail, &b.wfcq);
	qn = cds_wfcq_dequeue_blocking(&wfcq_head, &wfcq_tail);
	if (qn != &a.wfcq || __cds_wfcq_dequeue_blocking(&wfcq_head, &wfcq_tail) != &b.wfcq ||
	    !cds_wfcq_empty(&wfcq_head, &wfcq_tail))
		return fail("wfcqueue");
	cds_wfs_init(&wfs);
	cds_lfs_init(&lfs);
	if (!looks_empty(&wfcq_head, &wfcq_tail, &wfs, &lfs))
		return fail("empty() through const pointers");
	cds_wfs_destroy(&wfs);
	cds_lfs_destroy(&lfs);
	cds_wfcq_destroy(&wfcq_head, &wfcq_tail);

	cds_wfs_init(&wfs);
	cds_wfs_node_init(&a.wfs);
	cds_wfs_push(&wfs, &a.wfs);
	sn = cds_wfs_pop_blocking(&wfs);
	if (sn != &a.wfs || !cds_wfs_empty(&wfs))
		return fail("wfstack");
	cds_wfs_destroy(&wfs);

	cds_lfs_init(&lfs);
	cds_lfs_node_init(&b.lfs);
	cds_lfs_push(&lfs, &b.lfs);
	ln = __cds_lfs_pop(&lfs);
	if (ln != &b.lfs || !cds_lfs_empty(&lfs))
		return fail("lfstack");
	cds_lfs_destroy(&lfs);

	cds_wfq_init(&wfq);
	cds_wfq_node_init(&a.wfq);
	cds_wfq_enqueue(&wfq, &a.wfq);
	wn = cds_wfq_dequeue_blocking(&wfq);
	if (wn != &a.wfq)
		return fail("wfqueue");
	cds_wfq_destroy(&wfq);

	uatomic_inc(&counter);
	if (uatomic_add_return(&counter, 2) != 3 || uatomic_cmpxchg(&counter, 3, 5) != 3 ||
	    CMM_LOAD_SHARED(counter) != 5)
		return fail("uatomic");
	cds_lfht_node_init(&a.table);
	/*
	 * A queue or stack consumer that waits that long for a link warns: with
	 * no library linked (its getter's weak reference is null), the
	 * timeout is the environment's.
	 */
	setenv("QUIESCE_STALL_TIMEOUT_MS", "1234", 1);
	if (quiesce_link_wait_timeout_ms() != 1234)
		return fail("the link wait's timeout from QUIESCE_STALL_TIMEOUT_MS");
	unsetenv("QUIESCE_STALL_TIMEOUT_MS");
	if (quiesce_link_wait_timeout_ms() != QUIESCE_LINK_WAIT_WARN_MS_DEFAULT)
		return fail("the link wait's default timeout");
	puts("header_only: the header-only parts ran with no quiesce library");
	return 0;
}
