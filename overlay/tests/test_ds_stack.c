/*
 * liburcu's stacks through the overlay: cds_wfs (GlusterFS, BIND 9),
 * cds_lfs and the deprecated rculfstack.
 *
 * Pushers push numbered nodes while poppers pop one at a time and pop
 * whole stacks at once (cds_wfs_pop_all_blocking, __cds_lfs_pop_all);
 * every node pushed must come out exactly once.  The lock-free pops run
 * inside rcu_read_lock() and free what they pop through call_rcu(), which
 * poisons it: a pop that reads a node after its grace period sees poison.
 * The return conventions are checked one thread at a time.  The control,
 * quiesce's lfs push that puts its node on top before linking it, must be
 * caught (nodes lost, or a pop that follows a stale link).
 */
#define QUIESCE_TEST_STACK_HOOKS
#include <urcu.h>
#include <urcu/lfstack.h>
#include <urcu/rculfstack.h>
#include <urcu/wfstack.h>

#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

#define PUSHERS 2
#define PER_PUSHER 100000
#define BUSTED_PER_PUSHER 1000	/* each busted push yields: fewer of them */
#define LIVE 0x4c495645u
#define STALL_NS (3ull * 1000000000ull)

struct item {
	unsigned pusher, seq, magic;
	struct cds_wfs_node wfs;
	struct cds_lfs_node lfs;
	struct rcu_head rcu;
};

static atomic_uint popped[PUSHERS][PER_PUSHER];
static atomic_ulong taken, violations;
static atomic_bool stop;
static unsigned per_pusher = PER_PUSHER;

static void violation(const char *what, unsigned a, unsigned b)
{
	fprintf(stderr, "violation: %s (%u, %u)\n", what, a, b);
	atomic_fetch_add(&violations, 1);
}

static struct item *new_item(unsigned pusher, unsigned seq)
{
	struct item *it = calloc(1, sizeof(*it));

	it->pusher = pusher;
	it->seq = seq;
	it->magic = LIVE;
	return it;
}

/* Relaxed loads: a broken stack may hand out a node already poisoned. */
static void take(struct item *it)
{
	unsigned p = __atomic_load_n(&it->pusher, __ATOMIC_RELAXED);
	unsigned seq = __atomic_load_n(&it->seq, __ATOMIC_RELAXED);

	if (__atomic_load_n(&it->magic, __ATOMIC_RELAXED) != LIVE || p >= PUSHERS ||
	    seq >= PER_PUSHER) {
		violation("a poisoned or torn node", p, seq);
		return;
	}
	if (atomic_fetch_add(&popped[p][seq], 1))
		violation("a node popped twice", p, seq);
	atomic_fetch_add(&taken, 1);
}

static void reset(void)
{
	for (unsigned p = 0; p < PUSHERS; p++)
		for (unsigned i = 0; i < per_pusher; i++)
			atomic_store(&popped[p][i], 0);
	atomic_store(&taken, 0);
	atomic_store(&stop, false);
}

/* Waits for every node to be taken; a stall with nodes missing is a violation. */
static void wait_all_taken(void)
{
	unsigned long seen = ~0ul;
	uint64_t progress = check_now_ns();

	while (atomic_load(&taken) < PUSHERS * per_pusher && !atomic_load(&violations)) {
		if (atomic_load(&taken) != seen) {
			seen = atomic_load(&taken);
			progress = check_now_ns();
		} else if (check_now_ns() - progress > STALL_NS) {
			violation("nodes lost: no progress with nodes left", (unsigned)seen, PUSHERS * per_pusher);
		}
		check_sleep_us(1000);
	}
	atomic_store(&stop, true);
}

static void run(void *(*pusher)(void *), void *(*popper)(void *), void *(*pop_all)(void *))
{
	pthread_t t[PUSHERS + 2];

	reset();
	pthread_create(&t[0], NULL, popper, NULL);
	pthread_create(&t[1], NULL, pop_all, NULL);
	for (unsigned i = 0; i < PUSHERS; i++)
		pthread_create(&t[2 + i], NULL, pusher, (void *)(uintptr_t)i);
	wait_all_taken();
	for (unsigned i = 0; i < PUSHERS + 2; i++)
		check_join_within(t[i], CHECK_HANG_MS, "stack thread");
	CHECK(!atomic_load(&violations), "%lu violations", atomic_load(&violations));
	for (unsigned p = 0; p < PUSHERS; p++)
		for (unsigned i = 0; i < per_pusher; i++)
			CHECK(atomic_load(&popped[p][i]) == 1, "node %u of %u popped %u times", i, p,
			      atomic_load(&popped[p][i]));
}

/* ---- cds_wfs ---- */

static struct cds_wfs_stack wfs;

static void *wfs_pusher(void *arg)
{
	for (unsigned i = 0; i < per_pusher; i++) {
		struct item *it = new_item((unsigned)(uintptr_t)arg, i);

		cds_wfs_node_init(&it->wfs);
		cds_wfs_push(&wfs, &it->wfs);
	}
	return NULL;
}

static void *wfs_popper(void *arg)
{
	while (!atomic_load(&stop)) {
		struct cds_wfs_node *n = cds_wfs_pop_blocking(&wfs);

		if (n) {
			take(caa_container_of(n, struct item, wfs));
			free(caa_container_of(n, struct item, wfs));
		}
	}
	return NULL;
}

static void *wfs_pop_all(void *arg)
{
	while (!atomic_load(&stop)) {
		struct cds_wfs_head *h = cds_wfs_pop_all_blocking(&wfs);
		struct cds_wfs_node *n, *next;

		cds_wfs_for_each_blocking_safe(h, n, next) {
			take(caa_container_of(n, struct item, wfs));
			free(caa_container_of(n, struct item, wfs));
		}
	}
	return NULL;
}

static void wfs_conventions(void)
{
	struct cds_wfs_stack s;
	struct __cds_wfs_stack us;
	struct cds_wfs_node a, b;
	int state;

	cds_wfs_init(&s);
	CHECK(cds_wfs_empty(&s) && cds_wfs_pop_blocking(&s) == NULL, "empty");
	CHECK(cds_wfs_push(&s, &a) == 0 && cds_wfs_push(&s, &b) == 1,
	      "push says whether the stack was empty (0) or not (1)");
	CHECK(cds_wfs_pop_with_state_blocking(&s, &state) == &b && !(state & CDS_WFS_STATE_LAST),
	      "LIFO, not last");
	CHECK(__cds_wfs_pop_with_state_nonblocking(&s, &state) == &a && (state & CDS_WFS_STATE_LAST),
	      "last");
	cds_wfs_destroy(&s);
	/* liburcu's layout, which GlusterFS embeds: the stack without a mutex is one word. */
	CHECK(sizeof(struct __cds_wfs_stack) == sizeof(void *),
	      "struct __cds_wfs_stack is %zu bytes", sizeof(struct __cds_wfs_stack));
	__cds_wfs_init(&us);
	cds_wfs_push(&us, &a);
	cds_wfs_push(&us, &b);
	CHECK(cds_wfs_first(__cds_wfs_pop_all(&us)) == &b && cds_wfs_next_blocking(&b) == &a &&
	      cds_wfs_next_nonblocking(&a) == NULL && cds_wfs_empty(&us), "pop_all and its walk");
	CHECK(__cds_wfs_pop_all(&us) == NULL && cds_wfs_first(NULL) == NULL, "pop_all of nothing");
}

/* ---- cds_lfs, popped under RCU ---- */

static struct cds_lfs_stack lfs;

static void poison_item(struct rcu_head *rcu)
{
	check_quarantine(caa_container_of(rcu, struct item, rcu), offsetof(struct item, rcu));
}

static void *lfs_pusher(void *arg)
{
	rcu_register_thread();
	for (unsigned i = 0; i < per_pusher; i++) {
		struct item *it = new_item((unsigned)(uintptr_t)arg, i);

		cds_lfs_node_init(&it->lfs);
		cds_lfs_push(&lfs, &it->lfs);
	}
	rcu_unregister_thread();
	return NULL;
}

static void *lfs_popper(void *arg)
{
	rcu_register_thread();
	while (!atomic_load(&stop)) {
		struct cds_lfs_node *n;

		rcu_read_lock();
		n = __cds_lfs_pop(&lfs);
		rcu_read_unlock();
		if (n) {
			struct item *it = caa_container_of(n, struct item, lfs);

			take(it);
			call_rcu(&it->rcu, poison_item);
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static void *lfs_pop_all(void *arg)
{
	rcu_register_thread();
	while (!atomic_load(&stop)) {
		struct cds_lfs_head *h = __cds_lfs_pop_all(&lfs);
		struct cds_lfs_node *n, *next;

		if (!h)
			continue;
		cds_lfs_for_each_safe(h, n, next) {
			struct item *it = caa_container_of(n, struct item, lfs);

			take(it);
			call_rcu(&it->rcu, poison_item);
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static void lfs_run(void *busted)
{
	quiesce_test_busted_lfs = busted != NULL;
	per_pusher = busted ? BUSTED_PER_PUSHER : PER_PUSHER;
	cds_lfs_init(&lfs);
	run(lfs_pusher, lfs_popper, lfs_pop_all);
	cds_lfs_destroy(&lfs);
	rcu_barrier();
}

static void lfs_conventions(void)
{
	struct cds_lfs_stack s;
	struct __cds_lfs_stack us;
	struct cds_lfs_stack_rcu rs;
	struct cds_lfs_node a, b;
	struct cds_lfs_node_rcu ra, rb;

	cds_lfs_init(&s);
	CHECK(cds_lfs_empty(&s) && cds_lfs_pop_blocking(&s) == NULL, "empty");
	CHECK(!cds_lfs_push(&s, &a) && cds_lfs_push(&s, &b), "push says whether it was empty");
	CHECK(cds_lfs_pop_blocking(&s) == &b && cds_lfs_pop_all_blocking(&s) == (void *)&a &&
	      cds_lfs_empty(&s), "pop, then pop_all");
	cds_lfs_destroy(&s);
	CHECK(sizeof(struct __cds_lfs_stack) == sizeof(void *) &&
		      sizeof(struct cds_lfs_stack_rcu) == sizeof(void *),
	      "the stacks without a mutex are one word, as liburcu's");
	__cds_lfs_init(&us);
	CHECK(cds_lfs_empty(&us) && !cds_lfs_push(&us, &a) && cds_lfs_push(&us, &b),
	      "a stack without a mutex: push");
	CHECK(__cds_lfs_pop(&us) == &b && __cds_lfs_pop_all(&us) == (void *)&a && cds_lfs_empty(&us),
	      "a stack without a mutex: pop, then pop_all");
	cds_lfs_init_rcu(&rs);
	cds_lfs_node_init_rcu(&ra);
	cds_lfs_node_init_rcu(&rb);
	CHECK(cds_lfs_push_rcu(&rs, &ra) == 0 && cds_lfs_push_rcu(&rs, &rb) == 1,
	      "rculfstack push");
	rcu_read_lock();
	CHECK(cds_lfs_pop_rcu(&rs) == &rb && cds_lfs_pop_rcu(&rs) == &ra &&
	      cds_lfs_pop_rcu(&rs) == NULL, "rculfstack pop");
	rcu_read_unlock();
}

int main(void)
{
	wfs_conventions();
	lfs_conventions();
	cds_wfs_init(&wfs);
	run(wfs_pusher, wfs_popper, wfs_pop_all);
	cds_wfs_destroy(&wfs);
	lfs_run(NULL);
	check_child_detects_violation(lfs_run, "busted");
	printf("cds_wfs, cds_lfs: %u nodes each, each popped once\n", PUSHERS * PER_PUSHER);
	return 0;
}
