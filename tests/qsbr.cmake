# The QSBR tests again on the signal backend, whose heavy barrier signals
# only the default domain's threads: QSBR grace periods must not need it
# (src/rcu/qsbr.c, "Sleeping").
foreach(t test_qsbr_stress test_qsbr_api)
  if(TARGET ${t})
    add_test(NAME ${t}_signal COMMAND ${t})
    set_tests_properties(${t}_signal PROPERTIES
      ENVIRONMENT QUIESCE_RCU_BACKEND=signal TIMEOUT 300)
  endif()
endforeach()
