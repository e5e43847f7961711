/*
 * test_rwsem_stress: readers and writers hammer one rw_semaphore through
 * every way in (blocking, trylock, timeout, downgrade) while each checks,
 * inside its section, that the lock excludes what it must:
 *
 *   - a writer finds no reader and no other writer inside;
 *   - a reader finds no writer inside, and the protected record whole
 *     (writers rewrite all its words, non-atomically, to one new value).
 *
 * It runs with the writer's check-before-cmpxchg on and off, each for a
 * second and then until every thread has made MIN_OPS operations, then
 * proves that the checks can fail: in a child, the busted hook lets
 * writers in while readers hold the lock, and the child must report it
 * (within BUSTED_MIN_OPS operations per thread, however long they take).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <quiesce/rwsem.h>

#include "check.h"
#include "locks/rwsem_internal.h"

#define READERS 3
#define WRITERS 2
#define RECORD_WORDS 8
#define RUN_NS 1000000000ull
#define MIN_OPS 100
#define BUSTED_MIN_OPS 10000

struct shared {
	struct rw_semaphore sem;
	int readers_inside;		/* atomic */
	int writers_inside;		/* atomic */
	int stop;			/* atomic */
	unsigned long record[RECORD_WORDS];	/* under sem */
};

struct worker {
	struct shared *s;
	unsigned seed;
	unsigned long ops;		/* relaxed atomic: run() polls it */
	unsigned long timeouts, max_readers;
};

static unsigned next_random(unsigned *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

/* Sometimes gives the CPU away inside the section, to exercise sleepers. */
static void linger(unsigned r)
{
	if (r % 64 == 0)
		sched_yield();
}

static void check_record(const struct shared *s)
{
	for (int i = 1; i < RECORD_WORDS; i++)
		CHECK(s->record[i] == s->record[0],
		      "a reader saw a torn record (word %d is %lu, word 0 is %lu): a writer was inside",
		      i, s->record[i], s->record[0]);
}

static void read_section(struct worker *w, unsigned r)
{
	struct shared *s = w->s;
	int readers = __atomic_add_fetch(&s->readers_inside, 1, __ATOMIC_SEQ_CST);

	CHECK(__atomic_load_n(&s->writers_inside, __ATOMIC_SEQ_CST) == 0,
	      "a reader is inside with a writer");
	if ((unsigned long)readers > w->max_readers)
		w->max_readers = (unsigned long)readers;
	check_record(s);
	linger(r);
	check_record(s);
	__atomic_sub_fetch(&s->readers_inside, 1, __ATOMIC_SEQ_CST);
}

/* Returns with the read lock still held when downgrade is set. */
static void write_section(struct worker *w, unsigned r, bool downgrade)
{
	struct shared *s = w->s;
	int readers;

	CHECK(__atomic_exchange_n(&s->writers_inside, 1, __ATOMIC_SEQ_CST) == 0,
	      "two writers are inside");
	readers = __atomic_load_n(&s->readers_inside, __ATOMIC_SEQ_CST);
	CHECK(readers == 0, "a writer is inside with %d readers", readers);
	for (int i = 0; i < RECORD_WORDS; i++)
		s->record[i]++;
	linger(r);
	CHECK(__atomic_load_n(&s->readers_inside, __ATOMIC_SEQ_CST) == 0,
	      "a reader came in while a writer was inside");
	__atomic_store_n(&s->writers_inside, 0, __ATOMIC_SEQ_CST);
	if (downgrade) {
		downgrade_write(&s->sem);
		read_section(w, r);
	}
}

static void *reader_thread(void *p)
{
	struct worker *w = p;
	struct shared *s = w->s;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		unsigned r = next_random(&w->seed);

		switch (r % 8) {
		case 0:
			if (!down_read_trylock(&s->sem))
				continue;
			break;
		case 1:
			if (down_read_timeout(&s->sem, r % 50000)) {
				w->timeouts++;
				continue;
			}
			break;
		default:
			down_read(&s->sem);
		}
		read_section(w, r >> 8);
		up_read(&s->sem);
		__atomic_store_n(&w->ops, w->ops + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *writer_thread(void *p)
{
	struct worker *w = p;
	struct shared *s = w->s;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		unsigned r = next_random(&w->seed);
		bool downgrade = r % 8 == 3;

		switch (r % 8) {
		case 0:
			if (!down_write_trylock(&s->sem))
				continue;
			break;
		case 1:
			if (down_write_timeout(&s->sem, r % 100000)) {
				w->timeouts++;
				continue;
			}
			break;
		default:
			down_write(&s->sem);
		}
		write_section(w, r >> 8, downgrade);
		if (downgrade)
			up_read(&s->sem);
		else
			up_write(&s->sem);
		__atomic_store_n(&w->ops, w->ops + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static bool every_thread_made(const struct worker *w, unsigned long ops)
{
	for (int i = 0; i < READERS + WRITERS; i++)
		if (__atomic_load_n(&w[i].ops, __ATOMIC_RELAXED) < ops)
			return false;
	return true;
}

/*
 * Runs for at least run_ns, then until every thread has made min_ops
 * operations; fails as a hang after CHECK_HANG_MS.
 */
static void run(const char *label, uint64_t run_ns, unsigned long min_ops,
		bool stop_early_on_nothing)
{
	struct shared s;
	struct worker w[READERS + WRITERS];
	pthread_t tid[READERS + WRITERS];
	unsigned long reads = 0, writes = 0, timeouts = 0, max_readers = 0;
	uint64_t hang;

	memset(&s, 0, sizeof(s));
	init_rwsem(&s.sem);
	for (int i = 0; i < READERS + WRITERS; i++) {
		w[i] = (struct worker){ .s = &s, .seed = 2463534242u + 7919u * (unsigned)i };
		CHECK(pthread_create(&tid[i], NULL, i < READERS ? reader_thread : writer_thread,
				     &w[i]) == 0, "pthread_create");
	}
	check_sleep_us((unsigned)(run_ns / 1000));
	hang = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u;
	while (!every_thread_made(w, min_ops)) {
		CHECK(check_now_ns() < hang, "%s: a thread made no progress in %u ms (starved?)",
		      label, CHECK_HANG_MS);
		check_sleep_us(1000);
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < READERS + WRITERS; i++) {
		pthread_join(tid[i], NULL);
		if (i < READERS) {
			reads += w[i].ops;
			if (w[i].max_readers > max_readers)
				max_readers = w[i].max_readers;
		} else {
			writes += w[i].ops;
		}
		timeouts += w[i].timeouts;
	}
	if (stop_early_on_nothing)
		return;
	CHECK(!rwsem_is_locked(&s.sem) && !rwsem_is_contended(&s.sem),
	      "count %#lx after every thread left", s.sem.count);
	CHECK(s.record[0] == writes, "%lu writes but the record counts %lu", writes, s.record[0]);
	printf("%s: %lu reads, %lu writes, %lu timeouts, up to %lu readers inside together\n",
	       label, reads, writes, timeouts, max_readers);
}

static void busted_run(void *arg)
{
	quiesce_rwsem_test_busted_writer = true;
	run("busted", RUN_NS, BUSTED_MIN_OPS, true);
}

int main(void)
{
	run("precheck on", RUN_NS, MIN_OPS, false);
	quiesce_rwsem_set_writer_precheck(false);
	run("precheck off", RUN_NS, MIN_OPS, false);
	quiesce_rwsem_set_writer_precheck(true);
	check_child_detects_violation(busted_run, NULL);
	printf("rwsem stress: ok\n");
	return 0;
}
