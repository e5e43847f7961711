/*
 * check.h - the test suite's assertions and child-process helpers.
 *
 * Tests fail loudly and exit non-zero.  Misuse that must abort, and
 * deliberately broken ("busted") primitives that must be caught, run in a
 * forked child so that the test can observe the failure.
 *
 * Tests check behaviour, never speed.  A stress runs for a while and then
 * until each side has made a number of operations; a wait for something
 * that must happen polls until it has; neither has a time limit but
 * CHECK_HANG_MS, which only a hang reaches.  A slow or loaded machine (a
 * sanitizer, valgrind, other jobs) makes a test take longer, never fail.
 * Where a behaviour depends on the order of two events (a callback that
 * must not have run yet), the test makes that order certain
 * (check_cb_hold()) instead of racing for it.
 */
#ifndef QUIESCE_TEST_CHECK_H
#define QUIESCE_TEST_CHECK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/*
 * Ends the process after a failed CHECK(): exit(1), or in a child of
 * check_fork() check_child_exit(1).
 */
_Noreturn void check_fail_exit(void);

/*
 * Ends a child of check_fork() whose exit status is all its parent reads (a
 * busted control's verdict, a failure): with _exit(), past the exit
 * handlers and AddressSanitizer's leak check (check.c says why).
 */
_Noreturn void check_child_exit(int status);

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, \
				__LINE__, #cond);                            \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			check_fail_exit();                                   \
		}                                                            \
	} while (0)

/*
 * The one time limit of the suite: a wait for progress that lasts this long
 * is a hang.  Generous enough for valgrind on a loaded machine.
 */
#define CHECK_HANG_MS 120000u

/* Monotonic time in nanoseconds. */
uint64_t check_now_ns(void);

/* Sleeps for the given number of microseconds. */
void check_sleep_us(unsigned us);

/*
 * Waits until done(arg) returns true, polling every 100 us; fails the test,
 * naming `what`, after CHECK_HANG_MS.
 */
void check_wait_until(bool (*done)(void *), void *arg, const char *what);

/*
 * A thread inside a read-side section of the default RCU from
 * check_hold_reader(), which returns once it is inside, until
 * check_release_reader(), which returns once it has left and ended: no
 * grace period of the default RCU that starts meanwhile ends meanwhile.
 * One at a time.
 */
void check_hold_reader(void);
void check_release_reader(void);
/*
 * fork(), flushing stdio first; fails the test if it fails.  Under
 * ThreadSanitizer the child can start and join threads of its own
 * (check.c says why that needs care).  Under AddressSanitizer (gcc 12) a
 * fork beside a running thread may copy the allocator's lock held, so a
 * test whose children allocate stops the library's callback thread first
 * (quiesce_call_rcu_shutdown()) where it has one running.
 */
pid_t check_fork(void);

/*
 * Runs fn(arg) in a forked child (check_fork()).  Returns the child's exit
 * status as waitpid() reports it, and copies up to cap-1 bytes of what the
 * child wrote to stderr into err (NUL-terminated).  A child still running
 * after CHECK_HANG_MS is killed by SIGALRM (alarm()): it hung.
 */
int check_run_child(void (*fn)(void *), void *arg, char *err, size_t cap);

/*
 * Runs fn(arg) in a child and fails the test unless the child was killed
 * by SIGABRT after writing a message that contains `expect` to stderr.
 */
void check_child_aborts(void (*fn)(void *), void *arg, const char *expect);

/*
 * Runs fn(arg) in a child that is expected to detect a violation and exit
 * with a checker's status (or die by SIGABRT, SIGSEGV or SIGBUS: the
 * library or the poison may stop it first); fails the test when the child
 * exits 0, that is when the checker missed a broken primitive, when it
 * hung (SIGALRM), or when it failed some other way (check.c).
 */
void check_child_detects_violation(void (*fn)(void *), void *arg);

/*
 * Installs a seccomp filter under which membarrier() fails with errno err,
 * for the calling process and the children it forks from then on.
 */
void check_deny_membarrier(int err);

/* The library's stall warnings so far (quiesce_rcu_get_stats()). */
uint64_t check_stall_warnings(void);

/* The highest-numbered CPU the calling thread may run on. */
int check_last_allowed_cpu(void);

/* How many CPUs this process may run on. */
int check_allowed_cpus(void);

/* Whether the test runs under valgrind (its preload library is in LD_PRELOAD). */
bool check_under_valgrind(void);

/*
 * Calls visit() (unless NULL) with the thread id and name of each of the
 * library's own threads of this process (named "quiesce-..."); returns how
 * many.
 */
int check_each_lib_thread(void (*visit)(const char *tid, const char *name, void *arg),
			  void *arg);

/* Whether per-CPU semaphores initialized now get rseq readers. */
bool check_percpu_rseq_readers(void);

/*
 * Whether a busted rcu_sync (its first updater neither waits nor aborts
 * anything) can be caught by a per-CPU semaphore's stress.  With RCU
 * readers, a signal that stops a reader between its look at the gate and
 * its count update opens the window.  With rseq readers a signal aborts
 * that sequence instead, and the window is a few instructions wide: only a
 * build that widens it (QUIESCE_TEST_RSEQ_WINDOW_SPINS, defined before the
 * headers; the *_rseq_window tests) can catch it.
 */
static inline bool check_busted_rcu_sync_catchable(void)
{
#ifdef QUIESCE_TEST_RSEQ_WINDOW_SPINS
	return true;
#else
	return !check_percpu_rseq_readers();
#endif
}

/*
 * A record a reader can check: a live mark, a sequence number and a payload
 * derived from it.  Poisoned, reused or torn memory fails the check.
 */
#define CHECK_RECORD_WORDS 6
struct check_record {
	unsigned magic;
	unsigned long seq;
	unsigned long payload[CHECK_RECORD_WORDS];
};
void check_record_init(struct check_record *r, unsigned long seq);
bool check_record_intact(const struct check_record *r);
/* A malloc()ed record, initialized: what check_quarantine() takes. */
struct check_record *check_record_new(unsigned long seq);

/*
 * The default RCU's stress on one record in *slot.  An updater's step:
 * check_record_replace() publishes a new record numbered seq, waits for a
 * grace period (expedited or not) and quarantines the old record.  A
 * reader's: check_record_read() reads *slot in a read-side section held
 * for spin relaxes (with a nested section inside first, when nest) and
 * returns whether the record it found was intact.
 */
void check_record_replace(struct check_record **slot, unsigned long seq, bool expedited);
bool check_record_read(struct check_record **slot, unsigned spin, bool nest);

/* Fills freed memory so that a reader that still sees it can tell. */
#define CHECK_POISON_BYTE 0x6b
void check_poison(void *p, size_t len);

/*
 * Poisons the first poison_len bytes of the malloc()ed p and frees it only
 * CHECK_QUARANTINE retirements later, so that a reader that still holds it
 * finds the poison rather than reused memory.  Callable from any thread.
 */
#define CHECK_QUARANTINE 256
void check_quarantine(void *p, size_t poison_len);

/*
 * Runs `readers` threads of reader() and `updaters` of updater(), thread i
 * of each given (void *)(i + 1), for at least min_ms milliseconds and then
 * until enough() returns true (at once when enough is NULL); then sets
 * *stop and joins them all.  enough() is the progress both sides must make
 * (or, for a busted control, "caught, or enough chances given"); it is
 * polled every millisecond, and the test fails as hung if it is still false
 * after CHECK_HANG_MS.
 */
void check_run_until(unsigned min_ms, bool (*enough)(void), atomic_bool *stop, int readers,
		     void *(*reader)(void *), int updaters, void *(*updater)(void *));

/*
 * The queue and stack stresses' wait: until *count reaches total or
 * *violations is non-zero, polling every 10 ms.  A count that does not move
 * for stall_ms means elements were lost (a consumer waits for a link that
 * never comes): the process exits 1 saying so, which a busted child's
 * check_child_detects_violation() counts as caught.
 */
void check_wait_count(atomic_ulong *count, unsigned long total, atomic_ulong *violations,
		      unsigned stall_ms);

/*
 * Joins t; fails the test, naming `what`, if t has not ended within ms
 * (CHECK_HANG_MS where only a hang can take that long): a thread stuck in
 * a primitive (a lost wake-up) is a failure, not a hang of the suite.
 */
void check_join_within(pthread_t t, unsigned ms, const char *what);

/*
 * Preemption injection: until check_preempt_stop(), a helper thread sends
 * one of the n threads, every period_us, a signal whose handler sleeps
 * 50-150 us, so that they stop at random points of their code, as
 * preemption would stop them but far more often.  Races that need a thread
 * stopped inside a window of a few instructions become likely enough for a
 * busted control to be caught.  One injector at a time.
 */
void check_preempt_start(const pthread_t *threads, int n, unsigned period_us);
void check_preempt_stop(void);

/*
 * For QUIESCE_TEST_PERCPU_READ_WINDOW (percpu_rwsem.h): once in 64 calls
 * on a thread, sleeps 20-80 us, as a reader preempted between its look at
 * the gate and its count update would.  Unlike the injector's signals this
 * lands in that window under valgrind too, whose threads take signals only
 * between blocks of code.
 */
void check_read_window(void);

/*
 * Holds the call_rcu() callback thread: queues a callback that blocks until
 * check_cb_release(), and returns once it runs (failing as hung after
 * CHECK_HANG_MS).  The thread runs callbacks one at a time, so until the
 * release no other callback runs: one queued meanwhile (an rcu_sync gate's
 * reopening, say) is certainly still pending, whatever the machine's
 * speed.  rcu_barrier() must not be called in between (it would wait for
 * the held thread).  One hold at a time.
 */
void check_cb_hold(void);
/* Lets the held callback return; returns once it has. */
void check_cb_release(void);

/*
 * A counting allocator, for the tables that take one: each block has a
 * header before it that check_counted_free() checks and clears, so that a
 * block freed twice, or not allocated here, fails the test.  live counts
 * the blocks not given back, total every block handed out.
 */
struct check_counted {
	atomic_long live, total;
};

/* Zeroed, aligned to align (a power of two); NULL when out of memory. */
void *check_counted_alloc(struct check_counted *c, size_t align, size_t size);
/*
 * The calls a table takes (quiesce_rcuhash_alloc's, and liburcu's
 * cds_lfht_alloc's of the same names), state a struct check_counted.
 */
void *check_counted_calloc(void *state, size_t n, size_t size);
void *check_counted_aligned_alloc(void *state, size_t alignment, size_t size);
void check_counted_free(void *state, void *ptr);

#endif
