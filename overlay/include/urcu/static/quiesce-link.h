/*
 * urcu/static/quiesce-link.h (liburcu overlay; no liburcu counterpart) -
 * ties a program that uses the overlay's inline code to libquiesce-urcu.
 *
 * The inline read sides are quiesce's, and so are the cds_lfht layouts; the
 * grace periods and the table's functions are calls with liburcu's names.
 * Linked with a real liburcu ahead of the overlay, those calls would reach
 * liburcu, whose grace periods do not wait for quiesce's readers: freed
 * memory under live readers, silently.  So the inline functions that a
 * program calls when it uses the overlay for real (a flavor's read_lock,
 * qsbr's quiescent state and thread states, cds_lfht_new) each hold a
 * reference to a symbol that only libquiesce-urcu defines
 * (_URCU_QUIESCE_LINK_REF()): the linker cannot drop that library
 * (--as-needed), and libquiesce-urcu refuses, at load, to run in a process
 * that holds a real liburcu too (overlay/src/link_check.c).
 *
 * The reference is a static variable of the function, emitted only in a
 * file that calls the function: a file that merely includes the headers,
 * for the types (LTTng-tools' liblttng-ctl includes <urcu/rculfhash.h>),
 * or uses only what liburcu keeps header-only (lists, urcu_ref, queues and
 * stacks) links no library, as with liburcu.  A file built without
 * _LGPL_SOURCE calls out of line only, and may link stubs instead.
 */
#ifndef _URCU_STATIC_QUIESCE_LINK_H
#define _URCU_STATIC_QUIESCE_LINK_H

#ifdef __cplusplus
extern "C" {
#endif

extern const int quiesce_urcu_linked;

/* Never read: the relocation is the reference. */
#define _URCU_QUIESCE_LINK_REF()                                               \
	do {                                                                   \
		static const int *const quiesce_urcu_link_ref_                 \
			__attribute__((__used__)) = &quiesce_urcu_linked;      \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* _URCU_STATIC_QUIESCE_LINK_H */
