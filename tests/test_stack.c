/*
 * The two stacks: their return conventions on one thread, then a stress of
 * each with every kind of pop at once, and a busted control for each (a
 * push that publishes its node before its link is right) that must be
 * caught.
 *
 * Wait-free stack: pushers push fresh elements (their link poisoned, as a
 * recycled element's would be) while poppers take them with the locked
 * pop, nonblocking pops under the lock, and locked pop-alls walked with the
 * safe iterator.  Every element must come out exactly once.
 *
 * Lock-free stack: poppers pop inside RCU read-side critical sections and
 * take whole chains with pop-all; what leaves the stack is pushed again
 * (once per element) or poisoned and freed, in either case only through
 * call_rcu(), as the header requires.  Pushing again is what gives ABA its
 * chance.  Every element must leave the stack exactly once per push, and
 * never be found poisoned.
 */
#define QUIESCE_TEST_STACK_HOOKS
#include <quiesce/stack.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "check.h"

#define PUSHERS 2
#define POPPERS 3
#define PER_PUSHER 50000
#define TOTAL ((unsigned long)PUSHERS * PER_PUSHER)
/* As in test_wfqueue.c: no progress for this long means lost elements. */
#define STALL_MS 20000
#define BUSTED_STALL_MS 2000
#define ITEM_LIVE 0x53544b4cu
#define STALE ((void *)0x6b6b6b6b6b6b6b6bUL)

struct item {
	struct quiesce_wfs_node wnode;
	struct quiesce_lfs_node lnode;
	struct rcu_head rcu;
	unsigned magic;
	atomic_int on_stack;	/* lfs: 1 between a push and the pop that takes it */
	bool pushed_again;	/* lfs: its second trip has begun */
	unsigned long id;
};

static struct quiesce_wfs_stack wfs;
static struct quiesce_lfs_stack lfs;
static atomic_uchar seen[TOTAL];
/* done: elements whose last trip has ended (popped, or freed for lfs). */
static atomic_ulong done, violations, would_blocks, pop_alls, pushed_again;

static void violation(const char *what, const struct item *it)
{
	if (atomic_fetch_add(&violations, 1) < 5)
		fprintf(stderr, "violation: %s (element %lu, magic %#x)\n", what, it->id, it->magic);
}

static bool live(const struct item *it)
{
	if (it->magic == ITEM_LIVE && it->id < TOTAL)
		return true;
	violation("a popped element is not live (poisoned or torn)", it);
	return false;
}

static struct item *new_item(unsigned pusher, unsigned long i)
{
	struct item *it = calloc(1, sizeof(*it));

	it->wnode.next = STALE;
	it->lnode.next = STALE;
	it->magic = ITEM_LIVE;
	it->id = pusher * PER_PUSHER + i;
	return it;
}

static void reset(void)
{
	memset(seen, 0, sizeof(seen));
	atomic_store(&done, 0);
	atomic_store(&violations, 0);
}

static void run_threads(void *(*pusher)(void *), void *(*popper)(void *), unsigned stall_ms)
{
	pthread_t threads[PUSHERS + POPPERS];

	for (int i = 0; i < POPPERS; i++)
		pthread_create(&threads[i], NULL, popper, (void *)(uintptr_t)i);
	for (int i = 0; i < PUSHERS; i++)
		pthread_create(&threads[POPPERS + i], NULL, pusher, (void *)(uintptr_t)i);
	check_wait_count(&done, TOTAL, &violations, stall_ms);
	if (atomic_load(&violations))
		return;
	for (int i = 0; i < PUSHERS + POPPERS; i++)
		check_join_within(threads[i], STALL_MS, "a stack thread");
}

/* ---- wait-free stack ---- */

static void wfs_popped(struct quiesce_wfs_node *node)
{
	struct item *it = container_of(node, struct item, wnode);

	if (!live(it))
		return;
	if (atomic_fetch_add(&seen[it->id], 1) != 0)
		violation("popped twice", it);
	check_quarantine(it, sizeof(*it));
	atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);
}

static void *wfs_pusher(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned long i = 0; i < PER_PUSHER; i++)
		quiesce_wfs_push(&wfs, &new_item(id, i)->wnode);
	return NULL;
}

static void *wfs_popper(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	while (atomic_load_explicit(&done, memory_order_relaxed) != TOTAL) {
		struct quiesce_wfs_node *node, *n;
		struct quiesce_wfs_head *head;

		switch (id) {
		case 0:
			if ((node = quiesce_wfs_pop_blocking(&wfs)) != NULL)
				wfs_popped(node);
			break;
		case 1:
			quiesce_wfs_pop_lock(&wfs);
			for (int i = 0; i < 16; i++) {
				node = quiesce_wfs_sc_pop_nonblocking(&wfs);
				if (node == NULL)
					break;
				if (node == QUIESCE_WFS_WOULDBLOCK) {
					atomic_fetch_add_explicit(&would_blocks, 1, memory_order_relaxed);
					break;
				}
				wfs_popped(node);
			}
			quiesce_wfs_pop_unlock(&wfs);
			break;
		default:
			head = quiesce_wfs_pop_all_blocking(&wfs);
			if (head)
				atomic_fetch_add_explicit(&pop_alls, 1, memory_order_relaxed);
			quiesce_wfs_for_each_blocking_safe(head, node, n)
				wfs_popped(node);
		}
	}
	return NULL;
}

static unsigned long wfs_stress(unsigned stall_ms)
{
	reset();
	quiesce_wfs_init(&wfs);
	run_threads(wfs_pusher, wfs_popper, stall_ms);
	if (atomic_load(&violations))
		return atomic_load(&violations);
	for (unsigned long i = 0; i < TOTAL; i++)
		CHECK(atomic_load(&seen[i]) == 1, "element %lu popped %d times", i,
		      atomic_load(&seen[i]));
	CHECK(quiesce_wfs_empty(&wfs), "the stack is empty at the end");
	quiesce_wfs_destroy(&wfs);
	fprintf(stderr, "wfs: %lu elements, %lu pop-alls, %lu would-block returns\n", TOTAL,
		atomic_load(&pop_alls), atomic_load(&would_blocks));
	return 0;
}

/* ---- lock-free stack ---- */

static void lfs_free(struct rcu_head *head)
{
	struct item *it = container_of(head, struct item, rcu);

	check_quarantine(it, sizeof(*it));
	atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);
}

/* A grace period after its pop: nobody can still be reading it. */
static void lfs_push_again(struct rcu_head *head)
{
	struct item *it = container_of(head, struct item, rcu);

	atomic_store(&it->on_stack, 1);
	quiesce_lfs_push(&lfs, &it->lnode);
}

/* Called once per pop of an element; every other one is pushed again. */
static void lfs_popped(struct quiesce_lfs_node *node)
{
	struct item *it = container_of(node, struct item, lnode);

	if (!live(it))
		return;
	if (atomic_exchange(&it->on_stack, 0) != 1) {
		violation("popped twice for one push", it);
		return;
	}
	if (atomic_fetch_add(&seen[it->id], 1) > 1)
		violation("popped more often than pushed", it);
	if (!it->pushed_again && it->id % 2) {
		it->pushed_again = true;
		atomic_fetch_add_explicit(&pushed_again, 1, memory_order_relaxed);
		call_rcu(&it->rcu, lfs_push_again);
	} else {
		call_rcu(&it->rcu, lfs_free);
	}
}

static void *lfs_pusher(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	for (unsigned long i = 0; i < PER_PUSHER; i++) {
		struct item *it = new_item(id, i);

		atomic_store(&it->on_stack, 1);
		quiesce_lfs_push(&lfs, &it->lnode);
	}
	return NULL;
}

static void *lfs_popper(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	while (atomic_load_explicit(&done, memory_order_relaxed) != TOTAL) {
		struct quiesce_lfs_node *node, *n;
		struct quiesce_lfs_head *head;

		if (id == POPPERS - 1) {
			head = quiesce_lfs_pop_all(&lfs);
			if (head)
				atomic_fetch_add_explicit(&pop_alls, 1, memory_order_relaxed);
			quiesce_lfs_for_each_safe(head, node, n)
				lfs_popped(node);
			check_sleep_us(100);
			continue;
		}
		rcu_read_lock();
		node = quiesce_lfs_pop_rcu(&lfs);
		if (node)
			lfs_popped(node);
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

static unsigned long lfs_stress(unsigned stall_ms)
{
	reset();
	atomic_store(&pop_alls, 0);
	quiesce_lfs_init(&lfs);
	run_threads(lfs_pusher, lfs_popper, stall_ms);
	if (atomic_load(&violations))
		return atomic_load(&violations);
	rcu_barrier();
	for (unsigned long i = 0; i < TOTAL; i++)
		CHECK(atomic_load(&seen[i]) == 1 + i % 2, "element %lu popped %d times", i,
		      atomic_load(&seen[i]));
	CHECK(quiesce_lfs_empty(&lfs), "the stack is empty at the end");
	quiesce_lfs_destroy(&lfs);
	fprintf(stderr, "lfs: %lu elements, %lu pushed again, %lu pop-alls\n", TOTAL,
		atomic_load(&pushed_again), atomic_load(&pop_alls));
	return 0;
}

static void wfs_busted_child(void *arg)
{
	quiesce_test_busted_wfs = true;
	check_child_exit(wfs_stress(BUSTED_STALL_MS) ? 1 : 0);
}

static void lfs_busted_child(void *arg)
{
	quiesce_test_busted_lfs = true;
	check_child_exit(lfs_stress(BUSTED_STALL_MS) ? 1 : 0);
}

/*
 * A fresh stack holding n[0], with a push of n[1] cut between its two
 * steps: the exchange of _quiesce_wfs_push() done, its link not yet.
 */
static void push_cut(struct quiesce_wfs_stack *s, struct quiesce_wfs_node n[2])
{
	quiesce_wfs_init(s);
	quiesce_wfs_push(s, &n[0]);
	n[1].next = NULL;
	CHECK(__atomic_exchange_n(&s->head, (struct quiesce_wfs_head *)&n[1], __ATOMIC_ACQ_REL) ==
		      (struct quiesce_wfs_head *)&n[0],
	      "the top was the first node");
}

/*
 * fork() while another thread's wfs push is cut between its two steps
 * (stack.h, fork()): the child finds the node on top, unlinked for ever.
 */
static struct quiesce_wfs_stack fork_wfs;
static struct quiesce_wfs_node fork_wn[2];

static void fork_cut_push_child(void *arg)
{
	int state = -1;

	(void)arg;
	for (int i = 0; i < 3; i++)
		CHECK(quiesce_wfs_sc_pop_nonblocking(&fork_wfs) == QUIESCE_WFS_WOULDBLOCK,
		      "the child: the cut push would block (%d)", i);
	CHECK(!quiesce_wfs_empty(&fork_wfs), "the child: the cut node counts");
	CHECK(quiesce_wfs_next_nonblocking(&fork_wn[1]) == QUIESCE_WFS_WOULDBLOCK,
	      "the child: a walk stops at the cut node");
	/* A pop-all takes the cut chain, and the stack works again. */
	CHECK(quiesce_wfs_sc_pop_all(&fork_wfs) == (struct quiesce_wfs_head *)&fork_wn[1],
	      "the child: a pop-all takes the cut node");
	CHECK(quiesce_wfs_push(&fork_wfs, &fork_wn[0]) == 0 &&
	      quiesce_wfs_sc_pop_with_state_nonblocking(&fork_wfs, &state) == &fork_wn[0] &&
	      state == QUIESCE_WFS_STATE_LAST, "the child: the emptied stack works");
	_exit(0);
}

static void test_fork_cut_push(void)
{
	char err[4096];
	int status;

	push_cut(&fork_wfs, fork_wn);
	status = check_run_child(fork_cut_push_child, NULL, err, sizeof(err));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fork child: status %#x: %s",
	      status, err);
	/* The parent's pusher finishes: its stack is whole. */
	__atomic_store_n(&fork_wn[1].next, &fork_wn[0], __ATOMIC_RELEASE);
	CHECK(quiesce_wfs_pop_blocking(&fork_wfs) == &fork_wn[1] &&
	      quiesce_wfs_pop_blocking(&fork_wfs) == &fork_wn[0] && quiesce_wfs_empty(&fork_wfs),
	      "the parent's stack after the fork");
	quiesce_wfs_destroy(&fork_wfs);
}

/*
 * A signal handler that interrupts a wfs push between its two steps
 * (stack.h, signal handlers): its push goes on top of the cut node, its
 * nonblocking pops take that push back and then say "would block" at the
 * cut instead of waiting for the interrupted thread's link.
 */
static struct quiesce_wfs_stack sig_wfs;
static struct quiesce_wfs_node sig_wn[3];
static int sig_was_non_empty;
static struct quiesce_wfs_node *sig_pops[2];

static void push_in_handler(int sig)
{
	(void)sig;
	sig_was_non_empty = quiesce_wfs_push(&sig_wfs, &sig_wn[2]);
	sig_pops[0] = quiesce_wfs_sc_pop_nonblocking(&sig_wfs);
	sig_pops[1] = quiesce_wfs_sc_pop_nonblocking(&sig_wfs);
}

static void test_signal_handler_push(void)
{
	struct sigaction sa = { .sa_handler = push_in_handler }, old;

	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, &old) == 0, "sigaction");
	push_cut(&sig_wfs, sig_wn);
	raise(SIGUSR1);
	CHECK(sig_was_non_empty == 1, "the handler's push found the stack empty");
	CHECK(sig_pops[0] == &sig_wn[2] && sig_pops[1] == QUIESCE_WFS_WOULDBLOCK,
	      "the handler's pops: %p, %p", (void *)sig_pops[0], (void *)sig_pops[1]);
	__atomic_store_n(&sig_wn[1].next, &sig_wn[0], __ATOMIC_RELEASE);
	CHECK(quiesce_wfs_sc_pop_nonblocking(&sig_wfs) == &sig_wn[1] &&
	      quiesce_wfs_sc_pop_nonblocking(&sig_wfs) == &sig_wn[0] && quiesce_wfs_empty(&sig_wfs),
	      "after the handler");
	quiesce_wfs_destroy(&sig_wfs);
	CHECK(sigaction(SIGUSR1, &old, NULL) == 0, "sigaction");
}

/* The return conventions, on one thread. */
static void conventions(void)
{
	struct quiesce_wfs_node w[3], *wn;
	struct quiesce_lfs_node l[3], *ln;
	struct quiesce_wfs_head *wh;
	struct quiesce_lfs_head *lh;
	int i;

	quiesce_wfs_init(&wfs);
	CHECK(quiesce_wfs_empty(&wfs) && quiesce_wfs_pop_blocking(&wfs) == NULL, "wfs: empty");
	CHECK(quiesce_wfs_pop_all_blocking(&wfs) == NULL, "wfs: nothing to pop all");
	for (i = 0; i < 3; i++)
		CHECK(quiesce_wfs_push(&wfs, &w[i]) == (i > 0), "wfs: push %d says if it was empty", i);
	CHECK(quiesce_wfs_sc_pop_nonblocking(&wfs) == &w[2], "wfs: last in, first out");
	wh = quiesce_wfs_pop_all_blocking(&wfs);
	i = 1;
	quiesce_wfs_for_each_blocking(wh, wn)
		CHECK(wn == &w[i--], "wfs: a popped-all chain from the top");
	CHECK(i == -1 && quiesce_wfs_empty(&wfs), "wfs: pop-all took everything");
	quiesce_wfs_push(&wfs, &w[0]);
	quiesce_wfs_push(&wfs, &w[1]);
	CHECK(quiesce_wfs_pop_with_state_blocking(&wfs, &i) == &w[1] && i == 0,
	      "wfs: not the last: state %d", i);
	CHECK(quiesce_wfs_sc_pop_with_state_nonblocking(&wfs, &i) == &w[0] &&
	      i == QUIESCE_WFS_STATE_LAST, "wfs: the last: state %d", i);
	quiesce_wfs_destroy(&wfs);

	quiesce_lfs_init(&lfs);
	CHECK(quiesce_lfs_empty(&lfs) && quiesce_lfs_pop_blocking(&lfs) == NULL, "lfs: empty");
	for (i = 0; i < 3; i++)
		CHECK(quiesce_lfs_push(&lfs, &l[i]) == (i > 0), "lfs: push %d says if it was empty", i);
	rcu_read_lock();
	CHECK(quiesce_lfs_pop_rcu(&lfs) == &l[2], "lfs: last in, first out");
	rcu_read_unlock();
	lh = quiesce_lfs_pop_all_blocking(&lfs);
	i = 1;
	quiesce_lfs_for_each(lh, ln)
		CHECK(ln == &l[i--], "lfs: a popped-all chain from the top");
	CHECK(i == -1 && quiesce_lfs_pop_all(&lfs) == NULL, "lfs: pop-all took everything");
	quiesce_lfs_destroy(&lfs);
}

int main(void)
{
	conventions();
	test_fork_cut_push();
	test_signal_handler_push();
	CHECK(wfs_stress(STALL_MS) == 0, "the wait-free stack lost or doubled elements");
	CHECK(lfs_stress(STALL_MS) == 0, "the lock-free stack lost, doubled or freed elements");
	/* As in test_call_rcu_stress.c: no callback thread of ours in the children. */
	quiesce_call_rcu_shutdown();
	check_child_detects_violation(wfs_busted_child, NULL);
	check_child_detects_violation(lfs_busted_child, NULL);
	printf("stack: all checks passed\n");
	return 0;
}
