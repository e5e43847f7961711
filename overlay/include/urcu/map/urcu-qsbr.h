/*
 * urcu/map/urcu-qsbr.h (liburcu overlay) - the short names of liburcu's API
 * (rcu_read_lock, call_rcu, ...) as the qsbr flavor's urcu_qsbr_* names.
 * urcu.h and friends keep them; a flavor header included alone drops them
 * again at its end (urcu/map/clear.h), as liburcu's do.
 */
#define rcu_read_lock                    urcu_qsbr_read_lock
#define _rcu_read_lock                   _urcu_qsbr_read_lock
#define rcu_read_unlock                  urcu_qsbr_read_unlock
#define _rcu_read_unlock                 _urcu_qsbr_read_unlock
#define rcu_read_ongoing                 urcu_qsbr_read_ongoing
#define _rcu_read_ongoing                _urcu_qsbr_read_ongoing
#define rcu_quiescent_state              urcu_qsbr_quiescent_state
#define _rcu_quiescent_state             _urcu_qsbr_quiescent_state
#define rcu_thread_offline               urcu_qsbr_thread_offline
#define _rcu_thread_offline              _urcu_qsbr_thread_offline
#define rcu_thread_online                urcu_qsbr_thread_online
#define _rcu_thread_online               _urcu_qsbr_thread_online
#define rcu_register_thread              urcu_qsbr_register_thread
#define rcu_unregister_thread            urcu_qsbr_unregister_thread
#define synchronize_rcu                  urcu_qsbr_synchronize_rcu
#define start_poll_synchronize_rcu       urcu_qsbr_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu       urcu_qsbr_poll_state_synchronize_rcu
#define call_rcu                         urcu_qsbr_call_rcu
#define rcu_barrier                      urcu_qsbr_barrier
#define create_call_rcu_data             urcu_qsbr_create_call_rcu_data
#define call_rcu_data_free               urcu_qsbr_call_rcu_data_free
#define get_default_call_rcu_data        urcu_qsbr_get_default_call_rcu_data
#define get_cpu_call_rcu_data            urcu_qsbr_get_cpu_call_rcu_data
#define get_thread_call_rcu_data         urcu_qsbr_get_thread_call_rcu_data
#define get_call_rcu_data                urcu_qsbr_get_call_rcu_data
#define get_call_rcu_thread              urcu_qsbr_get_call_rcu_thread
#define set_thread_call_rcu_data         urcu_qsbr_set_thread_call_rcu_data
#define set_cpu_call_rcu_data            urcu_qsbr_set_cpu_call_rcu_data
#define create_all_cpu_call_rcu_data     urcu_qsbr_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data       urcu_qsbr_free_all_cpu_call_rcu_data
#define call_rcu_before_fork             urcu_qsbr_call_rcu_before_fork
#define call_rcu_after_fork_parent       urcu_qsbr_call_rcu_after_fork_parent
#define call_rcu_after_fork_child        urcu_qsbr_call_rcu_after_fork_child
#define defer_rcu                        urcu_qsbr_defer_rcu
#define rcu_defer_register_thread        urcu_qsbr_defer_register_thread
#define rcu_defer_unregister_thread      urcu_qsbr_defer_unregister_thread
#define rcu_defer_barrier                urcu_qsbr_defer_barrier
#define rcu_defer_barrier_thread         urcu_qsbr_defer_barrier_thread
#define rcu_flavor                       urcu_qsbr_flavor
#define urcu_register_rculfhash_atfork   urcu_qsbr_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_qsbr_unregister_rculfhash_atfork

/*
 * liburcu's names from before 0.11, the flavor as a suffix, unless the
 * program defines URCU_NO_COMPAT_IDENTIFIERS (as in liburcu 0.13-0.15; Knot
 * DNS tests whether rcu_read_lock_memb is defined to learn which names
 * its liburcu has).
 */
#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_qsbr                urcu_qsbr_read_lock
#define _rcu_read_lock_qsbr               _urcu_qsbr_read_lock
#define rcu_read_unlock_qsbr              urcu_qsbr_read_unlock
#define _rcu_read_unlock_qsbr             _urcu_qsbr_read_unlock
#define rcu_read_ongoing_qsbr             urcu_qsbr_read_ongoing
#define _rcu_read_ongoing_qsbr            _urcu_qsbr_read_ongoing
#define rcu_register_thread_qsbr          urcu_qsbr_register_thread
#define rcu_unregister_thread_qsbr        urcu_qsbr_unregister_thread
#define synchronize_rcu_qsbr              urcu_qsbr_synchronize_rcu
#define get_cpu_call_rcu_data_qsbr        urcu_qsbr_get_cpu_call_rcu_data
#define get_call_rcu_thread_qsbr          urcu_qsbr_get_call_rcu_thread
#define create_call_rcu_data_qsbr         urcu_qsbr_create_call_rcu_data
#define set_cpu_call_rcu_data_qsbr        urcu_qsbr_set_cpu_call_rcu_data
#define get_default_call_rcu_data_qsbr    urcu_qsbr_get_default_call_rcu_data
#define get_call_rcu_data_qsbr            urcu_qsbr_get_call_rcu_data
#define get_thread_call_rcu_data_qsbr     urcu_qsbr_get_thread_call_rcu_data
#define set_thread_call_rcu_data_qsbr     urcu_qsbr_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data_qsbr urcu_qsbr_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data_qsbr   urcu_qsbr_free_all_cpu_call_rcu_data
#define call_rcu_qsbr                     urcu_qsbr_call_rcu
#define call_rcu_data_free_qsbr           urcu_qsbr_call_rcu_data_free
#define call_rcu_before_fork_qsbr         urcu_qsbr_call_rcu_before_fork
#define call_rcu_after_fork_parent_qsbr   urcu_qsbr_call_rcu_after_fork_parent
#define call_rcu_after_fork_child_qsbr    urcu_qsbr_call_rcu_after_fork_child
#define rcu_barrier_qsbr                  urcu_qsbr_barrier
#define defer_rcu_qsbr                    urcu_qsbr_defer_rcu
#define rcu_defer_register_thread_qsbr    urcu_qsbr_defer_register_thread
#define rcu_defer_unregister_thread_qsbr  urcu_qsbr_defer_unregister_thread
#define rcu_defer_barrier_qsbr            urcu_qsbr_defer_barrier
#define rcu_defer_barrier_thread_qsbr     urcu_qsbr_defer_barrier_thread
#define rcu_flavor_qsbr                   urcu_qsbr_flavor
#define urcu_register_rculfhash_atfork_qsbr urcu_qsbr_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork_qsbr urcu_qsbr_unregister_rculfhash_atfork
#endif
