/*
 * fence_usage.c - every inline call of the public and overlay headers that
 * holds a standalone fence: liburcu's cmm_ barriers, the atomics' ordered
 * and fenced forms, the mb flavor's read side, urcu_ref_put(), and
 * quiesce's SRCU read side and reference put.  gcc warns at each fence
 * under ThreadSanitizer (-Wtsan: it does not model them), so a program
 * built with -fsanitize=thread -Werror would not build; the headers keep
 * that warning to themselves, as liburcu's do.  headers_strict.sh compiles
 * this file with -fsanitize=thread and -Werror, in both linking modes
 * (FENCE_OUT_OF_LINE: without _LGPL_SOURCE).
 */
#ifndef FENCE_OUT_OF_LINE
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-mb.h>
#include <urcu/ref.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#include <quiesce/ref.h>
#include <quiesce/srcu.h>

struct big {
	long words[4];
};

static long counter;
static struct big shared_big;
static struct urcu_ref ref;
static struct quiesce_ref qref;
static struct quiesce_srcu_struct domain;

void fences(void);
void atomics(void);
void readers(void);
void puts_of_refs(void);

static void released(struct urcu_ref *r)
{
	(void)r;
}

static void qreleased(struct quiesce_ref *r)
{
	(void)r;
}

void fences(void)
{
	cmm_smp_mb();
	cmm_smp_rmb();
	cmm_smp_wmb();
	cmm_mb();
	cmm_rmb();
	cmm_wmb();
}

void atomics(void)
{
	struct big copy = uatomic_load(&shared_big, CMM_ACQUIRE);

	uatomic_store(&shared_big, copy, CMM_RELEASE);
	uatomic_store(&counter, 1, CMM_SEQ_CST_FENCE);
	(void)uatomic_load(&counter, CMM_SEQ_CST_FENCE);
	(void)uatomic_xchg_mo(&counter, 2, CMM_SEQ_CST_FENCE);
	(void)uatomic_add_return_mo(&counter, 1, CMM_SEQ_CST_FENCE);
	cmm_smp_mb__before_uatomic_add();
	uatomic_add(&counter, 1);
	cmm_smp_mb__after_uatomic_add();
}

void readers(void)
{
	int idx;

	urcu_mb_read_lock();
	urcu_mb_read_unlock();
	idx = quiesce_srcu_read_lock(&domain);
	quiesce_srcu_read_unlock(&domain, idx);
}

void puts_of_refs(void)
{
	urcu_ref_put(&ref, released);
	(void)quiesce_ref_put(&qref, qreleased);
}
