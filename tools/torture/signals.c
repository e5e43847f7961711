/*
 * signals.c - the signals fault: SIGUSR1 to random readers, and writers of
 * the types that ask for it (signal_writers).  Where the type allows one,
 * the handler runs a read-side operation of its own (RCU read-side sections
 * nest, and may be entered from a signal handler, also one that interrupts
 * a wait for a grace period).
 * Where holders may sleep, it sleeps briefly instead: the reader stops at
 * a random point of its fast path, as preemption would stop it, but far
 * more often.  Sleeping holders see their sleeps cut short and must resume
 * them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "faults.h"
#include "torture.h"

#define SIGNAL_GAP_NS_MIN 50000u
#define SIGNAL_GAP_NS_SPAN 450000u
#define PREEMPT_NS_MIN 20000u
#define PREEMPT_NS_SPAN 180000u

static void on_signal(int sig)
{
	struct torture_thread *t = torture_self;
	int saved_errno = errno;

	/* Delivered: the evidence that the fault happened (evidence.c). */
	if (t)
		QUIESCE_STORE(&t->signals_handled, t->signals_handled + 1);
	/* signal_ready is written by this very thread: a plain load will do. */
	if (t && QUIESCE_LOAD(&t->signal_ready)) {
		const struct torture_type *type = t->run->type;
		uint64_t n = t->signal_ops + 1;

		QUIESCE_STORE(&t->signal_ops, n);
		if (type->signal_read)
			type->signal_read(t);
		else
			/* The thread's random state belongs to the interrupted code. */
			torture_sleep_ns(PREEMPT_NS_MIN + (n * 0x9e3779b97f4a7c15ULL >> 40) %
								  PREEMPT_NS_SPAN);
	}
	errno = saved_errno;
}

void torture_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		perror("quiesce-torture: sigaction(SIGUSR1)");
}

void *torture_signals_main(void *arg)
{
	struct torture_thread *self = arg;
	struct torture_run *run = self->run;

	bool writers = run->type->signal_writers;
	unsigned readers = run->opt->readers, targets = readers + (writers ? run->opt->writers : 0);

	pthread_setname_np(pthread_self(), self->name);
	/* Writers stop at writers_stop; this thread then too, if it names them. */
	while (!(writers ? QUIESCE_LOAD(&run->writers_stop) : torture_stopping(run))) {
		unsigned i = (unsigned)(torture_random(self) % targets);
		struct torture_thread *t = i < readers ? &run->readers[i] : &run->writers[i - readers];

		/* Its targets are joined only after this thread: the target lives. */
		if (!pthread_kill(t->thread, SIGUSR1))
			__atomic_fetch_add(&run->signals_sent, 1, __ATOMIC_RELAXED);
		torture_sleep_ns(SIGNAL_GAP_NS_MIN + torture_random(self) % SIGNAL_GAP_NS_SPAN);
	}
	return NULL;
}
