/*
 * cb_call.c - the callers' side of a callback domain: queueing a callback,
 * waking the domain's thread (cb_domain.c), and counting the calls into
 * the domain's backlog, which throttles callers and expedites grace
 * periods.
 *
 * Queueing: one exchange on the domain's shared wait-free queue
 * (call_rcu_queue.h).  A caller that finds the queue empty looks at the
 * thread's state and wakes or starts it unless it runs (the store-buffer
 * pattern of cb_domain.c, "Sleeping and waking").
 *
 * Counting: the backlog is the only count on the callers' path, and it is
 * approximate by design; nothing exact depends on it.  The default
 * domain's callers count per thread in call_rcu.c.  The other domains'
 * callers count in a cache of their own thread, COUNT_SLOTS slots chosen
 * by a hash of the domain's address, so a thread holds counts for a few
 * domains however many exist:
 *  - a call to the domain that holds its slot adds one to the slot, which
 *    only its thread writes; the QUIESCE_CB_BACKLOG_FLUSH-th adds them to
 *    the backlog and checks the marks;
 *  - a call to another domain takes the slot if it is free or holds no
 *    count (one compare-and-swap of the slot's domain); otherwise it adds
 *    itself directly to its domain's backlog, checking the marks whenever
 *    that add carries the backlog past a multiple of
 *    QUIESCE_CB_BACKLOG_FLUSH, so that a thread alternating between two
 *    domains of one slot is still throttled (and pays one shared add per
 *    call to the one without the slot);
 *  - the thread's exit adds what its slots hold.
 * So a thread writes a count into a domain other than the one it is
 * calling only at exit.  The hazard is memory: a slot may name a domain
 * that is then destroyed (its callbacks have run, its counts are still in
 * the slot), and the exit must not write into freed memory.  destroy()
 * frees the slots naming the domain (compare-and-swap to NULL, racing the
 * owner's own) in every thread's cache, each under that thread's lock,
 * and the exit adds what its slots hold under the same lock.  Elsewhere a
 * thread writes only into the domain it is calling, which its caller
 * guarantees exists.  Locks: counters_lock, then one thread's counter
 * lock; neither is held while taking a domain's.
 */
#include "rcu/cb_domain_internal.h"

#include <quiesce/rculist.h>

#include "common/diag.h"
#include "common/thread_exit.h"
#include "rcu/cb_debug.h"

bool quiesce_test_call_rcu_no_throttle;
bool quiesce_test_busted_cb_forget;

/* A thread's counting slots (see the top), 1 << COUNT_SLOT_BITS of them. */
#define COUNT_SLOT_BITS 2
#define COUNT_SLOTS (1u << COUNT_SLOT_BITS)

struct count_slot {
	/*
	 * NULL: free.  Set by the owner, freed by the owner at exit or by
	 * destroy(), with compare-and-swap as they may race.
	 */
	struct quiesce_cb_domain *cbd;
	unsigned calls;			/* not yet added to cbd->backlog; the owner's */
};

/* One thread's slots (relaxed atomics where destroy() reads them). */
struct cb_counter {
	struct count_slot slots[COUNT_SLOTS];
	pthread_mutex_t lock;		/* exit against destroy(): see the top */
	struct list_head link;		/* in counters, under counters_lock */
	bool registered;
};

static __thread struct cb_counter counter_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t counters_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(counters);		/* registered threads' counters */
static pthread_key_t counter_key;
static pthread_once_t counter_key_once = PTHREAD_ONCE_INIT;

static struct count_slot *slot_of(struct cb_counter *self, struct quiesce_cb_domain *cbd)
{
	/* Fibonacci hashing: the product's top bits mix every bit of the address. */
	uint64_t hash = (uint64_t)(uintptr_t)cbd * 0x9e3779b97f4a7c15u;

	return &self->slots[hash >> (64 - COUNT_SLOT_BITS)];
}

/*
 * Adds the caller's latest n calls to the backlog.  An add that carries it
 * past a multiple of QUIESCE_CB_BACKLOG_FLUSH checks the marks: every full
 * slot's does, and one in about QUIESCE_CB_BACKLOG_FLUSH of single calls.
 */
static void add_to_backlog(struct quiesce_cb_domain *cbd, long n)
{
	long backlog = __atomic_add_fetch(&cbd->backlog, n, __ATOMIC_RELAXED);

	if (QUIESCE_LIKELY(backlog <= QUIESCE_CB_EXPEDITE_BACKLOG) ||
	    backlog / QUIESCE_CB_BACKLOG_FLUSH == (backlog - n) / QUIESCE_CB_BACKLOG_FLUSH)
		return;
	quiesce_cb_hurry_worker(cbd);
	if (backlog > QUIESCE_CB_THROTTLE_BACKLOG &&
	    !QUIESCE_LOAD(&quiesce_test_call_rcu_no_throttle))
		quiesce_cb_throttle(cbd);
}

/* At thread exit: adds what every slot holds, then leaves the list. */
static void counter_exit(void *unused)
{
	struct cb_counter *self = &counter_self;

	if (!self->registered)
		return;
	pthread_mutex_lock(&self->lock);
	for (unsigned i = 0; i < COUNT_SLOTS; i++) {
		struct count_slot *slot = &self->slots[i];
		/* Under the lock: destroy() frees no slot meanwhile. */
		struct quiesce_cb_domain *cbd = QUIESCE_LOAD(&slot->cbd);

		if (cbd && slot->calls)
			__atomic_fetch_add(&cbd->backlog, (long)slot->calls, __ATOMIC_RELAXED);
		QUIESCE_STORE(&slot->cbd, NULL);
	}
	pthread_mutex_unlock(&self->lock);
	/* Its slots are free: destroy() has nothing more to look at here. */
	pthread_mutex_lock(&counters_lock);
	list_del(&self->link);
	pthread_mutex_unlock(&counters_lock);
	pthread_mutex_destroy(&self->lock);
	self->registered = false;
}

static void create_counter_key(void)
{
	if (pthread_key_create(&counter_key, counter_exit))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
}

static QUIESCE_COLD void register_counter(struct cb_counter *self)
{
	pthread_once(&counter_key_once, create_counter_key);
	/* counter_exit() runs at the thread's exit. */
	quiesce_on_thread_exit(counter_key, self, "call_rcu()");
	pthread_mutex_init(&self->lock, NULL);
	pthread_mutex_lock(&counters_lock);
	list_add_tail(&self->link, &counters);
	pthread_mutex_unlock(&counters_lock);
	self->registered = true;
}

/*
 * A call to a domain that does not hold its slot: takes the slot when it
 * is free or its domain has nothing counted there.  Returns whether it did.
 */
static QUIESCE_COLD bool take_slot(struct cb_counter *self, struct count_slot *slot,
				   struct quiesce_cb_domain *cbd)
{
	struct quiesce_cb_domain *old = QUIESCE_LOAD(&slot->cbd);

	if (!self->registered)
		register_counter(self);
	/* A free slot's count is stale: its domain was destroyed. */
	if (old && slot->calls)
		return false;
	/* Fails when destroy() freed the slot meanwhile: this call goes direct. */
	if (!__atomic_compare_exchange_n(&slot->cbd, &old, cbd, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return false;
	slot->calls = 0;
	return true;
}

void quiesce_cb_forget_counts(struct quiesce_cb_domain *cbd)
{
	struct cb_counter *c;

	if (!QUIESCE_LOAD(&cbd->ever_used) || QUIESCE_LOAD(&quiesce_test_busted_cb_forget))
		return;
	pthread_mutex_lock(&counters_lock);
	list_for_each_entry(c, &counters, link) {
		pthread_mutex_lock(&c->lock);
		for (unsigned i = 0; i < COUNT_SLOTS; i++) {
			struct quiesce_cb_domain *expected = cbd;

			__atomic_compare_exchange_n(&c->slots[i].cbd, &expected, NULL, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&counters_lock);
}

/* Counts one call in the calling thread's slot for the domain, or directly. */
static void count_call(struct quiesce_cb_domain *cbd)
{
	struct cb_counter *self = &counter_self;
	struct count_slot *slot = slot_of(self, cbd);
	unsigned calls;

	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&slot->cbd) != cbd) && !take_slot(self, slot, cbd)) {
		add_to_backlog(cbd, 1);
		return;
	}
	calls = slot->calls + 1;
	if (QUIESCE_LIKELY(calls < QUIESCE_CB_BACKLOG_FLUSH)) {
		slot->calls = calls;
		return;
	}
	slot->calls = 0;
	add_to_backlog(cbd, calls);
}

void quiesce_cb_domain_call(struct quiesce_cb_domain *cbd, struct quiesce_rcu_head *head,
			    void (*func)(struct quiesce_rcu_head *))
{
	struct quiesce_rcu_head *prev;

	if (QUIESCE_UNLIKELY(!func))
		quiesce_cb_null_func(head);
	/*
	 * On every call, not only when taking a slot: a slot may still name
	 * a domain set up again at the same address without being destroyed.
	 */
	if (QUIESCE_UNLIKELY(!QUIESCE_LOAD(&cbd->ever_used))) {
		quiesce_cb_ensure_listed(cbd);
		QUIESCE_STORE(&cbd->ever_used, true);
	}
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_cb_debug_on)))
		quiesce_cb_debug_queue(head, func, cbd->gp->ops->kind);
	head->func = func;
	prev = quiesce_cb_queue_append(&cbd->shared, head, head);
	/*
	 * head was the tail already: queued twice in a row (cb_debug.c).  Told
	 * by the exchange, not by a load of the tail before it, which would
	 * fetch the line that other callers write once more.  The loop just
	 * linked dies with the process, long before a grace period lets the
	 * callback thread follow it.
	 */
	if (QUIESCE_UNLIKELY(prev == head))
		quiesce_cb_queued_twice(head, NULL, cbd->gp->ops->kind);
	/*
	 * Sequentially consistent, with the append's exchange before it: the
	 * callback thread stores SLEEPING, then rechecks the queue; either it
	 * sees this callback or this load sees SLEEPING.
	 */
	if (prev == &cbd->shared.head &&
	    __atomic_load_n(&cbd->state, __ATOMIC_SEQ_CST) != QUIESCE_CB_WORKER_RUNNING)
		quiesce_cb_wake_worker(cbd);
	count_call(cbd);
}

void quiesce_cb_null_func(struct quiesce_rcu_head *head)
{
	quiesce_die("call_rcu(%p, NULL): a callback function is required "
		    "(free_rcu() frees without one)", (void *)head);
}

/*
 * fork() (cb_lifecycle.c takes these after the list of domains): in the
 * child only the forking thread's counter remains, and it held no lock.
 */
void quiesce_cb_counters_prepare_fork(void)
{
	pthread_mutex_lock(&counters_lock);
}

void quiesce_cb_counters_parent_after_fork(void)
{
	pthread_mutex_unlock(&counters_lock);
}

void quiesce_cb_counters_child_after_fork(void)
{
	struct cb_counter *self = &counter_self;

	INIT_LIST_HEAD(&counters);
	if (self->registered) {
		/* The backlogs restart at 0: the counts were the parent's. */
		for (unsigned i = 0; i < COUNT_SLOTS; i++)
			self->slots[i].calls = 0;
		pthread_mutex_init(&self->lock, NULL);
		list_add_tail(&self->link, &counters);
	}
	pthread_mutex_unlock(&counters_lock);
}
