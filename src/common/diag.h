/* diag.h - how the library reports misuse and reads its settings. */
#ifndef QUIESCE_DIAG_H
#define QUIESCE_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include <quiesce/compiler.h>

/* Prints "quiesce: <message>" with the calling thread's id, then aborts. */
QUIESCE_COLD QUIESCE_NORETURN void quiesce_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Prints "quiesce: <message>" on stderr and goes on. */
QUIESCE_COLD void quiesce_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's kernel id. */
int quiesce_gettid(void);

/* Monotonic time in nanoseconds. */
uint64_t quiesce_now_ns(void);

/* An environment variable read as a boolean ("1", "yes", "on") or number. */
bool quiesce_env_flag(const char *name);
bool quiesce_env_u64(const char *name, uint64_t *out);

#endif
