/*
 * A thread whose exit the library cannot arrange to see ends the process
 * with a message (src/common/thread_exit.h), instead of leaving its state
 * linked into lists that other threads walk after it exits.
 *
 * The test defines pthread_setspecific(), which the library's calls reach
 * before the C library's, and makes it fail with ENOMEM (glibc's failure
 * for a key past its first block) when `failing` is set; otherwise it
 * hands the call on.  Each case, in a child, sets `failing` and makes a
 * thread's first call of one part of the library: registering with the
 * default RCU or with QSBR, a first call_rcu(), a first defer_rcu().  The
 * child must abort with the message.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <quiesce/defer.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_qsbr.h>

#include "check.h"

#define MESSAGE "cannot arrange to unlink this thread at its exit"

static bool failing;

int pthread_setspecific(pthread_key_t key, const void *value)
{
	static int (*real)(pthread_key_t, const void *);

	if (failing && value)
		return ENOMEM;
	if (!real)
		real = (int (*)(pthread_key_t, const void *))dlsym(RTLD_NEXT, "pthread_setspecific");
	return real(key, value);
}

static void callback(struct rcu_head *head)
{
	free(head);
}

static void register_rcu(void *unused)
{
	(void)unused;
	failing = true;
	rcu_register_thread();
}

static void register_qsbr(void *unused)
{
	(void)unused;
	failing = true;
	quiesce_qsbr_register_thread();
}

static void first_call_rcu(void *unused)
{
	(void)unused;
	failing = true;
	call_rcu(malloc(sizeof(struct rcu_head)), callback);
}

static void first_defer_rcu(void *unused)
{
	(void)unused;
	failing = true;
	quiesce_defer_rcu(free, malloc(16));
}

int main(void)
{
	check_child_aborts(register_rcu, NULL, "rcu_register_thread(): " MESSAGE);
	check_child_aborts(register_qsbr, NULL, "quiesce_qsbr_register_thread(): " MESSAGE);
	check_child_aborts(first_call_rcu, NULL, "call_rcu(): " MESSAGE);
	check_child_aborts(first_defer_rcu, NULL, "defer_rcu(): " MESSAGE);
	printf("thread-exit keys: all checks passed\n");
	return 0;
}
