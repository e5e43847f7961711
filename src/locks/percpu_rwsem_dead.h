/* percpu_rwsem_dead.h - semaphores that refuse every use. */
#ifndef QUIESCE_SRC_PERCPU_RWSEM_DEAD_H
#define QUIESCE_SRC_PERCPU_RWSEM_DEAD_H

#include <quiesce/percpu_rwsem.h>

/*
 * No counter, and a gate that never opens for any kind of reader (negative,
 * rseq_readers set): every use reaches a slow path, which reports it
 * instead of touching memory that is not there.  What percpu_free_rwsem()
 * leaves behind, and what a freezer's levels past its own are.
 */
void quiesce_percpu_init_dead(struct quiesce_percpu_rwsem *sem);

#endif
