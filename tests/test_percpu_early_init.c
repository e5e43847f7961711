/*
 * Per-CPU counters and a per-CPU semaphore set up in the program's own
 * constructor.  Tests link the static library, whose constructors run after
 * the program's: whatever the counters need must be ready on first use, not
 * only once the library's constructors have run.
 */
#include <quiesce/percpu_count.h>
#include <quiesce/percpu_rwsem.h>

#include "check.h"

static unsigned cpus_in_constructor;
static long *counter;
static struct percpu_rw_semaphore sem;

__attribute__((constructor)) static void set_up_early(void)
{
	cpus_in_constructor = quiesce_percpu_nr_cpus();
	counter = quiesce_percpu_count_alloc();
	percpu_init_rwsem(&sem);
}

int main(void)
{
	CHECK(cpus_in_constructor > 0 && cpus_in_constructor == quiesce_percpu_nr_cpus(),
	      "CPUs seen in a constructor %u, in main %u", cpus_in_constructor,
	      quiesce_percpu_nr_cpus());
	quiesce_percpu_count_add_shared(counter, 5);
	quiesce_percpu_count_add(counter, 2);
	CHECK(quiesce_percpu_count_sum(counter) == 7, "sum %ld, expected 7",
	      quiesce_percpu_count_sum(counter));
	quiesce_percpu_count_free(counter);

	percpu_down_read(&sem);
	percpu_up_read(&sem);
	percpu_down_write(&sem);
	percpu_up_write(&sem);
	percpu_free_rwsem(&sem);
	printf("percpu early init: ok\n");
	return 0;
}
