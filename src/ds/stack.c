/*
 * stack.c - why the two stacks of quiesce/stack.h are correct, and their
 * deliberately broken test variants.  The code is inline in the header; the
 * wait for a link is in quiesce/link_wait.h.
 *
 * Wait-free stack (wfs, after liburcu's cds_wfs)
 * A push exchanges the top for its node, then links its node to the old
 * top.  Between the two steps the node is on top with a NULL link, which
 * means "not linked yet" (the bottom is the non-NULL QUIESCE_WFS_END), and
 * a popper waits for the link.
 * - Pushes cannot overwrite each other: each claims the top with one
 *   exchange, and writes only its own node's link.
 * - A pop reads the top, waits for its link, and compare-exchanges the top
 *   to that link.  Pops are serialized (a mutex or a single popper), so the
 *   top can leave only through this pop: the compare-exchange fails only
 *   when a push came on top, and then the pop starts over.  No ABA, and a
 *   popped node is no longer referenced by the stack, so it may be freed or
 *   pushed again at once.
 * - A pop-all exchanges the top for the bottom: every push before it is in
 *   its chain (linked or about to be), every push after it starts a new
 *   stack.  It excludes pops because a pop between its read of the top and
 *   its compare-exchange could otherwise see that top pushed again (ABA).
 *
 * Lock-free stack (lfs, Treiber 1986)
 * A push links its node to the top it read and compare-exchanges the top
 * to its node: ABA there is harmless, since the link is set from the very
 * value compared.  A pop reads the top and its link and compare-exchanges
 * the top to the link.  The classic failure is ABA: between the read and
 * the compare-exchange the top is popped, its link's node popped and freed,
 * and the first node pushed again; the compare-exchange then succeeds and
 * installs a freed node.  Here a popper runs inside an RCU read-side
 * critical section, and a node that leaves the stack is freed or pushed
 * again only after a grace period.  The top the popper read was on the
 * stack after its section began, so the grace period of whoever takes it
 * waits for the popper: until then it is neither freed (its link can be
 * read) nor back on the stack (finding it on top means it never left, so
 * its link is still the one read, and the node below is still there).
 * A pop-all is one exchange and needs no section, but the nodes it takes
 * follow the same rule, since a concurrent pop may be reading them.
 * The mutex-serialized pops get the same guarantee from the mutex instead.
 *
 * Both: a node's contents and link are written before the release that
 * publishes it on top, and read after the acquire that finds it there or
 * follows a link to it.
 *
 * Contention
 * Every push and pop of a stack writes one word, the head, so its cache
 * line moves to each thread in turn.  When a compare-exchange fails, the
 * head's line has just gone to the thread that changed it; trying again at
 * once pulls the line straight back, often before that thread's next
 * operation could use it, and with a pusher and a popper on two CPUs each
 * side's retries break the other's attempts, so the line crosses between
 * CPUs for every pair and most crossings carry a failure.  A failed
 * compare-exchange therefore waits 1, 2, 4, ... up to
 * QUIESCE_STACK_BACKOFF_MAX pause instructions before it tries again
 * with the head that the failure returned: the winner keeps the line for a
 * few operations of its own, and the crossings per operation drop.  The
 * wait is a bounded spin, not a sleep, so a preempted winner is not waited
 * for any longer than before, and it costs nothing without contention (no
 * failure, no wait).  The
 * compare-exchanges are the strong kind, so that a spurious failure of a
 * load-linked/store-conditional pair (aarch64) does not back off.  The wfs
 * push is one exchange that cannot fail and never waits.
 */
#include <sched.h>

#include <quiesce/compiler.h>

#define QUIESCE_TEST_STACK_HOOKS
#include <quiesce/stack.h>

/*
 * How long a busted push leaves its node published with a wrong link: a
 * spin, and a yield so that a one-CPU or serializing run (valgrind) also
 * lets another thread into the window.
 */
#define BUSTED_WINDOW_SPINS 256

bool quiesce_test_busted_wfs;
bool quiesce_test_busted_lfs;

static void busted_window(void)
{
	for (int i = 0; i < BUSTED_WINDOW_SPINS; i++)
		quiesce_cpu_relax();
	sched_yield();
}

/*
 * Busted wfs push: the node goes on top before its link is cleared, as a
 * missing release on the exchange would allow.  A popper in the window
 * takes the stale link for the node below.
 */
int quiesce_test_wfs_busted_push(struct quiesce_wfs_head **stack_top, struct quiesce_wfs_node *node)
{
	struct quiesce_wfs_head *below = __atomic_exchange_n(stack_top, (struct quiesce_wfs_head *)node,
							     __ATOMIC_RELAXED);

	busted_window();
	__atomic_store_n(&node->next, (struct quiesce_wfs_node *)below, __ATOMIC_RELAXED);
	return below != QUIESCE_WFS_END;
}

/*
 * Busted lfs push: the node goes on top before its link is written.  A
 * popper in the window installs the stale link as the new top.
 */
bool quiesce_test_lfs_busted_push(struct quiesce_lfs_head **stack_top, struct quiesce_lfs_node *node)
{
	struct quiesce_lfs_head *top = QUIESCE_LOAD(stack_top);

	while (!__atomic_compare_exchange_n(stack_top, &top, (struct quiesce_lfs_head *)node, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	busted_window();
	QUIESCE_STORE(&node->next, top ? &top->node : NULL);
	return top != NULL;
}
