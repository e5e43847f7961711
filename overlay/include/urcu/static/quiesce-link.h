/*
 * urcu/static/quiesce-link.h (liburcu overlay; no liburcu counterpart) -
 * ties a program that uses the overlay's inline code to libquiesce-urcu.
 *
 * The inline read sides are quiesce's, and so are the cds_lfht layouts; the
 * grace periods and the table's functions are calls with liburcu's names.
 * Linked with a real liburcu ahead of the overlay, those calls would reach
 * liburcu, whose grace periods do not wait for quiesce's readers: freed
 * memory under live readers, silently.  Every file that includes this
 * header refers to a symbol only libquiesce-urcu defines, so the linker
 * cannot drop that library (--as-needed), and libquiesce-urcu refuses, at
 * load, to run in a process that holds a real liburcu too
 * (overlay/src/link_check.c).  A file built without _LGPL_SOURCE that uses
 * no hash table does not include it: it calls out of line only, and may
 * link with stubs and no library at all.
 */
#ifndef _URCU_STATIC_QUIESCE_LINK_H
#define _URCU_STATIC_QUIESCE_LINK_H

#ifdef __cplusplus
extern "C" {
#endif

extern const int quiesce_urcu_linked;

/* Never read: the relocation is the reference. */
static const int *const quiesce_urcu_link_ref __attribute__((__used__)) = &quiesce_urcu_linked;

#ifdef __cplusplus
}
#endif

#endif /* _URCU_STATIC_QUIESCE_LINK_H */
