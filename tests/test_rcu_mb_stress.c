/*
 * mb domain readers (include/quiesce/rcu_mb.h) dereference a shared
 * object inside their sections while updaters replace it and retire the
 * old one after an mb grace period: synchronize (normal or expedited), a
 * polled cookie, or call_rcu_mb (tests/domain_stress.h).  Sections nest
 * now and then, and one reader leaves the registry now and then and
 * registers again on its next section.  The busted control (grace periods
 * that wait for no reader) must be caught.  That the domain needs no heavy
 * barrier is test_rcu_mb_api's to check.
 */
#include <stdlib.h>

#include <quiesce/rcu_mb.h>

#include "domain_stress.h"
#include "rcu/rcu_mb.h"

static bool read_section(struct domain_stress_elem **slot, unsigned spin, unsigned *seed)
{
	struct domain_stress_elem *e;
	bool intact;

	rcu_mb_read_lock();
	e = rcu_dereference(*slot);
	if (rand_r(seed) % 4 == 0) {
		/* A nested section must not end the protection early. */
		rcu_mb_read_lock();
		rcu_mb_read_unlock();
	}
	for (unsigned i = 0; i < spin; i++)
		quiesce_cpu_relax();
	intact = check_record_intact(&e->rec);
	rcu_mb_read_unlock();
	return intact;
}

/* Reader 1 leaves the registry now and then. */
static void after_read(uintptr_t reader, unsigned *seed)
{
	if (reader == 1 && rand_r(seed) % 256 == 0)
		rcu_mb_unregister_thread();
}

static void retire(struct domain_stress_elem *old, unsigned long seq)
{
	switch (seq % 4) {
	case 0:
		call_rcu_mb(&old->head, domain_stress_callback);
		return;
	case 1: {
		unsigned long cookie = get_state_synchronize_rcu_mb();

		while (!poll_state_synchronize_rcu_mb(cookie))
			cond_synchronize_rcu_mb(cookie);
		break;
	}
	case 2:
		synchronize_rcu_mb_expedited();
		break;
	default:
		synchronize_rcu_mb();
		break;
	}
	domain_stress_quarantine(old);
}

int main(void)
{
	static const struct domain_stress mb = {
		.name = "mb",
		.read = read_section,
		.after_read = after_read,
		.retire = retire,
		.barrier = rcu_barrier_mb,
		.busted = &quiesce_test_busted_rcu_mb,
	};

	return domain_stress_main(&mb);
}
