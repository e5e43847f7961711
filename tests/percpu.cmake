# The per-CPU tests again in another environment: a test program, a name
# suffix, and the variable that changes the path it takes.
function(percpu_env_test name suffix env)
  if(TARGET ${name})
    add_test(NAME ${name}_${suffix} COMMAND ${name})
    set_tests_properties(${name}_${suffix} PROPERTIES TIMEOUT 300 ENVIRONMENT "${env}")
  endif()
endfunction()

foreach(name test_percpu_count test_percpu_rwsem test_freeze)
  # rseq disabled: the fallback (atomic adds on each counter's shared slot).
  percpu_env_test(${name} no_rseq "GLIBC_TUNABLES=glibc.pthread.rseq=0")
endforeach()
foreach(name test_percpu_rwsem test_freeze)
  # RCU readers that add through rseq: what semaphores initialized under
  # rcu_normal (or without membarrier's rseq command) get.
  percpu_env_test(${name} rcu_readers "QUIESCE_RCU_NORMAL=1")
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
