/*
 * rwsem_queue_lock.h - the lock that guards an rw_semaphore's wait queue.
 *
 * Held for a few list operations at a time, but its holder may be
 * preempted, so a waiter spins briefly and then sleeps on the word itself
 * (the three-state futex mutex of Drepper's "Futexes Are Tricky"):
 * 0 free, 1 held, 2 held and someone may sleep on it.
 */
#ifndef QUIESCE_RWSEM_QUEUE_LOCK_H
#define QUIESCE_RWSEM_QUEUE_LOCK_H

#include <stdbool.h>

#include <quiesce/compiler.h>

void quiesce_rwsem_queue_lock_slow(int *word);
void quiesce_rwsem_queue_unlock_wake(int *word);

static inline void quiesce_rwsem_queue_lock(int *word)
{
	int free_word = 0;

	/* Acquire: pairs with the release in quiesce_rwsem_queue_unlock(). */
	if (!__atomic_compare_exchange_n(word, &free_word, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		quiesce_rwsem_queue_lock_slow(word);
}

static inline void quiesce_rwsem_queue_unlock(int *word)
{
	/* Release: the queue changes are visible to the next holder. */
	if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2)
		quiesce_rwsem_queue_unlock_wake(word);
}

#endif
