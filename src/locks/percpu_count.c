/*
 * percpu_count.c - the allocator behind per-CPU counters, and their slow
 * paths (see include/quiesce/percpu_count.h for the layout).
 *
 * A chunk holds SLOTS_PER_BLOCK counters: nr_cpus + 1 blocks of
 * QUIESCE_PERCPU_BLOCK bytes, one per CPU and one shared, and counter i of
 * the chunk is word i of every block.  Chunks are never returned to the
 * system; their slots are reused.  A freed counter's slots are zeroed, so a
 * new one starts at zero on every CPU.
 */
#include <quiesce/percpu_count.h>

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_SYS_RSEQ 1
#endif
#endif

#include "common/cancel.h"
#include "common/diag.h"

#define SLOTS_PER_BLOCK (QUIESCE_PERCPU_BLOCK / (long)sizeof(long))

struct chunk {
	struct chunk *next;
	char *base;
	unsigned used;
	uint64_t busy[SLOTS_PER_BLOCK / 64];
};

const int quiesce_percpu_gate_open = 0;

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
/*
 * Set once, by percpu_count_setup(), before the first counter exists:
 * whoever reaches a counter reaches it after its allocation, so the sums
 * and shared adds read it without the once.
 */
static unsigned nr_cpus;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void percpu_count_setup(void);

unsigned quiesce_percpu_nr_cpus(void)
{
	pthread_once(&setup_once, percpu_count_setup);
	return nr_cpus;
}

static long *slot(long *cpu0, unsigned cpu)
{
	return (long *)((char *)cpu0 + ((size_t)cpu << QUIESCE_PERCPU_BLOCK_SHIFT));
}

static long *shared_slot(long *cpu0)
{
	return slot(cpu0, nr_cpus);
}

#ifdef QUIESCE_TSAN
#define SLOT_ADD_ORDER __ATOMIC_ACQ_REL
#define SLOT_LOAD_ORDER __ATOMIC_ACQUIRE
#else
#define SLOT_ADD_ORDER __ATOMIC_RELAXED
#define SLOT_LOAD_ORDER __ATOMIC_RELAXED
#endif

/* Release: what the caller did before is ordered before the count change. */
void quiesce_percpu_count_add_shared(long *cpu0, long delta)
{
	__atomic_fetch_add(shared_slot(cpu0), delta, __ATOMIC_RELEASE);
}

/* The CPU rseq reports, or -1 for a thread without rseq. */
static int rseq_cpu(void)
{
#ifdef HAVE_SYS_RSEQ
	const struct rseq *area;

	if (!__rseq_size)
		return -1;
	area = (const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	return (int)QUIESCE_LOAD(&area->cpu_id);
#else
	return -1;
#endif
}

bool quiesce_percpu_thread_has_rseq(void)
{
	return rseq_cpu() >= 0;
}

/*
 * Every add through here is atomic, so it may share a slot with any other;
 * only the x86-64 rseq path (which never calls this) relies on slots being
 * written by one CPU at a time.
 */
void quiesce_percpu_count_add_atomic(long *cpu0, long delta)
{
	int cpu = rseq_cpu();

	__atomic_fetch_add(cpu >= 0 && (unsigned)cpu < nr_cpus ? slot(cpu0, (unsigned)cpu)
								: shared_slot(cpu0),
			   delta, SLOT_ADD_ORDER);
}

long quiesce_percpu_count_sum(long *cpu0)
{
	long sum = 0;

	for (unsigned cpu = 0; cpu <= nr_cpus; cpu++)
		sum += __atomic_load_n(slot(cpu0, cpu), SLOT_LOAD_ORDER);
	return sum;
}

static struct chunk *new_chunk(void)
{
	struct chunk *c = calloc(1, sizeof(*c));
	size_t size = (size_t)(nr_cpus + 1) << QUIESCE_PERCPU_BLOCK_SHIFT;

	if (!c || !(c->base = aligned_alloc(QUIESCE_PERCPU_BLOCK, size)))
		quiesce_die("out of memory for per-CPU counters (%zu bytes)", size);
	memset(c->base, 0, size);
	c->next = chunks;
	chunks = c;
	return c;
}

long *quiesce_percpu_count_alloc(void)
{
	struct chunk *c;
	long *cpu0 = NULL;

	pthread_once(&setup_once, percpu_count_setup);
	pthread_mutex_lock(&alloc_lock);
	for (c = chunks; c && c->used == SLOTS_PER_BLOCK; c = c->next)
		;
	if (!c)
		c = new_chunk();
	for (unsigned w = 0; w < SLOTS_PER_BLOCK / 64; w++) {
		if (c->busy[w] == UINT64_MAX)
			continue;
		unsigned bit = (unsigned)__builtin_ctzll(~c->busy[w]);

		c->busy[w] |= 1ULL << bit;
		c->used++;
		cpu0 = (long *)c->base + w * 64 + bit;
		break;
	}
	pthread_mutex_unlock(&alloc_lock);
	return cpu0;
}

void quiesce_percpu_count_free(long *cpu0)
{
	struct chunk *c;

	pthread_mutex_lock(&alloc_lock);
	for (c = chunks; c; c = c->next)
		if ((char *)cpu0 >= c->base && (char *)cpu0 < c->base + QUIESCE_PERCPU_BLOCK)
			break;
	if (!c)
		quiesce_die("quiesce_percpu_count_free(%p): not a per-CPU counter", (void *)cpu0);
	size_t index = (size_t)(cpu0 - (long *)c->base);

	if (!(c->busy[index / 64] & (1ULL << (index % 64))))
		quiesce_die("quiesce_percpu_count_free(%p): freed twice", (void *)cpu0);
	for (unsigned cpu = 0; cpu <= nr_cpus; cpu++)
		*slot(cpu0, cpu) = 0;
	c->busy[index / 64] &= ~(1ULL << (index % 64));
	c->used--;
	pthread_mutex_unlock(&alloc_lock);
}

/*
 * The highest CPU number the kernel may ever report, plus one: rseq's
 * cpu_id is below it.  /sys lists possible CPUs as ranges ("0-3,8-11").
 */
static unsigned possible_cpus(void)
{
	int cancel = quiesce_cancel_off();	/* stdio's reads (cancel.h) */
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	unsigned highest = 0, n;
	char sep;

	if (f) {
		while (fscanf(f, "%u%c", &n, &sep) >= 1)
			if (n > highest)
				highest = n;
		fclose(f);
	}
	quiesce_cancel_restore(cancel);
	if (conf > 0 && (unsigned long)conf > highest + 1UL)
		return (unsigned)conf;
	return highest + 1;
}

/* The allocator lock is held across fork(), so the child's list is whole. */
static void alloc_prepare_fork(void)
{
	pthread_mutex_lock(&alloc_lock);
}

static void alloc_after_fork(void)
{
	pthread_mutex_unlock(&alloc_lock);
}

/*
 * On first use rather than in a constructor: a constructor of the program
 * may run before the library's (init_order.h), and a semaphore set up in
 * one of those got chunks sized for no CPU at all, whose slots the later
 * sums and shared adds then ran past.
 */
static void percpu_count_setup(void)
{
	nr_cpus = possible_cpus();
	pthread_atfork(alloc_prepare_fork, alloc_after_fork, alloc_after_fork);
}
