/*
 * urcu/futex.h (liburcu overlay) - liburcu's futex wrappers, Linux only:
 * futex() is the system call; futex_async() and futex_noasync() are the
 * same call here (liburcu's differ only in the emulation they fall back on
 * where the kernel has no futex, which Linux always has).  Each returns
 * the system call's result, -1 with errno on error.
 */
#ifndef _URCU_FUTEX_H
#define _URCU_FUTEX_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <urcu/config.h>
#include <urcu/syscall-compat.h>
#include <urcu/compiler.h>
#include <urcu/arch.h>
#include <urcu/assert.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CONFIG_RCU_HAVE_FUTEX 1
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1

static inline int futex(int32_t *uaddr, int op, int32_t val, const struct timespec *timeout,
			int32_t *uaddr2, int32_t val3)
{
	return (int)syscall(__NR_futex, uaddr, op, val, timeout, uaddr2, val3);
}

static inline int futex_noasync(int32_t *uaddr, int op, int32_t val,
				const struct timespec *timeout, int32_t *uaddr2, int32_t val3)
{
	return futex(uaddr, op, val, timeout, uaddr2, val3);
}

static inline int futex_async(int32_t *uaddr, int op, int32_t val,
			      const struct timespec *timeout, int32_t *uaddr2, int32_t val3)
{
	return futex(uaddr, op, val, timeout, uaddr2, val3);
}

#ifdef __cplusplus
}
#endif

#endif /* _URCU_FUTEX_H */
