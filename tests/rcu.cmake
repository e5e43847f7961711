# The RCU suite again on each fallback backend of the grace period's heavy
# barrier (the plain runs above use the first, membarrier): mprotect where
# it is valid (x86: src/rcu/gp_barrier_mprotect.c), and the signal
# handshake, in every build.  test_rcu_sync is left out: its checks on how
# many grace periods a burst of updaters pays assume membarrier's timing.
# And the stress test with every grace period expedited or every one normal.
set(QUIESCE_RCU_SUITE test_rcu_api test_rcu_stress test_rcu_fork test_rcu_stall
  test_rcu_sharing test_rcu_misuse test_rcu_blocked_signals test_rcu_registry_signals
  test_rculist test_call_rcu_api test_call_rcu_flood test_call_rcu_fork test_call_rcu_stress
  test_early_use)
set(QUIESCE_RCU_FALLBACKS signal)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
  list(APPEND QUIESCE_RCU_FALLBACKS mprotect)
endif()
foreach(backend ${QUIESCE_RCU_FALLBACKS})
  foreach(t ${QUIESCE_RCU_SUITE})
    if(TARGET ${t})
      add_test(NAME ${t}_${backend} COMMAND ${t})
      set_tests_properties(${t}_${backend} PROPERTIES
        ENVIRONMENT QUIESCE_RCU_BACKEND=${backend} TIMEOUT 300)
    endif()
  endforeach()
endforeach()
add_test(NAME test_rcu_stress_all_expedited COMMAND test_rcu_stress)
set_tests_properties(test_rcu_stress_all_expedited PROPERTIES ENVIRONMENT QUIESCE_RCU_EXPEDITED=1 TIMEOUT 300)
add_test(NAME test_rcu_stress_all_normal COMMAND test_rcu_stress)
set_tests_properties(test_rcu_stress_all_normal PROPERTIES ENVIRONMENT QUIESCE_RCU_NORMAL=1 TIMEOUT 300)
