/*
 * call_rcu_peer.h - the call_rcu workload, run through liburcu's call_rcu
 * (bench/peer_urcu_call_rcu.c) with the same shape as quiesce's
 * (bench/call_rcu.c), so that the two can be compared in one run.
 */
#ifndef QUIESCE_BENCH_CALL_RCU_PEER_H
#define QUIESCE_BENCH_CALL_RCU_PEER_H

/* The object each callback frees: a small payload behind a 16-byte head. */
#define QB_CB_PAYLOAD_WORDS 2

/*
 * `threads` threads each allocate `per_thread` objects and queue each for
 * freeing after a grace period; returns callbacks per second, from the start
 * until rcu_barrier() has returned.
 */
double qb_urcu_call_rcu_rate(int threads, long per_thread);

/*
 * The same as a flood: returns the peak number of objects queued and not yet
 * freed, sampled by the enqueuers every few hundred calls.
 */
long qb_urcu_call_rcu_flood_peak(int threads, long per_thread);

#endif
