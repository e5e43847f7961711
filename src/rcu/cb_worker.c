/*
 * cb_worker.c - callback workers (<quiesce/call_rcu_worker.h>): callback
 * domains of their own on a flavor's grace-period domain; and the thread of
 * each flavor's own callback domain, which that header names.
 *
 * A worker is a struct quiesce_cb_domain (cb_domain.c) that queues on its
 * shared queue and whose thread may be pinned to one CPU; whatever a
 * flavor's own callback thread does (batches behind shared grace periods,
 * gathering, expediting, throttling its callers, exit, fork), a worker does
 * the same way, through the same code.
 *
 * The flavor's barrier waits for every worker's callbacks too.  Workers are
 * on one list, oldest first, each numbered at creation.  A barrier walks it
 * a worker at a time: under workers_lock it finds the oldest worker of its
 * flavor numbered past the last one it waited for and counts itself among
 * that worker's users; then, without the lock, waits for the worker's
 * callbacks and drops its use.  A worker made during the walk is numbered
 * past every one already listed, so the walk reaches each worker that
 * existed when it began, unless it was destroyed meanwhile (and a destroy
 * runs its callbacks first).  No lock is held across a wait, so callbacks
 * may make and destroy other workers while a barrier waits for them.
 * destroy() unlinks its worker, then sleeps on workers_cond until no
 * barrier uses it; a barrier that drops the last use wakes it.
 *
 * fork(): workers_lock is held across it.  In the child the parent's
 * barriers have no thread, so the use counts restart at 0; each worker's
 * domain is reset by cb_lifecycle.c (no thread, no callbacks).
 */
#include "rcu/cb_worker.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/init_order.h"
#include "rcu/cb_domain.h"
#include "rcu/fork_handlers.h"
#include "rcu/gp_engine.h"
#include "rcu/qsbr.h"
#include "rcu/rcu_mb.h"

struct quiesce_call_rcu_worker {
	struct quiesce_cb_domain cb;
	enum quiesce_cb_flavor flavor;
	unsigned long number;			/* creation order, for the walk */
	unsigned users;				/* barriers waiting for it: workers_lock */
	struct quiesce_call_rcu_worker *next;	/* workers_lock */
	char thread_name[16];
};

static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t workers_cond = PTHREAD_COND_INITIALIZER;	/* a last use dropped */
static struct quiesce_call_rcu_worker *workers, **workers_tail = &workers;
static unsigned long workers_made;

/*
 * The callbacks of a flavor's own call_rcu(), which no worker runs; their
 * grace-period domain is the flavor's, its workers' too.
 */
static struct quiesce_cb_domain *flavor_callbacks(enum quiesce_cb_flavor flavor)
{
	switch (flavor) {
	case QUIESCE_CB_RCU:
		return &quiesce_rcu_cb;
	case QUIESCE_CB_RCU_MB:
		return &quiesce_rcu_mb_cb;
	case QUIESCE_CB_QSBR:
		return &quiesce_qsbr_cb;
	}
	return NULL;
}

pthread_t quiesce_call_rcu_thread(enum quiesce_cb_flavor flavor)
{
	struct quiesce_cb_domain *cbd = flavor_callbacks(flavor);

	if (!cbd)
		quiesce_die("quiesce_call_rcu_thread(%d): not a callback flavor", (int)flavor);
	return quiesce_cb_domain_thread(cbd);
}

struct quiesce_call_rcu_worker *quiesce_call_rcu_worker_create(enum quiesce_cb_flavor flavor,
							       int cpu)
{
	struct quiesce_cb_domain *own = flavor_callbacks(flavor);
	struct quiesce_gp_domain *gp = own ? own->gp : NULL;
	struct quiesce_call_rcu_worker *w;

	if (!gp || cpu < -1 || cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	if (cpu >= 0)
		snprintf(w->thread_name, sizeof(w->thread_name), "quiesce-cb/%d", cpu);
	else
		snprintf(w->thread_name, sizeof(w->thread_name), "quiesce-cbw");
	quiesce_cb_domain_init(&w->cb, gp, w->thread_name);
	w->cb.cpu = cpu;
	w->flavor = flavor;
	if (flavor == QUIESCE_CB_QSBR)
		quiesce_qsbr_install_exit_hook();
	pthread_mutex_lock(&workers_lock);
	w->number = ++workers_made;
	*workers_tail = w;
	workers_tail = &w->next;
	pthread_mutex_unlock(&workers_lock);
	return w;
}

void quiesce_call_rcu_on(struct quiesce_call_rcu_worker *w, struct quiesce_rcu_head *head,
			 void (*func)(struct quiesce_rcu_head *head))
{
	quiesce_cb_domain_call(&w->cb, head, func);
}

/* Waits for w's callbacks; dies where that would wait forever. */
static void wait_for_worker(struct quiesce_call_rcu_worker *w, const char *call)
{
	if (w->flavor == QUIESCE_CB_QSBR)
		quiesce_qsbr_forbid_online(call);
	else
		quiesce_gp_forbid_inside_reader(w->cb.gp, call);
	quiesce_cb_domain_barrier(&w->cb, call);
}

void quiesce_call_rcu_worker_barrier(struct quiesce_call_rcu_worker *w)
{
	wait_for_worker(w, "quiesce_call_rcu_worker_barrier");
}

pthread_t quiesce_call_rcu_worker_thread(struct quiesce_call_rcu_worker *w)
{
	return quiesce_cb_domain_thread(&w->cb);
}

void quiesce_cb_workers_barrier(enum quiesce_cb_flavor flavor, const char *call)
{
	unsigned long done = 0;
	struct quiesce_call_rcu_worker *w;

	for (;;) {
		pthread_mutex_lock(&workers_lock);
		for (w = workers; w && (w->number <= done || w->flavor != flavor); w = w->next)
			;
		if (w)
			w->users++;
		pthread_mutex_unlock(&workers_lock);
		if (!w)
			return;
		quiesce_cb_domain_barrier(&w->cb, call);
		done = w->number;
		pthread_mutex_lock(&workers_lock);
		if (!--w->users)
			pthread_cond_broadcast(&workers_cond);
		pthread_mutex_unlock(&workers_lock);
	}
}

/*
 * Called with workers_lock held: the link that points to w, found without
 * reading w; dies when w is not on the list (destroyed already, or never
 * created).
 */
static struct quiesce_call_rcu_worker **live_worker(struct quiesce_call_rcu_worker *w)
{
	struct quiesce_call_rcu_worker **p;

	for (p = &workers; *p && *p != w; p = &(*p)->next)
		;
	if (!*p)
		quiesce_die("quiesce_call_rcu_worker_destroy(%p): not a live worker (destroyed "
			    "already?)", (void *)w);
	return p;
}

void quiesce_call_rcu_worker_destroy(struct quiesce_call_rcu_worker *w)
{
	struct quiesce_call_rcu_worker **p;
	int cancel;

	if (!w)
		return;
	/* Before w is read: a worker destroyed already is freed memory. */
	pthread_mutex_lock(&workers_lock);
	(void)live_worker(w);
	pthread_mutex_unlock(&workers_lock);
	if (quiesce_cb_domain_pending(&w->cb))
		wait_for_worker(w, "quiesce_call_rcu_worker_destroy");
	pthread_mutex_lock(&workers_lock);
	p = live_worker(w);	/* again: the list may have changed meanwhile */
	*p = w->next;
	if (workers_tail == &w->next)
		workers_tail = p;
	cancel = quiesce_cancel_off();	/* w is off the list: finish (cancel.h) */
	/* Woken by the barrier that drops the last use of w. */
	while (w->users)
		pthread_cond_wait(&workers_cond, &workers_lock);
	pthread_mutex_unlock(&workers_lock);
	quiesce_cancel_restore(cancel);
	/* Dies if a call was queued after the wait above. */
	quiesce_cb_domain_destroy(&w->cb);
	free(w);
}

static void workers_prepare_fork(void)
{
	pthread_mutex_lock(&workers_lock);
}

static void workers_parent_after_fork(void)
{
	pthread_mutex_unlock(&workers_lock);
}

/* The forking thread, the child's only one, holds workers_lock. */
static void workers_child_after_fork(void)
{
	for (struct quiesce_call_rcu_worker *w = workers; w; w = w->next)
		w->users = 0;
	pthread_cond_init(&workers_cond, NULL);
	pthread_mutex_unlock(&workers_lock);
}

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(workers_prepare_fork, workers_parent_after_fork, workers_child_after_fork);
}

void quiesce_cb_workers_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(CB_WORKER) static void cb_worker_init(void)
{
	quiesce_cb_workers_fork_handlers();
}
