# The per-CPU fast paths again with rseq disabled, so that the fallback
# (atomic adds on each counter's shared slot) is tested as well.
foreach(name test_percpu_count test_percpu_rwsem test_freeze)
  if(TARGET ${name})
    add_test(NAME ${name}_no_rseq COMMAND ${name})
    set_tests_properties(${name}_no_rseq PROPERTIES TIMEOUT 300
      ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0")
  endif()
endforeach()

# Again with RCU readers that add through rseq: what semaphores initialized
# under rcu_normal (or without membarrier's rseq command) get.
foreach(name test_percpu_rwsem test_freeze)
  if(TARGET ${name})
    add_test(NAME ${name}_rcu_readers COMMAND ${name})
    set_tests_properties(${name}_rcu_readers PROPERTIES TIMEOUT 300
      ENVIRONMENT "QUIESCE_RCU_NORMAL=1")
  endif()
endforeach()

# Again with the readers' restartable sequence widened between its look at
# the gate and its count update (test-only), so that the busted control,
# a gate closed without aborting the sequences in flight, can be caught.
# ThreadSanitizer builds have no sequence to widen.
foreach(name test_percpu_rwsem test_freeze)
  if(TARGET ${name} AND NOT QUIESCE_SANITIZE STREQUAL "thread")
    add_executable(${name}_rseq_window ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c)
    target_compile_definitions(${name}_rseq_window PRIVATE QUIESCE_TEST_RSEQ_WINDOW_SPINS=64)
    target_link_libraries(${name}_rseq_window PRIVATE quiesce_testlib)
    add_test(NAME ${name}_rseq_window COMMAND ${name}_rseq_window)
    set_tests_properties(${name}_rseq_window PROPERTIES TIMEOUT 300)
  endif()
endforeach()
