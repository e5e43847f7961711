/* futex.h - the two futex operations the library sleeps and wakes with. */
#ifndef QUIESCE_FUTEX_H
#define QUIESCE_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Sleeps while *word == expected, at most timeout_ns (0: no limit).
 * Returns on a wake-up, a changed word, a signal or the timeout: callers
 * always recheck their condition.
 */
static inline void quiesce_futex_wait(int *word, int expected, uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u),
			       (long)(timeout_ns % 1000000000u) };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected,
		timeout_ns ? &ts : NULL, NULL, 0);
}

static inline void quiesce_futex_wake_one(int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void quiesce_futex_wake_all(int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

#endif
