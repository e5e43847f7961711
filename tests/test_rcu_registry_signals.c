/*
 * A signal handler that takes a read-side section on a thread that is
 * registering or leaving the registry.  The thread counts as registered
 * until its counter says unregistered, and a section that a handler takes
 * on a registered thread must hold up every grace period of its domain.
 * For each domain that shares the registry (default, mb, SRCU) and for
 * QSBR, a thread registers, unregisters or exits while registered, and
 * the library's test hook (quiesce_test_registry_window,
 * quiesce_test_qsbr_registry_window) raises SIGUSR1 in it where that is
 * half done: the entry not linked yet, or unlinked and the counter not yet
 * unregistered.  The handler runs there, or, with signals blocked there,
 * later.  If it finds its thread registered (QSBR: online), it enters a
 * section of the domain and holds it until the main thread's grace period
 * either returns, which fails the test (the section was not waited for),
 * or is reported as a stall on a reader, which proves that it waits for
 * the section, and the handler leaves.  A handler that finds its thread
 * unregistered may take no section, and the case ends there.  The hook,
 * not timing, places the signal, so each case goes the same way each run.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>
#include <quiesce/srcu.h>

#include "check.h"
#include "rcu/qsbr.h"
#include "rcu/registry.h"

#define STALL_TIMEOUT_MS 50

enum domain { RCU, MB, SRCU, QSBR };
enum action { REGISTER, UNREGISTER, EXIT };

struct test_case {
	enum domain domain;
	enum action action;
	const char *name;
};

static const struct test_case cases[] = {
	{ RCU, REGISTER, "rcu register" },
	{ RCU, UNREGISTER, "rcu unregister" },
	{ RCU, EXIT, "rcu exit" },
	{ MB, REGISTER, "mb register" },
	{ MB, UNREGISTER, "mb unregister" },
	{ MB, EXIT, "mb exit" },
	{ SRCU, REGISTER, "srcu register" },
	{ SRCU, UNREGISTER, "srcu unregister" },
	{ SRCU, EXIT, "srcu exit" },
	{ QSBR, UNREGISTER, "qsbr unregister" },
	{ QSBR, EXIT, "qsbr exit" },
};

/* What the handler found. */
enum outcome { NOT_YET, UNREGISTERED, IN_SECTION };
/* Whether the grace period waited for the handler's section. */
enum verdict { PENDING, WAITED, MISSED };

static struct srcu_struct ss;
static const struct test_case *current_case;	/* written before the thread starts */
static atomic_int outcome, verdict;
static _Thread_local bool armed;

static void on_stall(const struct quiesce_rcu_stall *stall)
{
	int pending = PENDING;

	if (stall->phase == QUIESCE_RCU_STALL_READER ||
	    stall->phase == QUIESCE_RCU_STALL_QSBR_ONLINE)
		atomic_compare_exchange_strong(&verdict, &pending, WAITED);
}

/* Holds the handler's section until the grace period has been judged. */
static void hold_section(void)
{
	uint64_t hang = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u;

	atomic_store(&outcome, IN_SECTION);
	while (atomic_load(&verdict) == PENDING) {
		CHECK(check_now_ns() < hang, "%s: the handler's section was never judged",
		      current_case->name);
		check_sleep_us(100);
	}
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	int idx;

	(void)sig;
	if (current_case->domain == QSBR ? !rcu_qsbr_thread_online_p()
					 : quiesce_rcu_reader_self.ctr == QUIESCE_RCU_UNREGISTERED) {
		atomic_store(&outcome, UNREGISTERED);
		errno = saved_errno;
		return;
	}
	switch (current_case->domain) {
	case RCU:
		rcu_read_lock();
		hold_section();
		rcu_read_unlock();
		break;
	case MB:
		rcu_mb_read_lock();
		hold_section();
		rcu_mb_read_unlock();
		break;
	case SRCU:
		idx = srcu_read_lock(&ss);
		hold_section();
		srcu_read_unlock(&ss, idx);
		break;
	case QSBR:
		/* Online: protected until the thread's next quiescent state. */
		rcu_qsbr_read_lock();
		hold_section();
		rcu_qsbr_read_unlock();
		break;
	}
	errno = saved_errno;
}

/* The library's hook: where registering or leaving is half done. */
static void raise_in_window(void)
{
	if (!armed)
		return;
	armed = false;
	raise(SIGUSR1);
}

static void srcu_section(void)
{
	srcu_read_unlock(&ss, srcu_read_lock(&ss));
}

static void register_with(enum domain d)
{
	switch (d) {
	case RCU:
		rcu_register_thread();
		break;
	case MB:
		rcu_mb_register_thread();
		break;
	case SRCU:
		/* The first section registers the thread and claims its slot. */
		srcu_section();
		break;
	case QSBR:
		rcu_qsbr_register_thread();
		break;
	}
}

static void unregister_from(enum domain d)
{
	if (d == QSBR)
		rcu_qsbr_unregister_thread();
	else
		rcu_unregister_thread();
}

static void *case_thread(void *arg)
{
	const struct test_case *c = arg;

	if (c->action != REGISTER)
		register_with(c->domain);
	armed = true;
	if (c->action == REGISTER)
		register_with(c->domain);
	else if (c->action == UNREGISTER)
		unregister_from(c->domain);
	/* EXIT: the thread-exit destructor leaves the registry. */
	return NULL;
}

static bool handler_ran(void *unused)
{
	(void)unused;
	return atomic_load(&outcome) != NOT_YET;
}

static void synchronize(enum domain d)
{
	switch (d) {
	case RCU:
		synchronize_rcu();
		break;
	case MB:
		synchronize_rcu_mb();
		break;
	case SRCU:
		synchronize_srcu(&ss);
		break;
	case QSBR:
		rcu_qsbr_synchronize_rcu();
		break;
	}
}

static void run_case(const struct test_case *c)
{
	int pending = PENDING;
	pthread_t t;

	current_case = c;
	atomic_store(&outcome, NOT_YET);
	atomic_store(&verdict, PENDING);
	pthread_create(&t, NULL, case_thread, (void *)c);
	check_wait_until(handler_ran, NULL, "the signal raised by the hook was never handled");
	if (atomic_load(&outcome) == IN_SECTION) {
		synchronize(c->domain);
		/* Lets the handler go if no stall report did. */
		atomic_compare_exchange_strong(&verdict, &pending, MISSED);
		CHECK(pending == WAITED,
		      "%s: the grace period ended while a signal handler on a thread that "
		      "counts as registered held a read-side section", c->name);
	}
	pthread_join(t, NULL);
	/* Once registering is done the thread is registered: the section was taken. */
	CHECK(c->action != REGISTER || atomic_load(&outcome) == IN_SECTION,
	      "%s: the handler found its thread unregistered", c->name);
	fprintf(stderr, "%s: %s\n", c->name,
		atomic_load(&outcome) == IN_SECTION ? "handler's section waited for"
						    : "handler ran once the thread had left");
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	/* Set up now, so that no handler's first section allocates. */
	init_srcu_struct(&ss);
	quiesce_rcu_set_stall_timeout_ms(STALL_TIMEOUT_MS);
	quiesce_rcu_set_stall_handler(on_stall);
	quiesce_test_registry_window = raise_in_window;
	quiesce_test_qsbr_registry_window = raise_in_window;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	quiesce_test_registry_window = NULL;
	quiesce_test_qsbr_registry_window = NULL;
	cleanup_srcu_struct(&ss);
	return 0;
}
