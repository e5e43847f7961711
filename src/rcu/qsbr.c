/*
 * qsbr.c - the QSBR domain: readers that execute nothing, and announce
 * quiescent states instead (include/quiesce/rcu_qsbr.h).  The engine
 * (gp_engine.c) runs its grace periods; this file says how one starts,
 * which threads hold it, and why that is safe.
 *
 * State.  Each registered thread has a counter in its TLS: OFFLINE (0),
 * or the phase it last announced; the domain has a phase word, even, that
 * each grace period advances.  A registered thread is online by default
 * (liburcu's semantics).  A grace period, after its caller has unlinked an
 * object and taken a snapshot (quiesce_gp_snapshot(): a full fence after
 * the unlink):
 *
 *   1. start(): the phase word goes from OLD to NEW, with release.
 *   2. blocking(): scans the registry until every thread is OFFLINE or at
 *      NEW.  No barrier first (barrier_first = false): nothing a thread
 *      does when it enters a section needs one, see below.
 *
 * The ordering points, each with its pair:
 *
 *  a. quiescent_state (quiesce_qsbr_announce()): an acquire load of the
 *     phase (pairs with start()'s release), then a release store of it
 *     into the counter (pairs with the scan's load, sequentially
 *     consistent, so at least acquire).  A section that ended before the
 *     announcement has its loads ordered before that store: when the scan
 *     reads NEW, they happened before the grace period ends, and so before
 *     the caller frees.  A section after the announcement follows the
 *     acquire load of NEW, which read start()'s store; start() follows the
 *     unlink (in the caller's program order, or, when another caller runs
 *     the grace period, after the caller's fence and the runner's
 *     sequentially consistent compare-exchange that made the sequence
 *     number odd, which the caller's snapshot did not see), so that
 *     section sees the unlink.
 *  b. thread_offline: a release store of OFFLINE, the same pair as (a).
 *  c. thread_online: a store of the phase, then a full fence, then the
 *     section's loads: the store-buffer pattern against the caller, which
 *     unlinks, fences (the snapshot) and then, sequentially consistent,
 *     makes the sequence number odd and loads the counter in the scan.
 *     Either the scan sees the thread online (at an old phase it waits for
 *     it, at NEW the thread acquired start()'s store as in (a)), or the
 *     thread's fence follows the caller's in the total order and its
 *     section sees the unlink.
 *  d. register/unregister: under the registry lock, which every scan
 *     takes.  A scan before the registration happens before the thread's
 *     first section (the lock), which sees the unlink; a scan after it sees
 *     the thread online.  Unregistering unlinks under the lock: the
 *     thread's sections happen before every later scan (its signal
 *     handlers' too: it blocks signals until its counter says
 *     unregistered, qsbr_registry.c).
 *
 * Sleeping.  A thread that stops holding the grace period up (a, b, d)
 * looks at writer_sleeping afterwards and wakes the grace period with
 * quiesce_gp_wake() (only when it held it: its old counter differs from
 * the phase).  Between its store and that look it fences (a full fence,
 * once per grace period per thread, where liburcu's QSBR issues three),
 * so that the engine's sleep needs no heavy barrier (readers_fence): the
 * engine stores writer_sleeping, fences, rescans; either the rescan sees
 * the thread's store or the thread sees the flag.  Not the heavy barrier
 * instead, although the quiescent state would then cost no fence at all:
 * membarrier() interrupts every CPU running a thread of the process each
 * time a grace period sleeps (measured: a median synchronize of 29 us
 * against 15 us with two reader threads on two CPUs, docs/BENCHMARKS.md),
 * and the signal backend's barrier signals only the default domain's
 * threads, so that QSBR threads would have to fence there anyway.  (d)
 * needs no fence: the lock orders a scan and the unlinking thread's look.
 */
#include "rcu/qsbr.h"

#include <stdlib.h>

#include "common/diag.h"
#include "rcu/cb_worker.h"
#include "rcu/stall.h"

QUIESCE_CACHELINE_ALIGNED struct quiesce_qsbr_gp_word quiesce_qsbr_gp_word = {
	.phase = QUIESCE_QSBR_PHASE_STEP,
};

bool quiesce_test_busted_qsbr;

static bool thread_blocks(unsigned long ctr, unsigned long phase)
{
	return ctr != QUIESCE_QSBR_OFFLINE && ctr != phase;
}

/*
 * Counts the online threads that have not announced the current phase;
 * describes up to cap of them for a stall report.
 */
static unsigned qsbr_blocking(struct quiesce_gp_domain *d, struct quiesce_rcu_stall *stalled,
			      char names[][16], unsigned cap)
{
	unsigned long phase = quiesce_qsbr_gp_word.phase;	/* start() wrote it, in this grace period */
	bool skip_one = QUIESCE_LOAD(&quiesce_test_busted_qsbr);
	unsigned blocking = 0;

	(void)d;
	pthread_mutex_lock(&quiesce_qsbr_registry_lock);
	quiesce_qsbr_for_each(e) {
		/*
		 * Sequentially consistent: acquire pairs with the release
		 * stores of (a) and (b); the total order with the fence of
		 * (c), see the top of this file.
		 */
		if (!thread_blocks(__atomic_load_n(&e->reader->ctr, __ATOMIC_SEQ_CST), phase))
			continue;
		if (skip_one) {
			/* The broken control: the first thread that holds it is not waited for. */
			skip_one = false;
			continue;
		}
		if (blocking < cap) {
			quiesce_stall_describe_thread(&stalled[blocking], names[blocking], e->tid,
						      e->thread);
			stalled[blocking].phase = QUIESCE_RCU_STALL_QSBR_ONLINE;
		}
		blocking++;
	}
	pthread_mutex_unlock(&quiesce_qsbr_registry_lock);
	return blocking;
}

static void qsbr_start(struct quiesce_gp_domain *d)
{
	(void)d;
	/* Release: pairs with the acquire load of the phase in (a) and (c). */
	QUIESCE_STORE_RELEASE(&quiesce_qsbr_gp_word.phase,
			      quiesce_qsbr_gp_word.phase + QUIESCE_QSBR_PHASE_STEP);
}

static bool qsbr_caller_holds(struct quiesce_gp_domain *d)
{
	(void)d;
	return quiesce_qsbr_thread_online_p();
}

static const struct quiesce_gp_domain_ops qsbr_ops = {
	.kind = "QSBR",
	.barrier_first = false,
	.readers_fence = true,
	.caller_holds = qsbr_caller_holds,
	.start = qsbr_start,
	.blocking = qsbr_blocking,
};

struct quiesce_gp_domain quiesce_qsbr_domain =
	QUIESCE_GP_DOMAIN_INIT(&qsbr_ops, &quiesce_qsbr_gp_word.writer_sleeping);

struct quiesce_cb_domain quiesce_qsbr_cb =
	QUIESCE_CB_DOMAIN_INIT(quiesce_qsbr_cb, &quiesce_qsbr_domain, NULL, "quiesce-qsbr-cb");

void quiesce_qsbr_wake_grace_period(void)
{
	if (QUIESCE_LOAD(&quiesce_qsbr_gp_word.writer_sleeping))
		quiesce_gp_wake(&quiesce_qsbr_gp_word.writer_sleeping);
}

/* After the counter store of (a) or (b): see "Sleeping" at the top. */
static void wake_if_held(unsigned long old_ctr)
{
	/*
	 * Orders the counter store before the loads below; pairs with the
	 * engine's fence between its store of writer_sleeping and its rescan
	 * (readers_fence).
	 */
	quiesce_fence_store_load();
	if (QUIESCE_UNLIKELY(QUIESCE_LOAD(&quiesce_qsbr_gp_word.writer_sleeping)) &&
	    old_ctr != QUIESCE_LOAD(&quiesce_qsbr_gp_word.phase))
		quiesce_gp_wake(&quiesce_qsbr_gp_word.writer_sleeping);
}

void quiesce_qsbr_misuse(const char *what)
{
	quiesce_die("%s", what);
}

/* Dies unless the calling thread is registered and online; call names the API. */
static void require_online(const char *call)
{
	struct quiesce_qsbr_reader *self = &quiesce_qsbr_reader_self;

	if (self->ctr == QUIESCE_QSBR_UNREGISTERED)
		quiesce_die("%s() called by a thread not registered with QSBR: "
			    "call quiesce_qsbr_register_thread() first", call);
	if (self->ctr == QUIESCE_QSBR_OFFLINE)
		quiesce_die("%s() called by an offline QSBR thread: "
			    "call quiesce_qsbr_thread_online() first", call);
}

static void forbid_inside_section(const char *call)
{
	if (quiesce_qsbr_reader_self.nesting)
		quiesce_die("%s() called inside a QSBR read-side critical section", call);
}

/* (a) at the top of this file. */
void quiesce_qsbr_announce(void)
{
	struct quiesce_qsbr_reader *self = &quiesce_qsbr_reader_self;
	unsigned long old_ctr = self->ctr;

	require_online("quiesce_qsbr_quiescent_state");
	forbid_inside_section("quiesce_qsbr_quiescent_state");
	QUIESCE_STORE_RELEASE(&self->ctr, QUIESCE_LOAD_ACQUIRE(&quiesce_qsbr_gp_word.phase));
	wake_if_held(old_ctr);
}

/* (b) at the top of this file. */
void quiesce_qsbr_thread_offline(void)
{
	struct quiesce_qsbr_reader *self = &quiesce_qsbr_reader_self;
	unsigned long old_ctr = self->ctr;

	require_online("quiesce_qsbr_thread_offline");
	forbid_inside_section("quiesce_qsbr_thread_offline");
	QUIESCE_STORE_RELEASE(&self->ctr, QUIESCE_QSBR_OFFLINE);
	wake_if_held(old_ctr);
}

/* (c) at the top of this file. */
void quiesce_qsbr_thread_online(void)
{
	struct quiesce_qsbr_reader *self = &quiesce_qsbr_reader_self;

	if (self->ctr == QUIESCE_QSBR_UNREGISTERED)
		quiesce_die("quiesce_qsbr_thread_online() called by a thread not registered "
			    "with QSBR: call quiesce_qsbr_register_thread() first");
	if (self->ctr != QUIESCE_QSBR_OFFLINE)
		quiesce_die("quiesce_qsbr_thread_online() called by a thread already online "
			    "(offline and online calls must pair)");
	QUIESCE_STORE(&self->ctr, QUIESCE_LOAD_ACQUIRE(&quiesce_qsbr_gp_word.phase));
	/*
	 * Orders the counter store before the section's loads; pairs with
	 * the caller's fence in quiesce_gp_snapshot() (see (c)).
	 */
	quiesce_fence_store_load();
}

void quiesce_qsbr_forbid_online(const char *call)
{
	if (quiesce_qsbr_thread_online_p())
		quiesce_die("%s() called by an online QSBR thread: it would wait for itself "
			    "forever; go offline around it (quiesce_qsbr_thread_offline() and "
			    "quiesce_qsbr_thread_online(), or quiesce_qsbr_offline_while(%s()))",
			    call, call);
}

void quiesce_qsbr_synchronize_rcu(void)
{
	quiesce_qsbr_forbid_online("quiesce_qsbr_synchronize_rcu");
	quiesce_gp_synchronize(&quiesce_qsbr_domain, false);
}

unsigned long quiesce_qsbr_get_state_synchronize_rcu(void)
{
	return quiesce_gp_snapshot(&quiesce_qsbr_domain);
}

bool quiesce_qsbr_poll_state_synchronize_rcu(unsigned long cookie)
{
	return quiesce_cb_domain_poll(&quiesce_qsbr_cb, cookie);
}

/*
 * exit() takes the exiting thread offline, so that the callbacks queued
 * before can run in the wait the callback threads get at exit
 * (cb_lifecycle.c).  That wait is an atexit() handler of cb_lifecycle.c, made
 * before main() (init_order.h), or at the latest when a callback thread
 * first starts; this one is made after the QSBR callback thread has
 * started (woken below), so it runs first.
 */
static pthread_once_t exit_hook_once = PTHREAD_ONCE_INIT;

static void offline_at_exit(void)
{
	if (!quiesce_qsbr_thread_online_p())
		return;
	quiesce_qsbr_reader_self.nesting = 0;
	quiesce_qsbr_thread_offline();
}

static void install_exit_hook(void)
{
	quiesce_cb_wake_worker(&quiesce_qsbr_cb);
	atexit(offline_at_exit);
}

void quiesce_qsbr_install_exit_hook(void)
{
	pthread_once(&exit_hook_once, install_exit_hook);
}

void quiesce_qsbr_call_rcu(struct quiesce_rcu_head *head,
			   void (*func)(struct quiesce_rcu_head *head))
{
	quiesce_cb_domain_call(&quiesce_qsbr_cb, head, func);
	quiesce_qsbr_install_exit_hook();
}

unsigned long quiesce_qsbr_start_poll_synchronize_rcu(void)
{
	unsigned long cookie = quiesce_cb_domain_start_poll(&quiesce_qsbr_cb);

	quiesce_qsbr_install_exit_hook();
	return cookie;
}

void quiesce_qsbr_barrier(void)
{
	quiesce_qsbr_forbid_online("quiesce_qsbr_barrier");
	quiesce_cb_domain_barrier(&quiesce_qsbr_cb, "quiesce_qsbr_barrier");
	quiesce_cb_workers_barrier(QUIESCE_CB_QSBR, "quiesce_qsbr_barrier");
}
