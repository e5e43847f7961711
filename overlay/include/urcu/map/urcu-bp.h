/*
 * urcu/map/urcu-bp.h (liburcu overlay) - the short names of liburcu's API
 * (rcu_read_lock, call_rcu, ...) as the bp flavor's urcu_bp_* names.
 * urcu.h and friends keep them; a flavor header included alone drops them
 * again at its end (urcu/map/clear.h), as liburcu's do.
 */
#define rcu_read_lock                    urcu_bp_read_lock
#define _rcu_read_lock                   _urcu_bp_read_lock
#define rcu_read_unlock                  urcu_bp_read_unlock
#define _rcu_read_unlock                 _urcu_bp_read_unlock
#define rcu_read_ongoing                 urcu_bp_read_ongoing
#define _rcu_read_ongoing                _urcu_bp_read_ongoing
#define rcu_quiescent_state              urcu_bp_quiescent_state
#define _rcu_quiescent_state             _urcu_bp_quiescent_state
#define rcu_thread_offline               urcu_bp_thread_offline
#define _rcu_thread_offline              _urcu_bp_thread_offline
#define rcu_thread_online                urcu_bp_thread_online
#define _rcu_thread_online               _urcu_bp_thread_online
#define rcu_register_thread              urcu_bp_register_thread
#define rcu_unregister_thread            urcu_bp_unregister_thread
#define rcu_init                         urcu_bp_init
#define synchronize_rcu                  urcu_bp_synchronize_rcu
#define start_poll_synchronize_rcu       urcu_bp_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu       urcu_bp_poll_state_synchronize_rcu
#define call_rcu                         urcu_bp_call_rcu
#define rcu_barrier                      urcu_bp_barrier
#define create_call_rcu_data             urcu_bp_create_call_rcu_data
#define call_rcu_data_free               urcu_bp_call_rcu_data_free
#define get_default_call_rcu_data        urcu_bp_get_default_call_rcu_data
#define get_cpu_call_rcu_data            urcu_bp_get_cpu_call_rcu_data
#define get_thread_call_rcu_data         urcu_bp_get_thread_call_rcu_data
#define get_call_rcu_data                urcu_bp_get_call_rcu_data
#define get_call_rcu_thread              urcu_bp_get_call_rcu_thread
#define set_thread_call_rcu_data         urcu_bp_set_thread_call_rcu_data
#define set_cpu_call_rcu_data            urcu_bp_set_cpu_call_rcu_data
#define create_all_cpu_call_rcu_data     urcu_bp_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data       urcu_bp_free_all_cpu_call_rcu_data
#define call_rcu_before_fork             urcu_bp_call_rcu_before_fork
#define call_rcu_after_fork_parent       urcu_bp_call_rcu_after_fork_parent
#define call_rcu_after_fork_child        urcu_bp_call_rcu_after_fork_child
#define defer_rcu                        urcu_bp_defer_rcu
#define rcu_defer_register_thread        urcu_bp_defer_register_thread
#define rcu_defer_unregister_thread      urcu_bp_defer_unregister_thread
#define rcu_defer_barrier                urcu_bp_defer_barrier
#define rcu_defer_barrier_thread         urcu_bp_defer_barrier_thread
#define rcu_flavor                       urcu_bp_flavor
#define urcu_register_rculfhash_atfork   urcu_bp_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_bp_unregister_rculfhash_atfork

/*
 * liburcu's names from before 0.11, the flavor as a suffix, unless the
 * program defines URCU_NO_COMPAT_IDENTIFIERS (as in liburcu 0.13-0.15; Knot
 * DNS tests whether rcu_read_lock_memb is defined to learn which names
 * its liburcu has).
 */
#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_dereference_bp                urcu_bp_dereference
#define rcu_cmpxchg_pointer_bp            urcu_bp_cmpxchg_pointer
#define rcu_xchg_pointer_bp               urcu_bp_xchg_pointer
#define rcu_set_pointer_bp                urcu_bp_set_pointer
#define rcu_bp_before_fork                urcu_bp_before_fork
#define rcu_bp_after_fork_parent          urcu_bp_after_fork_parent
#define rcu_bp_after_fork_child           urcu_bp_after_fork_child
#define rcu_read_lock_bp                  urcu_bp_read_lock
#define _rcu_read_lock_bp                 _urcu_bp_read_lock
#define rcu_read_unlock_bp                urcu_bp_read_unlock
#define _rcu_read_unlock_bp               _urcu_bp_read_unlock
#define rcu_read_ongoing_bp               urcu_bp_read_ongoing
#define _rcu_read_ongoing_bp              _urcu_bp_read_ongoing
#define rcu_register_thread_bp            urcu_bp_register_thread
#define rcu_unregister_thread_bp          urcu_bp_unregister_thread
#define rcu_init_bp                       urcu_bp_init
#define synchronize_rcu_bp                urcu_bp_synchronize_rcu
#define get_cpu_call_rcu_data_bp          urcu_bp_get_cpu_call_rcu_data
#define get_call_rcu_thread_bp            urcu_bp_get_call_rcu_thread
#define create_call_rcu_data_bp           urcu_bp_create_call_rcu_data
#define set_cpu_call_rcu_data_bp          urcu_bp_set_cpu_call_rcu_data
#define get_default_call_rcu_data_bp      urcu_bp_get_default_call_rcu_data
#define get_call_rcu_data_bp              urcu_bp_get_call_rcu_data
#define get_thread_call_rcu_data_bp       urcu_bp_get_thread_call_rcu_data
#define set_thread_call_rcu_data_bp       urcu_bp_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data_bp   urcu_bp_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data_bp     urcu_bp_free_all_cpu_call_rcu_data
#define call_rcu_bp                       urcu_bp_call_rcu
#define call_rcu_data_free_bp             urcu_bp_call_rcu_data_free
#define call_rcu_before_fork_bp           urcu_bp_call_rcu_before_fork
#define call_rcu_after_fork_parent_bp     urcu_bp_call_rcu_after_fork_parent
#define call_rcu_after_fork_child_bp      urcu_bp_call_rcu_after_fork_child
#define rcu_barrier_bp                    urcu_bp_barrier
#define defer_rcu_bp                      urcu_bp_defer_rcu
#define rcu_defer_register_thread_bp      urcu_bp_defer_register_thread
#define rcu_defer_unregister_thread_bp    urcu_bp_defer_unregister_thread
#define rcu_defer_barrier_bp              urcu_bp_defer_barrier
#define rcu_defer_barrier_thread_bp       urcu_bp_defer_barrier_thread
#define rcu_flavor_bp                     urcu_bp_flavor
#define urcu_register_rculfhash_atfork_bp urcu_bp_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork_bp urcu_bp_unregister_rculfhash_atfork
#endif
