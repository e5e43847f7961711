/*
 * test_rwsem_misuse: every misuse the rw_semaphore detects aborts with a
 * message that names it, in a forked child.
 */
#include <pthread.h>

#include <quiesce/rwsem.h>

#include "check.h"

static void up_read_unlocked(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	up_read(&sem);
}

static void up_read_twice(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_read(&sem);
	up_read(&sem);
	up_read(&sem);
}

static void up_write_unlocked(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	up_write(&sem);
}

static void up_write_on_read_hold(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_read(&sem);
	up_write(&sem);
}

static void up_read_on_write_hold(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	up_read(&sem);
}

static void recursive_down_write(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	down_write(&sem);
}

static void recursive_down_write_timeout(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	if (down_write_timeout(&sem, 1000000) == 0)
		up_write(&sem);
}

static void down_read_under_write(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	down_read(&sem);
}

static void downgrade_unlocked(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	downgrade_write(&sem);
}

static void *release_foreign_write(void *arg)
{
	up_write(arg);
	return NULL;
}

static void up_write_by_other_thread(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	pthread_t tid;

	down_write(&sem);
	pthread_create(&tid, NULL, release_foreign_write, &sem);
	pthread_join(tid, NULL);
}

int main(void)
{
	check_child_aborts(up_read_unlocked, NULL, "up_read() on an rw_semaphore that is not read-locked");
	check_child_aborts(up_read_twice, NULL, "up_read() on an rw_semaphore that is not read-locked");
	check_child_aborts(up_write_unlocked, NULL, "up_write() on an rw_semaphore that is not locked");
	check_child_aborts(up_write_on_read_hold, NULL, "read-locked: use up_read()");
	check_child_aborts(up_read_on_write_hold, NULL, "holds for writing: use up_write()");
	check_child_aborts(recursive_down_write, NULL, "recursive write locking");
	check_child_aborts(recursive_down_write_timeout, NULL, "recursive write locking");
	check_child_aborts(down_read_under_write, NULL, "it would wait for itself");
	check_child_aborts(downgrade_unlocked, NULL, "downgrade_write() on an rw_semaphore that is not write-locked");
	check_child_aborts(up_write_by_other_thread, NULL, "does not hold the write lock");
	printf("rwsem misuse: ok\n");
	return 0;
}
