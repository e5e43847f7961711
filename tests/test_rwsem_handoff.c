/*
 * test_rwsem_handoff: under a continuous flood of lockers no waiter
 * starves.  Each flood runs until every locker has taken the lock
 * ACQUISITIONS times; a starved locker never gets there, which the hang
 * limit (CHECK_HANG_MS) reports.  The longest waits are printed, not
 * checked: how long a waiter waits on a loaded machine, or under valgrind,
 * says nothing about the lock (quiesce-bench measures it).
 *
 *   mixed flood:   readers and writers back to back, no pause between
 *                  sections;
 *   reader flood:  readers whose sections always overlap (the lock is
 *                  never free of readers), one writer among them - the
 *                  case a reader-preferring lock starves.
 *
 * That a waiter owed the lock gets it, and nobody steals it meanwhile, is
 * checked step by step in test_rwsem_api.c.
 */
#include <pthread.h>
#include <string.h>

#include <quiesce/rwsem.h>

#include "check.h"

#define ACQUISITIONS 20
/* The floods run at least this long, so that the lock is contended. */
#define RUN_US 300000u

struct flood {
	struct rw_semaphore sem;
	int stop;			/* atomic */
};

struct locker {
	struct flood *f;
	bool write;
	uint64_t section_ns;		/* busy time inside */
	uint64_t pause_ns;		/* sleep between sections */
	uint64_t acquisitions;		/* relaxed atomic: flood() polls it */
	uint64_t max_wait_ns;
};

static void busy_until(uint64_t t)
{
	while (check_now_ns() < t)
		;
}

static void *locker_thread(void *p)
{
	struct locker *l = p;

	while (!__atomic_load_n(&l->f->stop, __ATOMIC_RELAXED)) {
		uint64_t t0 = check_now_ns(), wait;

		if (l->write)
			down_write(&l->f->sem);
		else
			down_read(&l->f->sem);
		wait = check_now_ns() - t0;
		if (wait > l->max_wait_ns)
			l->max_wait_ns = wait;
		__atomic_store_n(&l->acquisitions, l->acquisitions + 1, __ATOMIC_RELAXED);
		busy_until(check_now_ns() + l->section_ns);
		if (l->write)
			up_write(&l->f->sem);
		else
			up_read(&l->f->sem);
		if (l->pause_ns)
			check_sleep_us((unsigned)(l->pause_ns / 1000));
	}
	return NULL;
}

struct flood_progress {
	struct locker *l;
	int n;
};

static bool every_locker_got_in(void *p)
{
	struct flood_progress *fp = p;

	for (int i = 0; i < fp->n; i++)
		if (__atomic_load_n(&fp->l[i].acquisitions, __ATOMIC_RELAXED) < ACQUISITIONS)
			return false;
	return true;
}

static void flood(const char *label, struct locker *l, int n)
{
	struct flood f;
	struct flood_progress fp = { l, n };
	pthread_t tid[n];
	uint64_t max_read = 0, max_write = 0, reads = 0, writes = 0;

	memset(&f, 0, sizeof(f));
	init_rwsem(&f.sem);
	for (int i = 0; i < n; i++) {
		l[i].f = &f;
		CHECK(pthread_create(&tid[i], NULL, locker_thread, &l[i]) == 0, "pthread_create");
	}
	check_sleep_us(RUN_US);
	check_wait_until(every_locker_got_in, &fp, label);
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		if (l[i].write) {
			writes += l[i].acquisitions;
			if (l[i].max_wait_ns > max_write)
				max_write = l[i].max_wait_ns;
		} else {
			reads += l[i].acquisitions;
			if (l[i].max_wait_ns > max_read)
				max_read = l[i].max_wait_ns;
		}
	}
	CHECK(!rwsem_is_locked(&f.sem) && !rwsem_is_contended(&f.sem),
	      "%s: count %#lx after every locker left", label, f.sem.count);
	printf("%s: %llu reads (longest wait %.3f ms), %llu writes (longest wait %.3f ms)\n",
	       label, (unsigned long long)reads, max_read / 1e6, (unsigned long long)writes,
	       max_write / 1e6);
}

int main(void)
{
	struct locker mixed[] = {
		{ .write = false, .section_ns = 20000 },
		{ .write = false, .section_ns = 20000 },
		{ .write = false, .section_ns = 20000 },
		{ .write = true, .section_ns = 10000 },
		{ .write = true, .section_ns = 10000 },
	};
	struct locker readers_and_one_writer[] = {
		{ .write = false, .section_ns = 50000 },
		{ .write = false, .section_ns = 50000 },
		{ .write = false, .section_ns = 50000 },
		{ .write = false, .section_ns = 50000 },
		{ .write = true, .section_ns = 5000, .pause_ns = 1000000 },
	};

	flood("mixed flood", mixed, 5);
	flood("reader flood", readers_and_one_writer, 5);
	printf("rwsem hand-off: ok\n");
	return 0;
}
