/*
 * quiesce/wfqueue.h - a concurrent FIFO queue with a wait-free enqueue
 * ("wfcq": the head and the tail are separate objects, so that enqueuers
 * and the consumer write different cache lines).
 *
 *   struct quiesce_wfcq_head head;  struct quiesce_wfcq_tail tail;
 *   quiesce_wfcq_init(&head, &tail);
 *   producers:  quiesce_wfcq_enqueue(&head, &tail, &item->node);
 *   consumer:   node = quiesce_wfcq_dequeue_blocking(&head, &tail);
 *
 * Nodes are intrusive: embed a struct quiesce_wfcq_node in your element and
 * get back to it with quiesce_container_of() (quiesce/rcu.h).  Enqueue
 * clears the node's link itself, so a dequeued node may be enqueued again,
 * or freed, at once: the queue never touches a node after handing it out.
 *
 * Rules for callers (who may call what concurrently)
 * - quiesce_wfcq_enqueue(): any thread, any number at once, concurrently
 *   with everything else.  Wait-free: one exchange and one store, no loop,
 *   no lock, no system call.
 * - The plain consumer calls (quiesce_wfcq_dequeue_blocking(),
 *   quiesce_wfcq_splice_blocking()) take the head's mutex: any number of
 *   consumers may call them at once.
 * - The sc_ calls ("serialized consumer": quiesce_wfcq_sc_dequeue_*,
 *   quiesce_wfcq_sc_splice_*, quiesce_wfcq_sc_first/next_*, the for_each
 *   macros) take no lock: the caller makes sure that no other consumer call
 *   runs on the same queue at the same time, either by being its only
 *   consumer or by holding quiesce_wfcq_dequeue_lock().  Enqueuers need no
 *   such care.  Iteration belongs to the consumer that owns the queue: the
 *   nodes stay queued, so nobody may dequeue them meanwhile.
 * - A splice is a consumer call on its source and an enqueue on its
 *   destination: it needs consumer exclusion on the source only.
 * - quiesce_wfcq_dequeue_rcu() is a third kind of consumer, for a queue
 *   whose every consumer uses it (mixing it with the other consumer calls
 *   on one queue is a bug): lock-free among consumers, for callers that
 *   follow RCU's rules (liburcu's cds_lfq's):
 *     - the call runs inside a read-side critical section of some RCU
 *       domain, and
 *     - a node it returned is freed, or enqueued again, only after a
 *       grace period of that domain has followed the dequeue.
 *   A consumer may read a node that another consumer has just taken, and
 *   these rules make that read safe and rule out the ABA problem.
 * - "blocking" means waiting for an enqueuer that has claimed its place in
 *   the queue (swapped the tail) but not yet linked its node, a window of
 *   one store unless that enqueuer was preempted in it.  The wait spins,
 *   then yields, then sleeps a millisecond at a time; nothing wakes it but
 *   the enqueuer's link store, since a wake-up would cost the wait-free
 *   enqueue a check.  A wait that lasts the stall timeout says so on
 *   stderr, once (quiesce/link_wait.h).  The nonblocking forms return
 *   QUIESCE_WFCQ_WOULDBLOCK (QUIESCE_WFCQ_RET_WOULDBLOCK for a splice)
 *   instead, and leave the queue as it was.  No call waits for an empty
 *   queue to fill: enqueue returns false when it made the queue non-empty,
 *   which is when a consumer that sleeps needs a wake-up.
 * - Signal handlers may call quiesce_wfcq_enqueue(): it is
 *   async-signal-safe (an exchange and a store, no lock), also when the
 *   handler interrupted an enqueue or a consumer call on the same queue.
 *   A handler may not wait for the queue: the thread it interrupted may be
 *   the enqueuer between its two steps, whose link only that thread can
 *   store, so a blocking call (or dequeue_rcu) there waits for ever; the
 *   mutex is not async-signal-safe; and an sc_ call is serialized with a
 *   consumer it interrupted only if it interrupted none.  A handler that
 *   is the queue's only consumer and interrupted no call on it may use the
 *   nonblocking sc_ calls, which return QUIESCE_WFCQ_WOULDBLOCK there.
 * - fork(): the child may use a queue that no other thread of the parent was
 *   enqueueing to or consuming from at the fork.  An enqueue that another
 *   thread had begun stays cut in the child: its node holds the tail but is
 *   linked from nowhere, and nobody will link it.  The child's blocking
 *   consumer calls that reach the node it was to follow (a dequeue of that
 *   node too, which waits for its successor) wait for ever (1 ms sleeps,
 *   reported once on stderr after the stall timeout), the nonblocking
 *   dequeues and steps return QUIESCE_WFCQ_WOULDBLOCK every time,
 *   quiesce_wfcq_empty() stays false, and that node, the cut one and those
 *   enqueued behind it are out of reach.  A splice needs only the head's
 *   link (it returns
 *   QUIESCE_WFCQ_RET_WOULDBLOCK, or waits, only for a cut enqueue into the
 *   empty queue): it moves the cut along with the nodes before it, into a
 *   queue that then has the cut, and leaves its source usable.  A consumer
 *   call that another thread was inside leaves the head's mutex held, or
 *   (dequeue_rcu) the head's link cleared until a restore that never comes:
 *   the same wait for ever.  The forking thread's own calls are complete, so a
 *   program whose enqueuers and consumers are all the forking thread, or
 *   stopped at the fork, has a usable queue in the child.
 *
 * Ordering guarantees
 * - A consumer that dequeues (or reaches, iterating) a node sees every
 *   write the enqueuer made before quiesce_wfcq_enqueue(); likewise for
 *   nodes that arrive through a splice.
 * - Nodes from one enqueuer leave in the order it enqueued them; nodes of
 *   different enqueuers leave in the order their tail exchanges took.
 * - A splice moves, in one step for the enqueuers, every node whose enqueue
 *   swapped the tail before the splice did: each node lands in exactly one
 *   of the two queues, and in order.
 * - No other ordering: a dequeue is not a barrier for unrelated memory.
 *
 * The correctness argument is in src/ds/wfqueue.c.  For a thin mapping of
 * liburcu's cds_wfcq: cds_wfcq_X is quiesce_wfcq_X and __cds_wfcq_X is
 * quiesce_wfcq_sc_X, with the same arguments and return conventions.
 */
#ifndef QUIESCE_WFQUEUE_H
#define QUIESCE_WFQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <quiesce/compiler.h>
#include <quiesce/link_wait.h>

#ifdef __cplusplus
extern "C" {
#endif

struct quiesce_wfcq_node {
	struct quiesce_wfcq_node *next;	/* NULL: last, or not linked yet */
};

/* The consumer's end: a dummy node whose next is the first element. */
struct quiesce_wfcq_head {
	struct quiesce_wfcq_node node;
	pthread_mutex_t lock;		/* serializes the plain consumer calls */
};

/* The enqueuers' end: the last node, &head->node when the queue is empty. */
struct quiesce_wfcq_tail {
	struct quiesce_wfcq_node *p;
};

/* A nonblocking dequeue or iteration step that would have to wait. */
#define QUIESCE_WFCQ_WOULDBLOCK ((struct quiesce_wfcq_node *)-1L)

/* What a splice did. */
enum quiesce_wfcq_ret {
	QUIESCE_WFCQ_RET_WOULDBLOCK = -1,	/* nonblocking only: nothing moved */
	QUIESCE_WFCQ_RET_DEST_EMPTY = 0,	/* moved; the destination was empty */
	QUIESCE_WFCQ_RET_DEST_NON_EMPTY = 1,	/* moved behind earlier nodes */
	QUIESCE_WFCQ_RET_SRC_EMPTY = 2,		/* nothing to move */
};

/* Set by the _with_state dequeues: the node was the last one. */
#define QUIESCE_WFCQ_STATE_LAST (1 << 0)

/*
 * Slow path of quiesce_wfcq_dequeue_rcu() (quiesce/link_wait.h): the
 * head's link is NULL while the tail is elsewhere, because an enqueuer into
 * the empty queue has not linked yet, or because another consumer took the
 * last node and waits for an enqueuer's link behind it.  Ended by that link
 * store, or that consumer's restore of the head's link, or by its emptying
 * of the queue.  The caller reloads both with the orderings it needs.
 */
QUIESCE_HEADER_COLD void quiesce_wfcq_wait_rcu_first(struct quiesce_wfcq_head *head,
						     struct quiesce_wfcq_tail *tail)
{
	struct quiesce_link_wait w = { &head->node.next, 0, 0 };

	while (QUIESCE_LOAD(&head->node.next) == NULL && QUIESCE_LOAD(&tail->p) != &head->node)
		quiesce_link_wait_step(&w);
}

#ifdef QUIESCE_TEST_WFCQ_HOOKS
/*
 * Test-only (src/ds/wfqueue.c): a build of the tests or of quiesce-torture
 * that defines QUIESCE_TEST_WFCQ_HOOKS before this header can switch
 * enqueue to a deliberately broken one ("busted").
 */
extern bool quiesce_test_busted_wfcq;
bool quiesce_test_wfcq_busted_enqueue(struct quiesce_wfcq_node *head_node,
				      struct quiesce_wfcq_tail *tail,
				      struct quiesce_wfcq_node *node);
/* Likewise for quiesce_wfcq_dequeue_rcu(). */
extern bool quiesce_test_busted_wfcq_rcu;
struct quiesce_wfcq_node *quiesce_test_wfcq_busted_dequeue_rcu(struct quiesce_wfcq_head *head,
							       struct quiesce_wfcq_tail *tail);
#endif

static inline void quiesce_wfcq_node_init(struct quiesce_wfcq_node *node)
{
	node->next = NULL;
}

static inline void quiesce_wfcq_init(struct quiesce_wfcq_head *head,
				     struct quiesce_wfcq_tail *tail)
{
	head->node.next = NULL;
	pthread_mutex_init(&head->lock, NULL);
	tail->p = &head->node;
}

/*
 * The calls that take no lock reach the head through its node alone: the
 * _quiesce_wfcq_* helpers below take &head->node, so that a head of
 * another layout whose first member is the node (liburcu's mutex-less
 * head, in the overlay) can use them as they are.
 */
static inline void _quiesce_wfcq_sc_init(struct quiesce_wfcq_node *head_node,
					 struct quiesce_wfcq_tail *tail)
{
	head_node->next = NULL;
	tail->p = head_node;
}

static inline bool _quiesce_wfcq_empty(const struct quiesce_wfcq_node *head_node,
				       const struct quiesce_wfcq_tail *tail)
{
	/* The link first: it is the consumer's cache line, the tail is not. */
	return QUIESCE_LOAD(&head_node->next) == NULL && QUIESCE_LOAD(&tail->p) == head_node;
}

/*
 * Empties the queue without touching the head's mutex: for a queue that
 * only sc_ calls use (never initialized with quiesce_wfcq_init(), then, it
 * has no mutex to destroy), or to forget the nodes that a consumer took by
 * iterating (quiesce_wfcq_sc_for_each_blocking_safe()).  No other call may
 * run on the queue meanwhile.
 */
static inline void quiesce_wfcq_sc_init(struct quiesce_wfcq_head *head,
					struct quiesce_wfcq_tail *tail)
{
	_quiesce_wfcq_sc_init(&head->node, tail);
}

/* The queue must be empty; frees the head's mutex. */
static inline void quiesce_wfcq_destroy(struct quiesce_wfcq_head *head,
					struct quiesce_wfcq_tail *tail)
{
	(void)tail;
	pthread_mutex_destroy(&head->lock);
}

/*
 * Whether the queue is empty, as of some moment during the call.  Any
 * thread.  A node whose enqueue has swapped the tail counts, linked or not.
 */
static inline bool quiesce_wfcq_empty(struct quiesce_wfcq_head *head,
				      struct quiesce_wfcq_tail *tail)
{
	return _quiesce_wfcq_empty(&head->node, tail);
}

/* Holds the consumer side of the queue for a run of sc_ calls. */
static inline void quiesce_wfcq_dequeue_lock(struct quiesce_wfcq_head *head,
					     struct quiesce_wfcq_tail *tail)
{
	(void)tail;
	pthread_mutex_lock(&head->lock);
}

static inline void quiesce_wfcq_dequeue_unlock(struct quiesce_wfcq_head *head,
					       struct quiesce_wfcq_tail *tail)
{
	(void)tail;
	pthread_mutex_unlock(&head->lock);
}

/*
 * Appends the chain first..last (last->next already NULL) behind the tail.
 * Returns false if the queue was empty before, true otherwise.
 */
static inline bool _quiesce_wfcq_append(struct quiesce_wfcq_node *head_node,
					struct quiesce_wfcq_tail *tail,
					struct quiesce_wfcq_node *first,
					struct quiesce_wfcq_node *last)
{
	struct quiesce_wfcq_node *prev;

	/*
	 * Release: last->next = NULL lands before the node can be anyone's
	 * prev; pairs with the acquire of the next enqueuer's exchange (or
	 * of a consumer's compare-exchange of the tail), so that their link
	 * store into last->next comes after our clearing of it.  Acquire:
	 * the same pairing with the enqueuer before us, for prev->next.
	 */
	prev = __atomic_exchange_n(&tail->p, last, __ATOMIC_ACQ_REL);
	/*
	 * Release: the nodes' contents before the link; pairs with the
	 * acquire load of prev->next by the consumer that follows it.
	 */
	__atomic_store_n(&prev->next, first, __ATOMIC_RELEASE);
	return prev != head_node;
}

/*
 * Enqueues node.  Any thread; wait-free.  Returns false if the queue was
 * empty before (a sleeping consumer needs a wake-up), true otherwise.
 */
static inline bool _quiesce_wfcq_enqueue(struct quiesce_wfcq_node *head_node,
					 struct quiesce_wfcq_tail *tail,
					 struct quiesce_wfcq_node *node)
{
#ifdef QUIESCE_TEST_WFCQ_HOOKS
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_wfcq)))
		return quiesce_test_wfcq_busted_enqueue(head_node, tail, node);
#endif
	/* Ordered before the node's publication by the exchange's release. */
	QUIESCE_STORE(&node->next, NULL);
	return _quiesce_wfcq_append(head_node, tail, node, node);
}

static inline bool quiesce_wfcq_enqueue(struct quiesce_wfcq_head *head,
					struct quiesce_wfcq_tail *tail,
					struct quiesce_wfcq_node *node)
{
	return _quiesce_wfcq_enqueue(&head->node, tail, node);
}

/*
 * The node after node once its enqueuer has linked it: acquire, pairing
 * with the release of the link store in _quiesce_wfcq_append(), so that the
 * caller may read the node it returns.
 */
static inline struct quiesce_wfcq_node *_quiesce_wfcq_sync_next(struct quiesce_wfcq_node *node,
								bool blocking)
{
	struct quiesce_wfcq_node *next = QUIESCE_LOAD_ACQUIRE(&node->next);

	if (QUIESCE_LIKELY(next != NULL))
		return next;
	if (!blocking)
		return QUIESCE_WFCQ_WOULDBLOCK;
	return (struct quiesce_wfcq_node *)quiesce_ds_wait_link((void *const *)&node->next);
}

static inline struct quiesce_wfcq_node *_quiesce_wfcq_first(struct quiesce_wfcq_node *head_node,
							    struct quiesce_wfcq_tail *tail,
							    bool blocking)
{
	if (_quiesce_wfcq_empty(head_node, tail))
		return NULL;
	return _quiesce_wfcq_sync_next(head_node, blocking);
}

static inline struct quiesce_wfcq_node *_quiesce_wfcq_next(struct quiesce_wfcq_tail *tail,
							   struct quiesce_wfcq_node *node,
							   bool blocking)
{
	/* Acquire: pairs with the link store's release, for next's contents. */
	struct quiesce_wfcq_node *next = QUIESCE_LOAD_ACQUIRE(&node->next);

	if (QUIESCE_LIKELY(next != NULL))
		return next;
	/*
	 * No link yet: node is the last one unless an enqueuer has swapped
	 * the tail past it.  The tail is read after the link (the acquire
	 * above keeps it there), so "last" was true when the tail was read.
	 */
	if (QUIESCE_LOAD(&tail->p) == node)
		return NULL;
	return _quiesce_wfcq_sync_next(node, blocking);
}

static inline struct quiesce_wfcq_node *_quiesce_wfcq_dequeue(struct quiesce_wfcq_node *head_node,
							      struct quiesce_wfcq_tail *tail,
							      int *state, bool blocking)
{
	struct quiesce_wfcq_node *node, *next, *expected;

	if (state)
		*state = 0;
	node = _quiesce_wfcq_first(head_node, tail, blocking);
	if (node == NULL || node == QUIESCE_WFCQ_WOULDBLOCK)
		return node;
	next = QUIESCE_LOAD_ACQUIRE(&node->next);	/* pairs as in _next() */
	if (next == NULL) {
		/*
		 * node looks like the last one: empty the queue by moving
		 * the tail back to the head, if no enqueuer swapped it past
		 * node meanwhile.  The head's link is cleared first; the
		 * compare-exchange's release orders that before the tail
		 * change and pairs with the acquire of the exchange of the
		 * next enqueuer, whose store into head_node->next must win.
		 */
		QUIESCE_STORE(&head_node->next, NULL);
		expected = node;
		if (__atomic_compare_exchange_n(&tail->p, &expected, head_node, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			if (state)
				*state |= QUIESCE_WFCQ_STATE_LAST;
			return node;
		}
		/* An enqueuer came behind node: its link is on the way. */
		next = _quiesce_wfcq_sync_next(node, blocking);
		if (next == QUIESCE_WFCQ_WOULDBLOCK) {
			/* Back as it was: node stays first. */
			QUIESCE_STORE(&head_node->next, node);
			return QUIESCE_WFCQ_WOULDBLOCK;
		}
	}
	QUIESCE_STORE(&head_node->next, next);
	return node;
}

/*
 * Dequeues the first node; NULL if the queue is empty.  The nonblocking form
 * returns QUIESCE_WFCQ_WOULDBLOCK rather than wait for an enqueuer's link.
 * The _with_state forms also set *state to QUIESCE_WFCQ_STATE_LAST when
 * the node was the last one (the queue became empty), 0 otherwise.
 * Consumers serialized (see the rules above).
 */
static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_dequeue_blocking(struct quiesce_wfcq_head *head,
									 struct quiesce_wfcq_tail *tail)
{
	return _quiesce_wfcq_dequeue(&head->node, tail, NULL, true);
}

static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_dequeue_nonblocking(struct quiesce_wfcq_head *head,
									    struct quiesce_wfcq_tail *tail)
{
	return _quiesce_wfcq_dequeue(&head->node, tail, NULL, false);
}

static inline struct quiesce_wfcq_node *
quiesce_wfcq_sc_dequeue_with_state_blocking(struct quiesce_wfcq_head *head,
					    struct quiesce_wfcq_tail *tail, int *state)
{
	return _quiesce_wfcq_dequeue(&head->node, tail, state, true);
}

static inline struct quiesce_wfcq_node *
quiesce_wfcq_sc_dequeue_with_state_nonblocking(struct quiesce_wfcq_head *head,
					       struct quiesce_wfcq_tail *tail, int *state)
{
	return _quiesce_wfcq_dequeue(&head->node, tail, state, false);
}

static inline enum quiesce_wfcq_ret _quiesce_wfcq_splice(struct quiesce_wfcq_node *dest_node,
							 struct quiesce_wfcq_tail *dest_tail,
							 struct quiesce_wfcq_node *src_node,
							 struct quiesce_wfcq_tail *src_tail,
							 bool blocking)
{
	struct quiesce_wfcq_node *first, *last;

	first = _quiesce_wfcq_first(src_node, src_tail, blocking);
	if (first == NULL)
		return QUIESCE_WFCQ_RET_SRC_EMPTY;
	if (first == QUIESCE_WFCQ_WOULDBLOCK)
		return QUIESCE_WFCQ_RET_WOULDBLOCK;
	/*
	 * Empty the source: its head's link first, then its tail.  The
	 * exchange's release orders the two and pairs with the acquire of the
	 * exchange of the next enqueuer on the source, whose link store into
	 * src_node->next must come after our clearing.  Its acquire
	 * pairs with the release of the exchange of the enqueuer of last, so
	 * that last->next (NULL) is known cleared before we republish it.
	 * Enqueuers that swapped the source's tail before us are in the chain
	 * first..last, linked or about to be.
	 */
	QUIESCE_STORE(&src_node->next, NULL);
	last = __atomic_exchange_n(&src_tail->p, src_node, __ATOMIC_ACQ_REL);
	return _quiesce_wfcq_append(dest_node, dest_tail, first, last) ?
		QUIESCE_WFCQ_RET_DEST_NON_EMPTY : QUIESCE_WFCQ_RET_DEST_EMPTY;
}

/*
 * Moves every node of src to the end of dest in O(1).  Consumer exclusion on
 * src (serialized, see the rules above); dest may be enqueued to and
 * dequeued from meanwhile.  The blocking form never returns
 * QUIESCE_WFCQ_RET_WOULDBLOCK.
 */
static inline enum quiesce_wfcq_ret quiesce_wfcq_sc_splice_blocking(struct quiesce_wfcq_head *dest_head,
								    struct quiesce_wfcq_tail *dest_tail,
								    struct quiesce_wfcq_head *src_head,
								    struct quiesce_wfcq_tail *src_tail)
{
	return _quiesce_wfcq_splice(&dest_head->node, dest_tail, &src_head->node, src_tail, true);
}

static inline enum quiesce_wfcq_ret quiesce_wfcq_sc_splice_nonblocking(struct quiesce_wfcq_head *dest_head,
								       struct quiesce_wfcq_tail *dest_tail,
								       struct quiesce_wfcq_head *src_head,
								       struct quiesce_wfcq_tail *src_tail)
{
	return _quiesce_wfcq_splice(&dest_head->node, dest_tail, &src_head->node, src_tail, false);
}

/* Any consumer: the same, under the head's mutex (src's for a splice). */
static inline struct quiesce_wfcq_node *quiesce_wfcq_dequeue_with_state_blocking(struct quiesce_wfcq_head *head,
										 struct quiesce_wfcq_tail *tail,
										 int *state)
{
	struct quiesce_wfcq_node *node;

	quiesce_wfcq_dequeue_lock(head, tail);
	node = _quiesce_wfcq_dequeue(&head->node, tail, state, true);
	quiesce_wfcq_dequeue_unlock(head, tail);
	return node;
}

static inline struct quiesce_wfcq_node *quiesce_wfcq_dequeue_blocking(struct quiesce_wfcq_head *head,
								      struct quiesce_wfcq_tail *tail)
{
	return quiesce_wfcq_dequeue_with_state_blocking(head, tail, NULL);
}

static inline enum quiesce_wfcq_ret quiesce_wfcq_splice_blocking(struct quiesce_wfcq_head *dest_head,
								 struct quiesce_wfcq_tail *dest_tail,
								 struct quiesce_wfcq_head *src_head,
								 struct quiesce_wfcq_tail *src_tail)
{
	enum quiesce_wfcq_ret ret;

	quiesce_wfcq_dequeue_lock(src_head, src_tail);
	ret = quiesce_wfcq_sc_splice_blocking(dest_head, dest_tail, src_head, src_tail);
	quiesce_wfcq_dequeue_unlock(src_head, src_tail);
	return ret;
}

/*
 * Dequeues the first node; NULL if the queue is empty.  Any number of
 * consumers at once, without a lock, under RCU's rules (see the rules
 * above); every consumer of the queue must use this call.  A consumer
 * waits only in the windows where the queue is cut: an enqueuer between
 * its two steps, or another consumer that took the last node while an
 * enqueuer came behind it (src/ds/wfqueue.c says why).
 */
static inline struct quiesce_wfcq_node *quiesce_wfcq_dequeue_rcu(struct quiesce_wfcq_head *head,
								 struct quiesce_wfcq_tail *tail)
{
	struct quiesce_wfcq_node *first, *next, *expected;

#ifdef QUIESCE_TEST_WFCQ_HOOKS
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_wfcq_rcu)))
		return quiesce_test_wfcq_busted_dequeue_rcu(head, tail);
#endif
	for (;;) {
		/*
		 * Acquire: pairs with the release of whoever stored the link
		 * (an enqueuer, or a consumer's compare-exchange or restore
		 * below), so that first's contents and link are visible.
		 */
		first = QUIESCE_LOAD_ACQUIRE(&head->node.next);
		if (first == NULL) {
			if (QUIESCE_LOAD(&tail->p) == &head->node)
				return NULL;
			quiesce_wfcq_wait_rcu_first(head, tail);
			continue;
		}
		/* Acquire: pairs with the release of the link store. */
		next = QUIESCE_LOAD_ACQUIRE(&first->next);
		expected = first;
		/*
		 * Take first by moving the head's link past it (to next, or
		 * to NULL if first looks like the last node).  Release: the
		 * consumers that load the new link with acquire see what we
		 * saw of next's contents.  On failure another consumer took
		 * first, or restored the link; start again.
		 */
		if (!__atomic_compare_exchange_n(&head->node.next, &expected, next, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		if (next != NULL)
			return first;
		/*
		 * first was the last node when we read its link: the head's
		 * link is NULL now and the other consumers wait until we
		 * either empty the queue or restore the link.  Moving the
		 * tail back to the head is as in _quiesce_wfcq_dequeue(): the
		 * compare-exchange's release orders the cleared link before
		 * it, for the next enqueuer, whose exchange acquires it.
		 */
		expected = first;
		if (__atomic_compare_exchange_n(&tail->p, &expected, &head->node, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return first;
		/*
		 * An enqueuer came behind first: wait for its link, then
		 * restore the head's.  Release: pairs with the acquire load
		 * at the top, passing on the enqueuer's release.
		 */
		next = (struct quiesce_wfcq_node *)quiesce_ds_wait_link((void *const *)&first->next);
		__atomic_store_n(&head->node.next, next, __ATOMIC_RELEASE);
		return first;
	}
}

/*
 * Iteration by the consumer that owns the queue (serialized, see the rules
 * above): the first node, or the one after node; NULL at the end.  The nodes
 * stay queued.  The nonblocking forms may return QUIESCE_WFCQ_WOULDBLOCK.
 */
static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_first_blocking(struct quiesce_wfcq_head *head,
								       struct quiesce_wfcq_tail *tail)
{
	return _quiesce_wfcq_first(&head->node, tail, true);
}

static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_first_nonblocking(struct quiesce_wfcq_head *head,
									  struct quiesce_wfcq_tail *tail)
{
	return _quiesce_wfcq_first(&head->node, tail, false);
}

static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_next_blocking(struct quiesce_wfcq_head *head,
								      struct quiesce_wfcq_tail *tail,
								      struct quiesce_wfcq_node *node)
{
	(void)head;
	return _quiesce_wfcq_next(tail, node, true);
}

static inline struct quiesce_wfcq_node *quiesce_wfcq_sc_next_nonblocking(struct quiesce_wfcq_head *head,
									 struct quiesce_wfcq_tail *tail,
									 struct quiesce_wfcq_node *node)
{
	(void)head;
	return _quiesce_wfcq_next(tail, node, false);
}

/* Visits every node, leaving them queued. */
#define quiesce_wfcq_sc_for_each_blocking(head, tail, node)			\
	for ((node) = quiesce_wfcq_sc_first_blocking(head, tail); (node) != NULL; \
	     (node) = quiesce_wfcq_sc_next_blocking(head, tail, node))

/*
 * The same, reading the next node before the body runs: the body may free
 * node, or enqueue it elsewhere, once the whole queue has been taken out of
 * the enqueuers' reach (spliced into a queue that only this consumer sees);
 * quiesce_wfcq_sc_init() then empties that queue.
 */
#define quiesce_wfcq_sc_for_each_blocking_safe(head, tail, node, n)		\
	for ((node) = quiesce_wfcq_sc_first_blocking(head, tail),		\
	     (n) = (node) ? quiesce_wfcq_sc_next_blocking(head, tail, node) : NULL; \
	     (node) != NULL;							\
	     (node) = (n), (n) = (node) ? quiesce_wfcq_sc_next_blocking(head, tail, node) : NULL)

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_WFQUEUE_H */
