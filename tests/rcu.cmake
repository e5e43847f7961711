# The same RCU tests on the signal fallback, and with every grace period
# expedited or every one normal.
foreach(t test_rcu_api test_rcu_stress test_rcu_fork test_rcu_stall test_rcu_sharing)
  add_test(NAME ${t}_signal COMMAND ${t})
  set_tests_properties(${t}_signal PROPERTIES ENVIRONMENT QUIESCE_RCU_BACKEND=signal TIMEOUT 300)
endforeach()
add_test(NAME test_rcu_stress_all_expedited COMMAND test_rcu_stress)
set_tests_properties(test_rcu_stress_all_expedited PROPERTIES ENVIRONMENT QUIESCE_RCU_EXPEDITED=1 TIMEOUT 300)
add_test(NAME test_rcu_stress_all_normal COMMAND test_rcu_stress)
set_tests_properties(test_rcu_stress_all_normal PROPERTIES ENVIRONMENT QUIESCE_RCU_NORMAL=1 TIMEOUT 300)
