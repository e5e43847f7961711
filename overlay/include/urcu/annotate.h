/*
 * urcu/annotate.h (liburcu overlay) - liburcu 0.15's annotations (marked
 * experimental there), with which code tells ThreadSanitizer about the
 * ordering that a fence gives, which it cannot see.  A group names the
 * accesses that one fence orders:
 *
 *   cmm_annotate_define(g);                cmm_annotate_define(g);
 *   x = load(a);  cmm_annotate_group_mem_acquire(&g, a);
 *   cmm_smp_mb(); cmm_annotate_group_mb_acquire(&g);
 *                                          cmm_smp_mb(); cmm_annotate_group_mb_release(&g);
 *                                          store(b); cmm_annotate_group_mem_release(&g, b);
 *
 * An acquire group is loads, then its fence; a release group is its fence,
 * then stores.  Under ThreadSanitizer (CMM_SANITIZE_THREAD, urcu/compiler.h)
 * each annotated access is an acquire or release of its address for the
 * tool, and a group used in another order aborts with a message, as
 * liburcu's does; otherwise the annotations compile to nothing.
 */
#ifndef _URCU_ANNOTATE_H
#define _URCU_ANNOTATE_H

#include <stdio.h>
#include <stdlib.h>

#include <urcu/compiler.h>

enum cmm_annotate {
	CMM_ANNOTATE_VOID,	/* nothing annotated yet */
	CMM_ANNOTATE_LOAD,	/* an acquire group's loads */
	CMM_ANNOTATE_STORE,
	CMM_ANNOTATE_MB,	/* the group's fence */
};

typedef enum cmm_annotate cmm_annotate_t __attribute__((__unused__));

#define cmm_annotate_define(name) cmm_annotate_t name = CMM_ANNOTATE_VOID

#ifdef CMM_SANITIZE_THREAD

#ifdef __cplusplus
extern "C" {
#endif
extern void __tsan_acquire(void *addr);
extern void __tsan_release(void *addr);
#ifdef __cplusplus
}
#endif

#define cmm_annotate_die(msg)                                                  \
	do {                                                                   \
		fprintf(stderr, "(%s:%s@%u) Annotation ERROR: %s\n", __FILE__, \
			__func__, (unsigned)__LINE__, msg);                    \
		abort();                                                       \
	} while (0)

/* The group's state; a function, so that a group of another type does not compile. */
static inline cmm_annotate_t cmm_annotate_dereference(cmm_annotate_t *group)
{
	return *group;
}

/* The fence after an acquire group's loads (or with none). */
#define cmm_annotate_group_mb_acquire(group)                                   \
	do {                                                                   \
		cmm_annotate_t urcu_annot_ = cmm_annotate_dereference(group);  \
		if (urcu_annot_ == CMM_ANNOTATE_STORE)                         \
			cmm_annotate_die("store for acquire group");           \
		if (urcu_annot_ == CMM_ANNOTATE_MB)                            \
			cmm_annotate_die("redundant mb for acquire group");    \
		*(group) = CMM_ANNOTATE_MB;                                    \
	} while (0)

/* The fence that opens a release group: nothing may come before it. */
#define cmm_annotate_group_mb_release(group)                                   \
	do {                                                                   \
		cmm_annotate_t urcu_annot_ = cmm_annotate_dereference(group);  \
		if (urcu_annot_ == CMM_ANNOTATE_LOAD)                          \
			cmm_annotate_die("load before release group");         \
		if (urcu_annot_ == CMM_ANNOTATE_STORE)                         \
			cmm_annotate_die("store before release group");        \
		if (urcu_annot_ == CMM_ANNOTATE_MB)                            \
			cmm_annotate_die("redundant mb of release group");     \
		*(group) = CMM_ANNOTATE_MB;                                    \
	} while (0)

/* A load of mem that the group's fence, still to come, orders. */
#define cmm_annotate_group_mem_acquire(group, mem)                             \
	do {                                                                   \
		cmm_annotate_t urcu_annot_;                                    \
		__tsan_acquire((void *)(mem));                                 \
		urcu_annot_ = cmm_annotate_dereference(group);                 \
		if (urcu_annot_ == CMM_ANNOTATE_MB)                            \
			cmm_annotate_die("load after mb for acquire group");   \
		if (urcu_annot_ == CMM_ANNOTATE_VOID)                          \
			*(group) = CMM_ANNOTATE_LOAD;                          \
	} while (0)

/* A store to mem that the group's fence, already made, orders. */
#define cmm_annotate_group_mem_release(group, mem)                             \
	do {                                                                   \
		__tsan_release((void *)(mem));                                 \
		if (cmm_annotate_dereference(group) != CMM_ANNOTATE_MB)        \
			cmm_annotate_die("missing mb for release group");      \
	} while (0)

/* An access that orders itself: an acquire load, a release store. */
#define cmm_annotate_mem_acquire(mem) __tsan_acquire((void *)(mem))
#define cmm_annotate_mem_release(mem) __tsan_release((void *)(mem))

#else /* !CMM_SANITIZE_THREAD */

#define cmm_annotate_group_mb_acquire(group) (void)(group)
#define cmm_annotate_group_mb_release(group) (void)(group)
#define cmm_annotate_group_mem_acquire(group, mem) (void)(group)
#define cmm_annotate_group_mem_release(group, mem) (void)(group)
#define cmm_annotate_mem_acquire(mem) do { } while (0)
#define cmm_annotate_mem_release(mem) do { } while (0)

#endif /* CMM_SANITIZE_THREAD */

#endif /* _URCU_ANNOTATE_H */
