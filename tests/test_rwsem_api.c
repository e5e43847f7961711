/*
 * test_rwsem_api: the rw_semaphore's calls one by one - initializers,
 * trylocks, timeouts, downgrade, readers woken as one batch, new readers
 * queueing behind a waiting writer, the hand-off bit, and a woken writer
 * that loses the lock before it runs.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <quiesce/rwsem.h>

#include "check.h"

static DECLARE_RWSEM(static_sem);

/* How long a blocked thread is given to show that it stays blocked. */
#define SETTLE_US 30000
/* How long a thread that should get in is given to do so: only a hang takes it. */
#define PATIENCE_NS ((uint64_t)CHECK_HANG_MS * 1000000u)

static void start(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	CHECK(pthread_create(tid, NULL, fn, arg) == 0, "pthread_create");
}

static void join(pthread_t tid)
{
	CHECK(pthread_join(tid, NULL) == 0, "pthread_join");
}

/* Waits up to PATIENCE_NS for *flag to become non-zero. */
static bool eventually(int *flag)
{
	uint64_t give_up = check_now_ns() + PATIENCE_NS;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (check_now_ns() > give_up)
			return false;
		check_sleep_us(200);
	}
	return true;
}

static void wait_contended(struct rw_semaphore *sem)
{
	uint64_t give_up = check_now_ns() + PATIENCE_NS;

	while (!rwsem_is_contended(sem)) {
		CHECK(check_now_ns() < give_up, "no waiter showed up in the queue");
		check_sleep_us(200);
	}
}

static void assert_idle(struct rw_semaphore *sem)
{
	CHECK(!rwsem_is_locked(sem), "still locked");
	CHECK(!rwsem_is_contended(sem), "waiters left behind");
	CHECK(__atomic_load_n(&sem->count, __ATOMIC_RELAXED) == 0, "count %#lx, expected 0",
	      __atomic_load_n(&sem->count, __ATOMIC_RELAXED));
}

static void test_initializers_and_trylocks(void)
{
	struct rw_semaphore sem;

	assert_idle(&static_sem);
	init_rwsem(&sem);
	assert_idle(&sem);

	down_read(&sem);
	down_read(&sem);
	CHECK(rwsem_is_locked(&sem), "read-held but not locked");
	CHECK(!down_write_trylock(&sem), "write trylock succeeded on a read hold");
	CHECK(down_read_trylock(&sem), "read trylock failed on a read hold");
	up_read(&sem);
	up_read(&sem);
	up_read(&sem);
	assert_idle(&sem);

	CHECK(down_write_trylock(&sem), "write trylock failed on a free lock");
	CHECK(rwsem_is_locked(&sem), "write-held but not locked");
	CHECK(!down_read_trylock(&sem), "read trylock succeeded on a write hold");
	CHECK(!down_write_trylock(&sem), "write trylock succeeded on a write hold");
	up_write(&sem);
	assert_idle(&sem);

	down_write(&sem);
	downgrade_write(&sem);
	CHECK(down_read_trylock(&sem), "downgraded lock refused a reader");
	CHECK(!down_write_trylock(&sem), "downgraded lock let a writer in");
	up_read(&sem);
	up_read(&sem);
	assert_idle(&sem);

	CHECK(down_read_timeout(&sem, 0) == 0, "a free lock timed out");
	up_read(&sem);
	CHECK(down_write_timeout(&sem, 0) == 0, "a free lock timed out");
	up_write(&sem);
	assert_idle(&sem);
}

struct timed_try {
	struct rw_semaphore *sem;
	bool write;
	uint64_t timeout_ns;
	int result;
	uint64_t waited_ns;
	int done;
};

static void *timed_try_thread(void *p)
{
	struct timed_try *t = p;
	uint64_t t0 = check_now_ns();

	t->result = t->write ? down_write_timeout(t->sem, t->timeout_ns)
			     : down_read_timeout(t->sem, t->timeout_ns);
	t->waited_ns = check_now_ns() - t0;
	if (t->result == 0) {
		if (t->write)
			up_write(t->sem);
		else
			up_read(t->sem);
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void expect_timeout(struct rw_semaphore *sem, bool write)
{
	struct timed_try t = { .sem = sem, .write = write, .timeout_ns = 20000000 };
	pthread_t tid;

	start(&tid, timed_try_thread, &t);
	join(tid);
	CHECK(t.result == -ETIMEDOUT, "%s timeout returned %d", write ? "write" : "read", t.result);
	CHECK(t.waited_ns >= t.timeout_ns, "timed out after %llu ns, before the %llu ns asked",
	      (unsigned long long)t.waited_ns, (unsigned long long)t.timeout_ns);
}

static void test_timeouts(void)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	struct timed_try late = { .sem = &sem, .timeout_ns = PATIENCE_NS };
	pthread_t tid;

	down_read(&sem);
	expect_timeout(&sem, true);
	CHECK(!rwsem_is_contended(&sem), "a timed-out writer stayed queued");
	up_read(&sem);
	assert_idle(&sem);

	down_write(&sem);
	expect_timeout(&sem, false);
	expect_timeout(&sem, true);
	CHECK(!rwsem_is_contended(&sem), "a timed-out waiter stayed queued");
	up_write(&sem);
	assert_idle(&sem);

	/* A waiter whose lock comes free before its deadline gets it. */
	down_write(&sem);
	start(&tid, timed_try_thread, &late);
	wait_contended(&sem);
	up_write(&sem);
	join(tid);
	CHECK(late.result == 0, "a reader timed out although the lock came free");
	assert_idle(&sem);
}

struct batch_reader {
	struct rw_semaphore *sem;
	int *inside;
	int expected;
	bool all_met;
};

/* Holds the read lock until every reader of its batch is inside with it. */
static void *batch_reader_thread(void *p)
{
	struct batch_reader *r = p;
	uint64_t give_up;

	down_read(r->sem);
	__atomic_fetch_add(r->inside, 1, __ATOMIC_ACQ_REL);
	give_up = check_now_ns() + PATIENCE_NS;
	while (__atomic_load_n(r->inside, __ATOMIC_ACQUIRE) < r->expected &&
	       check_now_ns() < give_up)
		check_sleep_us(100);
	r->all_met = __atomic_load_n(r->inside, __ATOMIC_ACQUIRE) >= r->expected;
	up_read(r->sem);
	return NULL;
}

/* Readers queued behind a writer are woken together and share the lock. */
static void test_reader_batch(void)
{
	enum { READERS = 4 };
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	struct batch_reader r[READERS];
	pthread_t tid[READERS];
	int inside = 0;

	down_write(&sem);
	for (int i = 0; i < READERS; i++) {
		r[i] = (struct batch_reader){ &sem, &inside, READERS, false };
		start(&tid[i], batch_reader_thread, &r[i]);
	}
	wait_contended(&sem);
	check_sleep_us(SETTLE_US);
	CHECK(__atomic_load_n(&inside, __ATOMIC_ACQUIRE) == 0, "a reader got past a writer");
	up_write(&sem);
	for (int i = 0; i < READERS; i++) {
		join(tid[i]);
		CHECK(r[i].all_met, "reader %d never saw all %d readers inside together", i, READERS);
	}
	assert_idle(&sem);
}

struct holder {
	struct rw_semaphore *sem;
	bool write;
	int tid;		/* atomic: set before it locks */
	int acquired;
	int release;
};

static void *holder_thread(void *p)
{
	struct holder *h = p;

	__atomic_store_n(&h->tid, (int)gettid(), __ATOMIC_RELEASE);
	if (h->write)
		down_write(h->sem);
	else
		down_read(h->sem);
	__atomic_store_n(&h->acquired, 1, __ATOMIC_RELEASE);
	CHECK(eventually(&h->release), "never told to release");
	if (h->write)
		up_write(h->sem);
	else
		up_read(h->sem);
	return NULL;
}

/*
 * downgrade_write() lets the queued reader in at once and keeps the queued
 * writer behind it out until every read hold is gone.
 */
static void test_downgrade_wakes_readers(void)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	struct holder reader = { .sem = &sem }, writer = { .sem = &sem, .write = true };
	pthread_t rt, wt;

	down_write(&sem);
	start(&rt, holder_thread, &reader);
	wait_contended(&sem);
	check_sleep_us(SETTLE_US);
	start(&wt, holder_thread, &writer);
	check_sleep_us(SETTLE_US);
	downgrade_write(&sem);
	CHECK(eventually(&reader.acquired), "the queued reader stayed out after the downgrade");
	check_sleep_us(SETTLE_US);
	CHECK(!__atomic_load_n(&writer.acquired, __ATOMIC_ACQUIRE), "a writer got in with readers");
	up_read(&sem);
	__atomic_store_n(&reader.release, 1, __ATOMIC_RELEASE);
	join(rt);
	CHECK(eventually(&writer.acquired), "the writer stayed out after all readers left");
	__atomic_store_n(&writer.release, 1, __ATOMIC_RELEASE);
	join(wt);
	assert_idle(&sem);
}

/* This thread read-locks sem, and a writer thread queues behind it. */
static void queue_writer_behind_read_hold(struct rw_semaphore *sem, struct holder *writer,
					  pthread_t *wt)
{
	down_read(sem);
	start(wt, holder_thread, writer);
	wait_contended(sem);
}

/* While a writer waits, new readers queue behind it instead of barging in. */
static void test_readers_do_not_overtake_writer(void)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	struct holder writer = { .sem = &sem, .write = true };
	pthread_t wt;

	queue_writer_behind_read_hold(&sem, &writer, &wt);
	CHECK(!down_read_trylock(&sem), "a read trylock overtook a waiting writer");
	expect_timeout(&sem, false);
	up_read(&sem);
	CHECK(eventually(&writer.acquired), "the writer stayed out after the reader left");
	__atomic_store_n(&writer.release, 1, __ATOMIC_RELEASE);
	join(wt);
	assert_idle(&sem);
}

/*
 * A writer that has waited longer than the hand-off time is owed the lock:
 * from the moment it is released, nobody else can take it, not even a
 * running thread that finds it free before the waiter wakes up.
 */
static void test_handoff_blocks_stealing(void)
{
	struct rw_semaphore sem = RWSEM_INITIALIZER;
	struct holder writer = { .sem = &sem, .write = true };
	unsigned long count;
	pthread_t wt;

	down_write(&sem);
	start(&wt, holder_thread, &writer);
	wait_contended(&sem);
	check_sleep_us(2 * QUIESCE_RWSEM_HANDOFF_NS / 1000);
	up_write(&sem);
	count = __atomic_load_n(&sem.count, __ATOMIC_RELAXED);
	CHECK(count & (QUIESCE_RWSEM_HANDOFF | QUIESCE_RWSEM_WRITER_LOCKED),
	      "count %#lx: the lock was free for anyone to steal", count);
	CHECK(!down_write_trylock(&sem), "a trylock stole the lock from the waiter owed it");
	CHECK(!down_read_trylock(&sem), "a reader stole the lock from the waiter owed it");
	CHECK(eventually(&writer.acquired), "the waiter owed the lock never got it");
	__atomic_store_n(&writer.release, 1, __ATOMIC_RELEASE);
	join(wt);
	assert_idle(&sem);
}

/* How many times thread tid has gone to sleep (its voluntary switches). */
static long sleeps_of(int tid)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	CHECK(f != NULL, "cannot open %s", path);
	while (n < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) != 1)
			n = -1;
	fclose(f);
	CHECK(n >= 0, "no voluntary_ctxt_switches in %s", path);
	return n;
}

/*
 * A writer woken from its sleep can find the lock taken again before it
 * runs (a running reader steals it).  Releases made while the woken writer
 * was on its way do not wake it again, so its failed try must leave it
 * where the next release wakes it: else it sleeps for ever.  The race is
 * the releaser's to win (it is running, the writer is waking up); rounds
 * in which the writer won anyway are run again.  The reader lets go only
 * once the writer has gone back to sleep, so after its failed try.
 */
static void test_woken_writer_that_loses_is_woken_again(void)
{
	int lost = 0;

	for (int round = 0; round < 200 && !lost; round++) {
		struct rw_semaphore sem = RWSEM_INITIALIZER;
		struct holder writer = { .sem = &sem, .write = true };
		pthread_t wt;
		long sleeps;
		int tid;

		queue_writer_behind_read_hold(&sem, &writer, &wt);
		check_sleep_us(2000);		/* past its spin, asleep */
		tid = __atomic_load_n(&writer.tid, __ATOMIC_ACQUIRE);
		sleeps = sleeps_of(tid);
		up_read(&sem);			/* wakes it */
		if (down_read_timeout(&sem, 0) == 0) {
			uint64_t give_up = check_now_ns() + PATIENCE_NS;

			lost = 1;
			/* It tries, fails, sleeps again. */
			while (sleeps_of(tid) == sleeps) {
				CHECK(check_now_ns() < give_up, "the woken writer never slept again");
				check_sleep_us(200);
			}
			up_read(&sem);
		}
		CHECK(eventually(&writer.acquired), "a woken writer that lost the lock was "
		      "never woken again (round %d)", round);
		__atomic_store_n(&writer.release, 1, __ATOMIC_RELEASE);
		join(wt);
		assert_idle(&sem);
	}
	CHECK(lost, "in 200 rounds, a woken writer never lost the lock to a running reader");
}

int main(void)
{
	test_initializers_and_trylocks();
	test_timeouts();
	test_reader_batch();
	test_downgrade_wakes_readers();
	test_readers_do_not_overtake_writer();
	test_handoff_blocks_stealing();
	test_woken_writer_that_loses_is_woken_again();
	printf("rwsem api: ok\n");
	return 0;
}
