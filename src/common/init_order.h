/*
 * init_order.h - the order of the library's constructors.
 *
 * Linked statically, a constructor without a priority runs in the order
 * the linker happened to place its object, and the library's would run
 * after the program's own (C++ globals among them), which may already use
 * the library.  So every constructor of the library has a priority, below:
 * they run in this order, ahead of every constructor of the program that
 * has none, as they do when the library is a shared object.  What a
 * program's constructor given a priority of its own may still precede is
 * set up on first use as well (gp_engine.c, gp_barrier.c, percpu_count.c,
 * stall.c, lib_thread.c), and the fork handlers keep their order (below).
 *
 * Why the order.  pthread_atfork() runs the prepare handlers in the reverse
 * order of their registration, the child's in that order:
 *  - GP_ENGINE_FORK first, so that its prepare handler runs last (gp_engine.c).
 *  - The parts that register their handlers on first use (defer.c,
 *    rcu_sync.c, percpu_count.c) come after every one below: defer.c's
 *    prepare handler before call_rcu.c's locks are taken, rcu_sync.c's
 *    child handler after call_rcu.c's has emptied the child's queues.
 *    A first use in a program's constructor may come before the
 *    constructors below: defer.c and rcu_sync.c then register the others'
 *    first, in this order (rcu/fork_handlers.h).
 *  - LIB_THREAD before the program runs: it reads the CPU set the process
 *    was started with, before the program pins anything (lib_thread.c).
 *  - STATS_AND_CALL_RCU registers the exit handlers before main().  exit()
 *    runs handlers in the reverse order of their registration, so ours
 *    run after every one the program registers from main() on, which may
 *    still wait for callbacks, as liburcu's programs do (multipathd's
 *    calls rcu_barrier() and frees its call_rcu_data).  The library being
 *    a shared object, they also run after the destructors, which the
 *    dynamic loader's own exit handler runs, registered after ours;
 *    linked statically, before them.  The callback threads' stop runs
 *    first of ours, the QUIESCE_STATS printer last (stats_at_exit.c).
 *  - STALL, whose environment a program's own setting then overrides.
 */
#ifndef QUIESCE_INIT_ORDER_H
#define QUIESCE_INIT_ORDER_H

#define QUIESCE_INIT_GP_ENGINE_FORK 101
#define QUIESCE_INIT_LIB_THREAD 102
#define QUIESCE_INIT_STATS_AND_CALL_RCU 103
#define QUIESCE_INIT_CB_WORKER 104
#define QUIESCE_INIT_GP_ENGINE 105
#define QUIESCE_INIT_QSBR_REGISTRY 106
#define QUIESCE_INIT_REGISTRY 107
#define QUIESCE_INIT_SRCU 108
#define QUIESCE_INIT_STALL 109

/* A constructor of the library, run at its place above. */
#define QUIESCE_CONSTRUCTOR(place) __attribute__((constructor(QUIESCE_INIT_##place)))

#endif
