/*
 * urcu/call-rcu.h (liburcu overlay) - call_rcu(), rcu_barrier() and the
 * call_rcu_data API, declared under the short names that the including
 * flavor's map header turns into urcu_<flavor>_* (as liburcu's header
 * does).  Implemented in libquiesce-urcu on quiesce's callbacks: every
 * call_rcu_data object feeds the one callback thread of the flavor's
 * quiesce domain; docs/LIBURCU.md says what each call does.
 *
 * struct rcu_head is quiesce's (a next pointer and the function), so a
 * head given to either library is the same object.
 */
#ifndef _URCU_CALL_RCU_H
#define _URCU_CALL_RCU_H

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/uatomic.h>
#include <urcu/wfcqueue.h>

#include <pthread.h>
#include <stdlib.h>

#include <urcu/static/urcu-quiesce.h>

#ifdef __cplusplus
extern "C" {
#endif

struct call_rcu_data;

/* create_call_rcu_data() flags; quiesce's thread decides how it waits. */
#define URCU_CALL_RCU_RT (1U << 0)
#define URCU_CALL_RCU_RUNNING (1U << 1)
#define URCU_CALL_RCU_STOP (1U << 2)
#define URCU_CALL_RCU_STOPPED (1U << 3)
#define URCU_CALL_RCU_PAUSE (1U << 4)
#define URCU_CALL_RCU_PAUSED (1U << 5)

#define rcu_head quiesce_rcu_head

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void rcu_barrier(void);

struct call_rcu_data *create_call_rcu_data(unsigned long flags, int cpu_affinity);
void call_rcu_data_free(struct call_rcu_data *crdp);
struct call_rcu_data *get_default_call_rcu_data(void);
struct call_rcu_data *get_cpu_call_rcu_data(int cpu);
struct call_rcu_data *get_thread_call_rcu_data(void);
struct call_rcu_data *get_call_rcu_data(void);
pthread_t get_call_rcu_thread(struct call_rcu_data *crdp);
void set_thread_call_rcu_data(struct call_rcu_data *crdp);
int set_cpu_call_rcu_data(int cpu, struct call_rcu_data *crdp);
int create_all_cpu_call_rcu_data(unsigned long flags);
void free_all_cpu_call_rcu_data(void);
void call_rcu_before_fork(void);
void call_rcu_after_fork_parent(void);
void call_rcu_after_fork_child(void);

#ifdef __cplusplus
}
#endif

#endif /* _URCU_CALL_RCU_H */
