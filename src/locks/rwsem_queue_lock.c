#include "locks/rwsem_queue_lock.h"

#include "common/futex.h"

/* Reads of a held lock before sleeping: about a microsecond. */
#define QUEUE_LOCK_SPINS 100

void quiesce_rwsem_queue_lock_slow(int *word)
{
	int seen;

	for (int i = 0; i < QUEUE_LOCK_SPINS; i++) {
		quiesce_cpu_relax();
		seen = QUIESCE_LOAD(word);
		/* Acquire: as in quiesce_rwsem_queue_lock(). */
		if (seen == 0 && __atomic_compare_exchange_n(word, &seen, 1, false,
							     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (seen == 2)
			break;
	}
	/*
	 * Marks the lock contended before each sleep, so that its holder's
	 * unlock wakes one sleeper; the exchange that finds it free takes it
	 * (still marked contended: another sleeper may remain).  Woken by
	 * quiesce_rwsem_queue_unlock_wake().
	 */
	while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0)
		quiesce_futex_wait(word, 2, 0);
}

void quiesce_rwsem_queue_unlock_wake(int *word)
{
	quiesce_futex_wake_one(word);
}
