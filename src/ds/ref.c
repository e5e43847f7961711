/*
 * ref.c - the messages of quiesce/ref.h, whose code is inline.  A reference
 * count that goes wrong is a use after free waiting to happen, so every
 * misuse stops the program here, naming the count and what it held.
 */
#include <quiesce/ref.h>

#include "common/diag.h"

void quiesce_ref_misused(const struct quiesce_ref *ref, enum quiesce_ref_misuse what, long seen)
{
	switch (what) {
	case QUIESCE_REF_GET_ON_ZERO:
		quiesce_die("quiesce_ref_get() on a reference count of %ld at %p: the object may "
			    "already be released (use quiesce_ref_get_unless_zero() for lookups)",
			    seen, (const void *)ref);
	case QUIESCE_REF_OVERFLOW:
		quiesce_die("reference count at %p would exceed QUIESCE_REF_MAX (it holds %ld): "
			    "a leak of references?", (const void *)ref, seen);
	case QUIESCE_REF_SET_NEGATIVE:
		quiesce_die("quiesce_ref_set() of the reference count at %p to %ld, below zero",
			    (const void *)ref, seen);
	case QUIESCE_REF_PUT_BELOW_ZERO:
		break;
	}
	quiesce_die("reference count at %p dropped below zero (it held %ld): one put too many",
		    (const void *)ref, seen);
}
