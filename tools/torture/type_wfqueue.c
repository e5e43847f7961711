/*
 * type_wfqueue.c - the wfqueue torture type: writers enqueue numbered
 * elements into one wait-free queue; readers take them out every way there
 * is (the locked dequeue, runs of nonblocking dequeues under the consumer
 * lock, and splices of the whole queue into a private queue that they
 * iterate, then drain), with delays and sleeps while they hold the lock.
 * Each reader checks that it sees each writer's elements in increasing
 * order and that nobody took them before, consumed elements are poisoned
 * and kept in a quarantine, and at the end every element enqueued must
 * have come out.  A new element's link points at a trap element, as a
 * recycled element's stale link would point at an old one: a consumer that
 * follows a link the enqueue should have cleared finds the trap.  Busted,
 * enqueue publishes its node before clearing its link, as a missing
 * release would allow.
 *
 * wfqueue-rcu: the same writers and checks, with readers that are all RCU
 * consumers (quiesce_wfcq_dequeue_rcu(), inside a read-side section that
 * the delay fault stretches, as liburcu's cds_lfq users call it).  A
 * consumed element is poisoned and quarantined by a call_rcu() callback,
 * after a grace period, since another consumer may still be reading it.
 * Busted, the dequeue has no compare-and-swap: two consumers take one
 * element, or one hands out a poisoned element's stale link.
 */
#define QUIESCE_TEST_WFCQ_HOOKS
#include <quiesce/wfqueue.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "torture.h"

#define WFQ_FAULTS (TORTURE_FAULT_DELAY | TORTURE_FAULT_SLEEP | TORTURE_FAULT_SIGNALS | \
		    TORTURE_FAULT_SHUFFLE)
/*
 * wfqueue-rcu's consumers hold nothing but a read-side section, in which
 * holders never sleep: no sleep fault (it would only have made the signal
 * handler sleep).
 */
#define WFQ_RCU_FAULTS (WFQ_FAULTS & ~TORTURE_FAULT_SLEEP)
#define ELEM_LIVE 0x57465145u
#define ELEM_TRAP 0x54524150u
#define POISON_BYTE 0x6b
#define QUARANTINE 1024
#define NONBLOCKING_RUN 8
/*
 * Consumers that take nothing for this long while writers enqueue are stuck
 * waiting for a link that will never come: the queue lost an element.
 */
#define STALL_NS 3000000000ull
#define STALL_CHECK_EVERY 64

struct wfq_elem {
	struct quiesce_wfcq_node node;
	struct rcu_head rcu;		/* wfqueue-rcu: its retirement */
	unsigned magic;
	unsigned taken;			/* set by the consumer that takes it */
	unsigned producer;
	unsigned long seq;
};

/* Where every new element's link points until enqueue clears it. */
static struct wfq_elem trap = { .magic = ELEM_TRAP };

struct wfq_state {
	struct quiesce_wfcq_head head QUIESCE_CACHELINE_ALIGNED;
	struct quiesce_wfcq_tail tail QUIESCE_CACHELINE_ALIGNED;
	/* Elements consumed so far, for the writers' stall check. */
	uint64_t consumed_live QUIESCE_CACHELINE_ALIGNED;
	/* Totals, added up as the threads stop. */
	uint64_t produced, consumed, splices, would_blocks;
	bool rcu;			/* wfqueue-rcu: RCU consumers only */
};

struct wfq_producer {
	unsigned long next_seq;
	uint64_t seen_consumed;	/* consumed_live at seen_ns */
	uint64_t seen_ns;
};

struct wfq_consumer {
	long *last;		/* per writer: the last sequence number seen */
	struct quiesce_wfcq_head head;	/* the private queue splices fill */
	struct quiesce_wfcq_tail tail;
	struct wfq_elem *quarantine[QUARANTINE];
	unsigned next_out;
	uint64_t consumed, splices, would_blocks;
};

/*
 * Busted, an enqueuer clears its node's link after consumers may have taken
 * the node, and even after it was freed and reused: a consumer can then
 * follow a wild link.  A crash is what that violation looks like, and is
 * reported as one, with the signal, the address and the thread, so that a
 * crash of another cause shows for what it is: a signal sent by kill() or
 * raise() (si_code <= 0) has no address, and names its sender instead
 * (si_addr would read the sender's pid and uid).  Only async-signal-safe
 * calls: the line is built by hand and written at once.
 */
static char *append(char *at, const char *text)
{
	while (*text)
		*at++ = *text++;
	return at;
}

/* value in base 10 or 16, zero-padded to width digits. */
static char *append_number(char *at, uintmax_t value, unsigned base, int width)
{
	static const char digits[] = "0123456789abcdef";
	char buf[sizeof(value) * 3];
	int n = 0;

	do {
		buf[n++] = digits[value % base];
		value /= base;
	} while (value || n < width);
	while (n)
		*at++ = buf[--n];
	return at;
}

static void wild_link(int sig, siginfo_t *info, void *context)
{
	char line[256], *at = line;

	(void)context;
	at = append(at, "quiesce-torture: violation (data): a consumer crashed following a "
			"wild link (");
	at = append(at, sig == SIGSEGV ? "SIGSEGV" : "SIGBUS");
	if (info->si_code <= 0) {
		at = append(at, " sent by process ");
		at = append_number(at, (uintmax_t)info->si_pid, 10, 1);
	} else {
		at = append(at, " at 0x");
		at = append_number(at, (uintptr_t)info->si_addr, 16, (int)sizeof(void *) * 2);
	}
	at = append(at, " in ");
	at = append(at, torture_self ? torture_self->name : "a thread of no role");
	at = append(at, ")\n");
	if (write(STDERR_FILENO, line, (size_t)(at - line)) < 0)
		_exit(2);
	_exit(1);
}

static void catch_wild_links(bool on)
{
	if (on) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = wild_link;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
	}
}

static void set_busted(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_wfcq, on);
	catch_wild_links(on);
}

static void set_busted_rcu(bool on)
{
	QUIESCE_STORE(&quiesce_test_busted_wfcq_rcu, on);
	catch_wild_links(on);
}

static const struct torture_control controls[] = {
	{ .name = "", .doc = "an enqueue publishes its node before it clears its next",
	  .set = set_busted },
	{ .name = NULL },
};

static const struct torture_control controls_rcu[] = {
	{ .name = "", .doc = "RCU consumers dequeue with no compare-exchange",
	  .set = set_busted_rcu },
	{ .name = NULL },
};

static void setup(struct torture_run *run)
{
	struct wfq_state *s;

	if (posix_memalign((void **)&s, QUIESCE_CACHELINE, sizeof(*s)))
		abort();
	memset(s, 0, sizeof(*s));
	quiesce_wfcq_init(&s->head, &s->tail);
	run->state = s;
}

static void setup_rcu(struct torture_run *run)
{
	setup(run);
	((struct wfq_state *)run->state)->rcu = true;
}

static void thread_start(struct torture_thread *t)
{
	if (t->role == TORTURE_WRITER) {
		t->priv = calloc(1, sizeof(struct wfq_producer));
	} else {
		struct wfq_consumer *c = calloc(1, sizeof(*c));

		c->last = malloc(t->run->opt->writers * sizeof(long));
		for (unsigned i = 0; i < t->run->opt->writers; i++)
			c->last[i] = -1;
		quiesce_wfcq_init(&c->head, &c->tail);
		t->priv = c;
	}
}

static void thread_stop(struct torture_thread *t, bool unregister)
{
	struct wfq_state *s = t->run->state;

	if (t->role == TORTURE_WRITER) {
		struct wfq_producer *p = t->priv;

		__atomic_fetch_add(&s->produced, p->next_seq, __ATOMIC_RELAXED);
	} else {
		struct wfq_consumer *c = t->priv;

		__atomic_fetch_add(&s->consumed, c->consumed, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->splices, c->splices, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->would_blocks, c->would_blocks, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < QUARANTINE; i++)
			free(c->quarantine[i]);
		quiesce_wfcq_destroy(&c->head, &c->tail);
		free(c->last);
	}
	free(t->priv);
	t->priv = NULL;
}

static void write_elem(struct torture_thread *t)
{
	struct wfq_state *s = t->run->state;
	struct wfq_producer *p = t->priv;
	struct wfq_elem *e = malloc(sizeof(*e));

	e->node.next = &trap.node;
	e->magic = ELEM_LIVE;
	e->taken = 0;
	e->producer = t->id;
	e->seq = p->next_seq++;
	quiesce_wfcq_enqueue(&s->head, &s->tail, &e->node);
	/* e belongs to the consumers now: no more looks at it. */
	if (p->next_seq % STALL_CHECK_EVERY == 0) {
		uint64_t consumed = QUIESCE_LOAD(&s->consumed_live), now = torture_now_ns();

		if (consumed != p->seen_consumed || !p->seen_ns) {
			p->seen_consumed = consumed;
			p->seen_ns = now;
		} else if (now - p->seen_ns > STALL_NS) {
			torture_violation(t->run, TV_DATA,
					  "%s: nothing came out of the queue for %llu ms while it "
					  "enqueued: consumers wait for a lost link", t->name,
					  (unsigned long long)((now - p->seen_ns) / 1000000));
			p->seen_ns = now;
		}
	}
	torture_count_op(t);
	torture_writer_pause(t);
}

/* False if the element is not one a producer enqueued and nobody consumed. */
static bool elem_valid(struct torture_run *run, const struct wfq_elem *e)
{
	if (e == &trap) {
		torture_violation(run, TV_DATA, "a consumer followed a stale link to the trap element");
		return false;
	}
	if (e->magic != ELEM_LIVE || e->producer >= run->opt->writers) {
		torture_violation(run, TV_FREED,
				  "a consumer took an element that was consumed and poisoned (magic %#x)",
				  e->magic);
		return false;
	}
	return true;
}

/* Poisons e and keeps it in *ring, freeing what it pushes out. */
static void quarantine(struct wfq_elem **ring, unsigned *next_out, struct wfq_elem *e)
{
	memset(e, POISON_BYTE, sizeof(*e));
	free(ring[*next_out]);
	ring[*next_out] = e;
	*next_out = (*next_out + 1) % QUARANTINE;
}

/*
 * wfqueue-rcu's quarantine, filled by callbacks, which run one at a time
 * on the callback thread; emptied by finish() after rcu_barrier().
 */
static struct wfq_elem *retired[QUARANTINE];
static unsigned retired_next_out;

static void retire(struct rcu_head *head)
{
	quarantine(retired, &retired_next_out, container_of(head, struct wfq_elem, rcu));
}

static void consume(struct torture_thread *t, struct wfq_consumer *c, struct quiesce_wfcq_node *node)
{
	struct wfq_elem *e = container_of(node, struct wfq_elem, node);
	struct wfq_state *s = t->run->state;

	if (!elem_valid(t->run, e))
		return;
	if (__atomic_exchange_n(&e->taken, 1, __ATOMIC_RELAXED)) {
		torture_violation(t->run, TV_DATA, "%s: element %lu of writer %u taken twice",
				  t->name, e->seq, e->producer);
		return;
	}
	if ((long)e->seq <= c->last[e->producer])
		torture_violation(t->run, TV_DATA,
				  "%s: element %lu of writer %u after %ld: doubled or out of order",
				  t->name, e->seq, e->producer, c->last[e->producer]);
	c->last[e->producer] = (long)e->seq;
	c->consumed++;
	__atomic_fetch_add(&s->consumed_live, 1, __ATOMIC_RELAXED);
	if (s->rcu)
		call_rcu(&e->rcu, retire);
	else
		quarantine(c->quarantine, &c->next_out, e);
}

static void consume_spliced(struct torture_thread *t, struct wfq_state *s, struct wfq_consumer *c)
{
	struct quiesce_wfcq_node *node;
	long last[t->run->opt->writers];

	if (quiesce_wfcq_splice_blocking(&c->head, &c->tail, &s->head, &s->tail) ==
	    QUIESCE_WFCQ_RET_SRC_EMPTY)
		return;
	c->splices++;
	memcpy(last, c->last, sizeof(last));
	/* Iterating must show what the dequeues below will take, in order. */
	quiesce_wfcq_sc_for_each_blocking(&c->head, &c->tail, node) {
		struct wfq_elem *e = container_of(node, struct wfq_elem, node);

		if (elem_valid(t->run, e)) {
			if ((long)e->seq <= last[e->producer])
				torture_violation(t->run, TV_DATA, "%s: iteration shows %lu after %ld",
						  t->name, e->seq, last[e->producer]);
			last[e->producer] = (long)e->seq;
		}
		torture_section_delay(t);
	}
	while ((node = quiesce_wfcq_sc_dequeue_blocking(&c->head, &c->tail)) != NULL)
		consume(t, c, node);
}

static void read_elems(struct torture_thread *t)
{
	struct wfq_state *s = t->run->state;
	struct wfq_consumer *c = t->priv;
	struct quiesce_wfcq_node *node;

	if (s->rcu) {
		/* Held open a while after the take: others may read our node. */
		rcu_read_lock();
		node = quiesce_wfcq_dequeue_rcu(&s->head, &s->tail);
		torture_section_delay(t);
		rcu_read_unlock();
		if (node)
			consume(t, c, node);
		torture_count_op(t);
		return;
	}
	switch (torture_random(t) % 3) {
	case 0:
		node = quiesce_wfcq_dequeue_blocking(&s->head, &s->tail);
		if (node)
			consume(t, c, node);
		break;
	case 1:
		quiesce_wfcq_dequeue_lock(&s->head, &s->tail);
		for (int i = 0; i < NONBLOCKING_RUN; i++) {
			node = quiesce_wfcq_sc_dequeue_nonblocking(&s->head, &s->tail);
			if (node == NULL)
				break;
			if (node == QUIESCE_WFCQ_WOULDBLOCK) {
				c->would_blocks++;
				break;
			}
			consume(t, c, node);
			torture_section_delay(t);
		}
		torture_hold_sleep(t);
		quiesce_wfcq_dequeue_unlock(&s->head, &s->tail);
		break;
	default:
		consume_spliced(t, s, c);
	}
	torture_count_op(t);
}

/*
 * Every thread has stopped: what is left in the queue is drained here, and
 * nothing may wait for a link any more (no enqueue is in flight).
 */
static void finish(struct torture_run *run)
{
	struct wfq_state *s = run->state;
	struct quiesce_wfcq_node *node;
	uint64_t drained = 0;

	while ((node = quiesce_wfcq_sc_dequeue_nonblocking(&s->head, &s->tail)) != NULL) {
		struct wfq_elem *e;

		if (node == QUIESCE_WFCQ_WOULDBLOCK) {
			torture_violation(run, TV_DATA,
					  "a link never came after the last enqueue: the queue lost elements");
			return;
		}
		e = container_of(node, struct wfq_elem, node);
		if (!elem_valid(run, e))
			return;
		free(e);
		drained++;
	}
	if (s->consumed + drained != s->produced)
		torture_violation(run, TV_DATA, "%llu elements enqueued, %llu came out",
				  (unsigned long long)s->produced,
				  (unsigned long long)(s->consumed + drained));
	quiesce_wfcq_destroy(&s->head, &s->tail);
	if (s->rcu) {
		rcu_barrier();	/* every retirement is in the quarantine */
		for (unsigned i = 0; i < QUARANTINE; i++) {
			free(retired[i]);
			retired[i] = NULL;
		}
	}
}

/* Reads that found the queue empty check nothing: some must have taken. */
static void evidence(struct torture_run *run)
{
	struct wfq_state *s = run->state;

	if (!s->consumed)
		torture_unchecked(run, "no reader took an element");
}

static void report(struct torture_run *run, FILE *out, bool json)
{
	struct wfq_state *s = run->state;

	fprintf(out,
		json ? ",\"enqueued\":%llu,\"consumed\":%llu,\"splices\":%llu,\"would_block\":%llu"
		     : "  enqueued %llu, consumed %llu before the end, %llu splices, "
		       "%llu would-block returns\n",
		(unsigned long long)s->produced, (unsigned long long)s->consumed,
		(unsigned long long)s->splices, (unsigned long long)s->would_blocks);
}

/* The two types differ in their consumers: set up, and broken, apart. */
#define WFQ_TYPE(name_, doc_, faults_, controls_, setup_)                          \
	{ .name = (name_), .doc = (doc_), .faults = (faults_), .controls = (controls_), \
	  .setup = (setup_), .thread_start = thread_start, .thread_stop = thread_stop,    \
	  .read = read_elems, .write = write_elem, .evidence = evidence, .finish = finish, \
	  .report = report }

const struct torture_type torture_type_wfqueue =
	WFQ_TYPE("wfqueue", "wait-free queue: writers enqueue, readers dequeue, splice and iterate",
		 WFQ_FAULTS, controls, setup);

const struct torture_type torture_type_wfqueue_rcu =
	WFQ_TYPE("wfqueue-rcu",
		 "wait-free queue, lock-free RCU consumers: writers enqueue, readers dequeue",
		 WFQ_RCU_FAULTS, controls_rcu, setup_rcu);
