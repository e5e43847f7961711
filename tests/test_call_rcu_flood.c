/*
 * A sustained flood of call_rcu(): the callbacks pending at any time stay
 * bounded.  Each enqueuer counts the objects it allocated; the callback
 * counts the ones it freed; every so often an enqueuer computes how many are
 * alive and keeps the peak.  Once with cheap callbacks (free), once with
 * slow ones that the callback thread cannot keep up with; with throttling
 * disabled (the control), the slow flood must blow past the bound.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "call_rcu.h"
#include "check.h"

#define ENQUEUERS 2
#define SAMPLE_EVERY 256
/* Makes a callback cost a microsecond or so: the enqueuers outrun it. */
#define SLOW_SPINS 20
/* The throttle mark, plus what each thread may queue past it. */
#define BOUND (2 * QUIESCE_CB_THROTTLE_BACKLOG)

struct obj {
	struct rcu_head rcu;
	long payload[2];
};

static struct {
	atomic_ulong allocated;
	char pad[64];
} counters[ENQUEUERS];
static atomic_ulong freed, peak;
static atomic_bool stop;
static unsigned slow_spins;

static void release(struct rcu_head *head)
{
	for (unsigned i = 0; i < slow_spins; i++)
		quiesce_cpu_relax();
	free(container_of(head, struct obj, rcu));
	atomic_fetch_add_explicit(&freed, 1, memory_order_relaxed);
}

static unsigned long alive(void)
{
	unsigned long f = atomic_load(&freed), a = 0;

	for (int i = 0; i < ENQUEUERS; i++)
		a += atomic_load_explicit(&counters[i].allocated, memory_order_relaxed);
	return a > f ? a - f : 0;
}

static void *enqueuer(void *arg)
{
	atomic_ulong *allocated = &counters[(uintptr_t)arg].allocated;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < SAMPLE_EVERY; i++) {
			call_rcu(&((struct obj *)malloc(sizeof(struct obj)))->rcu, release);
			atomic_fetch_add_explicit(allocated, 1, memory_order_relaxed);
		}
		unsigned long now = alive(), p = atomic_load(&peak);

		while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
			;
		/* The control stops once it has shown the flood unbounded. */
		if (now > 4 * BOUND)
			atomic_store(&stop, true);
	}
	return NULL;
}

static unsigned long flood(unsigned ms, unsigned spins)
{
	pthread_t t[ENQUEUERS];
	uint64_t end = check_now_ns() + (uint64_t)ms * 1000000u;

	slow_spins = spins;
	atomic_store(&peak, 0);
	atomic_store(&stop, false);
	for (uintptr_t i = 0; i < ENQUEUERS; i++)
		pthread_create(&t[i], NULL, enqueuer, (void *)i);
	while (check_now_ns() < end && !atomic_load(&stop))
		check_sleep_us(10000);
	atomic_store(&stop, true);
	for (int i = 0; i < ENQUEUERS; i++)
		pthread_join(t[i], NULL);
	return atomic_load(&peak);
}

static void drain(void)
{
	rcu_barrier();
	CHECK(alive() == 0, "every object was freed after rcu_barrier()");
}

static void unthrottled_child(void *unused)
{
	unsigned long p;

	quiesce_test_call_rcu_no_throttle = true;
	p = flood(2000, SLOW_SPINS);
	fprintf(stderr, "unthrottled slow flood: peak %lu pending\n", p);
	/* Without draining the flood's backlog (nor the exit handler's wait). */
	_exit(p > BOUND ? 1 : 0);
}

int main(void)
{
	struct quiesce_rcu_stats s;
	unsigned long fast, slow, calls;

	fast = flood(1000, 0);
	drain();
	calls = atomic_load(&freed);
	fprintf(stderr, "fast flood: %lu callbacks, peak %lu pending (bound %d)\n", calls, fast,
		BOUND);
	CHECK(fast <= BOUND, "fast flood: %lu callbacks pending at the peak", fast);
	slow = flood(1000, SLOW_SPINS);
	drain();
	fprintf(stderr, "slow flood: %lu callbacks, peak %lu pending\n",
		atomic_load(&freed) - calls, slow);
	CHECK(slow <= BOUND, "slow flood: %lu callbacks pending at the peak", slow);
	quiesce_rcu_get_stats(&s);
	fprintf(stderr, "%llu batches, %llu expedited, %llu throttled calls\n",
		(unsigned long long)s.cb_batches, (unsigned long long)s.cb_expedited,
		(unsigned long long)s.cb_throttled);
	CHECK(s.cb_throttled > 0, "the slow flood throttled its callers");
	check_child_detects_violation(unthrottled_child, NULL);
	printf("call_rcu flood: all checks passed\n");
	return 0;
}
