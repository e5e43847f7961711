/*
 * The call_rcu_data API as liburcu's users call it: objects made, set per
 * thread and per CPU, picked in liburcu's order, freed with callbacks
 * pending (which still run), the default object kept, the per-CPU array's
 * error codes, each object's own callback thread (bound to the CPU it
 * was made for; a per-CPU object's, on any CPU and picked by call_rcu()
 * on its CPU; the default object's, asked from anywhere), rculfhash's
 * fork hooks and the fork hooks' effect in the child.  Then call_rcu()
 * from several threads with objects of their own, each callback counted
 * once (none lost, none run twice), and a callback that must wait for a
 * reader (held inside its section until the test has seen the callback
 * not run), on the default object and on one of the thread's, whose busted
 * control (quiesce's callbacks that do not wait) must be caught; and an
 * exit handler that waits for the callbacks and frees its object.
 */
#define _LGPL_SOURCE
#include <urcu.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define THREADS 4
#define PER_THREAD 2000

struct counted {
	struct rcu_head head;
	int thread;
};

static atomic_int ran[THREADS];
static atomic_int fork_calls[3];

static void count_cb(struct rcu_head *head)
{
	struct counted *c = caa_container_of(head, struct counted, head);

	atomic_fetch_add(&ran[c->thread], 1);
	free(c);
}

static void *queue_some(void *arg)
{
	int thread = (int)(intptr_t)arg;
	struct call_rcu_data *crdp = create_call_rcu_data(0, -1);

	set_thread_call_rcu_data(crdp);
	CHECK(get_call_rcu_data() == crdp, "the thread's object comes first");
	for (int i = 0; i < PER_THREAD; i++) {
		struct counted *c = malloc(sizeof(*c));

		c->thread = thread;
		call_rcu(&c->head, count_cb);
	}
	/* Freed with callbacks pending: they still run (rcu_barrier below). */
	set_thread_call_rcu_data(NULL);
	call_rcu_data_free(crdp);
	return NULL;
}

static pthread_t probed;

static void probe_from_callback(struct rcu_head *head)
{
	probed = get_call_rcu_thread(get_default_call_rcu_data());
	free(head);
}

static void free_head(struct rcu_head *head)
{
	free(head);
}

static void before(void *priv) { atomic_fetch_add(&fork_calls[0], 1); }
static void after_parent(void *priv) { atomic_fetch_add(&fork_calls[1], 1); }
static void after_child(void *priv) { atomic_fetch_add(&fork_calls[2], 1); }

static struct urcu_atfork hooks = { before, after_parent, after_child, NULL };

static void objects_and_errors(void)
{
	struct call_rcu_data *dflt = get_default_call_rcu_data(), *mine, *cpu0;
	pthread_t worker;
	struct rcu_head *h;

	CHECK(dflt && dflt == get_default_call_rcu_data(), "one default object");
	CHECK(get_thread_call_rcu_data() == NULL, "no thread object yet");
	CHECK(get_cpu_call_rcu_data(0) == NULL, "no per-CPU objects yet");
	CHECK(get_call_rcu_data() == dflt, "the default object comes last");
	call_rcu_data_free(dflt);	/* silently refused, as liburcu */
	call_rcu_data_free(NULL);
	CHECK(get_default_call_rcu_data() == dflt, "the default object stays");

	mine = create_call_rcu_data(URCU_CALL_RCU_RT, 0);
	CHECK(mine && mine != dflt, "create_call_rcu_data() makes an object");
	set_thread_call_rcu_data(mine);
	CHECK(get_thread_call_rcu_data() == mine && get_call_rcu_data() == mine, "set per thread");
	set_thread_call_rcu_data(NULL);

	CHECK(set_cpu_call_rcu_data(-1, mine) == -EINVAL && errno == EINVAL, "CPU -1");
	CHECK(set_cpu_call_rcu_data(1 << 20, mine) == -EINVAL, "CPU out of range");
	CHECK(set_cpu_call_rcu_data(0, mine) == 0, "set CPU 0");
	CHECK(get_cpu_call_rcu_data(0) == mine, "CPU 0's object");
	CHECK(set_cpu_call_rcu_data(0, dflt) == -EEXIST && errno == EEXIST, "CPU 0 taken");
	CHECK(set_cpu_call_rcu_data(0, NULL) == 0 && !get_cpu_call_rcu_data(0), "CPU 0 emptied");
	CHECK(get_cpu_call_rcu_data(-1) == NULL, "get CPU -1");

	CHECK(create_all_cpu_call_rcu_data(0) == 0, "create_all_cpu_call_rcu_data()");
	cpu0 = get_cpu_call_rcu_data(0);
	CHECK(cpu0 && cpu0 != mine && cpu0 != dflt, "CPU 0 got its own object");
	CHECK(create_all_cpu_call_rcu_data(0) == 0 && get_cpu_call_rcu_data(0) == cpu0,
	      "a second create_all keeps the objects");
	free_all_cpu_call_rcu_data();
	CHECK(get_cpu_call_rcu_data(0) == NULL, "free_all_cpu_call_rcu_data() empties the array");
	call_rcu_data_free(mine);

	/* The default object's callbacks run on a thread of their own. */
	worker = get_call_rcu_thread(dflt);
	CHECK(!pthread_equal(worker, pthread_self()), "callbacks run on their own thread");
	h = malloc(sizeof(*h));
	call_rcu(h, probe_from_callback);
	rcu_barrier();
	CHECK(pthread_equal(probed, worker), "asked from a callback, the thread is itself");
}

/* Where a callback ran, and on which CPUs that thread may run. */
struct probe {
	struct rcu_head head;
	pthread_t thread;
	cpu_set_t cpus;
};

static void record_thread(struct rcu_head *head)
{
	struct probe *p = caa_container_of(head, struct probe, head);

	p->thread = pthread_self();
	CHECK(sched_getaffinity(0, sizeof(p->cpus), &p->cpus) == 0, "sched_getaffinity");
}

/*
 * The default object's thread, asked from a callback on another object's
 * thread (where the flavor's barrier would wait for that callback) and
 * from inside a read-side section, is answered at once, as liburcu does.
 */
static void default_thread_from_anywhere(void)
{
	struct call_rcu_data *mine = create_call_rcu_data(0, -1);
	pthread_t dflt = get_call_rcu_thread(get_default_call_rcu_data());
	struct rcu_head *h = malloc(sizeof(*h));

	rcu_read_lock();
	CHECK(pthread_equal(get_call_rcu_thread(get_default_call_rcu_data()), dflt),
	      "the default object's thread, asked inside a read-side section");
	rcu_read_unlock();
	probed = pthread_self();
	set_thread_call_rcu_data(mine);
	call_rcu(h, probe_from_callback);
	set_thread_call_rcu_data(NULL);
	rcu_barrier();
	CHECK(pthread_equal(probed, dflt), "the default object's thread, asked from a callback "
	      "on another object's thread");
	call_rcu_data_free(mine);
}

/*
 * Each object has its own thread; call_rcu() on a CPU with an object runs
 * the callback on that object's thread, which may run on any of the
 * process's CPUs; the thread's object comes first; an object made for a
 * CPU has its thread run on that CPU alone.
 */
static void threads_and_cpus(void)
{
	int cpu = check_last_allowed_cpu();
	struct call_rcu_data *mine = create_call_rcu_data(0, -1), *on_cpu;
	struct call_rcu_data *bound = create_call_rcu_data(0, cpu);
	struct probe by_cpu, by_thread, by_bound;
	cpu_set_t saved, one;

	CHECK(!pthread_equal(get_call_rcu_thread(mine), get_call_rcu_thread(get_default_call_rcu_data())),
	      "an object's callbacks have a thread of their own");
	CHECK(sched_getaffinity(0, sizeof(saved), &saved) == 0, "sched_getaffinity");
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "pin the test to CPU %d", cpu);
	CHECK(create_all_cpu_call_rcu_data(0) == 0, "create_all_cpu_call_rcu_data()");
	on_cpu = get_cpu_call_rcu_data(cpu);
	CHECK(on_cpu && get_call_rcu_data() == on_cpu, "CPU %d's object is picked there", cpu);
	call_rcu(&by_cpu.head, record_thread);
	set_thread_call_rcu_data(mine);
	call_rcu(&by_thread.head, record_thread);
	rcu_barrier();
	CHECK(pthread_equal(by_cpu.thread, get_call_rcu_thread(on_cpu)),
	      "call_rcu() on CPU %d ran the callback on that CPU's object's thread", cpu);
	CHECK(CPU_EQUAL(&by_cpu.cpus, &saved),
	      "CPU %d's object's thread runs on the process's CPUs (%d of them, not %d)", cpu,
	      CPU_COUNT(&saved), CPU_COUNT(&by_cpu.cpus));
	CHECK(pthread_equal(by_thread.thread, get_call_rcu_thread(mine)),
	      "the thread's object comes before the CPU's");
	set_thread_call_rcu_data(bound);
	call_rcu(&by_bound.head, record_thread);
	rcu_barrier();
	CHECK(pthread_equal(by_bound.thread, get_call_rcu_thread(bound)) &&
	      CPU_COUNT(&by_bound.cpus) == 1 && CPU_ISSET(cpu, &by_bound.cpus),
	      "the object made for CPU %d runs its callbacks on that CPU alone", cpu);
	set_thread_call_rcu_data(NULL);
	call_rcu_data_free(mine);
	call_rcu_data_free(bound);
	free_all_cpu_call_rcu_data();
	CHECK(sched_setaffinity(0, sizeof(saved), &saved) == 0, "unpin the test");
}

static void forks(void)
{
	struct call_rcu_data *mine = create_call_rcu_data(0, -1);
	pid_t pid;
	int status;

	urcu_register_rculfhash_atfork(&hooks);
	set_thread_call_rcu_data(mine);
	CHECK(create_all_cpu_call_rcu_data(0) == 0, "per-CPU objects before fork");
	call_rcu_before_fork();
	CHECK(atomic_load(&fork_calls[0]) == 1, "before_fork ran rculfhash's hook");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct rcu_head *h = malloc(sizeof(*h));

		call_rcu_after_fork_child();
		/* As liburcu: only the default object survives in the child. */
		if (atomic_load(&fork_calls[2]) != 1 || get_thread_call_rcu_data() ||
		    get_cpu_call_rcu_data(0) || !get_default_call_rcu_data())
			_exit(2);
		call_rcu(h, free_head);
		rcu_barrier();
		_exit(0);
	}
	call_rcu_after_fork_parent();
	CHECK(atomic_load(&fork_calls[1]) == 1, "after_fork_parent ran rculfhash's hook");
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's call_rcu_data state and callbacks (status %d)", status);
	CHECK(get_thread_call_rcu_data() == mine && get_cpu_call_rcu_data(0), "the parent keeps its objects");
	set_thread_call_rcu_data(NULL);
	call_rcu_data_free(mine);
	free_all_cpu_call_rcu_data();
}

/* A callback queued while a reader holds its section runs only after it. */
static atomic_bool reader_in, reader_release, waited_cb_ran;

static void waited_cb(struct rcu_head *head)
{
	CHECK(atomic_load(&reader_release), "a callback ran while a reader held its section");
	atomic_store(&waited_cb_ran, true);
	free(head);
}

static void *holding_reader(void *arg)
{
	rcu_read_lock();
	atomic_store(&reader_in, true);
	while (!atomic_load(&reader_release))
		check_sleep_us(100);
	rcu_read_unlock();
	return NULL;
}

static bool reader_is_in(void *arg) { return atomic_load(&reader_in); }

static void waits_for_reader_on(struct call_rcu_data *crdp)
{
	pthread_t t;
	struct rcu_head *h = malloc(sizeof(*h));

	atomic_store(&reader_in, false);
	atomic_store(&reader_release, false);
	atomic_store(&waited_cb_ran, false);
	pthread_create(&t, NULL, holding_reader, NULL);
	check_wait_until(reader_is_in, NULL, "the reader entered");
	set_thread_call_rcu_data(crdp);
	call_rcu(h, waited_cb);
	set_thread_call_rcu_data(NULL);
	check_sleep_us(20000);
	CHECK(!atomic_load(&waited_cb_ran), "the callback ran before the reader left");
	atomic_store(&reader_release, true);
	pthread_join(t, NULL);
	rcu_barrier();
	CHECK(atomic_load(&waited_cb_ran), "rcu_barrier() waited for the callback");
}

/* On the default object's thread, then on an object's own. */
static void waits_for_reader(void)
{
	struct call_rcu_data *crdp = create_call_rcu_data(0, -1);

	waits_for_reader_on(NULL);
	waits_for_reader_on(crdp);
	call_rcu_data_free(crdp);
}

/*
 * multipathd's shutdown: an exit handler, registered from main() before the
 * first call_rcu(), queues a last callback (multipathd frees its
 * configuration so), waits for the callbacks and frees the thread's own
 * object.  It runs before quiesce stops the callback threads at exit()
 * (src/common/init_order.h), so its barrier waits, as liburcu's does (with
 * the stop first, the barrier said it could not, and the free aborted).
 */
static struct call_rcu_data *exit_crdp;
static atomic_int exit_cbs_ran;

static void exit_cb(struct rcu_head *head)
{
	free(head);
	atomic_fetch_add(&exit_cbs_ran, 1);
}

static void free_own_object_at_exit(void)
{
	call_rcu(malloc(sizeof(struct rcu_head)), exit_cb);
	rcu_barrier();
	if (atomic_load(&exit_cbs_ran) != 2)
		_exit(3);
	set_thread_call_rcu_data(NULL);
	synchronize_rcu();
	call_rcu_data_free(exit_crdp);
	rcu_unregister_thread();
}

static void shutdown_at_exit(void *arg)
{
	(void)arg;
	rcu_register_thread();
	exit_crdp = create_call_rcu_data(0, -1);
	set_thread_call_rcu_data(exit_crdp);
	atexit(free_own_object_at_exit);
	call_rcu(malloc(sizeof(struct rcu_head)), exit_cb);
	exit(0);
}

/* libquiesce's test hook (src/rcu/cb_domain.h): callbacks that do not wait. */
extern bool quiesce_test_busted_call_rcu;

static void busted_waits(void *arg)
{
	quiesce_test_busted_call_rcu = true;
	waits_for_reader();
	exit(0);
}

int main(void)
{
	pthread_t t[THREADS];
	char err[4096];
	int status;

	/* First, while no callback thread has started in this process. */
	status = check_run_child(shutdown_at_exit, NULL, err, sizeof(err));
	CHECK(status == 0 && !strstr(err, "quiesce"),
	      "an exit handler that waits for the callbacks and frees its call_rcu_data: "
	      "status %#x, %s", status, err);
	objects_and_errors();
	default_thread_from_anywhere();
	threads_and_cpus();
	forks();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, queue_some, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	rcu_barrier();
	for (int i = 0; i < THREADS; i++)
		CHECK(atomic_load(&ran[i]) == PER_THREAD, "thread %d: %d of %d callbacks ran", i,
		      atomic_load(&ran[i]), PER_THREAD);
	waits_for_reader();
	check_child_detects_violation(busted_waits, NULL);
	printf("call_rcu_data: all checks passed\n");
	return 0;
}
