/*
 * qualified_usage.c - liburcu's atomics and pointer calls as liburcu's own
 * test suite uses them (0.14 and 0.15, C and C++), which the overlay's
 * headers did not build cleanly before:
 * - on objects declared volatile (rcutorture's goflag): the temporaries
 *   had the object's volatile type, and GCC's __atomic builtins refuse a
 *   pointer to volatile for them (a warning in C, an error in C++);
 * - CDS_WFS_END, a void pointer, which C++ does not convert;
 * - rcu_dereference() of a const pointer out of line: a C++ cast to a
 *   const pointer type warned;
 * - a compare-exchange whose expected value (-1UL) does not fit the object
 *   (test_uatomic), and an rcu_dereference() whose value is dropped
 *   (test_build), warned;
 * - cds_lfht_iter_get_node() of a const iterator, as 0.15 declares it,
 *   warned in C and failed in C++.
 * headers_strict.sh compiles this file as C and as C++ (11 and 17), with
 * -Werror, in both linking modes (QUALIFIED_OUT_OF_LINE: without
 * _LGPL_SOURCE).
 */
#ifndef QUALIFIED_OUT_OF_LINE
#define _LGPL_SOURCE
#endif
#include <urcu.h>
#include <urcu/rculfhash.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>
#include <urcu/wfstack.h>

struct item {
	int value;
};

static volatile int flag;
static volatile unsigned char small;
static volatile long counter;
static volatile unsigned int mask;
static struct item *volatile slot;
static struct item first, second;
static struct item *const fixed = &first;

static struct cds_lfht_node *node_at(const struct cds_lfht_iter *iter)
{
	return cds_lfht_iter_get_node(iter);
}

#ifdef __cplusplus
extern "C" {
#endif
int qualified_usage(void);
#ifdef __cplusplus
}
#endif

int qualified_usage(void)
{
	struct cds_wfs_head *end = CDS_WFS_END;
	struct cds_wfs_node *wouldblock = CDS_WFS_WOULDBLOCK;
	static struct cds_lfht_iter iter;
	int sum = 0;

	uatomic_set(&flag, 1);
	uatomic_store(&flag, 2, CMM_RELEASE);
	uatomic_set(&small, 3);
	sum += uatomic_read(&flag) + uatomic_load(&small, CMM_ACQUIRE);
	sum += uatomic_cmpxchg(&flag, 2, 4) + uatomic_xchg(&flag, 5);
	sum += uatomic_cmpxchg_mo(&flag, 5, 6, CMM_SEQ_CST, CMM_RELAXED);
	sum += (int)uatomic_add_return(&counter, 1) + (int)uatomic_sub_return(&counter, 1);
	sum += uatomic_cmpxchg(&mask, -1UL, 0U) == 0U;	/* liburcu's test_uatomic does this */
	uatomic_inc(&small);
	uatomic_dec(&small);
	uatomic_or(&flag, 8);
	uatomic_and(&flag, 15);
	CMM_STORE_SHARED(flag, 7);
	sum += CMM_LOAD_SHARED(flag);

	uatomic_set(&slot, &first);
	sum += uatomic_xchg(&slot, &second) == &first;
	sum += uatomic_cmpxchg(&slot, &second, NULL) == &second;
#ifndef QUALIFIED_OUT_OF_LINE
	/*
	 * Out of line, the slot is passed as a void ** (in C++ with
	 * reinterpret_cast, which does not cast away volatile, in liburcu's
	 * headers as in the overlay's): inline only.
	 */
	rcu_assign_pointer(slot, &first);
	rcu_set_pointer(&slot, &second);
	sum += rcu_xchg_pointer(&slot, &first) == &second;
	sum += rcu_cmpxchg_pointer(&slot, &first, &second) == &first;
#endif
	rcu_dereference(slot);	/* liburcu 0.14's test_build drops the value */
	sum += rcu_dereference(slot) == &second;
	sum += rcu_dereference(fixed) == &first;
	return sum + (end != NULL) + (wouldblock != NULL) + (node_at(&iter) == NULL);
}
