# A head queued twice: the repeat in a row in every build, any repeat with
# the debugging set; and the stress test with the set recording every head.
add_test(NAME test_call_rcu_twice_debug COMMAND test_call_rcu_twice)
set_tests_properties(test_call_rcu_twice_debug PROPERTIES
  ENVIRONMENT QUIESCE_DEBUG_CALLBACKS=1 TIMEOUT 300)
add_test(NAME test_call_rcu_stress_debug_callbacks COMMAND test_call_rcu_stress)
set_tests_properties(test_call_rcu_stress_debug_callbacks PROPERTIES
  ENVIRONMENT QUIESCE_DEBUG_CALLBACKS=1 TIMEOUT 300)
