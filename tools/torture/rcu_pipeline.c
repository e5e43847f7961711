/*
 * rcu_pipeline.c - the pipeline-age check behind the RCU torture types;
 * the idea is rcutorture's, see rcu_pipeline.h.
 */
#include "rcu_pipeline.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include <quiesce/rcu.h>

#include "rcu/gp_engine.h"
#include "rcu/registry.h"
#include "rcu/stall.h"
#include "rcu_stall.h"
#include "torture.h"

#define ELEM_LIVE 0x4c495645u
#define ELEM_POISON 0x6b6b6b6bu
#define POISON_WORD 0x6b6b6b6b6b6b6b6bUL

struct rcu_reader {
	uint64_t hist[RCU_HIST_SLOTS];	/* ages seen at the end of sections */
};

static unsigned long check_word(unsigned long seq, int i)
{
	return seq * 0x9e3779b97f4a7c15UL + (unsigned long)i;
}

static struct rcu_elem *elem_new(unsigned long seq)
{
	struct rcu_elem *e = calloc(1, sizeof(*e));

	e->magic = ELEM_LIVE;
	e->seq = seq;
	for (int i = 0; i < RCU_CHECK_WORDS; i++)
		e->check[i] = check_word(seq, i);
	return e;
}

/*
 * Relaxed atomics: a reader may still look at the element when the
 * primitive is broken, and must then see the poison, not a data race.
 */
static void elem_poison(struct rcu_elem *e)
{
	__atomic_store_n(&e->magic, ELEM_POISON, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, POISON_WORD, __ATOMIC_RELAXED);
	for (int i = 0; i < RCU_CHECK_WORDS; i++)
		__atomic_store_n(&e->check[i], POISON_WORD, __ATOMIC_RELAXED);
}

static bool elem_intact(const struct rcu_elem *e, unsigned long seq)
{
	if (__atomic_load_n(&e->magic, __ATOMIC_RELAXED) != ELEM_LIVE)
		return false;
	for (int i = 0; i < RCU_CHECK_WORDS; i++)
		if (__atomic_load_n(&e->check[i], __ATOMIC_RELAXED) != check_word(seq, i))
			return false;
	return true;
}

static int default_read_lock(struct rcu_pipeline *p)
{
	rcu_read_lock();
	return 0;
}

static void default_read_unlock(struct rcu_pipeline *p, int idx)
{
	rcu_read_unlock();
}

/* The stall fault: now and then, one reader holds for several timeouts. */
static void default_read_hold(struct torture_thread *t)
{
	if (rcu_long_read_due(t))
		rcu_long_read_hold(t);
}

static unsigned long default_get_state(struct rcu_pipeline *p)
{
	return get_state_synchronize_rcu();
}

static bool default_poll_state(struct rcu_pipeline *p, unsigned long cookie)
{
	return poll_state_synchronize_rcu(cookie);
}

const struct rcu_pipeline_domain rcu_pipeline_default_domain = {
	.register_thread = quiesce_rcu_register_thread,
	.unregister_thread = quiesce_rcu_unregister_thread,
	.read_lock = default_read_lock,
	.read_unlock = default_read_unlock,
	.read_hold = default_read_hold,
	.get_state = default_get_state,
	.poll_state = default_poll_state,
};

/* The stall fault is the default domain's: only its types enable it. */
struct rcu_pipeline *rcu_pipeline_setup(struct torture_run *run, size_t size,
					const struct rcu_pipeline_domain *domain, rcu_wait_fn wait)
{
	struct rcu_pipeline *p = calloc(1, size);

	p->current = elem_new(0);
	p->domain = domain;
	p->wait = wait;
	pthread_mutex_init(&p->retired_lock, NULL);
	run->state = p;
	rcu_stall_setup(run);
	return p;
}

const struct torture_control rcu_pipeline_controls[] = {
	{ .name = "", .doc = "grace periods end without waiting for readers",
	  .flag = &quiesce_test_busted_gp },
	{ .name = "cookie", .doc = "snapshots name a grace period too late: cookies are not done in time",
	  .flag = &quiesce_test_busted_cookie },
	{ .name = "stall", .doc = "stall reports are dropped",
	  .flag = &quiesce_test_busted_stall, .faults = TORTURE_FAULT_STALL },
	{ .name = "fork", .doc = "the child of fork() leaves the reader registry locked",
	  .flag = &quiesce_test_busted_fork_registry, .faults = TORTURE_FAULT_FORK },
	{ .name = NULL },
};

void rcu_pipeline_thread_start(struct torture_thread *t)
{
	struct rcu_pipeline *p = t->run->state;

	/* Registered before a signal handler's section can be its first. */
	p->domain->register_thread();
	if (t->role == TORTURE_WRITER) {
		struct rcu_writer *w = calloc(1, sizeof(*w));

		w->run = t->run;
		w->seq = (unsigned long)(t->id + 1) << 40;
		w->quarantine = calloc(RCU_QUARANTINE, sizeof(*w->quarantine));
		t->priv = w;
	} else {
		t->priv = calloc(1, sizeof(struct rcu_reader));
	}
}

void rcu_pipeline_thread_stop(struct torture_thread *t, bool unregister)
{
	struct rcu_pipeline *p = t->run->state;

	if (t->role == TORTURE_WRITER) {
		struct rcu_writer *w = t->priv;

		/* Readers may still hold these: free them once all have stopped. */
		pthread_mutex_lock(&p->retired_lock);
		w->next_retired = p->retired;
		p->retired = w;
		pthread_mutex_unlock(&p->retired_lock);
	} else {
		struct rcu_reader *r = t->priv;

		for (int i = 0; i < RCU_HIST_SLOTS; i++)
			__atomic_fetch_add(&p->hist[i], r->hist[i], __ATOMIC_RELAXED);
		free(r);
	}
	if (unregister)
		p->domain->unregister_thread();
}

/* One read-side section; from a signal handler it is short and silent. */
static void read_section(struct torture_thread *t, bool in_handler)
{
	struct torture_run *run = t->run;
	struct rcu_pipeline *p = run->state;
	const struct rcu_pipeline_domain *d = p->domain;
	int idx = d->read_lock(p);
	struct rcu_elem *e = rcu_dereference(p->current);
	unsigned long seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	unsigned age;
	bool intact;

	if (!in_handler) {
		if (torture_one_in(t, 4)) {
			/* A nested section must not end the protection early. */
			int inner = d->read_lock(p);

			torture_section_delay(t);
			d->read_unlock(p, inner);
		}
		torture_section_delay(t);
		if (d->read_hold)
			d->read_hold(t);
	}
	intact = elem_intact(e, seq);
	age = __atomic_load_n(&e->age, __ATOMIC_RELAXED);
	d->read_unlock(p, idx);

	if (!intact)
		torture_violation(run, TV_FREED, "%s found element %#lx poisoned or torn%s",
				  t->name, seq, in_handler ? " (in a signal handler)" : "");
	else if (age > 1)
		torture_violation(run, TV_AGE,
				  "%s held element %#lx across %u grace periods%s", t->name, seq,
				  age - 1, in_handler ? " (in a signal handler)" : "");
	if (in_handler)
		return;
	((struct rcu_reader *)t->priv)->hist[age < RCU_HIST_SLOTS ? age : RCU_HIST_SLOTS - 1]++;
	torture_count_op(t);
}

void rcu_pipeline_read(struct torture_thread *t)
{
	read_section(t, false);
}

void rcu_pipeline_signal_read(struct torture_thread *t)
{
	read_section(t, true);
}

static void quarantine(struct rcu_writer *w, struct rcu_elem *e)
{
	struct rcu_elem *evicted = w->quarantine[w->quarantine_next];

	elem_poison(e);
	w->quarantine[w->quarantine_next] = e;
	w->quarantine_next = (w->quarantine_next + 1) % RCU_QUARANTINE;
	if (evicted && w->free_rcu)
		free_rcu(evicted, head);
	else
		free(evicted);
}

bool rcu_pipeline_age(struct rcu_writer *w, struct rcu_elem *e)
{
	struct rcu_pipeline *p = w->run->state;
	unsigned age = e->age + 1;

	if (age == 2 && !p->domain->poll_state(p, e->cookie))
		torture_violation(w->run, TV_COOKIE,
				  "the cookie taken at the removal of %#lx is not done after its "
				  "grace period", e->seq);
	__atomic_store_n(&e->age, age, __ATOMIC_RELAXED);
	if (age < RCU_PIPE_LEN)
		return false;
	quarantine(w, e);
	return true;
}

/* After a grace period: every removed element ages by one. */
static void age_removed(struct rcu_writer *w)
{
	struct rcu_elem **link = &w->removed, *e;

	while ((e = *link)) {
		struct rcu_elem *next = e->next;

		if (rcu_pipeline_age(w, e))
			*link = next;
		else
			link = &e->next;
	}
}

struct rcu_elem *rcu_pipeline_replace(struct torture_thread *t)
{
	struct rcu_pipeline *p = t->run->state;
	struct rcu_writer *w = t->priv;
	struct rcu_elem *old = rcu_xchg_pointer(&p->current, elem_new(++w->seq));

	/*
	 * Removed.  Readers that loaded the pointer before the exchange may
	 * still see age 0; the grace period that ages it next orders this
	 * store before that one.
	 */
	__atomic_store_n(&old->age, 1, __ATOMIC_RELAXED);
	old->cookie = p->domain->get_state(p);
	return old;
}

void rcu_pipeline_write(struct torture_thread *t)
{
	struct rcu_pipeline *p = t->run->state;
	struct rcu_writer *w = t->priv;
	struct rcu_elem *old = rcu_pipeline_replace(t);

	old->next = w->removed;
	w->removed = old;
	p->wait(t);
	age_removed(w);
	torture_count_op(t);
	torture_writer_pause(t);
}

uint64_t rcu_pipeline_grace_periods(struct torture_run *run)
{
	return quiesce_gp_seq_current(&quiesce_rcu_domain) >> 1;
}

/*
 * The age check only proves something about reads that held an element
 * across its removal (age 1 at the end of the section: the writer was
 * then waiting for the grace period that had to wait for them) and
 * writers whose grace periods ended.  After the joins: plain loads.
 */
void rcu_pipeline_evidence(struct torture_run *run)
{
	struct rcu_pipeline *p = run->state;

	if (!p->hist[1])
		torture_unchecked(run, "no read held an element across its removal");
	if (run->type->grace_periods && !run->type->grace_periods(run))
		torture_unchecked(run, "no grace period ended");
	rcu_stall_evidence(run);
}

void rcu_pipeline_finish(struct torture_run *run)
{
	struct rcu_pipeline *p = run->state;
	struct rcu_writer *w, *next;

	for (w = p->retired; w; w = next) {
		struct rcu_elem *e, *e_next;

		next = w->next_retired;
		for (e = w->removed; e; e = e_next) {
			e_next = e->next;
			free(e);
		}
		for (unsigned i = 0; i < RCU_QUARANTINE; i++)
			free(w->quarantine[i]);
		free(w->quarantine);
		free(w);
	}
	free(p->current);
	pthread_mutex_destroy(&p->retired_lock);
	rcu_stall_teardown(run);
}

/* Loads are atomic: a run whose threads did not finish still reports. */
void rcu_pipeline_report(struct torture_run *run, FILE *out, bool json)
{
	struct rcu_pipeline *p = run->state;

	fprintf(out, json ? ",\"pipeline_ages\":[" : "  reader pipeline ages (above 1 is a violation):");
	for (int i = 0; i < RCU_HIST_SLOTS; i++)
		fprintf(out, "%s%" PRIu64, json ? (i ? "," : "") : " ", QUIESCE_LOAD(&p->hist[i]));
	fprintf(out, json ? "]" : "\n");
}
