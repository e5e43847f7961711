/*
 * qsbr_registry.c - the QSBR domain's threads: registering, unregistering,
 * at thread exit and across fork().
 *
 * A thread's entry lives in its own TLS, beside its counter, so
 * registering allocates nothing.  A pthread key destructor unregisters a
 * thread that exits while registered, online or not, before its TLS is
 * freed: the registry never points into a dead thread, and no grace
 * period waits for one.  The ordering of (un)registration against grace
 * periods is (d) at the top of qsbr.c.
 *
 * Signal handlers.  A handler that reads on an online thread is protected
 * as the thread is (quiesce-torture's do, after a look at
 * quiesce_qsbr_thread_online_p()).  Leaving runs with every signal
 * blocked: between the unlink and the counter's QUIESCE_QSBR_UNREGISTERED,
 * a handler would find the thread online while no grace period waits for
 * it.  Registering needs no such care: the counter goes online under the
 * lock, with the link, so a handler that runs in between, after the
 * counter store, follows every scan that missed the entry (the lock), as
 * the thread's own first section does in (d).
 */
#include "rcu/qsbr.h"

#include <signal.h>

#include "common/diag.h"
#include "common/init_order.h"
#include "common/thread_exit.h"
#include "rcu/fork_handlers.h"

__thread struct quiesce_qsbr_reader quiesce_qsbr_reader_self
	__attribute__((tls_model("initial-exec"))) = { .ctr = QUIESCE_QSBR_UNREGISTERED };
static __thread struct quiesce_qsbr_entry self_entry __attribute__((tls_model("initial-exec")));

pthread_mutex_t quiesce_qsbr_registry_lock = PTHREAD_MUTEX_INITIALIZER;
struct quiesce_qsbr_entry quiesce_qsbr_registry_head = {
	.next = &quiesce_qsbr_registry_head, .prev = &quiesce_qsbr_registry_head,
};

static pthread_key_t exit_key;
static pthread_once_t first_registration = PTHREAD_ONCE_INIT;

void (*quiesce_test_qsbr_registry_window)(void);

static bool self_registered(void)
{
	return quiesce_qsbr_reader_self.ctr != QUIESCE_QSBR_UNREGISTERED;
}

/* Leaves the registry, with every signal blocked throughout (the top of this file). */
static void unregister_self(void)
{
	void (*hook)(void) = QUIESCE_LOAD(&quiesce_test_qsbr_registry_window);
	sigset_t all, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_mutex_lock(&quiesce_qsbr_registry_lock);
	self_entry.prev->next = self_entry.next;
	self_entry.next->prev = self_entry.prev;
	pthread_mutex_unlock(&quiesce_qsbr_registry_lock);
	if (QUIESCE_UNLIKELY(hook != NULL))
		hook();	/* test-only */
	QUIESCE_STORE(&quiesce_qsbr_reader_self.ctr, QUIESCE_QSBR_UNREGISTERED);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	/*
	 * A grace period that saw us in its last scan took the lock before
	 * we did, after storing writer_sleeping: we see the flag.
	 */
	quiesce_qsbr_wake_grace_period();
}

static void thread_exit_destructor(void *unused)
{
	(void)unused;
	if (!self_registered())
		return;
	if (quiesce_qsbr_reader_self.nesting) {
		char name[32] = "?";

		pthread_getname_np(pthread_self(), name, sizeof(name));
		quiesce_warn("thread \"%s\" exited inside a QSBR read-side critical section "
			     "(nesting depth %lu); it is unregistered",
			     name, quiesce_qsbr_reader_self.nesting);
		quiesce_qsbr_reader_self.nesting = 0;
	}
	unregister_self();
}

static void init_once(void)
{
	if (pthread_key_create(&exit_key, thread_exit_destructor))
		quiesce_die("pthread_key_create failed: cannot track thread exits");
}

void quiesce_qsbr_register_thread(void)
{
	if (self_registered())
		quiesce_die("quiesce_qsbr_register_thread() called by a thread already registered");
	pthread_once(&first_registration, init_once);
	quiesce_on_thread_exit(exit_key, &self_entry, "quiesce_qsbr_register_thread()");
	self_entry.reader = &quiesce_qsbr_reader_self;
	self_entry.thread = pthread_self();
	self_entry.tid = quiesce_gettid();
	pthread_mutex_lock(&quiesce_qsbr_registry_lock);
	/*
	 * Online, under the lock: a scan sees the counter with the entry.
	 * Acquire: pairs with start()'s release, as (a) in qsbr.c.
	 */
	QUIESCE_STORE(&quiesce_qsbr_reader_self.ctr,
		      QUIESCE_LOAD_ACQUIRE(&quiesce_qsbr_gp_word.phase));
	self_entry.next = &quiesce_qsbr_registry_head;
	self_entry.prev = quiesce_qsbr_registry_head.prev;
	quiesce_qsbr_registry_head.prev->next = &self_entry;
	quiesce_qsbr_registry_head.prev = &self_entry;
	pthread_mutex_unlock(&quiesce_qsbr_registry_lock);
}

void quiesce_qsbr_unregister_thread(void)
{
	if (!self_registered())
		quiesce_die("quiesce_qsbr_unregister_thread() called by a thread not registered "
			    "with QSBR");
	if (quiesce_qsbr_reader_self.nesting)
		quiesce_die("quiesce_qsbr_unregister_thread() called inside a QSBR read-side "
			    "critical section");
	pthread_setspecific(exit_key, NULL);
	unregister_self();
}

/*
 * fork(): the child keeps only the forking thread, online or offline as it
 * was.  The lock is held around fork() so that the child never inherits a
 * list in mid-update.
 */
static void registry_prepare_fork(void)
{
	pthread_mutex_lock(&quiesce_qsbr_registry_lock);
}

static void registry_parent_after_fork(void)
{
	pthread_mutex_unlock(&quiesce_qsbr_registry_lock);
}

static void registry_child_after_fork(void)
{
	struct quiesce_qsbr_entry *head = &quiesce_qsbr_registry_head;

	head->next = head->prev = head;
	if (self_registered()) {
		self_entry.tid = quiesce_gettid();
		self_entry.thread = pthread_self();
		self_entry.next = self_entry.prev = head;
		head->next = head->prev = &self_entry;
	}
	pthread_mutex_unlock(&quiesce_qsbr_registry_lock);
}

static pthread_once_t fork_handlers_registered = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
	pthread_atfork(registry_prepare_fork, registry_parent_after_fork,
		       registry_child_after_fork);
}

void quiesce_qsbr_registry_fork_handlers(void)
{
	pthread_once(&fork_handlers_registered, register_fork_handlers);
}

QUIESCE_CONSTRUCTOR(QSBR_REGISTRY) static void qsbr_registry_init(void)
{
	quiesce_qsbr_registry_fork_handlers();
}
