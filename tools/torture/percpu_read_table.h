/*
 * percpu_read_table.h - defines the table TORTURE_PERCPU_READ_TABLE of
 * percpu_read.h over the inline read side, as compiled in the including
 * file (with or without QUIESCE_TEST_RSEQ_WINDOW_SPINS).
 */
#include "percpu_read.h"

static void wrap_down_read(struct percpu_rw_semaphore *sem)
{
	percpu_down_read(sem);
}

static bool wrap_down_read_trylock(struct percpu_rw_semaphore *sem)
{
	return percpu_down_read_trylock(sem);
}

static void wrap_up_read(struct percpu_rw_semaphore *sem)
{
	percpu_up_read(sem);
}

static void wrap_start(struct freezer *f, int level)
{
	freezer_start(f, level);
}

static bool wrap_trystart(struct freezer *f, int level)
{
	return freezer_trystart(f, level);
}

static void wrap_end(struct freezer *f, int level)
{
	freezer_end(f, level);
}

const struct torture_percpu_read TORTURE_PERCPU_READ_TABLE = {
	.down_read = wrap_down_read,
	.down_read_trylock = wrap_down_read_trylock,
	.up_read = wrap_up_read,
	.start = wrap_start,
	.trystart = wrap_trystart,
	.end = wrap_end,
};
