/*
 * type_srcu.c - SRCU readers, which may sleep inside their sections, and
 * writers that wait in synchronize_srcu(), its expedited form or the
 * polled API (start_poll's grace periods run by the domain's callback
 * thread), on one domain of the run's own.
 *
 * The check is the RCU types' pipeline age (rcu_pipeline.h): an element
 * is 0 while current, 1 once removed, one more after each grace period its
 * writer waits for; a reader that finds age 2 or more at the end of its
 * section, or a poisoned element, caught a grace period that did not wait
 * for it.  Under the delay fault, one lock in 16 also stops between the
 * look at the domain's index and the add (QUIESCE_TEST_SRCU_LOCK_WINDOW),
 * as a preempted reader would: such readers add to an index grace periods
 * flipped away from, which is what the busted variant gets wrong (it skips
 * the wait for the index readers are not taking: src/rcu/srcu.h).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include "torture.h"

static void srcu_lock_window(void);
#define QUIESCE_TEST_SRCU_LOCK_WINDOW() srcu_lock_window()
#include <quiesce/srcu.h>

#include "rcu/srcu.h"

#define SRCU_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN | \
		     TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE)
#define PIPE_LEN 10
#define CHECK_WORDS 4
#define QUARANTINE 4096
#define ELEM_LIVE 0x53524355u
#define POISON_WORD 0x6b6b6b6b6b6b6b6bUL

struct elem {
	unsigned magic;
	unsigned age;
	unsigned long seq;
	unsigned long check[CHECK_WORDS];
	unsigned long cookie;		/* the polled state at removal */
	struct elem *next;		/* the writer's removed list */
};

struct writer {
	unsigned long seq;
	struct elem *removed;		/* ages 1 to PIPE_LEN - 1 */
	struct elem **quarantine;
	unsigned quarantine_next;
	struct writer *next_retired;
};

struct srcu_torture {
	struct srcu_struct ss;
	struct elem *current;
	pthread_mutex_t retired_lock;
	struct writer *retired;		/* stopped writers, freed in finish */
	uint64_t sleeps;		/* sections that slept */
	uint64_t final_grace_periods;	/* counted in finish, before the cleanup */
	bool cleaned_up;
};

static void srcu_lock_window(void)
{
	struct torture_thread *t = torture_self;

	if (t && (t->run->opt->faults & TORTURE_FAULT_DELAY) && torture_one_in(t, 16))
		torture_sleep_ns(torture_random(t) % 500000);
}

static unsigned long check_word(unsigned long seq, int i)
{
	return seq * 0x9e3779b97f4a7c15UL + (unsigned long)i;
}

static struct elem *elem_new(unsigned long seq)
{
	struct elem *e = calloc(1, sizeof(*e));

	e->magic = ELEM_LIVE;
	e->seq = seq;
	for (int i = 0; i < CHECK_WORDS; i++)
		e->check[i] = check_word(seq, i);
	return e;
}

/* Relaxed atomics: a busted run's reader must see poison, not a race. */
static void elem_poison(struct elem *e)
{
	__atomic_store_n(&e->magic, (unsigned)POISON_WORD, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, POISON_WORD, __ATOMIC_RELAXED);
	for (int i = 0; i < CHECK_WORDS; i++)
		__atomic_store_n(&e->check[i], POISON_WORD, __ATOMIC_RELAXED);
}

static bool elem_intact(const struct elem *e, unsigned long seq)
{
	if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != ELEM_LIVE)
		return false;
	for (int i = 0; i < CHECK_WORDS; i++)
		if (__atomic_load_n(&e->check[i], __ATOMIC_RELAXED) != check_word(seq, i))
			return false;
	return true;
}

static void srcu_set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_srcu, on);
}

static void srcu_setup(struct torture_run *run)
{
	struct srcu_torture *s = calloc(1, sizeof(*s));

	quiesce_init_srcu_struct_name(&s->ss, "torture");
	s->current = elem_new(0);
	pthread_mutex_init(&s->retired_lock, NULL);
	run->state = s;
}

static void srcu_thread_start(struct torture_thread *t)
{
	/* Registered before a signal handler's section can be its first. */
	rcu_register_thread();
	if (t->role == TORTURE_WRITER) {
		struct writer *w = calloc(1, sizeof(*w));

		w->seq = (unsigned long)(t->id + 1) << 40;
		w->quarantine = calloc(QUARANTINE, sizeof(*w->quarantine));
		t->priv = w;
	}
}

static void srcu_thread_stop(struct torture_thread *t, bool unregister)
{
	struct srcu_torture *s = t->run->state;

	if (t->role == TORTURE_WRITER) {
		struct writer *w = t->priv;

		/* Readers may still hold these: freed once all have stopped. */
		pthread_mutex_lock(&s->retired_lock);
		w->next_retired = s->retired;
		s->retired = w;
		pthread_mutex_unlock(&s->retired_lock);
	}
	if (unregister)
		rcu_unregister_thread();
}

static void read_section(struct torture_thread *t, bool in_handler)
{
	struct torture_run *run = t->run;
	struct srcu_torture *s = run->state;
	int idx = srcu_read_lock(&s->ss);
	struct elem *e = srcu_dereference(s->current, &s->ss);
	unsigned long seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	unsigned age;
	bool intact;

	if (!in_handler) {
		if (torture_one_in(t, 4)) {
			/* A nested section must not end the protection early. */
			int inner = srcu_read_lock(&s->ss);

			torture_section_delay(t);
			srcu_read_unlock(&s->ss, inner);
		}
		torture_section_delay(t);
		if ((run->opt->faults & TORTURE_FAULT_SLEEP) && torture_one_in(t, 16)) {
			/* SRCU readers may sleep: hold the section across one. */
			torture_sleep_ns(10000 + torture_random(t) % 500000);
			__atomic_fetch_add(&s->sleeps, 1, __ATOMIC_RELAXED);
		}
	}
	intact = elem_intact(e, seq);
	age = __atomic_load_n(&e->age, __ATOMIC_RELAXED);
	srcu_read_unlock(&s->ss, idx);

	if (!intact)
		torture_violation(run, TV_FREED, "%s found element %#lx poisoned or torn%s", t->name,
				  seq, in_handler ? " (in a signal handler)" : "");
	else if (age > 1)
		torture_violation(run, TV_AGE, "%s held element %#lx across %u grace periods%s",
				  t->name, seq, age - 1, in_handler ? " (in a signal handler)" : "");
	if (!in_handler)
		torture_count_op(t);
}

static void srcu_read(struct torture_thread *t)
{
	read_section(t, false);
}

static void srcu_signal_read(struct torture_thread *t)
{
	read_section(t, true);
}

static void wait_grace_period(struct torture_thread *t, struct srcu_struct *ss)
{
	unsigned long cookie;

	switch (torture_random(t) % 5) {
	case 0:
		synchronize_srcu_expedited(ss);
		break;
	case 1:
		cookie = get_state_synchronize_srcu(ss);
		while (!poll_state_synchronize_srcu(ss, cookie))
			synchronize_srcu(ss);
		break;
	case 2:
		/* The domain's callback thread ends it; woken by the timer. */
		cookie = start_poll_synchronize_srcu(ss);
		while (!poll_state_synchronize_srcu(ss, cookie))
			torture_sleep_ns(20000 + torture_random(t) % 80000);
		break;
	default:
		synchronize_srcu(ss);
	}
}

static void quarantine(struct writer *w, struct elem *e)
{
	struct elem *evicted = w->quarantine[w->quarantine_next];

	elem_poison(e);
	w->quarantine[w->quarantine_next] = e;
	w->quarantine_next = (w->quarantine_next + 1) % QUARANTINE;
	free(evicted);
}

static void srcu_write(struct torture_thread *t)
{
	struct torture_run *run = t->run;
	struct srcu_torture *s = run->state;
	struct writer *w = t->priv;
	struct elem *old = rcu_xchg_pointer(&s->current, elem_new(++w->seq)), **link, *e;

	/* Removed; the grace period that ages it next orders this store first. */
	__atomic_store_n(&old->age, 1, __ATOMIC_RELAXED);
	old->cookie = get_state_synchronize_srcu(&s->ss);
	old->next = w->removed;
	w->removed = old;
	wait_grace_period(t, &s->ss);
	for (link = &w->removed; (e = *link);) {
		unsigned age = e->age + 1;

		if (age == 2 && !poll_state_synchronize_srcu(&s->ss, e->cookie))
			torture_violation(run, TV_COOKIE,
					  "the cookie taken at the removal of %#lx is not done after "
					  "its grace period", e->seq);
		__atomic_store_n(&e->age, age, __ATOMIC_RELAXED);
		if (age < PIPE_LEN) {
			link = &e->next;
			continue;
		}
		*link = e->next;
		quarantine(w, e);
	}
	torture_count_op(t);
	torture_writer_pause(t);
}

static uint64_t srcu_grace_periods(struct torture_run *run)
{
	struct srcu_torture *s = run->state;

	if (QUIESCE_LOAD_ACQUIRE(&s->cleaned_up))
		return s->final_grace_periods;
	/* A cookie names the end of the next grace period: two steps ahead. */
	return (get_state_synchronize_srcu(&s->ss) >> 1) - 1;
}

static void srcu_finish(struct torture_run *run)
{
	struct srcu_torture *s = run->state;
	struct writer *w, *next;

	for (w = s->retired; w; w = next) {
		struct elem *e, *e_next;

		next = w->next_retired;
		for (e = w->removed; e; e = e_next) {
			e_next = e->next;
			free(e);
		}
		for (unsigned i = 0; i < QUARANTINE; i++)
			free(w->quarantine[i]);
		free(w->quarantine);
		free(w);
	}
	free(s->current);
	/* Every thread has finished: no section is open, no grace period runs. */
	s->final_grace_periods = srcu_grace_periods(run);
	QUIESCE_STORE_RELEASE(&s->cleaned_up, true);
	cleanup_srcu_struct(&s->ss);
	pthread_mutex_destroy(&s->retired_lock);
}

static void srcu_report(struct torture_run *run, FILE *out, bool json)
{
	struct srcu_torture *s = run->state;
	uint64_t sleeps = QUIESCE_LOAD(&s->sleeps);

	if (json)
		fprintf(out, ",\"sections_slept\":%" PRIu64, sleeps);
	else
		fprintf(out, "  sections that slept: %" PRIu64 "\n", sleeps);
}

const struct torture_type torture_type_srcu = {
	.name = "srcu",
	.doc = "SRCU readers that may sleep, writers in synchronize_srcu() and friends",
	.faults = SRCU_FAULTS,
	.set_busted = srcu_set_busted,
	.setup = srcu_setup,
	.thread_start = srcu_thread_start,
	.thread_stop = srcu_thread_stop,
	.read = srcu_read,
	.write = srcu_write,
	.signal_read = srcu_signal_read,
	.grace_periods = srcu_grace_periods,
	.finish = srcu_finish,
	.report = srcu_report,
};
