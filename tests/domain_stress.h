/*
 * domain_stress.h - the stress that the flavor domains' tests share (mb,
 * QSBR): readers dereference one shared element inside their sections while
 * updaters replace it and retire the old one after one of the domain's
 * grace periods (a callback, a polled cookie, synchronize, ...: the domain
 * picks by the update's sequence number).  A retired element is poisoned
 * and kept in quarantine (check_quarantine()) for a while before it is
 * freed, so that a reader that still holds it sees the poison and counts a
 * violation.  Then the domain's busted control (grace periods that wait for
 * no reader) runs in a child, which must be caught.
 *
 * A test names its domain's calls in a struct domain_stress and returns
 * domain_stress_main() from main().  What stays in the test is what differs
 * between domains: how a thread takes part (registers, goes offline), what
 * a reader does between sections, and the ways of retiring.
 */
#ifndef QUIESCE_TEST_DOMAIN_STRESS_H
#define QUIESCE_TEST_DOMAIN_STRESS_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/rcu.h>

#include "check.h"

struct domain_stress_elem {
	struct check_record rec;
	struct rcu_head head;
};

struct domain_stress {
	/* Names the readers' threads ("<name>-reader") and the reports. */
	const char *name;
	/*
	 * Reader or updater thread i (from 1), before its first step and after
	 * its last; NULL for nothing.
	 */
	void (*reader_start)(uintptr_t i);
	void (*reader_end)(uintptr_t i);
	void (*updater_start)(uintptr_t i);
	void (*updater_end)(uintptr_t i);
	/*
	 * One read-side section: loads *slot with rcu_dereference(), relaxes
	 * spin times inside, and returns check_record_intact() of what it
	 * loaded.  seed is the reader's, for rand_r().
	 */
	bool (*read)(struct domain_stress_elem **slot, unsigned spin, unsigned *seed);
	/* Reader i's step after each section (quiescent states, ...); NULL for none. */
	void (*after_read)(uintptr_t i, unsigned *seed);
	/*
	 * Retires old, replaced by update number seq, in the way seq selects:
	 * through the domain's call_rcu() with domain_stress_callback(), or
	 * after a grace period the caller waits for, by
	 * domain_stress_quarantine().
	 */
	void (*retire)(struct domain_stress_elem *old, unsigned long seq);
	/* Waits for the callbacks queued by retire(). */
	void (*barrier)(void);
	/* The domain's busted control, set in the child. */
	bool *busted;
};

/* The callback retire() queues; counts the callbacks run. */
void domain_stress_callback(struct rcu_head *head);
/* Quarantines an element whose grace period has ended. */
void domain_stress_quarantine(struct domain_stress_elem *e);

/*
 * Runs the stress, at least 1.5 s and until readers and updaters made
 * progress, then the busted control in a child; fails the test if a reader
 * saw a retired element, no callback ran, or the control went unnoticed.
 * Returns 0.
 */
int domain_stress_main(const struct domain_stress *d);

#endif
