/*
 * urcu/ref.h (quiesce overlay) - liburcu's urcu_ref on quiesce/ref.h.
 *
 * struct urcu_ref is struct quiesce_ref (same single field, refcount), so a
 * release callback written for liburcu, void release(struct urcu_ref *), is
 * the callback quiesce_ref_put() takes, and container_of() on it works as
 * before.  Each call is the quiesce call of the same name; the ordering
 * guarantees and the rules are quiesce/ref.h's.
 *
 * Differences from liburcu (docs/LIBURCU.md lists them all):
 * - urcu_ref_get() on a count of zero aborts with a message (liburcu takes
 *   it from 0 to 1, resurrecting an object that may be released); use
 *   urcu_ref_get_unless_zero() for lookups, as liburcu also advises.
 * - The maximum is QUIESCE_REF_MAX (LONG_MAX / 2) rather than LONG_MAX:
 *   urcu_ref_get_safe() returns false there, as liburcu's does at
 *   LONG_MAX; urcu_ref_get() and urcu_ref_get_unless_zero() abort with a
 *   message (liburcu: abort() without one, and false, respectively).
 * - A put below zero aborts with a message in every build (liburcu
 *   asserts, so only without NDEBUG).
 */
#ifndef QUIESCE_OVERLAY_URCU_REF_H
#define QUIESCE_OVERLAY_URCU_REF_H

#include <urcu/arch.h>
#include <urcu/assert.h>
#include <urcu/compiler.h>
#include <urcu/uatomic.h>

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include <quiesce/ref.h>

#define urcu_ref quiesce_ref

static inline void urcu_ref_set(struct urcu_ref *ref, long val)
{
	quiesce_ref_set(ref, val);
}

static inline void urcu_ref_init(struct urcu_ref *ref)
{
	quiesce_ref_init(ref);
}

static inline bool __attribute__((__warn_unused_result__)) urcu_ref_get_safe(struct urcu_ref *ref)
{
	return quiesce_ref_get_safe(ref);
}

static inline void urcu_ref_get(struct urcu_ref *ref)
{
	quiesce_ref_get(ref);
}

static inline void urcu_ref_put(struct urcu_ref *ref, void (*release)(struct urcu_ref *))
{
	quiesce_ref_put(ref, release);
}

static inline bool urcu_ref_get_unless_zero(struct urcu_ref *ref)
{
	return quiesce_ref_get_unless_zero(ref);
}

#endif /* QUIESCE_OVERLAY_URCU_REF_H */
