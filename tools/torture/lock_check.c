/*
 * lock_check.c - mutual exclusion and reader sharing, checked with
 * invariants on shared data (see lock_check.h); the idea is locktorture's.
 *
 * Every counter and data word is a relaxed atomic: the lock under test is
 * what orders them, so with a correct lock no check can fire, and with a
 * broken one the checks see the overlap rather than a data race.
 */
#include "lock_check.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rcu/gp_engine.h"
#include "torture.h"

#define DATA_WORDS 8
/* One write hold in this many is downgraded to a read hold. */
#define DOWNGRADE_EVERY 8
/* Read holds after which readers must have shared the lock once. */
#define SHARING_MIN_READS 10000u

struct lock_check {
	const struct lock_ops *ops;
	void *lock;
	unsigned readers, writers;	/* holders counted in now */
	unsigned max_readers;		/* the most readers seen at once */
	unsigned long data[DATA_WORDS];	/* every word the last writer's value */
	uint64_t downgrades;
	uint64_t events[LOCK_EVENTS];
};

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define SUB(p, v) __atomic_sub_fetch((p), (v), __ATOMIC_RELAXED)

void *lock_check_setup(struct torture_run *run, const struct lock_ops *ops, size_t lock_size)
{
	struct lock_check *lc = calloc(1, sizeof(*lc));

	lc->ops = ops;
	lc->lock = calloc(1, lock_size);
	run->state = lc;
	return lc->lock;
}

void lock_check_note(struct torture_thread *t, enum lock_event event)
{
	struct lock_check *lc = t->run->state;

	ADD(&lc->events[event], 1);
}

static void note_readers(struct lock_check *lc, unsigned n)
{
	unsigned max = LOAD(&lc->max_readers);

	while (n > max && !__atomic_compare_exchange_n(&lc->max_readers, &max, n, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void check_no_writer(struct torture_thread *t, struct lock_check *lc)
{
	unsigned writers = LOAD(&lc->writers);

	if (writers)
		torture_violation(t->run, TV_EXCLUSION, "%s holds the read lock with %u writer(s)",
				  t->name, writers);
}

/* The reader's part, counted in by the caller. */
static void hold_read(struct torture_thread *t, struct lock_check *lc)
{
	unsigned long v = LOAD(&lc->data[0]);

	check_no_writer(t, lc);
	torture_section_delay(t);
	torture_hold_sleep(t);
	for (int i = 0; i < DATA_WORDS; i++) {
		if (LOAD(&lc->data[i]) != v) {
			torture_violation(t->run, TV_DATA, "the data changed under %s's read hold",
					  t->name);
			break;
		}
	}
	check_no_writer(t, lc);
}

void lock_check_read(struct torture_thread *t)
{
	struct lock_check *lc = t->run->state;

	lc->ops->read_lock(t, lc->lock);
	note_readers(lc, ADD(&lc->readers, 1));
	hold_read(t, lc);
	SUB(&lc->readers, 1);
	lc->ops->read_unlock(t, lc->lock);
	torture_count_op(t);
}

static void check_alone(struct torture_thread *t, struct lock_check *lc)
{
	unsigned readers = LOAD(&lc->readers), writers = LOAD(&lc->writers);

	if (readers || writers != 1)
		torture_violation(t->run, TV_EXCLUSION,
				  "%s holds the write lock with %u reader(s) and %u other writer(s)",
				  t->name, readers, writers - 1);
}

void lock_check_write(struct torture_thread *t)
{
	struct lock_check *lc = t->run->state;
	unsigned long v = ((unsigned long)t->id << 48) | (t->ops + 1);

	lc->ops->write_lock(t, lc->lock);
	ADD(&lc->writers, 1);
	check_alone(t, lc);
	for (int i = 0; i < DATA_WORDS; i++) {
		STORE(&lc->data[i], v);
		/* A half-written block, for a reader let in by mistake. */
		if (i == DATA_WORDS / 2)
			torture_section_delay(t);
	}
	torture_section_delay(t);
	if (lc->ops->write_hold_ns)
		torture_sleep_ns(torture_random(t) % lc->ops->write_hold_ns);
	check_alone(t, lc);
	for (int i = 0; i < DATA_WORDS; i++) {
		if (LOAD(&lc->data[i]) != v) {
			torture_violation(t->run, TV_DATA, "another writer changed the data under %s",
					  t->name);
			break;
		}
	}
	if (lc->ops->downgrade && torture_one_in(t, DOWNGRADE_EVERY)) {
		/* Counted as a reader before the lock lets other readers in. */
		ADD(&lc->readers, 1);
		SUB(&lc->writers, 1);
		lc->ops->downgrade(t, lc->lock);
		hold_read(t, lc);
		SUB(&lc->readers, 1);
		lc->ops->read_unlock(t, lc->lock);
		ADD(&lc->downgrades, 1);
	} else {
		SUB(&lc->writers, 1);
		lc->ops->write_unlock(t, lc->lock);
	}
	torture_count_op(t);
	if (lc->ops->write_gap_ns)
		torture_sleep_ns(torture_random(t) % lc->ops->write_gap_ns);
	else
		torture_writer_pause(t);
}

void lock_check_finish(struct torture_run *run)
{
	struct lock_check *lc = run->state;
	uint64_t reads = QUIESCE_LOAD(&run->churn_ops);

	for (unsigned i = 0; i < run->opt->readers; i++)
		reads += run->readers[i].ops;
	if (run->opt->readers >= 2 && reads >= SHARING_MIN_READS && lc->max_readers < 2)
		torture_violation(run, TV_SHARING,
				  "%" PRIu64 " read holds by %u readers, never two at once", reads,
				  run->opt->readers);
	if (lc->ops->destroy)
		lc->ops->destroy(lc->lock);
	free(lc->lock);
}

/* For the types built on rcu_sync: the engine's count, taken lock-free. */
uint64_t lock_check_grace_periods(struct torture_run *run)
{
	return quiesce_gp_seq_current(&quiesce_rcu_domain) >> 1;
}

void lock_check_report(struct torture_run *run, FILE *out, bool json)
{
	struct lock_check *lc = run->state;

	fprintf(out,
		json ? ",\"max_readers_at_once\":%u,\"downgrades\":%" PRIu64
		       ",\"trylock_failures\":%" PRIu64 ",\"timeouts\":%" PRIu64
		       ",\"busy_retries\":%" PRIu64
		     : "  most readers at once %u, downgrades %" PRIu64 ", failed trylocks %" PRIu64
		       ", timed-out acquires %" PRIu64 ", busy retries %" PRIu64 "\n",
		LOAD(&lc->max_readers), LOAD(&lc->downgrades), LOAD(&lc->events[LOCK_TRYLOCK_FAILED]),
		LOAD(&lc->events[LOCK_TIMED_OUT]), LOAD(&lc->events[LOCK_BUSY]));
}
