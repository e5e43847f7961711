#include "check.h"

#include <quiesce/percpu_rwsem.h>
#include <quiesce/rcu.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t check_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void check_sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void check_wait_until(bool (*done)(void *), void *arg, const char *what)
{
	uint64_t hang = check_now_ns() + (uint64_t)CHECK_HANG_MS * 1000000u;

	while (!done(arg)) {
		CHECK(check_now_ns() < hang, "%s: still waiting after %u ms (a hang)", what,
		      CHECK_HANG_MS);
		check_sleep_us(100);
	}
}

static atomic_bool held_reader_inside, held_reader_release;
static pthread_t held_reader;
static bool held_reader_started;

static void *holding_reader(void *unused)
{
	(void)unused;
	rcu_read_lock();
	atomic_store(&held_reader_inside, true);
	while (!atomic_load(&held_reader_release))	/* until check_release_reader() */
		check_sleep_us(1000);
	rcu_read_unlock();
	return NULL;
}

static bool held_reader_is_inside(void *unused)
{
	(void)unused;
	return atomic_load(&held_reader_inside);
}

void check_hold_reader(void)
{
	CHECK(!held_reader_started, "check_hold_reader() while a reader is held already");
	atomic_store(&held_reader_inside, false);
	atomic_store(&held_reader_release, false);
	CHECK(pthread_create(&held_reader, NULL, holding_reader, NULL) == 0, "pthread_create");
	held_reader_started = true;
	check_wait_until(held_reader_is_inside, NULL, "the held reader entering its section");
}

void check_release_reader(void)
{
	CHECK(held_reader_started, "check_release_reader() with no reader held");
	atomic_store(&held_reader_release, true);
	pthread_join(held_reader, NULL);
	held_reader_started = false;
}

#ifdef QUIESCE_TSAN
/* The threads of this process, the caller's included. */
static int count_threads(void)
{
	DIR *tasks = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(tasks, "/proc/self/task: %s", strerror(errno));
	while ((e = readdir(tasks)))
		n += e->d_name[0] != '.';
	closedir(tasks);
	return n;
}

static void *hold_stack(void *unused)
{
	(void)unused;
	for (;;)
		pause();	/* every signal blocked: nothing wakes it; the child's exit ends it */
	return NULL;
}

/*
 * ThreadSanitizer in a child of a process with other threads (gcc 12's
 * runtime): its registry still lists the parent's other threads as
 * running, and glibc hands their stacks to the child's first new threads,
 * whose ids (the address of the thread's descriptor, on its stack) are then
 * those of the parent's.  When the child joins such a thread the runtime
 * dies ("dup thread with used id", exit 66), which a busted control's
 * child would pass for caught.  So the child first takes those stacks with
 * threads it never joins (detached, every signal blocked, asleep until it
 * exits), and its own threads get fresh ones.  The parent counts its
 * threads just before fork(); if it has others, STACK_MARGIN more cover
 * those that start between the count and the fork, and those that ended
 * but were not yet joined, which the count misses but the runtime still
 * lists (an extra holder costs only an unused stack).  A caller alone
 * forks a child that starts no holder, as test_thread_exit_key needs: the
 * runtime calls its pthread_setspecific() in each new thread before it
 * has set that thread up, and the instrumented call crashes there.
 */
#define STACK_MARGIN 4

static void take_parent_stacks(int others)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < others; i++) {
		/* Not CHECK(): its exit 1 would count as a busted control caught. */
		if (pthread_create(&t, &attr, hold_stack, NULL) != 0) {
			fprintf(stderr, "the child could not take the parent's stacks\n");
			_exit(2);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}
#endif

/*
 * Set in a child of check_fork(), whose failed CHECK() ends it with
 * check_child_exit().  A child that exit()s runs AddressSanitizer's leak
 * check, which stops every thread that its registry lists, and gcc 12's
 * runtime still lists the parent's threads in the child: a busted child of
 * test_call_rcu_stress_signal reported one of them "not suspended" and
 * deadlocked there, its threads stopped by the check's tracer, so that no
 * alarm ended it (CI's ASan build).  A child whose status is its verdict
 * has said what it found on stderr, and needs neither the check nor its
 * exit handlers.
 */
static bool forked_child;

void check_child_exit(int status)
{
	_exit(status);
}

void check_fail_exit(void)
{
	if (forked_child)
		check_child_exit(1);
	exit(1);
}

pid_t check_fork(void)
{
	pid_t pid;
#ifdef QUIESCE_TSAN
	int others = count_threads() - 1;

	if (others > 0)
		others += STACK_MARGIN;
#endif

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		forked_child = true;
#ifdef QUIESCE_TSAN
	if (pid == 0)
		take_parent_stacks(others);
#endif
	return pid;
}

int check_run_child(void (*fn)(void *), void *arg, char *err, size_t cap)
{
	int fds[2];
	pid_t pid;
	size_t len = 0;
	int status;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = check_fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		/* The hang detector: SIGALRM's default action ends the child. */
		alarm(CHECK_HANG_MS / 1000);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		char sink[256];
		char *dst = len + 1 < cap ? err + len : sink;
		size_t room = len + 1 < cap ? cap - 1 - len : sizeof(sink);
		ssize_t n = read(fds[0], dst, room);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dst == err + len)
			len += (size_t)n;
	}
	close(fds[0]);
	if (cap)
		err[len] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
	return status;
}

void check_child_aborts(void (*fn)(void *), void *arg, const char *expect)
{
	char err[4096];
	int status = check_run_child(fn, arg, err, sizeof(err));

	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	      "child was expected to abort (status %#x), stderr: %s", status, err);
	CHECK(strstr(err, expect) != NULL,
	      "abort message lacks \"%s\": %s", expect, err);
}

/*
 * The ways a child reports a violation: CHECK() (or AddressSanitizer's
 * report) exits 1, ThreadSanitizer's 66 and valgrind's 99
 * (tests/valgrind.cmake); the library aborts on what it detects, and the
 * poison makes a dangling pointer fault.  Anything else (a child that could
 * not start a thread, say, or an emulator's own crash, exit 127) detects
 * nothing, and must not pass for the checker's verdict.
 */
static bool detected_exit(int code)
{
	return code == 1 || code == 66 || code == 99;
}

static bool detected_signal(int sig)
{
	return sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS;
}

void check_child_detects_violation(void (*fn)(void *), void *arg)
{
	char err[4096];
	int status = check_run_child(fn, arg, err, sizeof(err));

	/* A runtime that lost track of the child's threads is no checker (above). */
	CHECK(!strstr(err, "ThreadSanitizer: dup thread with used id"),
	      "ThreadSanitizer stopped the child, not a checker: %.300s", err);
	if (WIFEXITED(status)) {
		CHECK(WEXITSTATUS(status) != 0,
		      "the checker missed a deliberately broken primitive: %.300s", err);
		CHECK(detected_exit(WEXITSTATUS(status)),
		      "the child failed for another reason (exit %d): %.300s",
		      WEXITSTATUS(status), err);
	} else {
		CHECK(WIFSIGNALED(status), "unexpected child status %#x", status);
		CHECK(WTERMSIG(status) != SIGALRM, "the child hung for %u ms: %s", CHECK_HANG_MS,
		      err);
		CHECK(detected_signal(WTERMSIG(status)),
		      "the child died of signal %d, which no check sends: %.300s",
		      WTERMSIG(status), err);
	}
	fprintf(stderr, "broken control caught, as it must be: %.200s\n", err);
}

#define CHECK_RECORD_LIVE 0x4c495645u

void check_record_init(struct check_record *r, unsigned long seq)
{
	r->magic = CHECK_RECORD_LIVE;
	r->seq = seq;
	for (int i = 0; i < CHECK_RECORD_WORDS; i++)
		r->payload[i] = seq * (unsigned long)(i + 1);
}

/* Relaxed loads: the record may be freed and poisoned under the reader. */
bool check_record_intact(const struct check_record *r)
{
	unsigned long seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);

	if (__atomic_load_n(&r->magic, __ATOMIC_RELAXED) != CHECK_RECORD_LIVE)
		return false;
	for (int i = 0; i < CHECK_RECORD_WORDS; i++)
		if (__atomic_load_n(&r->payload[i], __ATOMIC_RELAXED) != seq * (unsigned long)(i + 1))
			return false;
	return true;
}

struct check_record *check_record_new(unsigned long seq)
{
	struct check_record *r = malloc(sizeof(*r));

	check_record_init(r, seq);
	return r;
}

void check_record_replace(struct check_record **slot, unsigned long seq, bool expedited)
{
	struct check_record *old = rcu_xchg_pointer(slot, check_record_new(seq));

	if (expedited)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
	check_quarantine(old, sizeof(*old));
}

bool check_record_read(struct check_record **slot, unsigned spin, bool nest)
{
	struct check_record *r;
	bool intact;

	rcu_read_lock();
	r = rcu_dereference(*slot);
	if (nest) {
		/* A nested section must not end the protection early. */
		rcu_read_lock();
		rcu_read_unlock();
	}
	for (unsigned i = 0; i < spin; i++)
		quiesce_cpu_relax();
	intact = check_record_intact(r);
	rcu_read_unlock();
	return intact;
}

void check_poison(void *p, size_t len)
{
	memset(p, CHECK_POISON_BYTE, len);
}

#ifdef QUIESCE_TSAN
/*
 * Children of fork() start threads (a callback thread, a busted stress run):
 * ThreadSanitizer would kill them, which would also pass every busted
 * control for the wrong reason.  Its one-second sleep at exit would break
 * the tests that time exit().  TSAN_OPTIONS still overrides both.
 */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0 atexit_sleep_ms=0";
}
#endif

void check_wait_count(atomic_ulong *count, unsigned long total, atomic_ulong *violations,
		      unsigned stall_ms)
{
	unsigned long last = 0;
	uint64_t last_progress = check_now_ns();

	while (atomic_load(count) != total && !atomic_load(violations)) {
		unsigned long now = atomic_load(count);

		if (now != last) {
			last = now;
			last_progress = check_now_ns();
		} else if (check_now_ns() - last_progress > stall_ms * 1000000ull) {
			fprintf(stderr, "stuck at %lu of %lu elements: some were lost\n", now, total);
			check_fail_exit();
		}
		check_sleep_us(10000);
	}
}

void check_join_within(pthread_t t, unsigned ms, const char *what)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (long)(ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	CHECK(pthread_timedjoin_np(t, NULL, &deadline) == 0, "%s: stuck for %u ms", what, ms);
}

#define PREEMPT_SIGNAL (SIGRTMIN + 7)

static struct {
	const pthread_t *threads;
	int n;
	unsigned period_us;
	atomic_bool stop;
	pthread_t injector;
} preempt;

static void preempt_handler(int sig)
{
	struct timespec ts = { 0, 50000 + (long)(check_now_ns() % 100000) };

	nanosleep(&ts, NULL);
}

static void *preempt_injector(void *unused)
{
	unsigned seed = 7;

	while (!atomic_load_explicit(&preempt.stop, memory_order_relaxed)) {
		pthread_kill(preempt.threads[rand_r(&seed) % (unsigned)preempt.n], PREEMPT_SIGNAL);
		check_sleep_us(preempt.period_us);
	}
	return NULL;
}

void check_preempt_start(const pthread_t *threads, int n, unsigned period_us)
{
	struct sigaction sa = { .sa_handler = preempt_handler, .sa_flags = SA_RESTART };

	sigaction(PREEMPT_SIGNAL, &sa, NULL);
	preempt.threads = threads;
	preempt.n = n;
	preempt.period_us = period_us;
	atomic_store(&preempt.stop, false);
	CHECK(pthread_create(&preempt.injector, NULL, preempt_injector, NULL) == 0,
	      "cannot start the preemption injector");
}

void check_read_window(void)
{
	static __thread unsigned seed = 11;
	unsigned r = (unsigned)rand_r(&seed);

	if (r % 64 == 0)
		check_sleep_us(20 + r / 64 % 61);
}

void check_preempt_stop(void)
{
	atomic_store(&preempt.stop, true);
	pthread_join(preempt.injector, NULL);
}

void check_quarantine(void *p, size_t poison_len)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static void *ring[CHECK_QUARANTINE];
	static unsigned next;
	void *evicted;

	check_poison(p, poison_len);
	pthread_mutex_lock(&lock);
	evicted = ring[next];
	ring[next] = p;
	next = (next + 1) % CHECK_QUARANTINE;
	pthread_mutex_unlock(&lock);
	free(evicted);
}

void check_run_until(unsigned min_ms, bool (*enough)(void), atomic_bool *stop, int readers,
		     void *(*reader)(void *), int updaters, void *(*updater)(void *))
{
	pthread_t r[readers > 0 ? readers : 1], u[updaters > 0 ? updaters : 1];
	uint64_t start = check_now_ns(), hang = start + (uint64_t)CHECK_HANG_MS * 1000000u;

	atomic_store(stop, false);
	for (int i = 0; i < readers; i++)
		CHECK(pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1)) == 0,
		      "pthread_create");
	for (int i = 0; i < updaters; i++)
		CHECK(pthread_create(&u[i], NULL, updater, (void *)(uintptr_t)(i + 1)) == 0,
		      "pthread_create");
	check_sleep_us(min_ms * 1000);
	while (enough && !enough()) {
		CHECK(check_now_ns() < hang, "no progress after %u ms (a hang)", CHECK_HANG_MS);
		check_sleep_us(1000);
	}
	atomic_store(stop, true);
	for (int i = 0; i < readers; i++)
		pthread_join(r[i], NULL);
	for (int i = 0; i < updaters; i++)
		pthread_join(u[i], NULL);
}

/*
 * The held callback's state, under cb_hold.lock: QUEUED by check_cb_hold(),
 * HELD while the callback waits, RELEASED by check_cb_release(), IDLE again
 * once the callback returns.  Each change broadcasts cb_hold.cond.
 */
enum { CB_IDLE, CB_QUEUED, CB_HELD, CB_RELEASED };

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state;
	struct rcu_head head;
} cb_hold = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void cb_hold_set(int state)
{
	cb_hold.state = state;
	pthread_cond_broadcast(&cb_hold.cond);
}

static void cb_hold_func(struct rcu_head *head)
{
	pthread_mutex_lock(&cb_hold.lock);
	cb_hold_set(CB_HELD);
	/* Woken by check_cb_release(). */
	while (cb_hold.state != CB_RELEASED)
		pthread_cond_wait(&cb_hold.cond, &cb_hold.lock);
	cb_hold_set(CB_IDLE);
	pthread_mutex_unlock(&cb_hold.lock);
}

static bool cb_held(void *unused)
{
	bool held;

	pthread_mutex_lock(&cb_hold.lock);
	held = cb_hold.state == CB_HELD;
	pthread_mutex_unlock(&cb_hold.lock);
	return held;
}

void check_cb_hold(void)
{
	pthread_mutex_lock(&cb_hold.lock);
	CHECK(cb_hold.state == CB_IDLE, "check_cb_hold() while a hold is in place");
	cb_hold_set(CB_QUEUED);
	pthread_mutex_unlock(&cb_hold.lock);
	call_rcu(&cb_hold.head, cb_hold_func);
	check_wait_until(cb_held, NULL, "the callback thread never ran the holding callback");
}

void check_cb_release(void)
{
	pthread_mutex_lock(&cb_hold.lock);
	CHECK(cb_hold.state == CB_HELD, "check_cb_release() without a hold");
	cb_hold_set(CB_RELEASED);
	/* Woken by the callback as it returns: it runs, nothing can stop it. */
	while (cb_hold.state != CB_IDLE)
		pthread_cond_wait(&cb_hold.cond, &cb_hold.lock);
	pthread_mutex_unlock(&cb_hold.lock);
}

bool check_percpu_rseq_readers(void)
{
	struct percpu_rw_semaphore sem;
	bool rseq;

	percpu_init_rwsem(&sem);
	rseq = sem.rss.rseq_readers;
	percpu_free_rwsem(&sem);
	return rseq;
}

int check_last_allowed_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			last = cpu;
	return last;
}

int check_allowed_cpus(void)
{
	cpu_set_t set;

	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity");
	return CPU_COUNT(&set);
}

int check_each_lib_thread(void (*visit)(const char *tid, const char *name, void *arg),
			  void *arg)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	CHECK(d, "cannot list /proc/self/task");
	while ((e = readdir(d)) != NULL) {
		char path[300], name[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread has exited */
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		if (strncmp(name, "quiesce-", 8) != 0)
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (visit)
			visit(e->d_name, name, arg);
		found++;
	}
	closedir(d);
	return found;
}

bool check_under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload");
}

#define COUNTED_MAGIC 0x71e5ceUL

void *check_counted_alloc(struct check_counted *c, size_t align, size_t size)
{
	/* The header: the offset back to the block, then the magic, just below ptr. */
	size_t hdr = align > 64 ? align : 64;
	char *base;

	if (size > SIZE_MAX - hdr || posix_memalign((void **)&base, hdr, hdr + size))
		return NULL;
	memset(base, 0, hdr + size);
	((size_t *)(base + hdr))[-1] = COUNTED_MAGIC;
	((size_t *)(base + hdr))[-2] = hdr;
	atomic_fetch_add(&c->live, 1);
	atomic_fetch_add(&c->total, 1);
	return base + hdr;
}

void *check_counted_calloc(void *state, size_t n, size_t size)
{
	CHECK(!size || n <= SIZE_MAX / size, "calloc(%zu, %zu) overflows", n, size);
	return check_counted_alloc(state, 16, n * size);
}

void *check_counted_aligned_alloc(void *state, size_t alignment, size_t size)
{
	return check_counted_alloc(state, alignment, size);
}

void check_counted_free(void *state, void *ptr)
{
	struct check_counted *c = state;
	size_t *words = ptr;

	CHECK(words[-1] == COUNTED_MAGIC, "free of a block not allocated here, or freed twice");
	words[-1] = 0;
	atomic_fetch_sub(&c->live, 1);
	free((char *)ptr - words[-2]);
}

uint64_t check_stall_warnings(void)
{
	struct quiesce_rcu_stats stats;

	quiesce_rcu_get_stats(&stats);
	return stats.stall_warnings;
}
