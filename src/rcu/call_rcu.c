/*
 * call_rcu.c - queueing callbacks: one wait-free queue per thread.
 *
 * call_rcu() appends to the calling thread's own queue (call_rcu_queue.h):
 * one exchange on a cache line that only this thread and, once a batch, the
 * callback thread write.  No lock, no shared counter on the fast path: the
 * thread counts its calls privately and adds them to the shared backlog 64
 * at a time, which is also when it checks for backpressure.  Only the first
 * callback into an empty queue reads the callback thread's state, to wake it
 * (cb_domain.c explains why that suffices).  The other domains' callers
 * share one queue per domain but count the same way, in a small per-thread
 * cache (cb_call.c: "Counting").
 *
 * The callback thread (cb_domain.c: the default domain's quiesce_rcu_cb)
 * harvests every queue under queues_lock, through this file's
 * quiesce_cb_source.  A thread that exits hands what its queue still holds
 * to the orphan queue, which the next harvest takes with the rest; its TLS,
 * and so its queue, dies with it.
 *
 * Also the default domain's call_rcu API: rcu_barrier(), shutdown and
 * start_poll_synchronize_rcu(), which its callback thread serves.
 */
#include "rcu/cb_domain.h"

#include <pthread.h>

#include <quiesce/rculist.h>

#include "common/diag.h"
#include "common/init_order.h"
#include "common/thread_exit.h"
#include "rcu/cb_debug.h"
#include "rcu/cb_worker.h"
#include "rcu/fork_handlers.h"

struct cb_thread {
	struct quiesce_cb_queue queue;
	struct list_head link;		/* in cb_threads, under queues_lock */
	uint64_t queued;		/* calls; written by the owner only */
	unsigned unflushed;		/* calls not yet added to the backlog */
	bool registered;
};

static __thread struct cb_thread cb_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t queues_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(cb_threads);			/* under queues_lock */
static struct quiesce_cb_queue orphans = {	/* exited threads' callbacks */
	.tail = &orphans.head,
};
static uint64_t exited_queued;			/* calls by exited threads */

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void flush_backlog(struct cb_thread *self)
{
	__atomic_fetch_add(&quiesce_rcu_cb.backlog, (long)self->unflushed, __ATOMIC_RELAXED);
	self->unflushed = 0;
}

static void cb_thread_exit(void *unused)
{
	struct cb_thread *self = &cb_self;
	struct quiesce_rcu_head *first, *last;

	if (!self->registered)
		return;
	pthread_mutex_lock(&queues_lock);
	first = quiesce_cb_queue_take(&self->queue, &last);
	if (first)
		quiesce_cb_queue_append(&orphans, first, last);
	list_del(&self->link);
	exited_queued += self->queued;
	flush_backlog(self);
	pthread_mutex_unlock(&queues_lock);
	self->registered = false;
	/*
	 * A callback thread that is not running may be asleep since before
	 * these callbacks were queued; one that checks the queues now finds
	 * them with the orphans (queued_anywhere()), ordered by queues_lock,
	 * so a relaxed look at its state is enough.
	 */
	if (first && QUIESCE_LOAD(&quiesce_rcu_cb.state) != QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker(&quiesce_rcu_cb);
}

static void create_exit_key(void)
{
	if (pthread_key_create(&exit_key, cb_thread_exit))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
}

static QUIESCE_COLD void register_queue(struct cb_thread *self)
{
	pthread_once(&exit_key_once, create_exit_key);
	/* cb_thread_exit() runs at the thread's exit. */
	quiesce_on_thread_exit(exit_key, self, "call_rcu()");
	quiesce_cb_queue_init(&self->queue);
	self->unflushed = 0;
	pthread_mutex_lock(&queues_lock);
	list_add_tail(&self->link, &cb_threads);
	QUIESCE_STORE(&quiesce_rcu_cb.ever_used, true);
	pthread_mutex_unlock(&queues_lock);
	self->registered = true;
}

void quiesce_call_rcu(struct quiesce_rcu_head *head, void (*func)(struct quiesce_rcu_head *))
{
	struct cb_thread *self = &cb_self;

	if (QUIESCE_UNLIKELY(!func))
		quiesce_cb_null_func(head);
	if (QUIESCE_UNLIKELY(!self->registered))
		register_queue(self);
	/*
	 * Queued already and not yet taken (cb_debug.c)?  Relaxed: only this
	 * thread makes the tail name head, and the callback thread's take
	 * moves it off before the callback can run.
	 */
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&self->queue.tail) == head))
		quiesce_cb_queued_twice(head, head->func, "RCU");
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_cb_debug_on)))
		quiesce_cb_debug_queue(head, func, "RCU");
	/* Relaxed atomic: quiesce_call_rcu_get_stats() reads it. */
	QUIESCE_STORE(&self->queued, self->queued + 1);
	/*
	 * Sequentially consistent, with the append's exchange before it: the
	 * callback thread stores SLEEPING, then rechecks every queue; either
	 * it sees this callback or this load sees SLEEPING.
	 */
	if (quiesce_cb_queue_append_own(&self->queue, head, func) &&
	    QUIESCE_UNLIKELY(__atomic_load_n(&quiesce_rcu_cb.state, __ATOMIC_SEQ_CST) !=
			     QUIESCE_CB_WORKER_RUNNING))
		quiesce_cb_wake_worker(&quiesce_rcu_cb);
	if (QUIESCE_UNLIKELY(++self->unflushed == QUIESCE_CB_BACKLOG_FLUSH)) {
		long backlog;

		flush_backlog(self);
		backlog = QUIESCE_LOAD(&quiesce_rcu_cb.backlog);
		if (backlog > QUIESCE_CB_EXPEDITE_BACKLOG)
			quiesce_cb_hurry_worker(&quiesce_rcu_cb);
		if (backlog > QUIESCE_CB_THROTTLE_BACKLOG &&
		    !QUIESCE_LOAD(&quiesce_test_call_rcu_no_throttle))
			quiesce_cb_throttle(&quiesce_rcu_cb);
	}
}

static void harvest(struct quiesce_cb_domain *cbd, struct quiesce_cb_list *list)
{
	struct quiesce_rcu_head *first, *last;
	struct cb_thread *t;

	pthread_mutex_lock(&queues_lock);
	list_for_each_entry(t, &cb_threads, link) {
		first = quiesce_cb_queue_take(&t->queue, &last);
		if (first)
			quiesce_cb_list_append(list, first, last);
	}
	first = quiesce_cb_queue_take(&orphans, &last);
	if (first)
		quiesce_cb_list_append(list, first, last);
	pthread_mutex_unlock(&queues_lock);
}

static bool queued_anywhere(struct quiesce_cb_domain *cbd)
{
	struct cb_thread *t;
	bool queued = false;

	/*
	 * The orphans are looked at under queues_lock, after the threads: an
	 * exiting thread moves its queue to them under the same lock, so this
	 * sees its callbacks in one place or the other.
	 */
	pthread_mutex_lock(&queues_lock);
	list_for_each_entry(t, &cb_threads, link)
		queued |= !quiesce_cb_queue_empty(&t->queue);
	queued |= !quiesce_cb_queue_empty(&orphans);
	pthread_mutex_unlock(&queues_lock);
	return queued;
}

static const struct quiesce_cb_source per_thread_queues = {
	.harvest = harvest,
	.queued_anywhere = queued_anywhere,
};

struct quiesce_cb_domain quiesce_rcu_cb = QUIESCE_CB_DOMAIN_INIT(
	quiesce_rcu_cb, &quiesce_rcu_domain, &per_thread_queues, "quiesce-cb");

void quiesce_rcu_barrier(void)
{
	quiesce_cb_domain_barrier(&quiesce_rcu_cb, "rcu_barrier");
	if (!QUIESCE_LOAD(&quiesce_test_busted_barrier))
		quiesce_cb_workers_barrier(QUIESCE_CB_RCU, "rcu_barrier");
}

void quiesce_call_rcu_shutdown(void)
{
	quiesce_cb_domain_shutdown(&quiesce_rcu_cb, "quiesce_call_rcu_shutdown");
}

unsigned long quiesce_start_poll_synchronize_rcu(void)
{
	return quiesce_cb_domain_start_poll(&quiesce_rcu_cb);
}

void quiesce_call_rcu_get_stats(struct quiesce_rcu_stats *out)
{
	struct cb_thread *t;
	uint64_t queued;

	struct quiesce_cb_domain *cbd = &quiesce_rcu_cb;

	/*
	 * Invoked first: it never passes queued, read after it.  The load
	 * pairs with the release add in cb_domain.c's run_ready_batches().
	 */
	out->cb_invoked = __atomic_load_n(&cbd->stats.invoked, __ATOMIC_SEQ_CST);
	out->cb_batches = __atomic_load_n(&cbd->stats.batches, __ATOMIC_RELAXED);
	out->cb_expedited = __atomic_load_n(&cbd->stats.expedited, __ATOMIC_RELAXED);
	out->cb_throttled = __atomic_load_n(&cbd->stats.throttled, __ATOMIC_RELAXED);
	pthread_mutex_lock(&queues_lock);
	queued = exited_queued;
	list_for_each_entry(t, &cb_threads, link)
		queued += QUIESCE_LOAD(&t->queued);
	pthread_mutex_unlock(&queues_lock);
	out->cb_queued = queued;
	out->cb_pending = queued > out->cb_invoked ? queued - out->cb_invoked : 0;
}

/*
 * fork(): the child keeps the forking thread's queue, emptied: the parent's
 * pending callbacks, its own included, run in the parent only.  The locks are
 * held across fork() so that the child never copies a list in mid-update;
 * the forking thread, which holds them, releases them in both processes.
 */
static void cb_prepare_fork(void)
{
	quiesce_cb_domains_prepare_fork();
	pthread_mutex_lock(&queues_lock);
}

static void cb_parent_after_fork(void)
{
	pthread_mutex_unlock(&queues_lock);
	quiesce_cb_domains_parent_after_fork();
}

static void cb_child_after_fork(void)
{
	struct cb_thread *self = &cb_self;

	INIT_LIST_HEAD(&cb_threads);
	quiesce_cb_queue_init(&orphans);
	exited_queued = 0;
	quiesce_rcu_cb.ever_used = self->registered;
	if (self->registered) {
		quiesce_cb_queue_init(&self->queue);
		self->queued = 0;
		self->unflushed = 0;
		list_add_tail(&self->link, &cb_threads);
	}
	pthread_mutex_unlock(&queues_lock);
	quiesce_cb_domains_child_after_fork();
}

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(cb_prepare_fork, cb_parent_after_fork, cb_child_after_fork);
}

void quiesce_call_rcu_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(STATS_AND_CALL_RCU) static void call_rcu_init(void)
{
	quiesce_call_rcu_fork_handlers();
	quiesce_cb_exit_handler_init();
}
