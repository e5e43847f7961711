/*
 * test_rwsem_misuse: every misuse the rw_semaphore detects aborts with a
 * message that names it, in a forked child; one it cannot detect (a holder
 * that never releases) is reported by its waiters after the stall timeout.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>
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

/*
 * The holder's count overwritten (here by a store, in the torture's busted
 * control by a second writer's release): releasing would wrap the count,
 * leaving a lock that looks held by nobody forever.
 */
static void up_write_on_lost_count(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	__atomic_store_n(&sem.count, 0, __ATOMIC_RELAXED);
	up_write(&sem);
}

static void downgrade_on_lost_count(void *arg)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;

	down_write(&sem);
	__atomic_store_n(&sem.count, 0, __ATOMIC_RELAXED);
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

/*
 * up_read() with no read hold while another thread holds the write lock and
 * a reader is on its way in (its bias in the count, spinning for the writer
 * to leave): the release must not take that reader's bias as its own.
 */
static struct rw_semaphore foreign_sem = RWSEM_INITIALIZER;
static atomic_bool foreign_write_held;

static void *hold_write_forever(void *unused)
{
	down_write(&foreign_sem);
	atomic_store(&foreign_write_held, true);
	for (;;)
		check_sleep_us(1000000);
	return NULL;
}

static void *read_with_zero_timeout(void *unused)
{
	for (;;)
		if (down_read_timeout(&foreign_sem, 0) == 0)
			up_read(&foreign_sem);
	return NULL;
}

static void up_read_beside_arriving_reader(void *arg)
{
	uint64_t give_up = check_now_ns() + 1000000000u;
	pthread_t writer, reader;

	pthread_create(&writer, NULL, hold_write_forever, NULL);
	while (!atomic_load(&foreign_write_held))
		check_sleep_us(100);
	pthread_create(&reader, NULL, read_with_zero_timeout, NULL);
	while (!(QUIESCE_LOAD(&foreign_sem.count) >> QUIESCE_RWSEM_READER_SHIFT) &&
	       check_now_ns() < give_up)
		;
	up_read(&foreign_sem);
}

/*
 * A holder that never releases (a down without its up; or a thread that
 * exited holding the lock, whose thread pointer a later thread may reuse,
 * which the owner checks would take for its own): its waiters wait for
 * ever, which they report on stderr after the stall timeout.  In a child,
 * which leaves them waiting; the parent reads its stderr.  One waiter per
 * child: the count of reports cannot tell whose they are, and a waiter
 * reports again 200 ms after its first, before a second waiter that
 * started late has reported once.
 */
static struct rw_semaphore orphan_sem = RWSEM_INITIALIZER;
static atomic_bool holding;

/* Takes orphan_sem for writing (arg non-NULL) or reading, and keeps it. */
static void *hold_and_stay(void *write)
{
	if (write)
		down_write(&orphan_sem);
	else
		down_read(&orphan_sem);
	atomic_store(&holding, true);
	for (;;)
		check_sleep_us(1000000);
	return NULL;
}

/* Waits for orphan_sem in the other mode: reads behind a writer, writes behind a reader. */
static void *wait_behind(void *holder_writes)
{
	if (holder_writes)
		down_read(&orphan_sem);
	else
		down_write(&orphan_sem);
	return NULL;
}

static void waiter_behind_stuck_holder(void *holder_writes)
{
	uint64_t give_up = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u / 2;
	pthread_t t;

	quiesce_rcu_set_stall_timeout_ms(100);
	pthread_create(&t, NULL, hold_and_stay, holder_writes);
	while (!atomic_load(&holding))
		check_sleep_us(1000);
	pthread_create(&t, NULL, wait_behind, holder_writes);
	while (check_stall_warnings() < 1 && check_now_ns() < give_up)
		check_sleep_us(1000);
	fflush(stderr);
	_exit(check_stall_warnings() >= 1 ? 0 : 1);
}

static void check_waiter_reports(bool holder_writes, const char *waited, const char *held)
{
	char err[8192];
	int status = check_run_child(waiter_behind_stuck_holder,
				     holder_writes ? (void *)&orphan_sem : NULL, err, sizeof(err));

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a waiter behind a holder that never releases: no report (status %#x): %s",
	      status, err);
	CHECK(strstr(err, waited) && strstr(err, held), "no '%s ... %s' report: %s", waited, held,
	      err);
}

static void test_waiters_report_stuck_holders(void)
{
	check_waiter_reports(true, "down_read() has waited", "held for writing (a writer");
	check_waiter_reports(false, "down_write() has waited", "held by 1 reader (a reader");
}

int main(void)
{
	test_waiters_report_stuck_holders();
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
	check_child_aborts(up_write_on_lost_count, NULL,
			   "up_write() by the thread that holds an rw_semaphore for writing, but its "
			   "count (0) did not show the write lock");
	check_child_aborts(downgrade_on_lost_count, NULL,
			   "downgrade_write() by the thread that holds an rw_semaphore for writing");
	check_child_aborts(up_read_beside_arriving_reader, NULL,
			   "another thread holds for writing: this thread holds no read lock");
	printf("rwsem misuse: ok\n");
	return 0;
}
