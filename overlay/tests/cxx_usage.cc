/*
 * cxx_usage.cc - the overlay's queue and stack heads as C++ programs use
 * them (LTTng-tools 2.15 is C++): liburcu's transparent unions are, in C++,
 * unions that convert from either pointer, may be declared uninitialized
 * and filled in member by member, and have const forms for the calls that
 * only look; liburcu's casts give those unions (the stacks' are overloaded
 * by form, in C++ only).  headers_strict.sh compiles this when a C++
 * compiler is there.
 */
#define _LGPL_SOURCE
#include <urcu.h>
#include <urcu/lfstack.h>
#include <urcu/wfcqueue.h>
#include <urcu/wfstack.h>

static struct cds_wfcq_head queue_head;
static struct __cds_wfcq_head bare_head;
static struct cds_wfcq_tail queue_tail, bare_tail;
static struct cds_wfcq_node node;
static struct cds_wfs_stack wstack;
static struct cds_wfs_node wnode;
static struct __cds_wfs_stack bare_wstack;
static struct __cds_lfs_stack bare_lstack;

static bool looks(const struct cds_wfcq_head *h, const struct cds_wfcq_tail *t,
		  const struct __cds_wfs_stack *ws, const struct __cds_lfs_stack *ls)
{
	return cds_wfcq_empty(h, t) && cds_wfs_empty(ws) && cds_lfs_empty(ls);
}

int cxx_usage(void);

int cxx_usage(void)
{
	cds_wfcq_head_ptr_t head;	/* LTTng-tools' relayd and sessiond */

	head.h = &queue_head;
	cds_wfcq_init(&queue_head, &queue_tail);
	__cds_wfcq_init(&bare_head, &bare_tail);
	cds_wfcq_node_init(&node);
	cds_wfcq_enqueue(head, &queue_tail, &node);
	__cds_wfcq_splice_blocking(&bare_head, &bare_tail, head, &queue_tail);
	cds_wfs_init(&wstack);
	__cds_wfs_init(&bare_wstack);
	__cds_lfs_init(&bare_lstack);
	cds_wfs_push(cds_wfs_stack_cast(&bare_wstack), &wnode);
	if (cds_wfs_empty(cds_wfs_stack_const_cast(&bare_wstack)) ||
	    __cds_wfs_pop_blocking(cds_wfs_stack_cast(&bare_wstack)) != &wnode ||
	    !cds_wfs_empty(cds_wfs_stack_const_cast(&wstack)) ||
	    !cds_lfs_empty(cds_lfs_stack_const_cast(&bare_lstack)) ||
	    __cds_lfs_pop(cds_lfs_stack_cast(&bare_lstack)) != NULL ||
	    cds_wfcq_empty(__cds_wfcq_head_const_cast(&bare_head), &bare_tail) ||
	    !cds_wfcq_empty(cds_wfcq_head_const_cast(&queue_head), &queue_tail))
		return 0;
	return looks(&queue_head, &queue_tail, &bare_wstack, &bare_lstack) &&
	       cds_wfcq_empty(head, &queue_tail) && cds_wfs_empty(&wstack) &&
	       __cds_wfcq_dequeue_blocking(__cds_wfcq_head_cast(&bare_head), &bare_tail) == &node &&
	       cds_wfcq_empty(cds_wfcq_head_cast(&queue_head), &queue_tail);
}
