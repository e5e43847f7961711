/*
 * test_rwsem_handoff: under a continuous flood of lockers no waiter
 * starves.  Every acquisition's wait is timed, and the longest must stay
 * below WAIT_BOUND_NS - far above the 4 ms hand-off time, because on a
 * loaded two-CPU machine a woken waiter may also wait for a CPU.
 *
 *   mixed flood:   readers and writers back to back, no pause between
 *                  sections;
 *   reader flood:  readers whose sections always overlap (the lock is
 *                  never free of readers), one writer among them - the
 *                  case a reader-preferring lock starves.
 */
#include <pthread.h>
#include <string.h>

#include <quiesce/rwsem.h>

#include "check.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifdef SANITIZED
#define WAIT_BOUND_NS 3000000000ull
#else
#define WAIT_BOUND_NS 1000000000ull
#endif
#define RUN_US 1500000u

struct flood {
	struct rw_semaphore sem;
	int stop;			/* atomic */
};

struct locker {
	struct flood *f;
	bool write;
	uint64_t section_ns;		/* busy time inside */
	uint64_t pause_ns;		/* sleep between sections */
	uint64_t acquisitions, max_wait_ns;
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
		l->acquisitions++;
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

static void flood(const char *label, struct locker *l, int n)
{
	struct flood f;
	pthread_t tid[n];
	uint64_t max_read = 0, max_write = 0, reads = 0, writes = 0;

	memset(&f, 0, sizeof(f));
	init_rwsem(&f.sem);
	for (int i = 0; i < n; i++) {
		l[i].f = &f;
		CHECK(pthread_create(&tid[i], NULL, locker_thread, &l[i]) == 0, "pthread_create");
	}
	check_sleep_us(RUN_US);
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		CHECK(l[i].acquisitions > 0, "%s: locker %d never got in", label, i);
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
	printf("%s: %llu reads (longest wait %.3f ms), %llu writes (longest wait %.3f ms); bound %.0f ms\n",
	       label, (unsigned long long)reads, max_read / 1e6, (unsigned long long)writes,
	       max_write / 1e6, WAIT_BOUND_NS / 1e6);
	CHECK(max_read < WAIT_BOUND_NS, "%s: a reader waited %.3f ms", label, max_read / 1e6);
	CHECK(max_write < WAIT_BOUND_NS, "%s: a writer waited %.3f ms", label, max_write / 1e6);
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
