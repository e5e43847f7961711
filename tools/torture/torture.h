/*
 * torture.h - the framework every torture type plugs into.
 *
 * A run starts reader and writer threads that call the type's read() and
 * write() operations until the duration ends, plus one thread per enabled
 * fault (churn, fork, signals, affinity shuffling).  Types check their own
 * invariants and call torture_violation() when one breaks; the framework
 * counts, reports, and decides the exit status.
 */
#ifndef QUIESCE_TORTURE_H
#define QUIESCE_TORTURE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <quiesce/compiler.h>

#include "options.h"

enum torture_role {
	TORTURE_READER,
	TORTURE_WRITER,
	TORTURE_CHURN,		/* a short-lived reader, see churn.c */
	TORTURE_FAULT,		/* a fault injector: fork, signals, shuffle, churn */
};

enum torture_violation_kind {
	TV_AGE,		/* rcu: a held element outlived a grace period */
	TV_FREED,	/* rcu: a reader saw a poisoned (retired) element */
	TV_COOKIE,	/* rcu: a polled cookie not done after its grace period */
	TV_CALLBACK,	/* call-rcu: a callback lost, doubled, or not flushed */
	TV_EXCLUSION,	/* locks: a writer overlapped another holder */
	TV_DATA,	/* locks: protected data changed under a holder */
	TV_SHARING,	/* locks: readers never held the lock together */
	TV_FORK_CHILD,	/* the child's own torture after fork() failed */
	TV_STALL_MISSING, /* a long reader held a grace period, no warning came */
	TV_HASH,	/* rcuhash: a key missing, or returned twice by a walk */
	TV_KINDS
};

struct torture_run;

/* One thread of a run: its identity, random state, and counters. */
struct torture_thread {
	struct torture_run *run;
	pthread_t thread;
	enum torture_role role;
	unsigned id;
	char name[16];
	int tid;
	uint64_t rng;
	void *priv;		/* the type's per-thread state */
	uint64_t ops;		/* operations done; read by the status line */
	uint64_t signal_ops;	/* read-side operations done in a signal handler */
	uint64_t signals_handled; /* SIGUSR1s whose handler ran, whatever it did */
	uint64_t delays;	/* the delay fault's spins and yields */
	uint64_t sleeps;	/* the sleep fault's sleeps */
	bool signal_ready;	/* the handler may run the type's signal_read() */
	bool finished;		/* joined by the end of the run */
} QUIESCE_CACHELINE_ALIGNED;

/*
 * A deliberately broken primitive that the type's checks must catch: the
 * type's first control runs as TYPE-busted, the others as TYPE-busted-NAME.
 * The run sets *flag (a test switch of the library's), or calls set(true),
 * before setup(), and clears it after the summary.
 */
struct torture_control {
	const char *name;		/* "" for the first; NULL ends the list */
	const char *doc;		/* what is broken, for --list */
	bool *flag;
	void (*set)(bool on);		/* when there is no flag */
	/*
	 * The TORTURE_FAULT_* that its check needs, which the run turns on
	 * whatever --faults says: without them it could only pass.
	 */
	unsigned faults;
};

/*
 * A torture type.  Every function but read/write may be NULL.  read() and
 * write() each do one operation and return; they run until the run stops.
 */
struct torture_type {
	const char *name;
	const char *doc;		/* one line for --help and --list */
	unsigned faults;		/* the TORTURE_FAULT_* that apply */
	/* Its busted controls (NULL: none). */
	const struct torture_control *controls;
	void (*setup)(struct torture_run *run);
	void (*thread_start)(struct torture_thread *t);
	/* unregister false: exit still registered, for thread churn. */
	void (*thread_stop)(struct torture_thread *t, bool unregister);
	void (*read)(struct torture_thread *t);
	void (*write)(struct torture_thread *t);
	/* A short read-side operation, from a signal handler on a reader (or a writer). */
	void (*signal_read)(struct torture_thread *t);
	/*
	 * The signals fault interrupts writers too, and their handlers run
	 * signal_read(): RCU sections entered from a handler that interrupts
	 * a wait for a grace period.
	 */
	bool signal_writers;
	/* Grace periods (or their equivalent) so far, for the status line. */
	uint64_t (*grace_periods)(struct torture_run *run);
	/*
	 * After every thread has finished: final checks, then frees what
	 * state points to; the framework frees state after the summary.
	 */
	void (*finish)(struct torture_run *run);
	/*
	 * After every thread has finished, before finish: calls
	 * torture_unchecked() for each event the type's checks need that the
	 * run never produced (no read overlapped an update, ...).
	 */
	void (*evidence)(struct torture_run *run);
	/* Extra summary figures: text lines, or JSON members after a comma. */
	void (*report)(struct torture_run *run, FILE *out, bool json);
};

struct torture_run {
	const struct torture_options *opt;
	const struct torture_type *type;
	void *state;			/* the type's shared state */
	bool end_early;			/* a violation under --stop-on-violation */
	bool writers_stop;		/* the end, for writers (and shuffle): first */
	bool stop;			/* the end, for every other thread */
	uint64_t start_ns;
	struct torture_thread *readers, *writers;
	uint64_t violations[TV_KINDS];
	uint64_t churn_threads, churn_ops, forks, signals_sent, shuffles;
	/* The delay and sleep faults' counts of finished churn threads. */
	uint64_t churn_delays, churn_sleeps;
	/* The stall fault (rcu_stall.c): long reads a grace period waited for
	 * long enough to have to warn are "checked". */
	uint64_t long_reads, long_reads_checked, stall_warnings;
	unsigned unfinished;		/* threads that did not finish in time */
	unsigned messages;		/* violation messages printed so far */
	unsigned unchecked;		/* essential events the run never had */
};

/* The run in progress (for handlers), and the calling torture thread. */
extern struct torture_run *torture_active_run;
extern __thread struct torture_thread *torture_self;

/* Monotonic time. */
uint64_t torture_now_ns(void);

/*
 * True once the run should end; threads poll it between operations.
 * Writers poll writers_stop, which comes first: a broken primitive may
 * leave a writer waiting for readers that only running readers wake.
 */
static inline bool torture_stopping(const struct torture_run *run)
{
	return QUIESCE_LOAD(&run->stop);
}

/* Records a violation; the first few are described on stderr. */
void torture_violation(struct torture_run *run, enum torture_violation_kind kind,
		       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t torture_violations(const struct torture_run *run);
/*
 * One line on stderr, "<tool>: " what and the formatted rest, in one
 * write(2) (no stdio lock: signal handlers report too); violation.c.
 */
void torture_say(const struct torture_run *run, const char *what, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
const char *torture_violation_name(enum torture_violation_kind kind);

/*
 * Records that the run never produced an event a check needs (evidence.c):
 * a run that checked nothing must not pass.  Called after every thread
 * has finished; described on stderr.
 */
void torture_unchecked(struct torture_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The framework's evidence: work done, every enabled fault injected. */
void torture_check_evidence(struct torture_run *run);

/* Per-thread pseudo-random numbers (xorshift64*). */
static inline uint64_t torture_random(struct torture_thread *t)
{
	uint64_t x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* True with probability 1/n. */
static inline bool torture_one_in(struct torture_thread *t, unsigned n)
{
	return torture_random(t) % n == 0;
}

void torture_thread_init(struct torture_thread *t, struct torture_run *run,
			 enum torture_role role, unsigned id, const char *name);

/* Counts one operation, readable by the status line. */
static inline void torture_count_op(struct torture_thread *t)
{
	QUIESCE_STORE(&t->ops, t->ops + 1);
}

/*
 * Counts one injection of the delay or the sleep fault (evidence.c), in
 * the thread's own counter: relaxed, read by the summary after the join.
 */
static inline void torture_count_delay(struct torture_thread *t)
{
	QUIESCE_STORE(&t->delays, t->delays + 1);
}

static inline void torture_count_sleep(struct torture_thread *t)
{
	QUIESCE_STORE(&t->sleeps, t->sleeps + 1);
}

/* Faults injected by the torture threads themselves: see inject.c. */
void torture_section_delay(struct torture_thread *t);
void torture_hold_sleep(struct torture_thread *t);
void torture_writer_pause(struct torture_thread *t);
void torture_sleep_ns(uint64_t ns);
void torture_spin_ns(uint64_t ns);

/* Runs a whole torture; returns the exit status (0: passed). */
int torture_main(const struct torture_options *opt, const struct torture_type *type);

#endif
