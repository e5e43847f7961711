/*
 * gp_barrier_signal.c - the last fallback heavy barrier: a signal to each
 * registered thread, whose handler executes the fence and answers.
 *
 * The signal is SIGRTMIN+5 unless QUIESCE_RCU_SIGNAL names another.
 * Handlers use SA_RESTART, so most interrupted system calls resume.
 *
 * The handshake.  Each barrier is a request, numbered one more than the
 * last.  The barrier publishes the number (release), then signals each
 * registered thread that has no signal in flight; the handler fences, reads
 * the current request number (acquire) and stores it as its thread's
 * answer (release).  A thread that answered this request executed a full
 * barrier in its handler: its earlier accesses are ordered before the
 * barrier reads the answer (acquire), its later ones after the request was
 * published.  At most one signal per thread is in flight (answered < sent,
 * gp_barrier.h): a thread that blocks the signal keeps the one it was sent
 * queued, and its handler, once it runs, answers whatever request is then
 * current.  Real-time signals queue, and a queue that grew by one every
 * grace period would exhaust RLIMIT_SIGPENDING.
 *
 * Threads that cannot answer.
 *  - Asleep in the kernel.  A thread that blocks the signal and sleeps (in
 *    poll(), a futex, read() ...) never runs the handler, and needs no
 *    fence: the kernel can confirm it is off its CPU.  Reading
 *    /proc/self/task/<tid>/syscall prints the call the thread is blocked in
 *    only after the kernel's wait_task_inactive() has found it, under the
 *    scheduler's locks (the task's pi_lock and its run queue's lock),
 *    blocked and on no CPU, twice with no context switch in between;
 *    otherwise it prints "running".  That check is a full barrier for the
 *    thread, at the moment of the check:
 *     - its user-space accesses before it went to sleep were followed, in
 *       __schedule(), by the run-queue lock, smp_mb__after_spinlock() (a
 *       full barrier) and the lock's release; the check took that lock
 *       later, so they are ordered before everything the barrier's caller
 *       does after the check;
 *     - to run user-space code again it must be woken (try_to_wake_up()
 *       takes its pi_lock, then a full barrier) and switched in
 *       (__schedule() takes its run queue's lock, then a full barrier),
 *       both after the check released those locks, which orders the
 *       caller's stores from before the barrier before the thread's later
 *       accesses.
 *    These are the scheduler's guarantees that membarrier() relies on, on
 *    every architecture.  The state letter in /proc/<tid>/stat would not
 *    do: it is read without a lock, and a thread seen 'S' may be between
 *    setting that state and calling schedule() (still on its CPU), or just
 *    back in user space with its last stores still in its store buffer.
 *  - Blocking the signal and running.  Nothing can make it fence, and the
 *    grace period must not end without it: the barrier goes on waiting,
 *    checking each round whether the thread went to sleep or took the
 *    signal, and reports it by id and name, with the signal it blocks and
 *    what to do, after the stall timeout and then at doubling intervals.
 *
 * A thread that registers during a barrier is signalled too (a thread
 * that registered after the request needs no fence, but this is simpler);
 * one that unregisters leaves the list, and its unregistering fence
 * answers for it (registry.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cancel.h"
#include "common/diag.h"
#include "common/futex.h"
#include "rcu/gp_barrier.h"
#include "rcu/registry.h"
#include "rcu/stall.h"

/*
 * Polls, a yield apart, before threads that have not answered are checked
 * for sleep; after those, sleeps between polls, doubling up to the maximum.
 */
#define YIELD_POLLS 8
#define FIRST_SLEEP_NS 50000u
#define MAX_SLEEP_NS 20000000u
/* Threads named at most per stall warning. */
#define STALL_REPORT_MAX 8

bool quiesce_test_busted_asleep;

static int barrier_signal;
/* One barrier at a time: the request number and the slots' sent fields. */
static pthread_mutex_t barrier_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long barrier_request;
/* Futex: bumped by each answer; the handler wakes a barrier asleep on it. */
static int answers;
static int barrier_sleeping;

static void barrier_handler(int sig, siginfo_t *info, void *ctx)
{
	struct quiesce_barrier_slot *slot = &quiesce_registry_self()->barrier;
	int saved_errno = errno;
	unsigned long request;

	(void)sig;
	(void)info;
	(void)ctx;
	/* The reader's full fence, at the point where the signal stopped it. */
	quiesce_fence_store_load();
	/*
	 * Acquire: pairs with the release that published the request, so
	 * this thread's later loads see what the barrier's caller stored.
	 */
	request = QUIESCE_LOAD_ACQUIRE(&barrier_request);
	/*
	 * Release: this thread's earlier accesses happen before the barrier
	 * reads the answer (the acquire in answered()).
	 */
	QUIESCE_STORE_RELEASE(&slot->answered, request);
	/*
	 * Release: the answer before the bump, for the barrier's acquire
	 * load of the count in wait_for_answers().
	 */
	__atomic_fetch_add(&answers, 1, __ATOMIC_RELEASE);
	/*
	 * Orders the bump before the flag's load; pairs with the fence in
	 * wait_for_answers(), so that either the barrier sees the bump or
	 * this handler sees it asleep and wakes it.  A sequentially
	 * consistent add is no such fence for a relaxed load after it: on
	 * arm64 without LSE it is an ldaxr/stlxr pair, and the load may be
	 * satisfied before the stlxr's store is visible (x86's locked add
	 * is a full barrier, and hid this).
	 */
	quiesce_fence_store_load();
	if (QUIESCE_LOAD(&barrier_sleeping))
		quiesce_futex_wake_all(&answers);
	errno = saved_errno;
}

/* A barrier in progress in the parent has no thread in the child. */
static void signal_child_after_fork(void)
{
	pthread_mutex_init(&barrier_lock, NULL);
	barrier_sleeping = 0;
}

void quiesce_gp_barrier_signal_init(void)
{
	struct sigaction sa;
	uint64_t sig;

	barrier_signal = SIGRTMIN + 5;
	if (quiesce_env_u64("QUIESCE_RCU_SIGNAL", &sig))
		barrier_signal = (int)sig;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = barrier_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(barrier_signal, &sa, NULL))
		quiesce_die("cannot install the grace-period signal %d: %s", barrier_signal,
			    strerror(errno));
	pthread_atfork(NULL, NULL, signal_child_after_fork);
}

static bool answered(const struct quiesce_barrier_slot *slot, unsigned long request)
{
	/* Acquire: pairs with the handler's release. */
	return QUIESCE_LOAD_ACQUIRE(&slot->answered) == request || slot->asleep == request;
}

/* Whether the thread is blocked in the kernel and on no CPU (see the top). */
static bool asleep_in_kernel(int tid)
{
	char path[64], text[24];
	ssize_t n;
	int fd;

	if (QUIESCE_LOAD(&quiesce_test_busted_asleep))
		return true;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	/* A call number (-1: blocked outside a system call), or "running". */
	return text[0] == '-' || (text[0] >= '0' && text[0] <= '9');
}

/*
 * One round over the registry: sends the signal to each thread that has
 * not answered and has none in flight, excuses those asleep in the kernel
 * when check_asleep, and counts the rest.  Copies up to cap of those into
 * tids/names for a stall warning.
 */
static unsigned poll_threads(unsigned long request, int self_tid, bool check_asleep,
			     int *tids, char names[][16], unsigned cap)
{
	pid_t pid = getpid();
	unsigned waiting = 0;

	pthread_mutex_lock(&quiesce_registry_lock);
	quiesce_registry_for_each(e) {
		struct quiesce_barrier_slot *slot = &e->barrier;

		if (e->tid == self_tid || answered(slot, request))
			continue;
		if (check_asleep && asleep_in_kernel(e->tid)) {
			slot->asleep = request;
			continue;
		}
		/* Wrap-safe answered < sent: the last signal is not handled yet. */
		if ((long)(QUIESCE_LOAD(&slot->answered) - slot->sent) >= 0) {
			if (syscall(SYS_tgkill, pid, e->tid, barrier_signal) == 0)
				slot->sent = request;
			else if (errno != EAGAIN)	/* EAGAIN: the queue is full; next round */
				quiesce_die("tgkill(%d) failed: %s", e->tid, strerror(errno));
		}
		if (waiting < cap) {
			tids[waiting] = e->tid;
			if (pthread_getname_np(e->thread, names[waiting], 16))
				strcpy(names[waiting], "?");
		}
		waiting++;
	}
	pthread_mutex_unlock(&quiesce_registry_lock);
	return waiting;
}

/* Whether thread tid blocks sig, from its SigBlk line; false if unknown. */
static bool blocks_signal(int tid, int sig)
{
	char path[64], line[128];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigBlk: %llx", &mask) == 1;
	fclose(f);
	return found && sig <= 64 && (mask >> (sig - 1)) & 1;
}

static void report_stalls(int *tids, char names[][16], unsigned n, uint64_t waited_ns)
{
	char detail[400];

	for (unsigned i = 0; i < n; i++) {
		if (blocks_signal(tids[i], barrier_signal))
			snprintf(detail, sizeof(detail),
				 "it blocks signal %d (SIGRTMIN+%d), which the signal backend's "
				 "handshake sends, and keeps running, so the grace period waits; "
				 "unblock that signal in the thread (pthread_sigmask()), or let "
				 "quiesce use membarrier() (a kernel 4.14 or later, not denied by a "
				 "seccomp profile)",
				 barrier_signal, barrier_signal - SIGRTMIN);
		else
			snprintf(detail, sizeof(detail),
				 "it has not run the handler of signal %d (SIGRTMIN+%d) it was sent: "
				 "is it stopped, or was the handler replaced?",
				 barrier_signal, barrier_signal - SIGRTMIN);
		quiesce_stall_report_barrier(tids[i], names[i], waited_ns, detail);
	}
}

/* Returns once every registered thread has answered request or slept. */
static void wait_for_answers(unsigned long request, int self_tid)
{
	struct quiesce_stall_clock clock;
	int tids[STALL_REPORT_MAX];
	char names[STALL_REPORT_MAX][16];
	uint64_t sleep_ns = FIRST_SLEEP_NS, waited_ns;
	unsigned polls = 0;

	quiesce_stall_clock_start(&clock);
	for (;;) {
		bool late = polls >= YIELD_POLLS || QUIESCE_LOAD(&quiesce_test_busted_asleep);
		unsigned waiting;
		int seen = 0;

		if (late) {
			QUIESCE_STORE(&barrier_sleeping, 1);
			/*
			 * Orders the flag before the count's load; pairs with
			 * the fence after the handler's bump (see there).
			 * Acquire: an answer counted in seen is one the poll
			 * sees.
			 */
			quiesce_fence_store_load();
			seen = QUIESCE_LOAD_ACQUIRE(&answers);
		}
		waiting = poll_threads(request, self_tid, late, tids, names, STALL_REPORT_MAX);
		if (!waiting)
			break;
		if (!late) {
			polls++;
			sched_yield();
			continue;
		}
		/*
		 * Woken by a handler's answer; the timeout lets the next
		 * round look for threads that went to sleep and for stalls.
		 */
		quiesce_futex_wait(&answers, seen, sleep_ns);
		if (sleep_ns < MAX_SLEEP_NS)
			sleep_ns *= 2;
		if (quiesce_stall_clock_due(&clock, &waited_ns))
			report_stalls(tids, names, waiting < STALL_REPORT_MAX ? waiting : STALL_REPORT_MAX,
				      waited_ns);
	}
	QUIESCE_STORE(&barrier_sleeping, 0);
}

void quiesce_gp_barrier_signal(void)
{
	/* Its polls read /proc and name threads: cancellation points (cancel.h). */
	int cancel = quiesce_cancel_off();
	unsigned long request;

	pthread_mutex_lock(&barrier_lock);
	request = barrier_request + 1;
	/*
	 * Orders the caller's earlier stores before the request, and so
	 * before every handler that reads it (the acquire there).
	 */
	quiesce_fence_store_load();
	QUIESCE_STORE_RELEASE(&barrier_request, request);
	wait_for_answers(request, quiesce_gettid());
	pthread_mutex_unlock(&barrier_lock);
	quiesce_cancel_restore(cancel);
	/*
	 * Orders the answers (and the kernel's sleep checks) before the
	 * caller's reader scan.
	 */
	quiesce_fence_store_load();
}
