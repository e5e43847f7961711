/*
 * type_qsbr.c - the qsbr torture type: rcutorture's pipeline-age check
 * (rcu_pipeline.h says how it works) on the QSBR domain, whose readers
 * announce quiescent states instead of marking sections.
 *
 * Readers stay online, announce a quiescent state after each section and
 * now and then go offline around a sleep; threads that are not readers
 * (writers, the fork fault's thread) are registered and offline, going
 * online only for a section, so that none sleeps online.  Churn threads
 * exit online and registered half the time: the exit destructor must let
 * grace periods go on.  A signal handler reads only when its thread is
 * online.  Writers wait with synchronize or a start_poll cookie.  Busted,
 * grace periods do not wait for the first thread that holds them.
 */
#include <stdlib.h>

#include <quiesce/rcu_qsbr.h>

#include "rcu/gp_engine.h"
#include "rcu/qsbr.h"
#include "torture.h"

#define QSBR_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_CHURN | \
		     TORTURE_FAULT_FORK | TORTURE_FAULT_SIGNALS | TORTURE_FAULT_SHUFFLE)
#define PIPE_LEN 10
#define CHECK_WORDS 4
#define QUARANTINE 8192
#define ELEM_LIVE 0x51534252u
#define POISON_WORD 0x6b6b6b6b6b6b6b6bUL
#define POLL_SLEEP_NS 50000u

struct elem {
	unsigned magic;
	unsigned age;		/* 0 current, 1 removed, +1 per grace period after */
	unsigned long seq;
	unsigned long check[CHECK_WORDS];
	unsigned long cookie;	/* polled state at removal */
	struct elem *next;	/* the writer's removed list */
};

struct writer {
	unsigned long seq;
	struct elem *removed;
	struct elem **quarantine;
	unsigned quarantine_next;
	struct writer *next_retired;
};

struct qsbr_state {
	struct elem *current;
	pthread_mutex_t retired_lock;
	struct writer *retired;
};

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

/* Relaxed atomics: a reader of a broken primitive sees poison, not a race. */
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

static void set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_qsbr, on);
}

static void setup(struct torture_run *run)
{
	struct qsbr_state *s = calloc(1, sizeof(*s));

	s->current = elem_new(0);
	pthread_mutex_init(&s->retired_lock, NULL);
	run->state = s;
}

static void thread_start(struct torture_thread *t)
{
	rcu_qsbr_register_thread();
	if (t->role == TORTURE_WRITER) {
		struct writer *w = calloc(1, sizeof(*w));

		w->seq = (unsigned long)(t->id + 1) << 40;
		w->quarantine = calloc(QUARANTINE, sizeof(*w->quarantine));
		t->priv = w;
	}
	if (t->role != TORTURE_READER && t->role != TORTURE_CHURN)
		rcu_qsbr_thread_offline();
}

static void thread_stop(struct torture_thread *t, bool unregister)
{
	struct qsbr_state *s = t->run->state;

	if (t->role == TORTURE_WRITER) {
		struct writer *w = t->priv;

		/* Readers may still hold these: freed once all have stopped. */
		pthread_mutex_lock(&s->retired_lock);
		w->next_retired = s->retired;
		s->retired = w;
		pthread_mutex_unlock(&s->retired_lock);
	}
	if (unregister)
		rcu_qsbr_unregister_thread();
}

/* One section; from a signal handler, short and silent. */
static void read_section(struct torture_thread *t, bool in_handler)
{
	struct torture_run *run = t->run;
	struct qsbr_state *s = run->state;
	struct elem *e;
	unsigned long seq;
	unsigned age;
	bool intact;

	rcu_qsbr_read_lock();
	e = rcu_dereference(s->current);
	seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	if (!in_handler) {
		torture_section_delay(t);
		if (torture_one_in(t, 4)) {
			/* Sections may follow each other with no quiescent state between. */
			torture_section_delay(t);
		}
	}
	intact = elem_intact(e, seq);
	age = __atomic_load_n(&e->age, __ATOMIC_RELAXED);
	rcu_qsbr_read_unlock();
	if (!intact)
		torture_violation(run, TV_FREED, "%s found element %#lx poisoned or torn%s",
				  t->name, seq, in_handler ? " (in a signal handler)" : "");
	else if (age > 1)
		torture_violation(run, TV_AGE, "%s held element %#lx across %u grace periods%s",
				  t->name, seq, age - 1, in_handler ? " (in a signal handler)" : "");
}

static void qsbr_read(struct torture_thread *t)
{
	bool reader = t->role == TORTURE_READER || t->role == TORTURE_CHURN;

	if (!reader)
		rcu_qsbr_thread_online();
	read_section(t, false);
	if (!reader) {
		rcu_qsbr_thread_offline();
	} else {
		if (!torture_one_in(t, 8))
			rcu_qsbr_quiescent_state();
		if (torture_one_in(t, 32))
			rcu_qsbr_offline_while(torture_hold_sleep(t));
	}
	torture_count_op(t);
}

static void signal_read(struct torture_thread *t)
{
	if (rcu_qsbr_thread_online_p())
		read_section(t, true);
}

static void quarantine(struct writer *w, struct elem *e)
{
	struct elem *evicted = w->quarantine[w->quarantine_next];

	elem_poison(e);
	w->quarantine[w->quarantine_next] = e;
	w->quarantine_next = (w->quarantine_next + 1) % QUARANTINE;
	free(evicted);
}

/* After a grace period: every removed element ages by one. */
static void age_removed(struct torture_run *run, struct writer *w)
{
	struct elem **link = &w->removed, *e;

	while ((e = *link)) {
		unsigned age = e->age + 1;

		if (age == 2 && !rcu_qsbr_poll_state_synchronize_rcu(e->cookie))
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
}

static void qsbr_write(struct torture_thread *t)
{
	struct qsbr_state *s = t->run->state;
	struct writer *w = t->priv;
	struct elem *old = rcu_xchg_pointer(&s->current, elem_new(++w->seq));

	/* Removed: the grace period that ages it next orders this store. */
	__atomic_store_n(&old->age, 1, __ATOMIC_RELAXED);
	old->cookie = rcu_qsbr_get_state_synchronize_rcu();
	old->next = w->removed;
	w->removed = old;
	if (torture_one_in(t, 4)) {
		unsigned long cookie = rcu_qsbr_start_poll_synchronize_rcu();

		/* Woken by the timer: the callback thread ends the grace period. */
		while (!rcu_qsbr_poll_state_synchronize_rcu(cookie))
			torture_sleep_ns(POLL_SLEEP_NS);
	} else {
		rcu_qsbr_synchronize_rcu();
	}
	age_removed(t->run, w);
	torture_count_op(t);
	torture_writer_pause(t);
}

static uint64_t grace_periods(struct torture_run *run)
{
	(void)run;
	return quiesce_gp_seq_current(&quiesce_qsbr_domain) >> 1;
}

static void finish(struct torture_run *run)
{
	struct qsbr_state *s = run->state;
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
	pthread_mutex_destroy(&s->retired_lock);
}

const struct torture_type torture_type_qsbr = {
	.name = "qsbr",
	.doc = "QSBR readers announcing quiescent states, writers synchronize or poll",
	.faults = QSBR_FAULTS,
	.set_busted = set_busted,
	.setup = setup,
	.thread_start = thread_start,
	.thread_stop = thread_stop,
	.read = qsbr_read,
	.write = qsbr_write,
	.signal_read = signal_read,
	.grace_periods = grace_periods,
	.finish = finish,
};
