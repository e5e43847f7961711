/*
 * defer.c - headless deferral (include/quiesce/defer.h): per-thread blocks
 * of (fn, p) entries, one callback of the domain's call_rcu() per block.
 *
 * One engine for the three domains that have callbacks (the default one,
 * mb, QSBR): a domain is a row of `domains` below (its call_rcu, barrier,
 * synchronize), and each thread has one slot per row.
 *
 * Blocks.  A slot holds the thread's partial block, or none.  A call locks
 * the slot, appends (fn, p) and unlocks; the call that fills the block
 * takes it out of the slot and hands it to the domain's call_rcu(), which
 * runs the entries in order (run_block()) after a grace period that
 * started after the last of them was deferred.  So the cost per call is
 * one uncontended exchange and a few stores (liburcu's defer_rcu() pays a
 * full fence), and per block one malloc() and one call_rcu().
 *
 * The slot lock.  A spin lock, taken by the owner on every call and by
 * others only to take the block out (the flusher, a barrier).  No
 * holder blocks or calls out while holding it, so a waiter spins for a
 * few instructions; it yields in case the holder was preempted.
 *
 * Where a deferred entry can be: in its thread's slot, in the owner's
 * hands between taking a full block out and its call_rcu() returning
 * (the slot's `handing` flag says so), in the hands of the flusher or of
 * an exiting thread between taking a block and handing it over (both
 * under registry_lock), queued on the domain's callbacks, or run.
 *
 * Barriers.  quiesce_defer_barrier() takes registry_lock (so no flusher
 * or exiting thread is between taking and handing a block), then takes
 * every thread's block of the domain and hands it over, waits for any
 * owner whose `handing` is set (the owner clears it, a release, once its
 * call_rcu() returned), and then waits for the domain's rcu_barrier().  An
 * entry deferred before the barrier is, when the barrier locks that slot,
 * in the slot (taken), handed (the owner's flag, set under the slot lock,
 * is seen) or already queued, so the domain's barrier waits for it.
 *
 * The flusher (who wakes whom).  A thread that goes idle must not hold a
 * partial block for ever.  The "quiesce-defer" thread sweeps every slot:
 * a block it has seen in its previous sweep (mark `seen`) is taken and
 * handed over, others are marked.  While partial blocks exist it sweeps
 * every FLUSH_NS, so a block is handed over within 2 * FLUSH_NS of its
 * first entry (plus scheduling), and then runs after the domain's
 * callback delay.  With no partial block anywhere it stores IDLE, sweeps
 * once more and sleeps on the futex flusher_state until woken.  A thread
 * that starts a block (installs it under its slot lock) then loads
 * flusher_state and, unless RUNNING, wakes the flusher (IDLE) or starts it
 * (ABSENT).  Either the flusher's last sweep locked that slot after the
 * owner unlocked it and saw the block, or the owner locked it after the
 * sweep unlocked it and its load (acquire, after its lock) sees the IDLE
 * stored before the sweep.  A thread that registers after the sweep read
 * the thread list is ordered the same way by registry_lock.
 *
 * Backpressure.  A block is one callback for the domain's own throttling,
 * so the engine counts deferred entries not yet run (pending_entries,
 * approximate: relaxed adds and subtractions).  Past THROTTLE_ENTRIES, the
 * owner that just handed a full block over sleeps until the count falls
 * back or for at most THROTTLE_MAX_WAIT_NS (it polls; nothing wakes it
 * early), unless it is itself running deferred entries.  With no memory
 * for a block, the caller waits for a grace period and runs fn(p) itself,
 * liburcu's full-queue path.  Both waits are why the default and mb calls
 * may not be made inside a read-side section of their domain (checked on
 * every call), and why a QSBR call is a quiescent state: it waits offline.
 *
 * Thread exit (a pthread key) takes the thread's blocks out and hands them
 * over under registry_lock, then leaves the list.  At exit() blocks still
 * partial are not run, as liburcu's queues; the flusher is not stopped.
 *
 * fork(): the atfork handlers are registered at first use, after those of
 * call_rcu.c (init_order.h; first_use() registers the library's others
 * first when a program's constructor comes before them), so that ours run
 * first in the parent (before call_rcu's take
 * the domains' locks that a flusher in call_rcu() under registry_lock may
 * need) and last in the child.  The child keeps the forking thread on the
 * list with empty slots (its blocks are freed unrun: they run in the
 * parent), forgets the other threads and has no flusher.
 */
#include <quiesce/defer.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/rculist.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/futex.h"
#include "common/lib_thread.h"
#include "common/thread_exit.h"
#include "rcu/cb_domain.h"
#include "rcu/defer.h"
#include "rcu/fork_handlers.h"
#include "rcu/qsbr.h"
#include "rcu/rcu_mb.h"

/* A block is a 32-byte header and 254 entries: 4 KiB on 64-bit. */
#define BLOCK_ENTRIES 254
/* The flusher's sweep period (see the top). */
#define FLUSH_NS 10000000u
/* Deferred entries not yet run past which an owner waits a little. */
#define THROTTLE_ENTRIES (1L << 20)
#define THROTTLE_MAX_WAIT_NS 20000000u
#define THROTTLE_POLL_NS 100000u

bool quiesce_test_busted_defer;

enum { DEFER_RCU, DEFER_MB, DEFER_QSBR, NR_DEFER_DOMAINS };

static const struct defer_domain {
	void (*call_rcu)(struct quiesce_rcu_head *head, void (*func)(struct quiesce_rcu_head *));
	void (*barrier)(void);
	void (*synchronize)(void);
	bool qsbr;		/* waits offline when the caller is online */
	struct quiesce_cb_domain *cb;	/* whose thread runs the deferred functions */
} domains[NR_DEFER_DOMAINS] = {
	[DEFER_RCU] = { quiesce_call_rcu, quiesce_rcu_barrier, quiesce_synchronize_rcu, false,
			&quiesce_rcu_cb },
	[DEFER_MB] = { quiesce_call_rcu_mb, quiesce_rcu_barrier_mb, quiesce_synchronize_rcu_mb,
		       false, &quiesce_rcu_mb_cb },
	[DEFER_QSBR] = { quiesce_qsbr_call_rcu, quiesce_qsbr_barrier,
			 quiesce_qsbr_synchronize_rcu, true, &quiesce_qsbr_cb },
};

struct defer_block {
	struct quiesce_rcu_head head;	/* the domain's callback */
	struct defer_block *next_taken;	/* on a sweeper's list of taken blocks */
	unsigned short n;		/* entries; under the slot lock until handed over */
	unsigned char domain;
	bool seen;			/* the flusher's mark, under the slot lock */
	struct {
		void (*fn)(void *p);
		void *p;
	} entry[BLOCK_ENTRIES];
};

struct defer_slot {
	int lock;			/* spin lock: 1 held */
	bool handing;			/* the owner hands a full block over */
	struct defer_block *block;	/* under lock */
};

struct defer_thread {
	struct defer_slot slots[NR_DEFER_DOMAINS];
	struct list_head link;		/* in threads, under registry_lock */
	bool registered;
};

static __thread struct defer_thread defer_self __attribute__((tls_model("initial-exec")));
/* Whether this thread runs deferred entries now (run_block()). */
static __thread bool running_deferred __attribute__((tls_model("initial-exec")));

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(threads);			/* under registry_lock */
static long pending_entries;			/* handed over, not yet run */

enum { FLUSHER_ABSENT, FLUSHER_RUNNING, FLUSHER_IDLE };
static int flusher_state;			/* futex */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_key_t exit_key;
static pthread_once_t first_use_once = PTHREAD_ONCE_INIT;

static QUIESCE_COLD void slot_lock_contended(struct defer_slot *s)
{
	unsigned spins = 0;

	/* Acquire: as in slot_lock(). */
	while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) {
		/* Ended by the holder's slot_unlock(), a few instructions away. */
		while (QUIESCE_LOAD(&s->lock)) {
			if (++spins % 64 == 0)
				sched_yield();
			else
				quiesce_cpu_relax();
		}
	}
}

static inline void slot_lock(struct defer_slot *s)
{
	/* Acquire: pairs with slot_unlock()'s release; the block is as left. */
	if (QUIESCE_UNLIKELY(__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)))
		slot_lock_contended(s);
}

static void slot_unlock(struct defer_slot *s)
{
	QUIESCE_STORE_RELEASE(&s->lock, 0);
}

/* Takes the slot's block out, if any. */
static struct defer_block *slot_take(struct defer_slot *s)
{
	struct defer_block *b;

	slot_lock(s);
	b = s->block;
	s->block = NULL;
	slot_unlock(s);
	return b;
}

/* The domain's callback: runs the block's entries in order, then frees it. */
static void run_block(struct quiesce_rcu_head *head)
{
	struct defer_block *b = quiesce_container_of(head, struct defer_block, head);
	bool was_running = running_deferred;
	unsigned n = b->n;

	running_deferred = true;
	for (unsigned i = 0; i < n; i++)
		b->entry[i].fn(b->entry[i].p);
	running_deferred = was_running;
	__atomic_sub_fetch(&pending_entries, (long)n, __ATOMIC_RELAXED);
	free(b);
}

static void queue_block(struct defer_block *b)
{
	__atomic_add_fetch(&pending_entries, (long)b->n, __ATOMIC_RELAXED);
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_defer))) {
		run_block(&b->head);
		return;
	}
	domains[b->domain].call_rcu(&b->head, run_block);
}

/* Takes a QSBR caller offline for a wait; returns whether it did. */
static bool wait_offline(const struct defer_domain *dd)
{
	if (!dd->qsbr || !quiesce_qsbr_thread_online_p())
		return false;
	quiesce_qsbr_thread_offline();
	return true;
}

static void wait_done(bool was_online)
{
	if (was_online)
		quiesce_qsbr_thread_online();
}

static QUIESCE_COLD void throttle(const struct defer_domain *dd)
{
	uint64_t deadline = quiesce_now_ns() + THROTTLE_MAX_WAIT_NS;
	struct timespec poll = { 0, THROTTLE_POLL_NS };
	/* nanosleep() is a cancellation point; the thread comes back online (cancel.h). */
	int cancel = quiesce_cancel_off();
	bool was_online = wait_offline(dd);

	/* Nothing wakes it: it looks again every THROTTLE_POLL_NS. */
	while (QUIESCE_LOAD(&pending_entries) > THROTTLE_ENTRIES && quiesce_now_ns() < deadline)
		nanosleep(&poll, NULL);
	wait_done(was_online);
	quiesce_cancel_restore(cancel);
}

/* The owner hands its full block over (out of the slot, handing set). */
static QUIESCE_COLD void hand_over_full(struct defer_slot *s, struct defer_block *b)
{
	const struct defer_domain *dd = &domains[b->domain];

	queue_block(b);
	/* Release: pairs with wait_handed()'s acquire; the block is queued. */
	QUIESCE_STORE_RELEASE(&s->handing, false);
	if (QUIESCE_LOAD(&pending_entries) > THROTTLE_ENTRIES && !running_deferred)
		throttle(dd);
}

static void wait_handed(struct defer_slot *s)
{
	/* Cleared by the owner once its call_rcu() returned (hand_over_full()). */
	while (QUIESCE_LOAD_ACQUIRE(&s->handing))
		sched_yield();
}

/* Hands over blocks the flusher or an exiting thread took (registry_lock). */
static void hand_over_taken(struct defer_block *taken)
{
	while (taken) {
		struct defer_block *next = taken->next_taken;

		queue_block(taken);
		taken = next;
	}
}

/*
 * One sweep of the flusher: hands over the blocks marked by the previous
 * sweep, marks the others; returns whether any partial block is left.
 */
static bool flush_stale(void)
{
	struct defer_block *taken = NULL;
	struct defer_thread *t;
	bool left = false;

	pthread_mutex_lock(&registry_lock);
	list_for_each_entry(t, &threads, link) {
		for (unsigned d = 0; d < NR_DEFER_DOMAINS; d++) {
			struct defer_slot *s = &t->slots[d];
			struct defer_block *b;

			slot_lock(s);
			b = s->block;
			if (b && b->seen) {
				s->block = NULL;
				b->next_taken = taken;
				taken = b;
			} else if (b) {
				b->seen = true;
				left = true;
			}
			slot_unlock(s);
		}
	}
	hand_over_taken(taken);
	pthread_mutex_unlock(&registry_lock);
	return left;
}

static void *flusher_main(void *unused)
{
	struct timespec period = { 0, FLUSH_NS };

	(void)unused;
	for (;;) {
		if (!flush_stale()) {
			int idle = FLUSHER_IDLE;

			/* Sequentially consistent; the order argument is at the top. */
			__atomic_store_n(&flusher_state, FLUSHER_IDLE, __ATOMIC_SEQ_CST);
			if (!flush_stale()) {
				/* Woken by a thread that starts a block (wake_flusher()). */
				while (QUIESCE_LOAD(&flusher_state) == FLUSHER_IDLE)
					quiesce_futex_wait(&flusher_state, FLUSHER_IDLE, 0);
				continue;
			}
			/* A block appeared: RUNNING again, unless its owner did it. */
			__atomic_compare_exchange_n(&flusher_state, &idle, FLUSHER_RUNNING, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
		}
		/* Sleeps one period: nothing wakes it early. */
		nanosleep(&period, NULL);
	}
	return NULL;
}

static QUIESCE_COLD void wake_flusher(void)
{
	int idle = FLUSHER_IDLE;

	if (__atomic_compare_exchange_n(&flusher_state, &idle, FLUSHER_RUNNING, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		quiesce_futex_wake_one(&flusher_state);
		return;
	}
	if (idle != FLUSHER_ABSENT)
		return;
	pthread_mutex_lock(&start_lock);
	if (QUIESCE_LOAD(&flusher_state) == FLUSHER_ABSENT) {
		QUIESCE_STORE(&flusher_state, FLUSHER_RUNNING);
		quiesce_lib_thread_start(flusher_main, NULL, true, -1, "quiesce-defer",
					 "the defer_rcu flushing thread");
	}
	pthread_mutex_unlock(&start_lock);
}

static void defer_thread_exit(void *unused)
{
	struct defer_thread *self = &defer_self;
	struct defer_block *taken = NULL;

	(void)unused;
	if (!self->registered)
		return;
	pthread_mutex_lock(&registry_lock);
	for (unsigned d = 0; d < NR_DEFER_DOMAINS; d++) {
		struct defer_block *b = slot_take(&self->slots[d]);

		if (b) {
			b->next_taken = taken;
			taken = b;
		}
	}
	hand_over_taken(taken);
	list_del(&self->link);
	pthread_mutex_unlock(&registry_lock);
	self->registered = false;
}

static void prepare_fork(void)
{
	pthread_mutex_lock(&start_lock);
	pthread_mutex_lock(&registry_lock);
}

static void parent_after_fork(void)
{
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_unlock(&start_lock);
}

static void child_after_fork(void)
{
	struct defer_thread *self = &defer_self;

	INIT_LIST_HEAD(&threads);
	if (self->registered) {
		for (unsigned d = 0; d < NR_DEFER_DOMAINS; d++) {
			/* The parent's entries: they run in the parent. */
			free(self->slots[d].block);
			self->slots[d].block = NULL;
		}
		list_add_tail(&self->link, &threads);
	}
	QUIESCE_STORE(&pending_entries, 0);
	QUIESCE_STORE(&flusher_state, FLUSHER_ABSENT);
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_unlock(&start_lock);
}

static void first_use(void)
{
	if (pthread_key_create(&exit_key, defer_thread_exit))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
	/* After the library's others, even when a program's constructor gets here first. */
	quiesce_fork_handlers_in_order();
	pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
}

static QUIESCE_COLD void register_thread(struct defer_thread *self)
{
	pthread_once(&first_use_once, first_use);
	/* defer_thread_exit() runs at the thread's exit. */
	quiesce_on_thread_exit(exit_key, self, "defer_rcu()");
	pthread_mutex_lock(&registry_lock);
	list_add_tail(&self->link, &threads);
	pthread_mutex_unlock(&registry_lock);
	self->registered = true;
}

/* The slot has no block: a new one, or fn(p) after a grace period. */
static QUIESCE_COLD void start_block(unsigned d, void (*fn)(void *p), void *p)
{
	struct defer_thread *self = &defer_self;
	struct defer_slot *s = &self->slots[d];
	struct defer_block *b;

	if (!self->registered)
		register_thread(self);
	b = malloc(sizeof(*b));
	if (!b) {
		bool was_online = wait_offline(&domains[d]);

		domains[d].synchronize();
		wait_done(was_online);
		fn(p);
		return;
	}
	b->n = 1;
	b->domain = (unsigned char)d;
	b->seen = false;
	b->entry[0].fn = fn;
	b->entry[0].p = p;
	/* Only the owner installs a block: the slot is still empty. */
	slot_lock(s);
	s->block = b;
	slot_unlock(s);
	/* Acquire, after the slot lock: the order argument is at the top. */
	if (QUIESCE_LOAD_ACQUIRE(&flusher_state) != FLUSHER_RUNNING)
		wake_flusher();
}

static inline void defer_on(unsigned d, const char *call, void (*fn)(void *p), void *p)
{
	struct defer_slot *s = &defer_self.slots[d];
	struct defer_block *b, *full = NULL;

	if (QUIESCE_UNLIKELY(!fn))
		quiesce_die("%s(NULL, %p): no function to defer", call, p);
	slot_lock(s);
	b = s->block;
	if (QUIESCE_UNLIKELY(!b)) {
		slot_unlock(s);
		start_block(d, fn, p);
		return;
	}
	b->entry[b->n].fn = fn;
	b->entry[b->n].p = p;
	if (QUIESCE_UNLIKELY(++b->n == BLOCK_ENTRIES)) {
		s->block = NULL;
		/* Atomic: wait_handed() reads it outside the lock; the unlock publishes it. */
		QUIESCE_STORE(&s->handing, true);
		full = b;
	}
	slot_unlock(s);
	if (full)
		hand_over_full(s, full);
}

static void defer_barrier_on(unsigned d, const char *call)
{
	struct defer_thread *t;

	/*
	 * The domain's barrier would die there, in its own name: say which
	 * call the program made.
	 */
	if (quiesce_cb_domain_on_worker(domains[d].cb))
		quiesce_die("%s() called on the domain's callback thread (from a deferred "
			    "function or a callback): it would wait for itself", call);
	pthread_mutex_lock(&registry_lock);
	list_for_each_entry(t, &threads, link) {
		struct defer_block *b = slot_take(&t->slots[d]);

		if (b)
			queue_block(b);
		wait_handed(&t->slots[d]);
	}
	pthread_mutex_unlock(&registry_lock);
	domains[d].barrier();
}

static QUIESCE_COLD QUIESCE_NORETURN void inside_reader(const char *call, const char *kind)
{
	quiesce_die("%s() called inside a read-side critical section of %s: "
		    "it may wait for a grace period, which would wait for itself", call, kind);
}

void quiesce_defer_rcu(void (*fn)(void *p), void *p)
{
	if (QUIESCE_UNLIKELY(quiesce_rcu_read_ongoing()))
		inside_reader("quiesce_defer_rcu", "RCU");
	defer_on(DEFER_RCU, "quiesce_defer_rcu", fn, p);
}

void quiesce_defer_barrier(void)
{
	if (quiesce_rcu_read_ongoing())
		inside_reader("quiesce_defer_barrier", "RCU");
	defer_barrier_on(DEFER_RCU, "quiesce_defer_barrier");
}

void quiesce_defer_rcu_mb(void (*fn)(void *p), void *p)
{
	if (QUIESCE_UNLIKELY(quiesce_rcu_mb_read_ongoing()))
		inside_reader("quiesce_defer_rcu_mb", "the mb domain");
	defer_on(DEFER_MB, "quiesce_defer_rcu_mb", fn, p);
}

void quiesce_defer_barrier_mb(void)
{
	if (quiesce_rcu_mb_read_ongoing())
		inside_reader("quiesce_defer_barrier_mb", "the mb domain");
	defer_barrier_on(DEFER_MB, "quiesce_defer_barrier_mb");
}

void quiesce_qsbr_defer_rcu(void (*fn)(void *p), void *p)
{
	defer_on(DEFER_QSBR, "quiesce_qsbr_defer_rcu", fn, p);
}

void quiesce_qsbr_defer_barrier(void)
{
	if (quiesce_qsbr_thread_online_p())
		quiesce_die("quiesce_qsbr_defer_barrier() called by an online QSBR thread: "
			    "it would wait for itself (go offline first)");
	defer_barrier_on(DEFER_QSBR, "quiesce_qsbr_defer_barrier");
}
