/*
 * The library used from a constructor of the program that runs before the
 * library's own: tests link the static library, whose constructors have
 * priorities (src/common/init_order.h), and this one has the first
 * priority too, as a program's may.  Whatever per-CPU counters, grace
 * periods and the choice of a semaphore's readers need must be ready on
 * first use, not only once the library's constructors have run, and a knob
 * the program set must not be overwritten by them.
 */
#include <semaphore.h>

#include <quiesce/percpu_count.h>
#include <quiesce/percpu_rwsem.h>
#include <quiesce/rcu.h>

#include "check.h"

static unsigned cpus_in_constructor;
static long *counter;
static struct percpu_rw_semaphore sem_from_constructor;
static pthread_t idler;
static sem_t idler_registered, idler_may_end;

/* A registered reader that stays out of its sections: no grace period sees it pass its flip. */
static void *idle_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	rcu_read_unlock();
	sem_post(&idler_registered);
	sem_wait(&idler_may_end);
	return NULL;
}

__attribute__((constructor(101))) static void use_early(void)
{
	/* First, before anything else of the library has run. */
	percpu_init_rwsem(&sem_from_constructor);
	cpus_in_constructor = quiesce_percpu_nr_cpus();
	counter = quiesce_percpu_count_alloc();

	sem_init(&idler_registered, 0, 0);
	sem_init(&idler_may_end, 0, 0);
	CHECK(pthread_create(&idler, NULL, idle_reader, NULL) == 0, "pthread_create");
	sem_wait(&idler_registered);
	/* Each needs the heavy barrier: the idle reader is never seen past a flip. */
	synchronize_rcu();
	synchronize_rcu_expedited();
	/* Kept: the library's own start-up must not take it back. */
	rcu_set_normal(true);
}

static uint64_t expedited_gps(void)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return s.gp_expedited;
}

int main(void)
{
	struct percpu_rw_semaphore sem_from_main;
	uint64_t before;

	CHECK(cpus_in_constructor > 0 && cpus_in_constructor == quiesce_percpu_nr_cpus(),
	      "CPUs seen in a constructor %u, in main %u", cpus_in_constructor,
	      quiesce_percpu_nr_cpus());
	quiesce_percpu_count_add_shared(counter, 5);
	quiesce_percpu_count_add(counter, 2);
	CHECK(quiesce_percpu_count_sum(counter) == 7, "sum %ld, expected 7",
	      quiesce_percpu_count_sum(counter));
	quiesce_percpu_count_free(counter);

	before = expedited_gps();
	synchronize_rcu_expedited();
	CHECK(expedited_gps() == before,
	      "rcu_set_normal(true) from a constructor was lost: an expedited grace period ran");
	rcu_set_normal(false);
	before = expedited_gps();
	synchronize_rcu_expedited();
	CHECK(expedited_gps() == before + 1, "the control: no expedited grace period counted");

	percpu_init_rwsem(&sem_from_main);
	CHECK(sem_from_constructor.rss.rseq_readers == sem_from_main.rss.rseq_readers,
	      "readers of a semaphore set up in a constructor: %s, in main: %s",
	      sem_from_constructor.rss.rseq_readers ? "rseq" : "RCU",
	      sem_from_main.rss.rseq_readers ? "rseq" : "RCU");
	percpu_down_read(&sem_from_constructor);
	percpu_up_read(&sem_from_constructor);
	percpu_down_write(&sem_from_constructor);
	percpu_up_write(&sem_from_constructor);
	percpu_free_rwsem(&sem_from_constructor);
	percpu_free_rwsem(&sem_from_main);

	sem_post(&idler_may_end);
	CHECK(pthread_join(idler, NULL) == 0, "pthread_join");
	printf("early use: ok\n");
	return 0;
}
