/*
 * call_rcu_data.c - liburcu's call_rcu_data API on quiesce's callbacks.
 *
 * liburcu gives each call_rcu_data object a worker thread with a queue of
 * its own, and call_rcu() picks the object of the calling thread, else of
 * its CPU, else the default one.  Here the default object is the flavor's
 * own callback thread ("quiesce-cb" for the default RCU, "quiesce-mb-cb"
 * for mb, "quiesce-qsbr-cb" for QSBR), which batches behind shared grace
 * periods; every other object is a quiesce callback worker of the flavor
 * (<quiesce/call_rcu_worker.h>), and call_rcu() picks the object as
 * liburcu does.  An object made for a CPU by create_call_rcu_data() has
 * its worker bound to that CPU; those of create_all_cpu_call_rcu_data()
 * serve the callers on their CPU from wherever the scheduler runs them
 * (urcu_crd_create_all_cpu() says why).  What each call does is tabled in
 * docs/LIBURCU.md.
 *
 * A program that never makes an object pays nothing for them: call_rcu()
 * goes straight to the flavor's function unless the thread has an object
 * or a per-CPU array exists (urcu_crd_may_pick()).
 *
 * Lifetimes.  The thread's object is the program's to keep alive while set
 * (as in liburcu).  A per-CPU object is looked up and used inside a
 * read-side section of the flavor (an online QSBR thread is one; an
 * offline one uses the default object), and free_all_cpu_call_rcu_data()
 * empties the slots, waits for a grace period, then destroys the objects'
 * workers, which runs their pending callbacks: a call that found an object
 * in a slot has queued on it by then.
 *
 * Locking: fd->lock guards each flavor's objects, default object, per-CPU
 * array and fork hook; no worker is destroyed under it (a destroy waits for
 * callbacks).  Readers of the per-CPU array and of the default object load
 * them with acquire.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <urcu/call-rcu.h>
#include <urcu/flavor.h>

#include "overlay.h"

#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

struct call_rcu_data {
	struct call_rcu_data *next;	/* fd->objects */
	unsigned long flags;		/* URCU_CALL_RCU_RT, as given */
	int cpu_affinity;		/* as given; -1 for none */
	struct quiesce_call_rcu_worker *worker;	/* NULL: the default object */
};

__thread struct call_rcu_data *urcu_thread_crdp[URCU_NR_FLAVORS]
	__attribute__((tls_model("initial-exec")));

void urcu_overlay_die(const char *call, const char *why)
{
	fprintf(stderr, "quiesce liburcu overlay: %s: %s\n", call, why);
	abort();
}

/* Which thread runs an object's callbacks. */
enum object_thread {
	FLAVOR_THREAD,		/* the flavor's own: the default object */
	WORKER_ON_CPU,		/* a worker of its own, bound to the object's CPU if any */
	WORKER_ANYWHERE,	/* a worker of its own, on any of the process's CPUs */
};

/*
 * An object of `cpu` (liburcu takes a negative CPU for "none"), whose
 * callbacks run on `thread`.  A bound worker carries on unbound where the
 * CPU cannot be had, as liburcu's does.
 */
static struct call_rcu_data *create_locked(struct urcu_flavor_domain *fd, unsigned long flags,
					   int cpu, enum object_thread thread)
{
	struct call_rcu_data *crdp = malloc(sizeof(*crdp));

	if (!crdp)	/* liburcu dies here too */
		urcu_overlay_die("create_call_rcu_data", "out of memory");
	crdp->worker = NULL;
	if (thread != FLAVOR_THREAD) {
		bool bound = thread == WORKER_ON_CPU && cpu >= 0 && cpu < CPU_SETSIZE;

		crdp->worker = quiesce_call_rcu_worker_create(fd->workers, bound ? cpu : -1);
		if (!crdp->worker)
			urcu_overlay_die("create_call_rcu_data", "out of memory");
	}
	crdp->flags = flags & URCU_CALL_RCU_RT;
	crdp->cpu_affinity = cpu;
	crdp->next = fd->objects;
	fd->objects = crdp;
	return crdp;
}

/*
 * Runs the worker's pending callbacks, stops it and frees the object; a
 * QSBR caller goes offline around the wait, as around liburcu's.
 */
static void destroy_object(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	bool offline = fd->workers == QUIESCE_CB_QSBR && quiesce_qsbr_thread_online_p();

	if (offline)
		quiesce_qsbr_thread_offline();
	quiesce_call_rcu_worker_destroy(crdp->worker);
	if (offline)
		quiesce_qsbr_thread_online();
	free(crdp);
}

static void unlink_locked(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	struct call_rcu_data **pp;

	for (pp = &fd->objects; *pp; pp = &(*pp)->next) {
		if (*pp == crdp) {
			*pp = crdp->next;
			return;
		}
	}
	urcu_overlay_die("call_rcu_data_free", "not a call_rcu_data object of this flavor");
}

struct call_rcu_data *urcu_crd_create(struct urcu_flavor_domain *fd, unsigned long flags, int cpu)
{
	struct call_rcu_data *crdp;

	pthread_mutex_lock(&fd->lock);
	crdp = create_locked(fd, flags, cpu, WORKER_ON_CPU);
	pthread_mutex_unlock(&fd->lock);
	return crdp;
}

/*
 * As liburcu: NULL and the default object are silently kept.  The object's
 * pending callbacks run before it goes (liburcu moves them to the default
 * object's queue).
 */
void urcu_crd_free(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	if (!crdp)
		return;
	pthread_mutex_lock(&fd->lock);
	if (crdp == fd->default_crdp) {
		pthread_mutex_unlock(&fd->lock);
		return;
	}
	unlink_locked(fd, crdp);
	pthread_mutex_unlock(&fd->lock);
	destroy_object(fd, crdp);
}

struct call_rcu_data *urcu_crd_get_default(struct urcu_flavor_domain *fd)
{
	/* Acquire: the object's fields are set before it is published below. */
	struct call_rcu_data *crdp = __atomic_load_n(&fd->default_crdp, __ATOMIC_ACQUIRE);

	if (crdp)
		return crdp;
	pthread_mutex_lock(&fd->lock);
	crdp = fd->default_crdp;
	if (!crdp) {
		crdp = create_locked(fd, 0, -1, FLAVOR_THREAD);
		__atomic_store_n(&fd->default_crdp, crdp, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fd->lock);
	return crdp;
}

struct call_rcu_data *urcu_crd_get_cpu(struct urcu_flavor_domain *fd, int cpu)
{
	/* Acquire: pairs with the release stores of alloc_per_cpu_locked(). */
	struct call_rcu_data **per_cpu = __atomic_load_n(&fd->per_cpu, __ATOMIC_ACQUIRE);

	if (!per_cpu || cpu < 0 || cpu >= __atomic_load_n(&fd->nr_cpus, __ATOMIC_RELAXED))
		return NULL;
	/* Acquire: pairs with the release store of urcu_crd_set_cpu(). */
	return __atomic_load_n(&per_cpu[cpu], __ATOMIC_ACQUIRE);
}

struct call_rcu_data *urcu_crd_get_thread(struct urcu_flavor_domain *fd)
{
	return urcu_thread_crdp[fd->id];
}

void urcu_crd_set_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	urcu_thread_crdp[fd->id] = crdp;
}

/* liburcu's order: the thread's object, its CPU's, the default one. */
struct call_rcu_data *urcu_crd_get(struct urcu_flavor_domain *fd)
{
	struct call_rcu_data *crdp = urcu_thread_crdp[fd->id];

	if (crdp)
		return crdp;
	crdp = urcu_crd_get_cpu(fd, sched_getcpu());
	if (crdp)
		return crdp;
	return urcu_crd_get_default(fd);
}

static void call_on(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp,
		    struct quiesce_rcu_head *head, void (*func)(struct quiesce_rcu_head *head))
{
	if (crdp && crdp->worker)
		quiesce_call_rcu_on(crdp->worker, head, func);
	else
		fd->call_rcu(head, func);
}

/*
 * The section that keeps a per-CPU object alive while it is used (see
 * "Lifetimes" at the top); false when the thread cannot be inside one (an
 * offline or unregistered QSBR thread).
 */
static bool enter_lookup_section(struct urcu_flavor_domain *fd)
{
	switch (fd->workers) {
	case QUIESCE_CB_RCU:
		quiesce_rcu_read_lock();
		return true;
	case QUIESCE_CB_RCU_MB:
		quiesce_rcu_mb_read_lock();
		return true;
	case QUIESCE_CB_QSBR:
		break;
	}
	return quiesce_qsbr_thread_online_p();
}

static void leave_lookup_section(struct urcu_flavor_domain *fd)
{
	if (fd->workers == QUIESCE_CB_RCU)
		quiesce_rcu_read_unlock();
	else if (fd->workers == QUIESCE_CB_RCU_MB)
		quiesce_rcu_mb_read_unlock();
}

void urcu_crd_call(struct urcu_flavor_domain *fd, struct quiesce_rcu_head *head,
		   void (*func)(struct quiesce_rcu_head *head))
{
	struct call_rcu_data *crdp = urcu_thread_crdp[fd->id];

	if (crdp) {
		call_on(fd, crdp, head, func);
		return;
	}
	if (!enter_lookup_section(fd)) {
		fd->call_rcu(head, func);
		return;
	}
	call_on(fd, urcu_crd_get_cpu(fd, sched_getcpu()), head, func);
	leave_lookup_section(fd);
}

/* The thread that runs an object's callbacks: its worker's, or the flavor's own. */
pthread_t urcu_crd_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	if (crdp && crdp->worker)
		return quiesce_call_rcu_worker_thread(crdp->worker);
	return quiesce_call_rcu_thread(fd->workers);
}

/* liburcu sizes the array by the configured CPUs. */
static void alloc_per_cpu_locked(struct urcu_flavor_domain *fd)
{
	long n;
	struct call_rcu_data **per_cpu;

	if (fd->per_cpu)
		return;
	n = sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		return;
	per_cpu = calloc((size_t)n, sizeof(*per_cpu));
	if (!per_cpu)
		return;
	__atomic_store_n(&fd->nr_cpus, (int)n, __ATOMIC_RELAXED);
	/* Release: the zeroed slots and the count before the array. */
	__atomic_store_n(&fd->per_cpu, per_cpu, __ATOMIC_RELEASE);
}

static int set_cpu_locked(struct urcu_flavor_domain *fd, int cpu, struct call_rcu_data *crdp)
{
	/* liburcu's order: a CPU out of range is EINVAL even when the array cannot be had. */
	long n = fd->per_cpu ? fd->nr_cpus : sysconf(_SC_NPROCESSORS_CONF);

	if (cpu < 0 || cpu >= n) {
		errno = EINVAL;
		return -EINVAL;
	}
	alloc_per_cpu_locked(fd);
	if (!fd->per_cpu) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	if (fd->per_cpu[cpu] && crdp) {
		errno = EEXIST;
		return -EEXIST;
	}
	/* Release: the object's fields before the slot; see urcu_crd_get_cpu(). */
	__atomic_store_n(&fd->per_cpu[cpu], crdp, __ATOMIC_RELEASE);
	return 0;
}

int urcu_crd_set_cpu(struct urcu_flavor_domain *fd, int cpu, struct call_rcu_data *crdp)
{
	int ret;

	pthread_mutex_lock(&fd->lock);
	ret = set_cpu_locked(fd, cpu, crdp);
	pthread_mutex_unlock(&fd->lock);
	return ret;
}

/*
 * An object for every CPU that has none yet; 0, or -errno (errno set).
 *
 * Each serves the callers on its CPU, and its worker runs wherever the
 * scheduler puts it.  Bound, a CPU's worker could only share that CPU
 * with the thread a program pinned there, and would free memory always on
 * a CPU other than the one that allocates it: with test_urcu_lfq's two
 * pinned threads, bound workers fell far behind liburcu's and unbound
 * ones ran ahead (docs/LIBURCU.md, "test_urcu_lfq").  liburcu binds its
 * per-CPU threads lazily: every 256 batches (10 ms or more apart) a
 * thread looks where it runs, and binds itself if elsewhere; until then
 * the scheduler places it.  A program that wants them bound binds their
 * threads (get_call_rcu_thread()), or makes its objects with
 * create_call_rcu_data(flags, cpu).
 */
int urcu_crd_create_all_cpu(struct urcu_flavor_domain *fd, unsigned long flags)
{
	int cpu, ret = 0;

	pthread_mutex_lock(&fd->lock);
	alloc_per_cpu_locked(fd);
	if (!fd->per_cpu) {
		errno = ENOMEM;
		ret = -ENOMEM;
	}
	for (cpu = 0; !ret && cpu < fd->nr_cpus; cpu++) {
		if (!fd->per_cpu[cpu])
			ret = set_cpu_locked(fd, cpu, create_locked(fd, flags, cpu, WORKER_ANYWHERE));
	}
	pthread_mutex_unlock(&fd->lock);
	return ret;
}

/*
 * Empties the per-CPU slots, waits for a grace period (a call_rcu() that
 * looked at a slot is done with it, as liburcu waits), frees the objects
 * (each runs its pending callbacks first).
 */
void urcu_crd_free_all_cpu(struct urcu_flavor_domain *fd)
{
	struct call_rcu_data **taken;
	int cpu, n;

	pthread_mutex_lock(&fd->lock);
	n = fd->per_cpu ? fd->nr_cpus : 0;
	taken = n ? calloc((size_t)n, sizeof(*taken)) : NULL;
	for (cpu = 0; taken && cpu < n; cpu++) {
		taken[cpu] = fd->per_cpu[cpu];
		__atomic_store_n(&fd->per_cpu[cpu], NULL, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&fd->lock);
	if (!taken)
		return;
	fd->synchronize_rcu();
	for (cpu = 0; cpu < n; cpu++)
		urcu_crd_free(fd, taken[cpu]);
	free(taken);
}

/*
 * Fork hooks.  quiesce makes its own callbacks and workers safe across
 * fork() (its pthread_atfork handlers), so these do what is left of
 * liburcu's: hold the flavor's lock across fork() so the child never
 * copies the objects in mid-update, run rculfhash's hooks, and in the
 * child drop every object but the default one (liburcu frees them the
 * same way; their workers have no thread and no callbacks there, so
 * destroying them waits for nothing) along with the per-CPU array and the
 * forking thread's object.
 */
void urcu_crd_before_fork(struct urcu_flavor_domain *fd)
{
	pthread_mutex_lock(&fd->lock);
	if (fd->atfork)
		fd->atfork->before_fork(fd->atfork->priv);
}

void urcu_crd_after_fork_parent(struct urcu_flavor_domain *fd)
{
	if (fd->atfork)
		fd->atfork->after_fork_parent(fd->atfork->priv);
	pthread_mutex_unlock(&fd->lock);
}

void urcu_crd_after_fork_child(struct urcu_flavor_domain *fd)
{
	struct call_rcu_data *crdp, *next, *dropped;

	pthread_mutex_unlock(&fd->lock);
	if (fd->atfork)
		fd->atfork->after_fork_child(fd->atfork->priv);
	pthread_mutex_lock(&fd->lock);
	free(fd->per_cpu);
	fd->per_cpu = NULL;
	fd->nr_cpus = 0;
	urcu_thread_crdp[fd->id] = NULL;
	dropped = fd->objects;
	fd->objects = fd->default_crdp;
	pthread_mutex_unlock(&fd->lock);
	for (crdp = dropped; crdp; crdp = next) {
		next = crdp->next;
		if (crdp == fd->default_crdp)
			crdp->next = NULL;
		else
			destroy_object(fd, crdp);
	}
}

/* As liburcu: the first registration stays. */
void urcu_crd_register_atfork(struct urcu_flavor_domain *fd, struct urcu_atfork *atfork)
{
	pthread_mutex_lock(&fd->lock);
	if (!fd->atfork)
		fd->atfork = atfork;
	pthread_mutex_unlock(&fd->lock);
}
