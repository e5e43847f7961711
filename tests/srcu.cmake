# The SRCU tests again where their readers take other paths: on each
# fallback heavy barrier (the signal handshake reaches registered threads
# only, which is why SRCU readers register: src/rcu/srcu.c), with rseq
# disabled (the counters' atomic fallback), and with every grace period
# normal (membarrier GLOBAL).  The quiesce-torture srcu type on the signal
# backend too.  ThreadSanitizer delivers a signal only when its thread
# calls into the runtime, which a spinning reader may not do for long:
# the signal variants are left out there, as tests/torture.cmake does.
set(QUIESCE_SRCU_SUITE test_srcu_api test_srcu_stress test_srcu_misuse test_srcu_fork
  test_srcu_callbacks)
set(QUIESCE_SRCU_ENVS "mprotect=QUIESCE_RCU_BACKEND=mprotect"
  "no_rseq=GLIBC_TUNABLES=glibc.pthread.rseq=0" "all_normal=QUIESCE_RCU_NORMAL=1")
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
  list(REMOVE_AT QUIESCE_SRCU_ENVS 0)
endif()
if(NOT QUIESCE_SANITIZE STREQUAL "thread")
  list(APPEND QUIESCE_SRCU_ENVS "signal=QUIESCE_RCU_BACKEND=signal")
  add_test(NAME torture_srcu_signal_backend
    COMMAND quiesce-torture --type srcu --duration 2s --faults all --status-interval 1s
      --join-timeout 60s)
  set_tests_properties(torture_srcu_signal_backend PROPERTIES
    ENVIRONMENT QUIESCE_RCU_BACKEND=signal TIMEOUT 300 LABELS torture)
endif()
foreach(entry ${QUIESCE_SRCU_ENVS})
  string(REPLACE "=" ";" entry "${entry}")
  list(GET entry 0 suffix)
  list(GET entry 1 var)
  list(GET entry 2 value)
  foreach(t ${QUIESCE_SRCU_SUITE})
    if(TARGET ${t})
      add_test(NAME ${t}_${suffix} COMMAND ${t})
      set_tests_properties(${t}_${suffix} PROPERTIES ENVIRONMENT "${var}=${value}" TIMEOUT 300)
    endif()
  endforeach()
endforeach()
