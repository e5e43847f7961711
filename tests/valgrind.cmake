# The suite again under valgrind's memcheck, which sees what ASan does not:
# reads of uninitialized memory.  Valgrind has no rseq (glibc's
# registration fails there), so these run the RCU-reader paths.  Only the
# plain build (valgrind and the sanitizers do not mix); --fair-sched keeps
# valgrind's one-thread-at-a-time scheduling from starving a thread that
# another one spins for.  Left out: the *_rseq_window builds, which are
# the plain ones without rseq.
find_program(VALGRIND_PROGRAM valgrind)
if(VALGRIND_PROGRAM AND QUIESCE_SANITIZE STREQUAL "")
  foreach(src ${QUIESCE_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_test(NAME ${name}_valgrind
      COMMAND ${VALGRIND_PROGRAM} -q --error-exitcode=99 --fair-sched=yes
        --suppressions=${CMAKE_CURRENT_SOURCE_DIR}/valgrind.supp $<TARGET_FILE:${name}>)
    set_tests_properties(${name}_valgrind PROPERTIES TIMEOUT 300 LABELS valgrind)
  endforeach()
endif()
