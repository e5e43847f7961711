/*
 * What <urcu.h> brings with it in liburcu, and what programs use without
 * including it themselves: BIND 9's <isc/urcu.h> includes <urcu.h> and
 * uses the wfcq queue; others use the lists, uatomic, the compiler and
 * TLS macros.  The test is that this file compiles, with _LGPL_SOURCE (the
 * read side inline), and runs.
 */
#define _LGPL_SOURCE
#include <urcu.h>

#include "check.h"

struct item {
	struct cds_wfcq_node qnode;
	struct cds_list_head lnode;
	int value;
};

static DEFINE_URCU_TLS(int, calls);

int main(void)
{
	struct cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	struct item a = { .value = 1 }, *got;
	struct cds_wfcq_node *n;
	CDS_LIST_HEAD(list);
	int counter = 0;

	cds_wfcq_init(&head, &tail);
	cds_wfcq_node_init(&a.qnode);
	cds_wfcq_enqueue(&head, &tail, &a.qnode);
	n = cds_wfcq_dequeue_blocking(&head, &tail);
	got = caa_container_of(n, struct item, qnode);
	CHECK(got == &a && cds_wfcq_empty(&head, &tail), "the queue through <urcu.h>");
	cds_wfcq_destroy(&head, &tail);

	cds_list_add(&a.lnode, &list);
	CHECK(!cds_list_empty(&list), "the lists through <urcu.h>");
	uatomic_inc(&counter);
	URCU_TLS(calls)++;
	CHECK(uatomic_read(&counter) == 1 && URCU_TLS(calls) == 1 && caa_likely(1),
	      "uatomic, TLS and compiler macros through <urcu.h>");
	rcu_read_lock();
	rcu_read_unlock();
	printf("<urcu.h> brings what liburcu's does\n");
	return 0;
}
