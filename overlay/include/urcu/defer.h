/*
 * urcu/defer.h (liburcu overlay) - defer_rcu(fct, p): fct(p) runs after a
 * grace period, on the flavor's quiesce callback thread (each call takes a
 * small allocation carrying an rcu_head; when none can be had, the caller
 * waits for a grace period and runs fct(p) itself, as liburcu does when
 * its per-thread queue is full).  Declared under the short names that the
 * including flavor's map header renames.  The caller must not be inside a
 * read-side critical section (the fallback waits for a grace period).
 * rcu_defer_barrier() and rcu_defer_barrier_thread() return once every
 * earlier defer_rcu() has run.  Registration is accepted and not needed.
 */
#ifndef _URCU_DEFER_H
#define _URCU_DEFER_H

#include <pthread.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

void defer_rcu(void (*fct)(void *p), void *p);
int rcu_defer_register_thread(void);
void rcu_defer_unregister_thread(void);
void rcu_defer_barrier(void);
void rcu_defer_barrier_thread(void);

#ifdef __cplusplus
}
#endif

#endif /* _URCU_DEFER_H */
