# The per-CPU fast paths again with rseq disabled, so that the fallback
# (atomic adds on each counter's shared slot) is tested as well.
foreach(name test_percpu_count test_percpu_rwsem test_freeze)
  if(TARGET ${name})
    add_test(NAME ${name}_no_rseq COMMAND ${name})
    set_tests_properties(${name}_no_rseq PROPERTIES TIMEOUT 300
      ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0")
  endif()
endforeach()
