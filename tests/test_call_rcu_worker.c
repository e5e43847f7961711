/*
 * Callback workers (<quiesce/call_rcu_worker.h>), one guarantee at a time:
 * - for each flavor, a callback queued on a worker waits for a reader of
 *   that flavor that was inside when it was queued, and runs on the
 *   worker's own thread;
 * - a worker made for a CPU runs there alone, one made for none on the
 *   process's CPUs;
 * - the flavor's barrier waits for the callbacks of its workers (held on a
 *   blocked callback, it must not return), and a barrier walks safely past
 *   workers that callbacks destroy meanwhile;
 * - the thread that quiesce_call_rcu_thread() names runs the flavor's own
 *   callbacks, and is named so from anywhere (a callback, a worker's
 *   callback, a read-side section);
 * - destroy runs what is pending; misuse aborts with a message;
 * - after fork() the child's worker starts a thread of its own.
 * test_call_rcu_stress.c retires through workers under stress, with its
 * busted control.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/call_rcu_worker.h>
#include <quiesce/rcu.h>
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

#include "check.h"

struct probe {
	struct rcu_head rcu;
	atomic_ulong *ran;
	pthread_t thread;	/* where it ran */
	pid_t tid;
	cpu_set_t cpus;		/* that thread's CPUs */
};

static void record_and_count(struct rcu_head *head)
{
	struct probe *p = container_of(head, struct probe, rcu);

	p->thread = pthread_self();
	p->tid = gettid();
	CHECK(sched_getaffinity(0, sizeof(p->cpus), &p->cpus) == 0, "sched_getaffinity");
	atomic_fetch_add(p->ran, 1);
}

/* One flavor's reader, holding its grace periods until released. */
struct flavor_case {
	const char *name;
	enum quiesce_cb_flavor flavor;
	void (*hold)(void);
	void (*release)(void);
	void (*call)(struct rcu_head *head, void (*func)(struct rcu_head *head));
	void (*barrier)(void);
};

static void rcu_hold(void) { rcu_read_lock(); }
static void rcu_release(void) { rcu_read_unlock(); }
static void mb_hold(void) { quiesce_rcu_mb_read_lock(); }
static void mb_release(void) { quiesce_rcu_mb_read_unlock(); }
static void qsbr_hold(void) { quiesce_qsbr_register_thread(); }	/* online: holds */
static void qsbr_release(void) { quiesce_qsbr_unregister_thread(); }

static const struct flavor_case flavors[] = {
	{ "RCU", QUIESCE_CB_RCU, rcu_hold, rcu_release, quiesce_call_rcu, quiesce_rcu_barrier },
	{ "RCU-mb", QUIESCE_CB_RCU_MB, mb_hold, mb_release, quiesce_call_rcu_mb,
	  quiesce_rcu_barrier_mb },
	{ "QSBR", QUIESCE_CB_QSBR, qsbr_hold, qsbr_release, quiesce_qsbr_call_rcu,
	  quiesce_qsbr_barrier },
};

static atomic_bool reader_inside, reader_release;

static void *holding_reader(void *arg)
{
	const struct flavor_case *fc = arg;

	fc->hold();
	atomic_store(&reader_inside, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(1000);
	fc->release();
	return NULL;
}

static void test_waits_for_reader(const struct flavor_case *fc)
{
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(fc->flavor, -1);
	atomic_ulong ran = 0;
	struct probe p = { .ran = &ran };
	pthread_t t;

	CHECK(w, "%s: a worker is made", fc->name);
	atomic_store(&reader_inside, false);
	atomic_store(&reader_release, false);
	pthread_create(&t, NULL, holding_reader, (void *)fc);
	while (!atomic_load(&reader_inside))
		check_sleep_us(100);
	quiesce_call_rcu_on(w, &p.rcu, record_and_count);
	check_sleep_us(50000);
	CHECK(atomic_load(&ran) == 0, "%s: a worker's callback ran while a reader from before "
	      "it was inside", fc->name);
	atomic_store(&reader_release, true);
	pthread_join(t, NULL);
	quiesce_call_rcu_worker_barrier(w);
	CHECK(atomic_load(&ran) == 1, "%s: the callback ran once the reader left", fc->name);
	CHECK(pthread_equal(p.thread, quiesce_call_rcu_worker_thread(w)),
	      "%s: the callback ran on the worker's thread", fc->name);
	quiesce_call_rcu_worker_destroy(w);
}

/*
 * The flavor's own callback thread: the one its call_rcu() callbacks run
 * on, and the same answer, at once, from one of those callbacks, from a
 * worker's callback (whose flavor's barrier would wait for that callback)
 * and from inside a read-side section (online, for QSBR).
 */
static enum quiesce_cb_flavor asked_flavor;
static pthread_t answered;

static void ask_flavor_thread(struct rcu_head *head)
{
	(void)head;
	answered = quiesce_call_rcu_thread(asked_flavor);
}

static void test_flavor_thread(const struct flavor_case *fc)
{
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(fc->flavor, -1);
	atomic_ulong ran = 0;
	struct probe p = { .ran = &ran };
	struct rcu_head on_flavor, on_worker;
	pthread_t thread;

	fc->call(&p.rcu, record_and_count);
	fc->barrier();
	thread = quiesce_call_rcu_thread(fc->flavor);
	CHECK(pthread_equal(p.thread, thread) && !pthread_equal(thread, pthread_self()),
	      "%s: the flavor's callbacks run on the thread it names", fc->name);
	asked_flavor = fc->flavor;
	answered = pthread_self();
	fc->call(&on_flavor, ask_flavor_thread);
	fc->barrier();
	CHECK(pthread_equal(answered, thread), "%s: asked from one of its callbacks", fc->name);
	answered = pthread_self();
	quiesce_call_rcu_on(w, &on_worker, ask_flavor_thread);
	quiesce_call_rcu_worker_barrier(w);
	CHECK(pthread_equal(answered, thread), "%s: asked from a worker's callback", fc->name);
	fc->hold();
	CHECK(pthread_equal(quiesce_call_rcu_thread(fc->flavor), thread),
	      "%s: asked inside a read-side section", fc->name);
	fc->release();
	quiesce_call_rcu_worker_destroy(w);
}

static void test_cpus(void)
{
	int cpu = check_last_allowed_cpu();
	struct quiesce_call_rcu_worker *pinned = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, cpu);
	struct quiesce_call_rcu_worker *free_w = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	atomic_ulong ran = 0;
	struct probe a = { .ran = &ran }, b = { .ran = &ran };
	cpu_set_t mine;
	char name[16];

	quiesce_call_rcu_on(pinned, &a.rcu, record_and_count);
	quiesce_call_rcu_on(free_w, &b.rcu, record_and_count);
	rcu_barrier();
	CHECK(atomic_load(&ran) == 2, "rcu_barrier() waited for both workers' callbacks");
	CHECK(CPU_COUNT(&a.cpus) == 1 && CPU_ISSET(cpu, &a.cpus),
	      "the worker made for CPU %d runs there alone (%d CPUs)", cpu, CPU_COUNT(&a.cpus));
	CHECK(sched_getaffinity(0, sizeof(mine), &mine) == 0, "sched_getaffinity");
	CHECK(CPU_EQUAL(&b.cpus, &mine), "the worker made for no CPU runs on the process's CPUs");
	CHECK(pthread_getname_np(a.thread, name, sizeof(name)) == 0, "pthread_getname_np");
	CHECK(atoi(strchr(name, '/') ? strchr(name, '/') + 1 : "-1") == cpu,
	      "the pinned worker's thread is named for its CPU: %s", name);
	CHECK(!pthread_equal(a.thread, b.thread), "two workers, two threads");
	quiesce_call_rcu_worker_destroy(pinned);
	quiesce_call_rcu_worker_destroy(free_w);
}

static void test_bad_arguments(void)
{
	errno = 0;
	CHECK(!quiesce_call_rcu_worker_create((enum quiesce_cb_flavor)42, -1) && errno == EINVAL,
	      "an unknown flavor is refused with EINVAL");
	errno = 0;
	CHECK(!quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -2) && errno == EINVAL,
	      "CPU -2 is refused with EINVAL");
	errno = 0;
	CHECK(!quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, CPU_SETSIZE) && errno == EINVAL,
	      "a CPU past CPU_SETSIZE is refused with EINVAL");
	quiesce_call_rcu_worker_destroy(NULL);
}

/*
 * A callback that blocks its worker until released; queued behind it, the
 * counted one cannot run before the release, so a barrier that returns
 * while the hold lasts missed the worker.
 */
static atomic_bool held, hold_release;

static void block_worker(struct rcu_head *head)
{
	(void)head;
	atomic_store(&held, true);
	while (!atomic_load(&hold_release))
		check_sleep_us(1000);
}

static atomic_bool barrier_returned;

static void *run_barrier(void *arg)
{
	((void (*)(void))arg)();
	atomic_store(&barrier_returned, true);
	return NULL;
}

static void test_flavor_barrier_covers_workers(const struct flavor_case *fc)
{
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(fc->flavor, -1);
	struct rcu_head hold;
	atomic_ulong ran = 0;
	struct probe p = { .ran = &ran };
	pthread_t t;

	atomic_store(&held, false);
	atomic_store(&hold_release, false);
	atomic_store(&barrier_returned, false);
	quiesce_call_rcu_on(w, &hold, block_worker);
	while (!atomic_load(&held))
		check_sleep_us(100);
	quiesce_call_rcu_on(w, &p.rcu, record_and_count);
	pthread_create(&t, NULL, run_barrier, (void *)fc->barrier);
	check_sleep_us(50000);
	CHECK(!atomic_load(&barrier_returned),
	      "%s: the flavor's barrier returned while a worker's callback was pending", fc->name);
	atomic_store(&hold_release, true);
	pthread_join(t, NULL);
	CHECK(atomic_load(&ran) == 1, "%s: the barrier returned after the worker's callback",
	      fc->name);
	quiesce_call_rcu_worker_destroy(w);
}

/* Callbacks on one worker destroy others while barriers walk the list. */
#define CHURN_ROUNDS 200
#define CHURN_VICTIMS 3

struct churn {
	struct rcu_head rcu;
	struct quiesce_call_rcu_worker *victims[CHURN_VICTIMS];
};

static void destroy_victims(struct rcu_head *head)
{
	struct churn *c = container_of(head, struct churn, rcu);

	for (int i = 0; i < CHURN_VICTIMS; i++)
		quiesce_call_rcu_worker_destroy(c->victims[i]);
}

static atomic_bool churn_stop;

static void *barrier_loop(void *unused)
{
	(void)unused;
	while (!atomic_load(&churn_stop))
		rcu_barrier();
	return NULL;
}

static void test_barrier_while_workers_die(void)
{
	struct quiesce_call_rcu_worker *killer = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	atomic_ulong ran = 0;
	pthread_t t;

	atomic_store(&churn_stop, false);
	pthread_create(&t, NULL, barrier_loop, NULL);
	for (int round = 0; round < CHURN_ROUNDS; round++) {
		struct churn c;
		struct probe p[CHURN_VICTIMS];

		for (int i = 0; i < CHURN_VICTIMS; i++) {
			c.victims[i] = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
			p[i].ran = &ran;
			quiesce_call_rcu_on(c.victims[i], &p[i].rcu, record_and_count);
		}
		quiesce_call_rcu_on(killer, &c.rcu, destroy_victims);
		quiesce_call_rcu_worker_barrier(killer);
	}
	atomic_store(&churn_stop, true);
	pthread_join(t, NULL);
	CHECK(atomic_load(&ran) == CHURN_ROUNDS * CHURN_VICTIMS,
	      "every destroyed worker ran its callback once: %lu", atomic_load(&ran));
	quiesce_call_rcu_worker_destroy(killer);
}

static void test_destroy_runs_pending(void)
{
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	atomic_ulong ran = 0;
	enum { N = 1000 };
	struct probe *p = calloc(N, sizeof(*p));

	for (int i = 0; i < N; i++) {
		p[i].ran = &ran;
		quiesce_call_rcu_on(w, &p[i].rcu, record_and_count);
	}
	quiesce_call_rcu_worker_destroy(w);
	CHECK(atomic_load(&ran) == N, "destroy ran the %d pending callbacks: %lu", N,
	      atomic_load(&ran));
	free(p);
}

/* Misuse, each in a child. */
static struct quiesce_call_rcu_worker *misused;

static void destroy_self(struct rcu_head *head)
{
	(void)head;
	quiesce_call_rcu_worker_destroy(misused);
}

static void destroy_from_own_callback(void *unused)
{
	static struct rcu_head head, more;

	(void)unused;
	misused = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	quiesce_call_rcu_on(misused, &more, block_worker);	/* pending behind it */
	atomic_store(&hold_release, true);
	quiesce_call_rcu_on(misused, &head, destroy_self);
	quiesce_call_rcu_worker_barrier(misused);
}

static void mb_barrier_inside_reader(void *unused)
{
	(void)unused;
	misused = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU_MB, -1);
	quiesce_rcu_mb_read_lock();
	quiesce_call_rcu_worker_barrier(misused);
}

static void qsbr_destroy_online(void *unused)
{
	static struct rcu_head head;

	(void)unused;
	misused = quiesce_call_rcu_worker_create(QUIESCE_CB_QSBR, -1);
	quiesce_qsbr_register_thread();
	quiesce_call_rcu_on(misused, &head, block_worker);
	quiesce_call_rcu_worker_destroy(misused);
}

/*
 * A worker destroyed twice: the second call read the freed worker before
 * it looked for it among the live ones (SIGSEGV, without a word).
 */
static void empty_callback(struct rcu_head *head)
{
	(void)head;
}

static void destroy_twice(void *unused)
{
	static struct rcu_head head;
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);

	(void)unused;
	quiesce_call_rcu_on(w, &head, empty_callback);
	quiesce_call_rcu_worker_destroy(w);
	quiesce_call_rcu_worker_destroy(w);
}

static void thread_of_unknown_flavor(void *unused)
{
	(void)unused;
	quiesce_call_rcu_thread((enum quiesce_cb_flavor)42);
}

static void test_misuse(void)
{
	check_child_aborts(destroy_from_own_callback, NULL, "callback: it would wait for itself");
	check_child_aborts(mb_barrier_inside_reader, NULL,
			   "quiesce_call_rcu_worker_barrier() called inside an RCU-mb read-side");
	check_child_aborts(qsbr_destroy_online, NULL,
			   "quiesce_call_rcu_worker_destroy() called by an online QSBR thread");
	check_child_aborts(thread_of_unknown_flavor, NULL, "not a callback flavor");
	check_child_aborts(destroy_twice, NULL, "): not a live worker");
}

/*
 * A worker whose thread runs in the parent has none in the child: it starts
 * one (told apart by its thread id: the child may reuse the parent
 * thread's descriptor, and so its pthread_t).
 */
static void test_fork(void)
{
	struct quiesce_call_rcu_worker *w = quiesce_call_rcu_worker_create(QUIESCE_CB_RCU, -1);
	atomic_ulong parent_ran = 0;
	struct probe parent = { .ran = &parent_ran };
	int status;
	pid_t pid;

	quiesce_call_rcu_on(w, &parent.rcu, record_and_count);
	quiesce_call_rcu_worker_barrier(w);
	pid = check_fork();
	if (pid == 0) {
		atomic_ulong ran = 0;
		struct probe p = { .ran = &ran };

		quiesce_call_rcu_on(w, &p.rcu, record_and_count);
		rcu_barrier();
		_exit(atomic_load(&ran) == 1 && p.tid != parent.tid ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's worker ran its callback on a thread of its own");
	quiesce_call_rcu_worker_destroy(w);
}

int main(void)
{
	test_bad_arguments();
	for (size_t i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++) {
		test_waits_for_reader(&flavors[i]);
		test_flavor_barrier_covers_workers(&flavors[i]);
		test_flavor_thread(&flavors[i]);
	}
	test_cpus();
	test_destroy_runs_pending();
	test_barrier_while_workers_die();
	test_misuse();
	test_fork();
	printf("call_rcu workers: all checks passed\n");
	return 0;
}
