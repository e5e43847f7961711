/*
 * quiesce/stack.h - two concurrent LIFO stacks with intrusive nodes, kept
 * apart by name because their contracts differ:
 *
 *   quiesce_wfs_*  wait-free push, pops that wait (for a mutex, or for a
 *                  pusher to finish linking).  Popped nodes may be freed or
 *                  pushed again at once.
 *   quiesce_lfs_*  lock-free (Treiber) push and pop.  quiesce_lfs_pop_rcu()
 *                  runs inside an RCU read-side critical section, and what
 *                  it or a pop-all returns is freed or pushed again only
 *                  after a grace period: that is what makes it safe against
 *                  ABA and use after free.
 *
 * Embed the node in your element and get back to it with
 * quiesce_container_of() (quiesce/rcu.h).  Push sets the node's link itself.
 *
 * Wait-free stack (wfs): who may call what concurrently
 * - quiesce_wfs_push(): any thread, any number at once, concurrently with
 *   everything else.  One exchange and one store.
 * - quiesce_wfs_pop_blocking(), quiesce_wfs_pop_all_blocking(): any
 *   thread; they take the stack's mutex.
 * - quiesce_wfs_sc_pop_blocking(), quiesce_wfs_sc_pop_nonblocking(),
 *   quiesce_wfs_sc_pop_all(): no lock; the caller makes sure that no other
 *   pop or pop-all of the stack runs at the same time (a single popper, or
 *   quiesce_wfs_pop_lock() held).  Concurrent pushes are fine.
 * - "blocking" waits for a pusher that has put its node on top but not yet
 *   linked it to the one below, as quiesce/wfqueue.h describes; the
 *   nonblocking pop returns QUIESCE_WFS_WOULDBLOCK instead.  Walking a
 *   popped-all chain (quiesce_wfs_next_blocking()) waits the same way.
 * - Signal handlers may push (quiesce_wfs_push() is an exchange and a
 *   store), also when they interrupted a push or a pop of the same stack.
 *   A blocking pop or walk in a handler may wait for ever for the link of
 *   the very push it interrupted, and the mutex is not async-signal-safe;
 *   quiesce_wfs_sc_pop_nonblocking() returns QUIESCE_WFS_WOULDBLOCK
 *   there, if the handler is the only popper and interrupted no pop.
 * - fork(): the child may use a stack that no other thread of the parent
 *   was pushing to or popping from at the fork.  A push that another
 *   thread had begun leaves its node on top, unlinked for ever: the
 *   child's blocking pops and walks wait for that link for ever (1 ms
 *   sleeps, reported once on stderr after the stall timeout), the
 *   nonblocking pop returns QUIESCE_WFS_WOULDBLOCK every time, and the
 *   nodes below are out of reach.  A pop-all takes the cut chain and leaves the stack usable.  A
 *   pop that another thread was inside leaves the mutex held.
 *
 * Lock-free stack (lfs): who may call what concurrently
 * - quiesce_lfs_push(), quiesce_lfs_pop_all(): any thread, concurrently
 *   with everything, no read-side section needed.
 * - quiesce_lfs_pop_rcu(): any thread, inside rcu_read_lock().  Every node
 *   that leaves the stack (by pop or pop-all) may then be freed or pushed
 *   again only after a grace period (synchronize_rcu(), call_rcu()): a
 *   concurrent pop may still be reading it.  With a single popping thread
 *   and no other pop-all, neither the section nor the grace period is
 *   needed.
 * - quiesce_lfs_pop_blocking(), quiesce_lfs_pop_all_blocking(): any
 *   thread, under the stack's mutex, no read-side section; nodes may be
 *   freed at once, provided that nobody pops the same stack with
 *   quiesce_lfs_pop_rcu() or quiesce_lfs_pop_all() at the same time.
 * - Signal handlers may call quiesce_lfs_push() and quiesce_lfs_pop_all():
 *   lock-free, they never wait for the thread the handler interrupted.
 * - fork(): a lock-free push or pop is one compare-exchange, so the child
 *   never finds one half done; only the mutex of the _blocking pops, if
 *   another thread held it at the fork, is lost there, as any lock.
 *
 * Contention: a pop (either stack) or a lock-free push whose
 * compare-exchange fails waits a few pause instructions before it tries
 * again, twice as many after each failure up to QUIESCE_STACK_BACKOFF_MAX,
 * so that the thread that won gets some time with the head's cache line.
 * Nothing changes for a caller but timing: the wait is bounded, and a
 * wait-free push never waits.
 *
 * Ordering guarantees (both stacks)
 * - A thread that pops a node (or walks to it after a pop-all) sees every
 *   write the pusher made before the push.
 * - Pushes of one thread come out in reverse order; pops take the most
 *   recent push whose link is complete.
 *
 * The correctness argument is in src/ds/stack.c.  For a thin mapping of
 * liburcu: cds_wfs_X / __cds_wfs_X are quiesce_wfs_X / quiesce_wfs_sc_X
 * (__cds_wfs_pop_all is quiesce_wfs_sc_pop_all), cds_lfs_X is
 * quiesce_lfs_X and __cds_lfs_pop / __cds_lfs_pop_all are
 * quiesce_lfs_pop_rcu / quiesce_lfs_pop_all, with the same arguments and
 * return conventions.
 */
#ifndef QUIESCE_STACK_H
#define QUIESCE_STACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <quiesce/compiler.h>
#include <quiesce/link_wait.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest wait after a failed compare-exchange, in pause instructions. */
#define QUIESCE_STACK_BACKOFF_MAX 64U

/*
 * After a failed compare-exchange of the head: *pauses pause instructions,
 * then twice as many for the next failure, up to QUIESCE_STACK_BACKOFF_MAX.
 * A bounded spin that nothing wakes: it ends by count.  The retry uses
 * the head that the failed compare-exchange returned.  Start *pauses at 1.
 * Why: src/ds/stack.c, "Contention".
 */
static inline void _quiesce_stack_backoff(unsigned *pauses)
{
	for (unsigned i = 0; i < *pauses; i++)
		quiesce_cpu_relax();
	if (*pauses < QUIESCE_STACK_BACKOFF_MAX)
		*pauses *= 2;
}

/* ---- wait-free stack ---- */

struct quiesce_wfs_node {
	struct quiesce_wfs_node *next;	/* NULL: pushed, not linked yet */
};

/* A chain returned by a pop-all: its top node. */
struct quiesce_wfs_head {
	struct quiesce_wfs_node node;
};

struct quiesce_wfs_stack {
	struct quiesce_wfs_head *head;	/* QUIESCE_WFS_END when empty */
	pthread_mutex_t lock;		/* serializes the plain pops */
};

/* The bottom of every stack: a non-NULL marker, so NULL means "unlinked". */
#define QUIESCE_WFS_END ((struct quiesce_wfs_head *)0x1L)
/* A nonblocking pop that would have to wait. */
#define QUIESCE_WFS_WOULDBLOCK ((struct quiesce_wfs_node *)-1L)
/* Set by the _with_state pops: the stack was empty after the pop. */
#define QUIESCE_WFS_STATE_LAST (1 << 0)

#ifdef QUIESCE_TEST_STACK_HOOKS
/* Test-only (src/ds/stack.c): deliberately broken pushes ("busted"). */
extern bool quiesce_test_busted_wfs;
extern bool quiesce_test_busted_lfs;
int quiesce_test_wfs_busted_push(struct quiesce_wfs_head **stack_top, struct quiesce_wfs_node *node);
#endif

static inline void quiesce_wfs_node_init(struct quiesce_wfs_node *node)
{
	node->next = NULL;
}

static inline void quiesce_wfs_init(struct quiesce_wfs_stack *s)
{
	s->head = QUIESCE_WFS_END;
	pthread_mutex_init(&s->lock, NULL);
}

/* The stack must be empty; frees its mutex. */
static inline void quiesce_wfs_destroy(struct quiesce_wfs_stack *s)
{
	pthread_mutex_destroy(&s->lock);
}

/*
 * The calls that take no lock work on the stack's top word alone (the
 * _quiesce_wfs_* helpers take its address), so that a stack without a
 * mutex can be that one word: liburcu's struct __cds_wfs_stack, which
 * programs embed (GlusterFS), is, and the overlay's is too.
 */
static inline bool _quiesce_wfs_empty(struct quiesce_wfs_head *const *stack_top)
{
	return QUIESCE_LOAD(stack_top) == QUIESCE_WFS_END;
}

static inline bool quiesce_wfs_empty(struct quiesce_wfs_stack *s)
{
	return _quiesce_wfs_empty(&s->head);
}

static inline int _quiesce_wfs_push(struct quiesce_wfs_head **stack_top,
				    struct quiesce_wfs_node *node)
{
	struct quiesce_wfs_head *below;

#ifdef QUIESCE_TEST_STACK_HOOKS
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_wfs)))
		return quiesce_test_wfs_busted_push(stack_top, node);
#endif
	QUIESCE_STORE(&node->next, NULL);
	/*
	 * Release: the node's contents and its cleared link before it is on
	 * top; pairs with the popper's acquire load of the top.  Acquire:
	 * pairs with the release of the push of below, so that a popper that
	 * follows our link below also sees below's contents.
	 */
	below = __atomic_exchange_n(stack_top, (struct quiesce_wfs_head *)node, __ATOMIC_ACQ_REL);
	/* Release: pairs with the popper's acquire wait on node->next. */
	__atomic_store_n(&node->next, (struct quiesce_wfs_node *)below, __ATOMIC_RELEASE);
	return below != QUIESCE_WFS_END;
}

/*
 * Pushes node.  Any thread; wait-free.  Returns 0 if the stack was empty
 * before, 1 otherwise.
 */
static inline int quiesce_wfs_push(struct quiesce_wfs_stack *s, struct quiesce_wfs_node *node)
{
	return _quiesce_wfs_push(&s->head, node);
}

/* The node below node once linked, QUIESCE_WFS_WOULDBLOCK if not and !blocking. */
static inline struct quiesce_wfs_node *_quiesce_wfs_sync_next(struct quiesce_wfs_node *node,
							      bool blocking)
{
	/* Acquire: pairs with the release of the pusher's link store. */
	struct quiesce_wfs_node *next = QUIESCE_LOAD_ACQUIRE(&node->next);

	if (QUIESCE_LIKELY(next != NULL))
		return next;
	if (!blocking)
		return QUIESCE_WFS_WOULDBLOCK;
	return (struct quiesce_wfs_node *)quiesce_ds_wait_link((void *const *)&node->next);
}

static inline struct quiesce_wfs_node *_quiesce_wfs_pop(struct quiesce_wfs_head **stack_top,
							int *state, bool blocking)
{
	/* Acquire: pairs with the release of the push exchange. */
	struct quiesce_wfs_head *top = QUIESCE_LOAD_ACQUIRE(stack_top);
	unsigned pauses = 1;

	if (state)
		*state = 0;
	for (;;) {
		struct quiesce_wfs_node *next;

		if (top == QUIESCE_WFS_END)
			return NULL;
		next = _quiesce_wfs_sync_next(&top->node, blocking);
		if (next == QUIESCE_WFS_WOULDBLOCK)
			return QUIESCE_WFS_WOULDBLOCK;
		/*
		 * No ABA: pops are serialized, so top can leave the stack
		 * only through us, and a failure means a push came on top.
		 * Acquire on failure, for the new top's contents (as above).
		 */
		if (__atomic_compare_exchange_n(stack_top, &top, (struct quiesce_wfs_head *)next,
						false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
			if (state && next == (struct quiesce_wfs_node *)QUIESCE_WFS_END)
				*state |= QUIESCE_WFS_STATE_LAST;
			return &top->node;
		}
		_quiesce_stack_backoff(&pauses);
	}
}

/*
 * Pops the top node; NULL if empty.  Pops serialized (see the rules).  The
 * _with_state forms also set *state to QUIESCE_WFS_STATE_LAST when the
 * stack was empty after the pop, 0 otherwise.
 */
static inline struct quiesce_wfs_node *quiesce_wfs_sc_pop_blocking(struct quiesce_wfs_stack *s)
{
	return _quiesce_wfs_pop(&s->head, NULL, true);
}

static inline struct quiesce_wfs_node *quiesce_wfs_sc_pop_nonblocking(struct quiesce_wfs_stack *s)
{
	return _quiesce_wfs_pop(&s->head, NULL, false);
}

static inline struct quiesce_wfs_node *quiesce_wfs_sc_pop_with_state_blocking(struct quiesce_wfs_stack *s,
									     int *state)
{
	return _quiesce_wfs_pop(&s->head, state, true);
}

static inline struct quiesce_wfs_node *quiesce_wfs_sc_pop_with_state_nonblocking(struct quiesce_wfs_stack *s,
										int *state)
{
	return _quiesce_wfs_pop(&s->head, state, false);
}

/*
 * Takes the whole stack; NULL if it was empty.  Walk the chain with
 * quiesce_wfs_for_each_blocking(), whose steps wait for late links.
 */
static inline struct quiesce_wfs_head *_quiesce_wfs_pop_all(struct quiesce_wfs_head **stack_top)
{
	/* Acquire: pairs with the release of the push that made top. */
	struct quiesce_wfs_head *top = __atomic_exchange_n(stack_top, QUIESCE_WFS_END, __ATOMIC_ACQUIRE);

	return top == QUIESCE_WFS_END ? NULL : top;
}

static inline struct quiesce_wfs_head *quiesce_wfs_sc_pop_all(struct quiesce_wfs_stack *s)
{
	return _quiesce_wfs_pop_all(&s->head);
}

static inline void quiesce_wfs_pop_lock(struct quiesce_wfs_stack *s)
{
	pthread_mutex_lock(&s->lock);
}

static inline void quiesce_wfs_pop_unlock(struct quiesce_wfs_stack *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Any thread: the same under the stack's mutex. */
static inline struct quiesce_wfs_node *quiesce_wfs_pop_with_state_blocking(struct quiesce_wfs_stack *s,
									  int *state)
{
	struct quiesce_wfs_node *node;

	quiesce_wfs_pop_lock(s);
	node = _quiesce_wfs_pop(&s->head, state, true);
	quiesce_wfs_pop_unlock(s);
	return node;
}

static inline struct quiesce_wfs_node *quiesce_wfs_pop_blocking(struct quiesce_wfs_stack *s)
{
	return quiesce_wfs_pop_with_state_blocking(s, NULL);
}

static inline struct quiesce_wfs_head *quiesce_wfs_pop_all_blocking(struct quiesce_wfs_stack *s)
{
	struct quiesce_wfs_head *head;

	quiesce_wfs_pop_lock(s);
	head = quiesce_wfs_sc_pop_all(s);
	quiesce_wfs_pop_unlock(s);
	return head;
}

/* The top node of a chain that a pop-all returned; NULL for none. */
static inline struct quiesce_wfs_node *quiesce_wfs_first(struct quiesce_wfs_head *head)
{
	return head ? &head->node : NULL;
}

/* The node below node in a popped chain; NULL at the bottom. */
static inline struct quiesce_wfs_node *quiesce_wfs_next_blocking(struct quiesce_wfs_node *node)
{
	struct quiesce_wfs_node *next = _quiesce_wfs_sync_next(node, true);

	return next == (struct quiesce_wfs_node *)QUIESCE_WFS_END ? NULL : next;
}

static inline struct quiesce_wfs_node *quiesce_wfs_next_nonblocking(struct quiesce_wfs_node *node)
{
	struct quiesce_wfs_node *next = _quiesce_wfs_sync_next(node, false);

	return next == (struct quiesce_wfs_node *)QUIESCE_WFS_END ? NULL : next;
}

#define quiesce_wfs_for_each_blocking(head, node)				\
	for ((node) = quiesce_wfs_first(head); (node) != NULL;			\
	     (node) = quiesce_wfs_next_blocking(node))

/* The same, reading the next node first: the body may free node. */
#define quiesce_wfs_for_each_blocking_safe(head, node, n)			\
	for ((node) = quiesce_wfs_first(head),					\
	     (n) = (node) ? quiesce_wfs_next_blocking(node) : NULL;		\
	     (node) != NULL;							\
	     (node) = (n), (n) = (node) ? quiesce_wfs_next_blocking(node) : NULL)

/* ---- lock-free (Treiber) stack ---- */

struct quiesce_lfs_node {
	struct quiesce_lfs_node *next;	/* NULL at the bottom */
};

/* A chain returned by a pop-all: its top node. */
struct quiesce_lfs_head {
	struct quiesce_lfs_node node;
};

struct quiesce_lfs_stack {
	struct quiesce_lfs_head *head;	/* NULL when empty */
	pthread_mutex_t lock;		/* serializes the _blocking pops */
};

#ifdef QUIESCE_TEST_STACK_HOOKS
bool quiesce_test_lfs_busted_push(struct quiesce_lfs_head **stack_top, struct quiesce_lfs_node *node);
#endif

static inline void quiesce_lfs_node_init(struct quiesce_lfs_node *node)
{
	node->next = NULL;
}

static inline void quiesce_lfs_init(struct quiesce_lfs_stack *s)
{
	s->head = NULL;
	pthread_mutex_init(&s->lock, NULL);
}

/* The stack must be empty; frees its mutex. */
static inline void quiesce_lfs_destroy(struct quiesce_lfs_stack *s)
{
	pthread_mutex_destroy(&s->lock);
}

/* The top word alone, as the wait-free stack's (_quiesce_wfs_empty()). */
static inline bool _quiesce_lfs_empty(struct quiesce_lfs_head *const *stack_top)
{
	return QUIESCE_LOAD(stack_top) == NULL;
}

static inline bool quiesce_lfs_empty(struct quiesce_lfs_stack *s)
{
	return _quiesce_lfs_empty(&s->head);
}

static inline bool _quiesce_lfs_push(struct quiesce_lfs_head **stack_top,
				     struct quiesce_lfs_node *node)
{
	struct quiesce_lfs_head *top = QUIESCE_LOAD(stack_top);
	unsigned pauses = 1;

#ifdef QUIESCE_TEST_STACK_HOOKS
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_test_busted_lfs)))
		return quiesce_test_lfs_busted_push(stack_top, node);
#endif
	/*
	 * Release: the node's contents and its link before it is on top;
	 * pairs with the popper's acquire load of the top.  Acquire on
	 * success too, so that a popper that follows our link to top also
	 * sees top's contents.  ABA here is harmless: the link is set from
	 * the very value the compare-exchange checks.
	 */
	for (;;) {
		QUIESCE_STORE(&node->next, top ? &top->node : NULL);
		if (__atomic_compare_exchange_n(stack_top, &top, (struct quiesce_lfs_head *)node, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return top != NULL;
		_quiesce_stack_backoff(&pauses);
	}
}

/*
 * Pushes node.  Any thread, no read-side section; lock-free.  Returns false
 * if the stack was empty before, true otherwise.
 */
static inline bool quiesce_lfs_push(struct quiesce_lfs_stack *s, struct quiesce_lfs_node *node)
{
	return _quiesce_lfs_push(&s->head, node);
}

static inline struct quiesce_lfs_node *_quiesce_lfs_pop(struct quiesce_lfs_head **stack_top)
{
	/* Acquire: pairs with the release of the push's compare-exchange. */
	struct quiesce_lfs_head *top = QUIESCE_LOAD_ACQUIRE(stack_top);
	unsigned pauses = 1;

	for (;;) {
		struct quiesce_lfs_node *next;

		if (top == NULL)
			return NULL;
		/*
		 * top cannot be freed under us: it was on the stack after our
		 * read-side section began (or our mutex was taken), so whoever
		 * takes it waits for a grace period before freeing it.  For the
		 * same reason it cannot come back on top with another link
		 * (ABA): seeing it on top at the compare-exchange means it
		 * never left, and its link is the one read here.
		 */
		next = QUIESCE_LOAD(&top->node.next);
		if (__atomic_compare_exchange_n(stack_top, &top, (struct quiesce_lfs_head *)next,
						false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			return &top->node;
		_quiesce_stack_backoff(&pauses);
	}
}

/*
 * Pops the top node; NULL if empty.  Inside rcu_read_lock(); see the rules
 * above for when the node may be freed or pushed again.
 */
static inline struct quiesce_lfs_node *quiesce_lfs_pop_rcu(struct quiesce_lfs_stack *s)
{
	return _quiesce_lfs_pop(&s->head);
}

/*
 * Takes the whole stack; NULL if it was empty.  Any thread, no section.
 * Walk it with quiesce_lfs_for_each(); the nodes follow the reclaim rule.
 */
static inline struct quiesce_lfs_head *_quiesce_lfs_pop_all(struct quiesce_lfs_head **stack_top)
{
	/* Acquire: pairs with the release of the push that made top. */
	return __atomic_exchange_n(stack_top, NULL, __ATOMIC_ACQUIRE);
}

static inline struct quiesce_lfs_head *quiesce_lfs_pop_all(struct quiesce_lfs_stack *s)
{
	return _quiesce_lfs_pop_all(&s->head);
}

static inline void quiesce_lfs_pop_lock(struct quiesce_lfs_stack *s)
{
	pthread_mutex_lock(&s->lock);
}

static inline void quiesce_lfs_pop_unlock(struct quiesce_lfs_stack *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Under the stack's mutex: pops exclude each other, so no ABA. */
static inline struct quiesce_lfs_node *quiesce_lfs_pop_blocking(struct quiesce_lfs_stack *s)
{
	struct quiesce_lfs_node *node;

	quiesce_lfs_pop_lock(s);
	node = _quiesce_lfs_pop(&s->head);
	quiesce_lfs_pop_unlock(s);
	return node;
}

static inline struct quiesce_lfs_head *quiesce_lfs_pop_all_blocking(struct quiesce_lfs_stack *s)
{
	struct quiesce_lfs_head *head;

	quiesce_lfs_pop_lock(s);
	head = quiesce_lfs_pop_all(s);
	quiesce_lfs_pop_unlock(s);
	return head;
}

/* The top node of a chain that a pop-all returned; NULL for none. */
static inline struct quiesce_lfs_node *quiesce_lfs_first(struct quiesce_lfs_head *head)
{
	return head ? &head->node : NULL;
}

#define quiesce_lfs_for_each(head, node)					\
	for ((node) = quiesce_lfs_first(head); (node) != NULL; (node) = (node)->next)

/* The same, reading the next node first: the body may free node. */
#define quiesce_lfs_for_each_safe(head, node, n)				\
	for ((node) = quiesce_lfs_first(head), (n) = (node) ? (node)->next : NULL; \
	     (node) != NULL; (node) = (n), (n) = (node) ? (node)->next : NULL)

#ifdef __cplusplus
}
#endif

#endif /* QUIESCE_STACK_H */
