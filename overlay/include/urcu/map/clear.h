/*
 * urcu/map/clear.h (liburcu overlay) - drops the short names a flavor's map
 * header defined: a flavor header included alone gives urcu_<flavor>_* names only.
 */
#undef rcu_read_lock
#undef _rcu_read_lock
#undef rcu_read_unlock
#undef _rcu_read_unlock
#undef rcu_read_ongoing
#undef _rcu_read_ongoing
#undef rcu_quiescent_state
#undef _rcu_quiescent_state
#undef rcu_thread_offline
#undef _rcu_thread_offline
#undef rcu_thread_online
#undef _rcu_thread_online
#undef rcu_register_thread
#undef rcu_unregister_thread
#undef rcu_init
#undef synchronize_rcu
#undef start_poll_synchronize_rcu
#undef poll_state_synchronize_rcu
#undef call_rcu
#undef rcu_barrier
#undef create_call_rcu_data
#undef call_rcu_data_free
#undef get_default_call_rcu_data
#undef get_cpu_call_rcu_data
#undef get_thread_call_rcu_data
#undef get_call_rcu_data
#undef get_call_rcu_thread
#undef set_thread_call_rcu_data
#undef set_cpu_call_rcu_data
#undef create_all_cpu_call_rcu_data
#undef free_all_cpu_call_rcu_data
#undef call_rcu_before_fork
#undef call_rcu_after_fork_parent
#undef call_rcu_after_fork_child
#undef defer_rcu
#undef rcu_defer_register_thread
#undef rcu_defer_unregister_thread
#undef rcu_defer_barrier
#undef rcu_defer_barrier_thread
#undef rcu_flavor
#undef urcu_register_rculfhash_atfork
#undef urcu_unregister_rculfhash_atfork
