/*
 * call_rcu_data.c - liburcu's call_rcu_data API on quiesce's callbacks.
 *
 * liburcu gives each call_rcu_data object a worker thread with a queue of
 * its own, and call_rcu() picks the object of the calling thread, else of
 * its CPU, else the default one.  quiesce runs every callback of a
 * grace-period domain on that domain's one callback thread ("quiesce-cb"
 * for the default RCU, "quiesce-mb-cb" for mb, "quiesce-qsbr-cb" for
 * QSBR), which batches them behind shared grace periods.  So here an
 * object is a record of what the program asked for (flags, CPU), kept
 * where liburcu keeps it (the default
 * object, the per-CPU array, each thread's slot), and call_rcu() hands the
 * callback to the domain whichever object would have been picked: no
 * callback ever waits on an object, so freeing one leaves its callbacks to
 * run, as liburcu's call_rcu_data_free() hands them to the default object.
 * What each call does is tabled in docs/LIBURCU.md.
 *
 * Locking: fd->lock guards each flavor's objects, default object, per-CPU
 * array and fork hook.  Readers of the per-CPU array and of the default
 * object load them with acquire (liburcu asks for an RCU read-side section
 * around those; the objects are freed only by the calls that the program
 * makes after removing them, as in liburcu).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <urcu/call-rcu.h>
#include <urcu/flavor.h>

#include "overlay.h"

struct call_rcu_data {
	struct call_rcu_data *next;	/* fd->objects */
	unsigned long flags;		/* URCU_CALL_RCU_RT, as given */
	int cpu_affinity;		/* as given; -1 for none */
};

/* Each thread's call_rcu_data, one slot per flavor (liburcu: one per library). */
static __thread struct call_rcu_data *thread_crdp[URCU_NR_FLAVORS];

void urcu_overlay_die(const char *call, const char *why)
{
	fprintf(stderr, "quiesce liburcu overlay: %s: %s\n", call, why);
	abort();
}

static struct call_rcu_data *create_locked(struct urcu_flavor_domain *fd, unsigned long flags,
					   int cpu)
{
	struct call_rcu_data *crdp = malloc(sizeof(*crdp));

	if (!crdp)	/* liburcu dies here too */
		urcu_overlay_die("create_call_rcu_data", "out of memory");
	crdp->flags = flags & URCU_CALL_RCU_RT;
	crdp->cpu_affinity = cpu;
	crdp->next = fd->objects;
	fd->objects = crdp;
	return crdp;
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
	crdp = create_locked(fd, flags, cpu);
	pthread_mutex_unlock(&fd->lock);
	return crdp;
}

/*
 * As liburcu: NULL and the default object are silently kept.  The object's
 * callbacks are already in the domain's queue and run as if nothing
 * happened (liburcu moves them to the default object's queue).
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
	free(crdp);
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
		crdp = create_locked(fd, 0, -1);
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
	return thread_crdp[fd->id];
}

void urcu_crd_set_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	thread_crdp[fd->id] = crdp;
}

/* liburcu's order: the thread's object, its CPU's, the default one. */
struct call_rcu_data *urcu_crd_get(struct urcu_flavor_domain *fd)
{
	struct call_rcu_data *crdp = thread_crdp[fd->id];

	if (crdp)
		return crdp;
	crdp = urcu_crd_get_cpu(fd, sched_getcpu());
	if (crdp)
		return crdp;
	return urcu_crd_get_default(fd);
}

/*
 * The thread that runs the flavor's callbacks, for any object: the one a
 * callback that records pthread_self() runs on, waited for with the
 * flavor's barrier (which takes a QSBR caller offline around the wait).
 * Asked from that thread itself (from a callback, which must not wait for
 * the thread it runs on), it answers at once.
 */
struct thread_probe {
	struct quiesce_rcu_head head;
	pthread_t thread;
};

static void probe_record(struct quiesce_rcu_head *head)
{
	quiesce_container_of(head, struct thread_probe, head)->thread = pthread_self();
}

static bool on_callback_thread(struct urcu_flavor_domain *fd)
{
	char name[16];

	return pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 &&
	       strcmp(name, fd->cb_thread_name) == 0;
}

pthread_t urcu_crd_thread(struct urcu_flavor_domain *fd, struct call_rcu_data *crdp)
{
	struct thread_probe probe;

	if (on_callback_thread(fd))
		return pthread_self();
	fd->call_rcu(&probe.head, probe_record);
	/* The barrier returns after probe_record() has run, and orders its store. */
	fd->barrier();
	return probe.thread;
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
	alloc_per_cpu_locked(fd);
	if (!fd->per_cpu) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	if (cpu < 0 || cpu >= fd->nr_cpus) {
		errno = EINVAL;
		return -EINVAL;
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

/* An object for every CPU that has none yet; 0, or -errno (errno set). */
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
			ret = set_cpu_locked(fd, cpu, create_locked(fd, flags, cpu));
	}
	pthread_mutex_unlock(&fd->lock);
	return ret;
}

/*
 * Empties the per-CPU slots, waits for a grace period (a call_rcu() that
 * looked at a slot is done with it, as liburcu waits), frees the objects.
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
 * Fork hooks.  quiesce makes its own callbacks safe across fork() (its
 * pthread_atfork handlers), so these do what is left of liburcu's: hold
 * the flavor's lock across fork() so the child never copies the objects in
 * mid-update, run rculfhash's hooks, and in the child drop every object
 * but the default one (their threads do not exist there; liburcu frees
 * them the same way) along with the per-CPU array and the forking
 * thread's object.
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
	struct call_rcu_data *crdp, *next;

	pthread_mutex_unlock(&fd->lock);
	if (fd->atfork)
		fd->atfork->after_fork_child(fd->atfork->priv);
	pthread_mutex_lock(&fd->lock);
	free(fd->per_cpu);
	fd->per_cpu = NULL;
	fd->nr_cpus = 0;
	thread_crdp[fd->id] = NULL;
	for (crdp = fd->objects; crdp; crdp = next) {
		next = crdp->next;
		if (crdp != fd->default_crdp)
			free(crdp);
	}
	fd->objects = fd->default_crdp;
	if (fd->default_crdp)
		fd->default_crdp->next = NULL;
	pthread_mutex_unlock(&fd->lock);
}

/* As liburcu: the first registration stays. */
void urcu_crd_register_atfork(struct urcu_flavor_domain *fd, struct urcu_atfork *atfork)
{
	pthread_mutex_lock(&fd->lock);
	if (!fd->atfork)
		fd->atfork = atfork;
	pthread_mutex_unlock(&fd->lock);
}
