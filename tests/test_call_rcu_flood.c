/*
 * A sustained flood of call_rcu(): the callbacks pending at any time stay
 * bounded.  Each enqueuer counts the objects it allocated; the callback
 * counts the ones it freed; every so often an enqueuer computes how many are
 * alive and keeps the peak.  Once with cheap callbacks (free), once with
 * slow ones that the callback thread cannot keep up with; with throttling
 * disabled (the control), the slow flood must blow past the bound.
 *
 * "Slow" must hold on any machine: a callback that sleeps 20 us is slow
 * next to the flood only where the flood runs fast.  So the slow
 * callbacks first stop the callback thread altogether, until the flood
 * has reached the throttle mark and a caller has been throttled (in the
 * control, which throttles nobody, until the flood ends), and only then
 * run, 20 us each.  The floods end on progress (throttled callers, or the
 * control's backlog past twice the bound), with CHECK_HANG_MS as the only
 * time limit.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "rcu/cb_domain.h"
#include "check.h"

#define ENQUEUERS 2
#define SAMPLE_EVERY 256
/*
 * Once the flood has been throttled, a slow callback sleeps this long while
 * the flood lasts: the callback thread drains some ten thousand a second.
 */
#define SLOW_CALLBACK_US 20
/* The throttle mark, plus what the threads may queue past it meanwhile. */
#define BOUND (QUIESCE_CB_THROTTLE_BACKLOG + QUIESCE_CB_THROTTLE_BACKLOG / 4)
/* How long a flood lasts once its callers are throttled, in milliseconds. */
#define THROTTLED_MS 300

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
static bool slow;
static uint64_t throttled_before;	/* cb_throttled when the flood began */
static bool flood_throttled;		/* the callback thread's own */

static uint64_t throttled_calls(void)
{
	struct quiesce_rcu_stats s;

	quiesce_rcu_get_stats(&s);
	return s.cb_throttled;
}

static void release(struct rcu_head *head)
{
	/* Held until a caller was throttled (see the top), polling. */
	while (slow && !flood_throttled && !atomic_load_explicit(&stop, memory_order_relaxed)) {
		flood_throttled = throttled_calls() > throttled_before;
		if (!flood_throttled)
			check_sleep_us(100);
	}
	if (slow && !atomic_load_explicit(&stop, memory_order_relaxed))
		check_sleep_us(SLOW_CALLBACK_US);
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
		if (now > 2 * BOUND)
			atomic_store(&stop, true);
	}
	return NULL;
}

enum flood_end {
	FOR_A_SECOND,		/* fast callbacks: 1 s */
	THROTTLED_A_WHILE,	/* until callers were throttled, then THROTTLED_MS */
	UNBOUNDED,		/* until the control's backlog passed 2 * BOUND */
};

/*
 * Floods until `until`; returns the peak of objects alive.  A slow flood
 * never throttled fails as a hang; the control, at that time, ends with
 * the peak it reached.
 */
static unsigned long flood(bool slow_callbacks, enum flood_end until)
{
	pthread_t t[ENQUEUERS];
	uint64_t now = check_now_ns(), hang = now + (uint64_t)CHECK_HANG_MS * 1000000u;
	uint64_t end = until == FOR_A_SECOND ? now + 1000000000u
		       : until == UNBOUNDED  ? hang
					     : UINT64_MAX;
	bool throttled = false;

	slow = slow_callbacks;
	throttled_before = throttled_calls();
	flood_throttled = false;
	atomic_store(&peak, 0);
	atomic_store(&stop, false);
	for (uintptr_t i = 0; i < ENQUEUERS; i++)
		pthread_create(&t[i], NULL, enqueuer, (void *)i);
	while ((now = check_now_ns()) < end && !atomic_load(&stop)) {
		CHECK(now < hang, "the slow flood was never throttled in %u ms", CHECK_HANG_MS);
		check_sleep_us(10000);
		if (until == THROTTLED_A_WHILE && !throttled && throttled_calls() > throttled_before) {
			throttled = true;
			end = check_now_ns() + (uint64_t)THROTTLED_MS * 1000000u;
		}
	}
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
	p = flood(true, UNBOUNDED);
	fprintf(stderr, "unthrottled slow flood: peak %lu pending\n", p);
	/* Without draining the flood's backlog (nor the exit handler's wait). */
	_exit(p > BOUND ? 1 : 0);
}

int main(void)
{
	struct quiesce_rcu_stats s;
	unsigned long fast_peak, slow_peak, calls;

	fast_peak = flood(false, FOR_A_SECOND);
	drain();
	calls = atomic_load(&freed);
	fprintf(stderr, "fast flood: %lu callbacks, peak %lu pending (bound %d)\n", calls, fast_peak,
		BOUND);
	CHECK(fast_peak <= BOUND, "fast flood: %lu callbacks pending at the peak", fast_peak);
	slow_peak = flood(true, THROTTLED_A_WHILE);
	drain();
	fprintf(stderr, "slow flood: %lu callbacks, peak %lu pending\n",
		atomic_load(&freed) - calls, slow_peak);
	CHECK(slow_peak <= BOUND, "slow flood: %lu callbacks pending at the peak", slow_peak);
	quiesce_rcu_get_stats(&s);
	fprintf(stderr, "%llu batches, %llu expedited, %llu throttled calls\n",
		(unsigned long long)s.cb_batches, (unsigned long long)s.cb_expedited,
		(unsigned long long)s.cb_throttled);
	CHECK(s.cb_throttled > 0, "the slow flood throttled its callers");
	/* No running callback thread at the children's fork (check.h, check_fork()). */
	quiesce_call_rcu_shutdown();
	check_child_detects_violation(unthrottled_child, NULL);
	printf("call_rcu flood: all checks passed\n");
	return 0;
}
