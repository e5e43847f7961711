/*
 * QSBR readers traverse a protected object, announce quiescent states and
 * go offline around short sleeps, while updaters replace the object and
 * retire the old one after a QSBR grace period: synchronize, a polled
 * cookie, or call_rcu (tests/domain_stress.h).  One updater is a QSBR
 * thread, offline while it updates.  The busted control (grace periods
 * that do not wait for one of the threads holding them) must be caught.
 * Run on the signal backend too (tests/qsbr.cmake), whose barrier does not
 * reach QSBR threads: their grace periods must not need it.
 */
#include <stdlib.h>

#include <quiesce/rcu_qsbr.h>

#include "domain_stress.h"
#include "rcu/qsbr.h"

static void reader_start(uintptr_t reader)
{
	(void)reader;
	rcu_qsbr_register_thread();
}

static void reader_end(uintptr_t reader)
{
	(void)reader;
	rcu_qsbr_unregister_thread();
}

static void updater_start(uintptr_t updater)
{
	if (updater == 1) {
		rcu_qsbr_register_thread();
		rcu_qsbr_thread_offline();
	}
}

static void updater_end(uintptr_t updater)
{
	if (updater == 1)
		rcu_qsbr_unregister_thread();
}

static bool read_section(struct domain_stress_elem **slot, unsigned spin, unsigned *seed)
{
	struct domain_stress_elem *e;
	bool intact;

	(void)seed;
	rcu_qsbr_read_lock();
	e = rcu_dereference(*slot);
	for (unsigned i = 0; i < spin; i++)
		quiesce_cpu_relax();
	intact = check_record_intact(&e->rec);
	rcu_qsbr_read_unlock();
	return intact;
}

static void after_read(uintptr_t reader, unsigned *seed)
{
	(void)reader;
	/* Now and then several sections between two quiescent states. */
	if (rand_r(seed) % 3)
		rcu_qsbr_quiescent_state();
	if (rand_r(seed) % 64 == 0)
		rcu_qsbr_offline_while(check_sleep_us(rand_r(seed) % 200));
}

static void retire(struct domain_stress_elem *old, unsigned long seq)
{
	switch (seq % 4) {
	case 0:
		rcu_qsbr_call_rcu(&old->head, domain_stress_callback);
		return;
	case 1: {
		unsigned long cookie = rcu_qsbr_get_state_synchronize_rcu();

		while (!rcu_qsbr_poll_state_synchronize_rcu(cookie))
			rcu_qsbr_synchronize_rcu();
		break;
	}
	default:
		rcu_qsbr_synchronize_rcu();
		break;
	}
	domain_stress_quarantine(old);
}

int main(void)
{
	static const struct domain_stress qsbr = {
		.name = "qsbr",
		.reader_start = reader_start,
		.reader_end = reader_end,
		.updater_start = updater_start,
		.updater_end = updater_end,
		.read = read_section,
		.after_read = after_read,
		.retire = retire,
		.barrier = rcu_qsbr_barrier,
		.busted = &quiesce_test_busted_qsbr,
	};

	return domain_stress_main(&qsbr);
}
