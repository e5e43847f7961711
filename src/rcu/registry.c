/*
 * registry.c - registering reader threads, on demand and at exit.
 *
 * A thread's entry lives in its own TLS, next to its reader counter, so
 * registering allocates nothing.  A pthread key destructor unregisters a
 * thread that exits while registered; it runs before the thread's TLS is
 * freed, so the registry never points into a dead thread.  Leaving the
 * registry also moves the thread's SRCU counts out of its slots (srcu.c),
 * under the lock, so that grace periods, which count under it, see them
 * in one place or the other, never both or neither.
 *
 * The mb domain (rcu_mb.c) shares the entries: registering points the
 * entry at the thread's mb counter too, which says QUIESCE_RCU_UNREGISTERED
 * (depth 0: outside any section, to a scan) until the thread's first mb
 * section registers the thread if needed and stores 0 there, taking no lock
 * (quiesce_registry_use_mb()); leaving the registry leaves both domains,
 * and sets the mb counter back to QUIESCE_RCU_UNREGISTERED so that the next
 * mb section registers again.  Taking no lock is what lets a signal
 * handler's first mb section interrupt its own thread in a scan, which
 * holds the lock: taking it there would wait for ever.
 *
 * Signal handlers.  A handler may take a section of any of these domains
 * on a thread that is registered (rcu_domain.c, "Callers that wait";
 * srcu.h), and a thread counts as registered from the end of
 * quiesce_rcu_register_thread() to the end of unregister_self().  Both run
 * with every signal blocked, so that no handler runs while they are half
 * done.  Once leaving has unlinked the entry and freed the SRCU slots, and
 * before the counters say QUIESCE_RCU_UNREGISTERED, a handler would find
 * its counters at 0 and take rcu_read_lock()'s (or the mb one's) fast path,
 * into a section that no scan sees; srcu_read_lock()'s slow path would
 * claim a slot of a thread that no count reads; and a section that a
 * handler opened and closed between the loads of a slot's locks and
 * unlocks in quiesce_srcu_move_slots() would leave the domain's count one
 * short for good.  Registering stores the counter's 0 under the lock,
 * with the link, and ends with the fence that "No reader, no barrier"
 * (rcu_domain.c) needs before the thread's first section, a handler's
 * included.  A
 * handler that ran before registering blocked signals found the thread
 * unregistered and registered it itself (taking the lock, which the thread
 * did not hold then), so registering looks again once they are blocked.
 * A signal that arrives meanwhile, the signal backend's handshake
 * included (gp_barrier_signal.c), is handled when the mask is restored: a
 * barrier waits for a thread that registers at most that long, and stops
 * waiting for one that leaves once it is unlinked.
 */
#include "rcu/registry.h"

#include <signal.h>
#include <stdio.h>

#include "common/diag.h"
#include "common/init_order.h"
#include "common/thread_exit.h"
#include "rcu/fork_handlers.h"
#include "rcu/srcu.h"

__thread struct quiesce_rcu_reader quiesce_rcu_reader_self
	__attribute__((tls_model("initial-exec"))) = { .ctr = QUIESCE_RCU_UNREGISTERED };
static __thread struct quiesce_registry_entry self_entry
	__attribute__((tls_model("initial-exec")));

pthread_mutex_t quiesce_registry_lock = PTHREAD_MUTEX_INITIALIZER;
struct quiesce_registry_entry quiesce_registry_head = {
	.next = &quiesce_registry_head, .prev = &quiesce_registry_head,
};
unsigned long quiesce_registry_count;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

void (*quiesce_test_registry_window)(void);
bool quiesce_test_busted_fork_registry;

struct quiesce_registry_entry *quiesce_registry_self(void)
{
	return &self_entry;
}

static bool self_registered(void)
{
	return quiesce_rcu_reader_self.ctr != QUIESCE_RCU_UNREGISTERED;
}

/* Blocks every signal in the calling thread; *saved gets the mask to restore. */
static void block_signals(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
}

/* Test-only: runs the hook, where registering or leaving is half done. */
static void test_window(void)
{
	void (*hook)(void) = QUIESCE_LOAD(&quiesce_test_registry_window);

	if (QUIESCE_UNLIKELY(hook != NULL))
		hook();
}

/* Leaves the registry, with every signal blocked throughout (the top of this file). */
static void unregister_self(void)
{
	sigset_t saved;

	block_signals(&saved);
	/*
	 * A thread that leaves the registry is outside any critical section,
	 * and its signal handlers too (they wait for the mask); this fence
	 * stands in for its answer to a signal-backend handshake in flight
	 * (gp_barrier_signal.c), which stops waiting for it once it is off
	 * the list.
	 */
	quiesce_fence_store_load();
	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_srcu_move_slots(quiesce_srcu_slots_self, true);
	self_entry.prev->next = self_entry.next;
	self_entry.next->prev = self_entry.prev;
	/*
	 * Release: this thread's sections happen before a grace period that
	 * reads the count without it and takes the no-reader shortcut
	 * (gp_engine.c).  Every count store is made under the lock, so the
	 * latest one is ordered after all earlier ones.
	 */
	QUIESCE_STORE_RELEASE(&quiesce_registry_count, quiesce_registry_count - 1);
	pthread_mutex_unlock(&quiesce_registry_lock);
	test_window();
	QUIESCE_STORE(&quiesce_rcu_reader_self.ctr, QUIESCE_RCU_UNREGISTERED);
	QUIESCE_STORE(&quiesce_rcu_mb_reader_self.ctr, QUIESCE_RCU_UNREGISTERED);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* Ends, with a message, a section that a thread left open at its exit. */
static bool end_open_section(unsigned long *ctr, const char *kind)
{
	char name[32] = "?";

	if (!(*ctr & QUIESCE_RCU_NEST_MASK))
		return false;
	pthread_getname_np(pthread_self(), name, sizeof(name));
	quiesce_warn("thread \"%s\" exited inside an %s read-side critical section "
		     "(nesting depth %lu); the section is ended for it",
		     name, kind, *ctr & QUIESCE_RCU_NEST_MASK);
	/* Release: as the outermost unlock would. */
	QUIESCE_STORE_RELEASE(ctr, 0UL);
	return true;
}

static void thread_exit_destructor(void *unused)
{
	bool rcu_open, mb_open;

	if (!self_registered())
		return;
	rcu_open = end_open_section(&quiesce_rcu_reader_self.ctr, "RCU");
	mb_open = end_open_section(&quiesce_rcu_mb_reader_self.ctr, "RCU-mb");
	unregister_self();
	/*
	 * A grace period of either domain may sleep waiting for the section
	 * just ended (until its stall deadline: nothing else wakes it).  No
	 * fence: a rescan takes the lock, so either it follows the unlink
	 * above and does not see this thread, or its store of the flag
	 * happens before the load here (rcu_mb.c, (d); the default domain's
	 * store precedes its barrier and rescan the same way).
	 */
	if (rcu_open)
		quiesce_rcu_wake_grace_period();
	if (mb_open)
		quiesce_rcu_mb_wake_grace_period();
}

static void create_exit_key(void)
{
	if (pthread_key_create(&exit_key, thread_exit_destructor))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
}

/* With every signal blocked (the top of this file). */
static void register_self(void)
{
	pthread_once(&exit_key_once, create_exit_key);
	quiesce_on_thread_exit(exit_key, &self_entry, "rcu_register_thread()");

	self_entry.reader = &quiesce_rcu_reader_self;
	self_entry.srcu_slots = quiesce_srcu_slots_self;
	self_entry.mb_reader = &quiesce_rcu_mb_reader_self;
	self_entry.thread = pthread_self();
	self_entry.tid = quiesce_gettid();
	/*
	 * self_entry.barrier is kept from an earlier registration: a signal
	 * the backend sent then may still be queued (a thread that blocks it),
	 * and counts as the one in flight (gp_barrier_signal.c).  A new
	 * thread's starts zeroed, and so does the child's of fork(), which
	 * has no signal pending.
	 */
	test_window();
	pthread_mutex_lock(&quiesce_registry_lock);
	self_entry.next = &quiesce_registry_head;
	self_entry.prev = quiesce_registry_head.prev;
	quiesce_registry_head.prev->next = &self_entry;
	quiesce_registry_head.prev = &self_entry;
	/* Outside any section from here on; scans, under the lock, see it with the entry. */
	QUIESCE_STORE(&quiesce_rcu_reader_self.ctr, 0UL);
	QUIESCE_STORE_RELEASE(&quiesce_registry_count, quiesce_registry_count + 1);
	pthread_mutex_unlock(&quiesce_registry_lock);
	/*
	 * Orders the count store before the loads of this thread's first
	 * section, a signal handler's included (they wait for the mask).
	 * Pairs with a grace period's sequentially consistent load of the
	 * count (rcu_domain.c and srcu.c, "No reader, no barrier").
	 */
	quiesce_fence_store_load();
}

void quiesce_rcu_register_thread(void)
{
	sigset_t saved;

	if (self_registered())
		return;
	block_signals(&saved);
	/* A signal handler that ran before the block may have registered it. */
	if (!self_registered())
		register_self();
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void quiesce_registry_use_mb(void)
{
	quiesce_rcu_register_thread();
	/*
	 * The entry points at the counter already (the top of this file).  A
	 * signal handler that ran since the check of the caller's may have
	 * stored the 0 already, and left its section: storing it again
	 * changes nothing.  No fence: this is a store outside any section, and
	 * the section that follows orders itself (rcu_mb.c, (a) and (d)).
	 */
	if (QUIESCE_LOAD(&quiesce_rcu_mb_reader_self.ctr) == QUIESCE_RCU_UNREGISTERED)
		QUIESCE_STORE(&quiesce_rcu_mb_reader_self.ctr, 0UL);
}

void quiesce_rcu_read_lock_first_use(void)
{
	unsigned long ctr = quiesce_rcu_reader_self.ctr;

	/*
	 * One more level would carry the depth into the phase: the thread
	 * would look outside any section, and grace periods would not wait
	 * for it.
	 */
	if ((ctr & QUIESCE_RCU_NEST_MASK) == QUIESCE_RCU_NEST_MASK)
		quiesce_die("rcu_read_lock() nested more than %lu deep: the section's depth "
			    "would overflow", QUIESCE_RCU_NEST_MASK);
	if (ctr == QUIESCE_RCU_WAITING || ctr == QUIESCE_RCU_LEAVING_WAIT) {
		/*
		 * A signal handler's section, in a thread that waits for a
		 * grace period or is on its way out of the wait (rcu_domain.c,
		 * "Callers that wait").  Acquire, as in rcu_read_lock().
		 */
		QUIESCE_STORE(&quiesce_rcu_reader_self.ctr,
			      QUIESCE_LOAD_ACQUIRE(&quiesce_rcu_gp_word.ctr));
		/*
		 * Orders that store before the section's loads; pairs with
		 * the fence before the poll's scan in rcu_unseen_past_flip().
		 */
		quiesce_fence_store_load();
		return;
	}
	quiesce_rcu_register_thread();
	quiesce_rcu_read_lock();
}

void quiesce_rcu_unregister_thread(void)
{
	if (!self_registered())
		return;
	if (quiesce_rcu_reader_self.ctr & QUIESCE_RCU_NEST_MASK)
		quiesce_die("rcu_unregister_thread() called inside an RCU read-side "
			    "critical section");
	if (quiesce_rcu_mb_reader_self.ctr & QUIESCE_RCU_NEST_MASK)
		quiesce_die("rcu_unregister_thread() called inside an RCU-mb read-side "
			    "critical section");
	pthread_setspecific(exit_key, NULL);
	unregister_self();
}

void quiesce_rcu_unbalanced_unlock(void)
{
	quiesce_die("rcu_read_unlock() without a matching rcu_read_lock()");
}

/*
 * fork(): the child keeps only the forking thread.  The lock is taken around
 * fork() so that the child never inherits a list in mid-update; it is held
 * for short scans only, so a fork never waits for a grace period.
 */
static void registry_prepare_fork(void)
{
	pthread_mutex_lock(&quiesce_registry_lock);
}

static void registry_parent_after_fork(void)
{
	pthread_mutex_unlock(&quiesce_registry_lock);
}

static void registry_child_after_fork(void)
{
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_fork_registry)))
		return;
	/* The other threads are gone; their open SRCU sections stay counted. */
	quiesce_registry_for_each(e)
		if (e != &self_entry)
			quiesce_srcu_move_slots(e->srcu_slots, false);
	quiesce_registry_head.next = quiesce_registry_head.prev = &quiesce_registry_head;
	quiesce_registry_count = 0;
	if (self_registered()) {
		self_entry.tid = quiesce_gettid();
		self_entry.thread = pthread_self();
		self_entry.barrier = (struct quiesce_barrier_slot){ 0 };
		self_entry.next = self_entry.prev = &quiesce_registry_head;
		quiesce_registry_head.next = quiesce_registry_head.prev = &self_entry;
		quiesce_registry_count = 1;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
}

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(registry_prepare_fork, registry_parent_after_fork,
		       registry_child_after_fork);
}

void quiesce_registry_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(REGISTRY) static void registry_init(void)
{
	quiesce_registry_fork_handlers();
}
