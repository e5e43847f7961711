/*
 * quiesce/ref.h - a reference count that refuses misuse.
 *
 *   quiesce_ref_init(&obj->ref);                 the creator's reference
 *   quiesce_ref_get(&obj->ref);                  one more, from a holder
 *   if (!quiesce_ref_get_safe(&obj->ref)) ...    the same, refusing at the maximum
 *   rcu_read_lock(); obj = lookup(key);          a lookup that may race
 *   if (obj && !quiesce_ref_get_unless_zero(&obj->ref)) obj = NULL;
 *   rcu_read_unlock();                           with the last put
 *   quiesce_ref_put(&obj->ref, release);         release() on the last one
 *
 * Rules for callers
 * - quiesce_ref_get() needs a reference already held by the caller (or one
 *   it knows is held): it aborts, with a message, when the count was zero,
 *   since the object may already be released.
 * - quiesce_ref_get_unless_zero() is the lookup's form: under RCU the
 *   object's memory stays valid even if its last reference is gone, and
 *   this call tells the two cases apart.  The object must be freed through
 *   RCU (call_rcu(), or synchronize_rcu() in release()) for that to hold.
 * - quiesce_ref_put() calls release(ref) in the thread that dropped the
 *   last reference; release() typically unpublishes and frees the object.
 *   A put on a count already zero aborts with a message.
 * - The count aborts with a message before it could overflow
 *   (QUIESCE_REF_MAX), so a leak of gets never wraps it into a free;
 *   quiesce_ref_get_safe() returns false there instead.
 * - Every call but quiesce_ref_set() may run concurrently with every
 *   other; set() is for a count nobody else uses yet (or any more).
 *
 * Ordering guarantees
 * - Everything a holder did to the object before its put happens before
 *   release() runs (release on each decrement, acquire before release()).
 * - A successful quiesce_ref_get_unless_zero() is an acquire: it sees the
 *   writes made before the put or quiesce_ref_set() whose count it read.
 * - quiesce_ref_get() is unordered: the caller's own reference already
 *   orders its access to the object.
 *
 * For a thin mapping of liburcu's urcu_ref: urcu_ref_X is quiesce_ref_X,
 * with the same arguments and return conventions.  Like liburcu's, it is
 * header-only, its messages included: a library that keeps counts and
 * links no RCU library (LTTng-tools' liblttng-ctl) builds unchanged.
 */
#ifndef QUIESCE_REF_H
#define QUIESCE_REF_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

struct quiesce_ref {
	long refcount;
};

/*
 * The most references a count may hold.  Far below LONG_MAX, so that gets
 * racing past the check cannot wrap the count before one of them aborts.
 */
#define QUIESCE_REF_MAX (LONG_MAX / 2)

/* What went wrong, for the message. */
enum quiesce_ref_misuse {
	QUIESCE_REF_GET_ON_ZERO,
	QUIESCE_REF_OVERFLOW,
	QUIESCE_REF_PUT_BELOW_ZERO,
	QUIESCE_REF_SET_NEGATIVE,
};

/*
 * Prints what was misused, on which count, and aborts.  A count that goes
 * wrong is a use after free waiting to happen, so every misuse stops the
 * program here, naming the count and what it held.  Out of the callers'
 * line (QUIESCE_HEADER_COLD); a program that misuses nothing never calls it.
 */
QUIESCE_HEADER_COLD QUIESCE_NORETURN void
quiesce_ref_misused(const struct quiesce_ref *ref, enum quiesce_ref_misuse what, long seen)
{
	const void *at = (const void *)ref;

	switch (what) {
	case QUIESCE_REF_GET_ON_ZERO:
		fprintf(stderr, "quiesce: quiesce_ref_get() on a reference count of %ld at %p: the "
				"object may already be released (use quiesce_ref_get_unless_zero() "
				"for lookups)\n", seen, at);
		break;
	case QUIESCE_REF_OVERFLOW:
		fprintf(stderr, "quiesce: reference count at %p would exceed QUIESCE_REF_MAX (it "
				"holds %ld): a leak of references?\n", at, seen);
		break;
	case QUIESCE_REF_SET_NEGATIVE:
		fprintf(stderr, "quiesce: quiesce_ref_set() of the reference count at %p to %ld, "
				"below zero\n", at, seen);
		break;
	case QUIESCE_REF_PUT_BELOW_ZERO:
		fprintf(stderr, "quiesce: reference count at %p dropped below zero (it held %ld): "
				"one put too many\n", at, seen);
		break;
	}
	abort();
}

/*
 * Sets the count, for an object not yet shared or being reused.  Release:
 * pairs with the acquire of a get_unless_zero() that reads this value.
 */
static inline void quiesce_ref_set(struct quiesce_ref *ref, long val)
{
	if (QUIESCE_UNLIKELY(val < 0 || val > QUIESCE_REF_MAX))
		quiesce_ref_misused(ref, val < 0 ? QUIESCE_REF_SET_NEGATIVE : QUIESCE_REF_OVERFLOW,
				    val);
	QUIESCE_STORE_RELEASE(&ref->refcount, val);
}

static inline void quiesce_ref_init(struct quiesce_ref *ref)
{
	quiesce_ref_set(ref, 1);
}

/* Takes one more reference; the caller holds one. */
static inline void quiesce_ref_get(struct quiesce_ref *ref)
{
	long old = __atomic_fetch_add(&ref->refcount, 1, __ATOMIC_RELAXED);

	if (QUIESCE_UNLIKELY(old <= 0 || old >= QUIESCE_REF_MAX))
		quiesce_ref_misused(ref, old <= 0 ? QUIESCE_REF_GET_ON_ZERO : QUIESCE_REF_OVERFLOW,
				    old);
}

/*
 * Takes one more reference, as quiesce_ref_get(), but returns false
 * instead of aborting when the count is at QUIESCE_REF_MAX, for a caller
 * that can refuse the request.  A count of zero still aborts: that is a
 * use after release, not an overflow.
 */
static inline bool quiesce_ref_get_safe(struct quiesce_ref *ref)
{
	long old = QUIESCE_LOAD(&ref->refcount);

	do {
		if (QUIESCE_UNLIKELY(old <= 0))
			quiesce_ref_misused(ref, QUIESCE_REF_GET_ON_ZERO, old);
		if (QUIESCE_UNLIKELY(old >= QUIESCE_REF_MAX))
			return false;
		/* Unordered, as quiesce_ref_get(). */
	} while (!__atomic_compare_exchange_n(&ref->refcount, &old, old + 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/*
 * Takes a reference unless the count is zero (the object is being
 * released).  Returns whether it took one.
 */
static inline bool quiesce_ref_get_unless_zero(struct quiesce_ref *ref)
{
	long old = QUIESCE_LOAD(&ref->refcount);

	do {
		if (old == 0)
			return false;
		if (QUIESCE_UNLIKELY(old < 0 || old >= QUIESCE_REF_MAX))
			quiesce_ref_misused(ref, old < 0 ? QUIESCE_REF_PUT_BELOW_ZERO
						  : QUIESCE_REF_OVERFLOW, old);
		/* Acquire: pairs with the release of a put or of set(). */
	} while (!__atomic_compare_exchange_n(&ref->refcount, &old, old + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/*
 * Drops a reference; calls release(ref) if it was the last one.  Returns
 * whether it did.
 */
static inline bool quiesce_ref_put(struct quiesce_ref *ref, void (*release)(struct quiesce_ref *ref))
{
	/*
	 * Release: this holder's accesses to the object before the
	 * decrement; pairs with the acquire fence of the thread that drops
	 * the last reference, below.  ThreadSanitizer cannot see that fence,
	 * so there the decrement itself acquires as well.
	 */
#ifdef QUIESCE_TSAN
	long old = __atomic_fetch_sub(&ref->refcount, 1, __ATOMIC_ACQ_REL);
#else
	long old = __atomic_fetch_sub(&ref->refcount, 1, __ATOMIC_RELEASE);
#endif

	if (QUIESCE_LIKELY(old > 1))
		return false;
	if (QUIESCE_UNLIKELY(old <= 0))
		quiesce_ref_misused(ref, QUIESCE_REF_PUT_BELOW_ZERO, old);
	/* Pairs with every other holder's release decrement above. */
	quiesce_fence_acquire();
	release(ref);
	return true;
}

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_REF_H */
