/*
 * percpu_read_table.h - defines the table TORTURE_PERCPU_READ_TABLE of
 * percpu_read.h over the inline read side, as compiled in the including
 * file (with or without QUIESCE_TEST_RSEQ_WINDOW_SPINS).
 */
#include "percpu_read.h"

static void down_read(struct percpu_rw_semaphore *sem)
{
	percpu_down_read(sem);
}

static bool down_read_trylock(struct percpu_rw_semaphore *sem)
{
	return percpu_down_read_trylock(sem);
}

static void up_read(struct percpu_rw_semaphore *sem)
{
	percpu_up_read(sem);
}

static void start(struct freezer *f, int level)
{
	freezer_start(f, level);
}

static bool trystart(struct freezer *f, int level)
{
	return freezer_trystart(f, level);
}

static void end(struct freezer *f, int level)
{
	freezer_end(f, level);
}

const struct torture_percpu_read TORTURE_PERCPU_READ_TABLE = {
	.down_read = down_read,
	.down_read_trylock = down_read_trylock,
	.up_read = up_read,
	.start = start,
	.trystart = trystart,
	.end = end,
};
