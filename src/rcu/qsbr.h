/*
 * qsbr.h - the QSBR domain's parts (qsbr.c, qsbr_registry.c) for each
 * other and for the tests.
 */
#ifndef QUIESCE_QSBR_INTERNAL_H
#define QUIESCE_QSBR_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include <quiesce/rcu_qsbr.h>

#include "rcu/cb_domain.h"
#include "rcu/gp_engine.h"

/* A registered QSBR thread; lives in the thread's own TLS. */
struct quiesce_qsbr_entry {
	struct quiesce_qsbr_entry *next, *prev;
	struct quiesce_qsbr_reader *reader;	/* the thread's counter */
	pthread_t thread;
	int tid;
};

/*
 * Held for short scans and for linking and unlinking only, never while
 * sleeping, so that threads can register and exit while a grace period
 * waits.
 */
extern pthread_mutex_t quiesce_qsbr_registry_lock;
extern struct quiesce_qsbr_entry quiesce_qsbr_registry_head;

#define quiesce_qsbr_for_each(e)                                                \
	for (struct quiesce_qsbr_entry *e = quiesce_qsbr_registry_head.next;    \
	     e != &quiesce_qsbr_registry_head; e = e->next)

extern struct quiesce_gp_domain quiesce_qsbr_domain;
extern struct quiesce_cb_domain quiesce_qsbr_cb;

/*
 * For a thread that stopped holding grace periods up (its counter went
 * offline, announced, or it left the registry): wakes a grace period
 * asleep on it.  See "Sleeping" in qsbr.c.
 */
void quiesce_qsbr_wake_grace_period(void);

/* Dies with a message naming call when the calling thread is online. */
void quiesce_qsbr_forbid_online(const char *call);
/*
 * Once callbacks of the domain exist (its own or a worker's): exit() takes
 * the exiting thread offline before the callback threads' last wait.
 */
void quiesce_qsbr_install_exit_hook(void);

/* Test-only: grace periods that do not wait for the first thread holding them ("busted"). */
extern bool quiesce_test_busted_qsbr;
/*
 * Test-only: when set, called by a thread that leaves the registry between
 * the unlink and its counter's QUIESCE_QSBR_UNREGISTERED: where no signal
 * handler may run (qsbr_registry.c).
 */
extern void (*quiesce_test_qsbr_registry_window)(void);

#endif
