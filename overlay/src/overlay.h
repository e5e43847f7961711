/*
 * overlay.h - what the overlay's out-of-line files share: the export
 * marker (the library is built with hidden visibility and exports
 * liburcu's names only), and the per-flavor state of the call_rcu_data
 * API and fork hooks.
 *
 * A liburcu flavor is one quiesce grace-period domain: memb, signal and
 * bp are quiesce's default RCU; mb is quiesce's mb domain (rcu_mb.h);
 * qsbr is quiesce's QSBR domain.  Each
 * flavor has its own struct urcu_flavor_domain (its call_rcu_data objects
 * and fork hooks are its own, as in liburcu, where each flavor is a library
 * of its own), whose functions are that domain's.  A call_rcu_data object
 * other than the default one is a quiesce callback worker of the flavor
 * (<quiesce/call_rcu_worker.h>); the default one is the domain's own
 * callback thread.
 */
#ifndef URCU_OVERLAY_H
#define URCU_OVERLAY_H

#include <pthread.h>
#include <stdbool.h>

#define QUIESCE_NO_SHORT_NAMES
#include <quiesce/call_rcu_worker.h>
#include <quiesce/defer.h>
#include <quiesce/rcu.h>

#define URCU_EXPORT __attribute__((visibility("default")))

struct call_rcu_data;
struct urcu_atfork;

enum urcu_flavor_id {
	URCU_FLAVOR_memb,
	URCU_FLAVOR_mb,
	URCU_FLAVOR_signal,
	URCU_FLAVOR_bp,
	URCU_FLAVOR_qsbr,
	URCU_NR_FLAVORS
};

struct urcu_flavor_domain {
	enum urcu_flavor_id id;		/* its slot in each thread's crdp array */
	enum quiesce_cb_flavor workers;	/* its callbacks' flavor, and its workers' */
	void (*call_rcu)(struct quiesce_rcu_head *head,
			 void (*func)(struct quiesce_rcu_head *head));
	void (*synchronize_rcu)(void);	/* safe to call from an online thread */

	/* Under lock: the call_rcu_data objects and the fork hook. */
	pthread_mutex_t lock;
	struct call_rcu_data *objects;	/* every live object, linked by next */
	struct call_rcu_data *default_crdp;
	struct call_rcu_data **per_cpu;	/* NULL, or nr_cpus slots */
	int nr_cpus;
	struct urcu_atfork *atfork;	/* rculfhash's, the first registered */
};

#define URCU_FLAVOR_DOMAIN_INIT(flavor_id, worker_flavor, call, sync)                     \
	{ .id = (flavor_id), .workers = (worker_flavor), .call_rcu = (call),                   \
	  .synchronize_rcu = (sync), .lock = PTHREAD_MUTEX_INITIALIZER }

/* Each thread's call_rcu_data, one slot per flavor (liburcu: one per library). */
extern __thread struct call_rcu_data *urcu_thread_crdp[URCU_NR_FLAVORS]
	__attribute__((tls_model("initial-exec")));

/*
 * Whether call_rcu() may have an object other than the default one to
 * pick: the thread's, or a per-CPU array.  Relaxed: a hint only, which
 * urcu_crd_call() follows with proper loads.
 */
static inline bool urcu_crd_may_pick(struct urcu_flavor_domain *fd)
{
	return urcu_thread_crdp[fd->id] || __atomic_load_n(&fd->per_cpu, __ATOMIC_RELAXED);
}

/* The overlay's misuse report: a message naming the call, then abort(). */
__attribute__((noreturn, cold)) void urcu_overlay_die(const char *call, const char *why);

/* call_rcu_data.c: the call_rcu_data API of one flavor. */
/* call_rcu() on the object liburcu would pick: the thread's, its CPU's, the default. */
void urcu_crd_call(struct urcu_flavor_domain *fd, struct quiesce_rcu_head *head,
		   void (*func)(struct quiesce_rcu_head *head));
struct call_rcu_data *urcu_crd_create(struct urcu_flavor_domain *fd, unsigned long flags, int cpu);
void urcu_crd_free(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp);
struct call_rcu_data *urcu_crd_get_default(struct urcu_flavor_domain *fd);
struct call_rcu_data *urcu_crd_get_cpu(struct urcu_flavor_domain *fd, int cpu);
struct call_rcu_data *urcu_crd_get_thread(struct urcu_flavor_domain *fd);
struct call_rcu_data *urcu_crd_get(struct urcu_flavor_domain *fd);
pthread_t urcu_crd_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp);
void urcu_crd_set_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp);
int urcu_crd_set_cpu(struct urcu_flavor_domain *fd, int cpu, struct call_rcu_data *crdp);
int urcu_crd_create_all_cpu(struct urcu_flavor_domain *fd, unsigned long flags);
void urcu_crd_free_all_cpu(struct urcu_flavor_domain *fd);
void urcu_crd_before_fork(struct urcu_flavor_domain *fd);
void urcu_crd_after_fork_parent(struct urcu_flavor_domain *fd);
void urcu_crd_after_fork_child(struct urcu_flavor_domain *fd);
void urcu_crd_register_atfork(struct urcu_flavor_domain *fd, struct urcu_atfork *atfork);

/*
 * The exported call_rcu, call_rcu_data, fork-hook and defer functions of
 * flavor f, each the shared implementation above on the flavor's domain
 * fd; call_rcu goes straight to the domain's function unless an object
 * may be picked, rcu_barrier to the domain's (which waits for the workers
 * too), and defer_rcu and its barriers to the domain's headless deferral
 * (<quiesce/defer.h>: defer and defer_bar).  liburcu's per-thread defer
 * queue needs no registration here, and its unregistration and per-thread
 * barrier wait for everything deferred, as the barrier.
 */
#define URCU_OVERLAY_CALLBACK_API(f, fd, call, bar, defer, defer_bar)                       \
	URCU_EXPORT void urcu_##f##_call_rcu(struct quiesce_rcu_head *head,                  \
					     void (*func)(struct quiesce_rcu_head *head))    \
	{                                                                                   \
		if (__builtin_expect(urcu_crd_may_pick(&fd), 0))                            \
			urcu_crd_call(&fd, head, func);                                     \
		else                                                                        \
			call(head, func);                                                   \
	}                                                                                   \
	URCU_EXPORT void urcu_##f##_barrier(void) { bar(); }                                  \
	URCU_EXPORT struct call_rcu_data *urcu_##f##_create_call_rcu_data(unsigned long flags, \
									  int cpu_affinity)  \
	{ return urcu_crd_create(&fd, flags, cpu_affinity); }                               \
	URCU_EXPORT void urcu_##f##_call_rcu_data_free(struct call_rcu_data *crdp)            \
	{ urcu_crd_free(&fd, crdp); }                                                       \
	URCU_EXPORT struct call_rcu_data *urcu_##f##_get_default_call_rcu_data(void)          \
	{ return urcu_crd_get_default(&fd); }                                               \
	URCU_EXPORT struct call_rcu_data *urcu_##f##_get_cpu_call_rcu_data(int cpu)           \
	{ return urcu_crd_get_cpu(&fd, cpu); }                                              \
	URCU_EXPORT struct call_rcu_data *urcu_##f##_get_thread_call_rcu_data(void)           \
	{ return urcu_crd_get_thread(&fd); }                                                \
	URCU_EXPORT struct call_rcu_data *urcu_##f##_get_call_rcu_data(void)                  \
	{ return urcu_crd_get(&fd); }                                                       \
	URCU_EXPORT pthread_t urcu_##f##_get_call_rcu_thread(struct call_rcu_data *crdp)      \
	{ return urcu_crd_thread(&fd, crdp); }                                              \
	URCU_EXPORT void urcu_##f##_set_thread_call_rcu_data(struct call_rcu_data *crdp)      \
	{ urcu_crd_set_thread(&fd, crdp); }                                                 \
	URCU_EXPORT int urcu_##f##_set_cpu_call_rcu_data(int cpu, struct call_rcu_data *crdp) \
	{ return urcu_crd_set_cpu(&fd, cpu, crdp); }                                        \
	URCU_EXPORT int urcu_##f##_create_all_cpu_call_rcu_data(unsigned long flags)          \
	{ return urcu_crd_create_all_cpu(&fd, flags); }                                     \
	URCU_EXPORT void urcu_##f##_free_all_cpu_call_rcu_data(void)                          \
	{ urcu_crd_free_all_cpu(&fd); }                                                     \
	URCU_EXPORT void urcu_##f##_call_rcu_before_fork(void) { urcu_crd_before_fork(&fd); } \
	URCU_EXPORT void urcu_##f##_call_rcu_after_fork_parent(void)                          \
	{ urcu_crd_after_fork_parent(&fd); }                                                \
	URCU_EXPORT void urcu_##f##_call_rcu_after_fork_child(void)                           \
	{ urcu_crd_after_fork_child(&fd); }                                                 \
	URCU_EXPORT void urcu_##f##_register_rculfhash_atfork(struct urcu_atfork *atfork)     \
	{ urcu_crd_register_atfork(&fd, atfork); }                                          \
	URCU_EXPORT void urcu_##f##_unregister_rculfhash_atfork(struct urcu_atfork *atfork)   \
	{ urcu_overlay_die("urcu_unregister_rculfhash_atfork",                              \
			   "rculfhash's fork hooks stay registered (liburcu: EPERM)"); }    \
	URCU_EXPORT void urcu_##f##_defer_rcu(void (*fct)(void *p), void *p)                  \
	{ defer(fct, p); }                                                                  \
	URCU_EXPORT int urcu_##f##_defer_register_thread(void) { return 0; }                 \
	URCU_EXPORT void urcu_##f##_defer_unregister_thread(void) { defer_bar(); }            \
	URCU_EXPORT void urcu_##f##_defer_barrier(void) { defer_bar(); }                      \
	URCU_EXPORT void urcu_##f##_defer_barrier_thread(void) { defer_bar(); }

#endif /* URCU_OVERLAY_H */

/*
 * The flavor's struct rcu_flavor_struct, urcu_<f>_flavor: its own
 * functions, so that a call through the table is the call by name.
 */
#define URCU_OVERLAY_FLAVOR_OBJECT(f)                                          \
	URCU_EXPORT const struct rcu_flavor_struct urcu_##f##_flavor = {       \
		.read_lock = urcu_##f##_read_lock,                             \
		.read_unlock = urcu_##f##_read_unlock,                         \
		.read_ongoing = urcu_##f##_read_ongoing,                       \
		.read_quiescent_state = urcu_##f##_quiescent_state,            \
		.update_call_rcu = urcu_##f##_call_rcu,                        \
		.update_synchronize_rcu = urcu_##f##_synchronize_rcu,          \
		.update_defer_rcu = urcu_##f##_defer_rcu,                      \
		.thread_offline = urcu_##f##_thread_offline,                   \
		.thread_online = urcu_##f##_thread_online,                     \
		.register_thread = urcu_##f##_register_thread,                 \
		.unregister_thread = urcu_##f##_unregister_thread,             \
		.barrier = urcu_##f##_barrier,                                 \
		.register_rculfhash_atfork = urcu_##f##_register_rculfhash_atfork, \
		.unregister_rculfhash_atfork = urcu_##f##_unregister_rculfhash_atfork, \
		.update_start_poll_synchronize_rcu = urcu_##f##_start_poll_synchronize_rcu, \
		.update_poll_state_synchronize_rcu = urcu_##f##_poll_state_synchronize_rcu, \
	}

/*
 * The read side, grace periods and registration of a flavor that is
 * quiesce's default RCU (memb, signal, bp): each function the
 * corresponding quiesce call.
 */
#define URCU_OVERLAY_DEFAULT_RCU(f)                                                        \
	URCU_EXPORT void urcu_##f##_read_lock(void) { quiesce_rcu_read_lock(); }             \
	URCU_EXPORT void urcu_##f##_read_unlock(void) { quiesce_rcu_read_unlock(); }         \
	URCU_EXPORT int urcu_##f##_read_ongoing(void) { return quiesce_rcu_read_ongoing(); } \
	URCU_EXPORT void urcu_##f##_synchronize_rcu(void) { quiesce_synchronize_rcu(); }     \
	URCU_EXPORT struct urcu_gp_poll_state urcu_##f##_start_poll_synchronize_rcu(void)    \
	{ return (struct urcu_gp_poll_state){ quiesce_start_poll_synchronize_rcu() }; }    \
	URCU_EXPORT bool urcu_##f##_poll_state_synchronize_rcu(struct urcu_gp_poll_state s)  \
	{ return quiesce_poll_state_synchronize_rcu(s.grace_period_id); }                  \
	URCU_EXPORT void urcu_##f##_register_thread(void) { quiesce_rcu_register_thread(); } \
	static struct urcu_flavor_domain urcu_##f##_domain = URCU_FLAVOR_DOMAIN_INIT(       \
		URCU_FLAVOR_##f, QUIESCE_CB_RCU, quiesce_call_rcu, quiesce_synchronize_rcu); \
	URCU_OVERLAY_CALLBACK_API(f, urcu_##f##_domain, quiesce_call_rcu, quiesce_rcu_barrier, \
				  quiesce_defer_rcu, quiesce_defer_barrier)                   \
	URCU_OVERLAY_FLAVOR_OBJECT(f)
