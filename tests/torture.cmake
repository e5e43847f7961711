# quiesce-torture (tools/torture): every type for a short bounded run with
# every fault it supports, and every busted control, which must be caught.
# Under a sanitizer, --faults all leaves out the fork fault by itself
# (tools/torture/main.c says why).
set(QT_FAULTS all)
# Each busted type with the faults that catch it fastest (for the rcu_sync
# types, signals that stop readers on their fast path: see signals.c), the
# violation kinds its control must report (expect_violation.cmake), and
# whether threads left stuck count too (a broken freezer can deadlock).
set(QT_RCU_KINDS "age|freed")
set(QT_LOCK_KINDS "exclusion|data")
set(QT_TYPES rcu:delay:${QT_RCU_KINDS} rcu-expedited:delay:${QT_RCU_KINDS}
  rcu-poll:delay:${QT_RCU_KINDS} "call-rcu:delay:age|freed|cookie|callback"
  rwsem:delay:${QT_LOCK_KINDS} percpu-rwsem:signals:${QT_LOCK_KINDS}:hang
  freeze:signals:${QT_LOCK_KINDS}:hang "rcuhash:delay:hash|freed" "wfqueue:delay:data|freed"
  "wfqueue-rcu:delay:data|freed" srcu:delay:${QT_RCU_KINDS} qsbr:delay:${QT_RCU_KINDS}
  rcu-mb:delay:${QT_RCU_KINDS})
# A busted run of a control (quiesce-torture --list names them), from its
# entry control:duration:faults:kinds[:hang]: it must report a violation of
# one of the kinds within the duration, with those faults on (with hang:
# or leave threads stuck).
function(qt_busted_test entry)
  string(REPLACE ":" ";" entry "${entry}")
  list(GET entry 0 control)
  list(GET entry 1 duration)
  list(GET entry 2 faults)
  list(GET entry 3 kinds)
  list(LENGTH entry fields)
  set(hang_ok 0)
  if(fields GREATER 4)
    set(hang_ok 1)
  endif()
  string(REPLACE "-" "_" name ${control})
  add_test(NAME torture_${name}
    COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:quiesce-torture> -DTYPE=${control}
      -DDURATION=${duration} -DFAULTS=${faults} -DEXPECT=${kinds} -DHANG_OK=${hang_ok}
      -P ${PROJECT_SOURCE_DIR}/tools/torture/expect_violation.cmake)
  set_tests_properties(torture_${name} PROPERTIES TIMEOUT 300 LABELS torture)
endfunction()
foreach(entry ${QT_TYPES})
  string(REPLACE ":" ";" fields "${entry}")
  list(GET fields 0 type)
  string(REPLACE "-" "_" name ${type})
  # The join timeout is a hang limit: threads of a loaded machine finish late.
  add_test(NAME torture_${name}
    COMMAND quiesce-torture --type ${type} --duration 2s --faults ${QT_FAULTS} --status-interval 1s
      --join-timeout 60s)
  set_tests_properties(torture_${name} PROPERTIES TIMEOUT 300 LABELS torture)
  # A busted run stops at its first violation, usually within a second;
  # the long run is for a loaded machine, where the window is hit later:
  # it only makes a slow machine take longer, never fail.
  list(REMOVE_AT fields 0)
  list(JOIN fields ":" rest)
  qt_busted_test("${type}-busted:120s:${rest}")
endforeach()
# The other controls, each for a check that the types' first controls do
# not reach: control:duration:faults:kinds.  A check made at the end of
# the run (sharing) gets a short run, as does the fork fault, whose first
# fork comes at half the run.  Under a sanitizer the fork child can hang
# for the sanitizer's own reasons (tools/torture/main.c), which would pass
# the fork control without proving anything: it runs in the plain build.
set(QT_CONTROLS rcu-busted-cookie:120s:delay:cookie rcu-busted-stall:120s:stall:stall-missing
  call-rcu-busted-barrier:120s:delay:callback call-rcu-busted-lost:120s:delay:callback
  call-rcu-busted-twice:120s:delay:callback
  "rwsem-busted-writers:120s:delay:exclusion|data" rwsem-busted-unshared:3s:delay:sharing
  rcuhash-busted-walk:120s:delay:hash rcuhash-busted-again:120s:delay:hash)
if(QUIESCE_SANITIZE STREQUAL "")
  list(APPEND QT_CONTROLS rcu-busted-fork:6s:fork:fork-child)
endif()
foreach(entry ${QT_CONTROLS})
  qt_busted_test("${entry}")
endforeach()
# ThreadSanitizer delivers a signal only when its thread calls into the
# runtime, which a spinning reader never does: the signal backend's
# handshake would wait forever there, so that variant is left out.
if(NOT QUIESCE_SANITIZE STREQUAL "thread")
  add_test(NAME torture_rcu_signal_backend
    COMMAND quiesce-torture --type rcu --duration 2s --faults ${QT_FAULTS} --status-interval 1s
      --join-timeout 60s)
  set_tests_properties(torture_rcu_signal_backend PROPERTIES
    ENVIRONMENT QUIESCE_RCU_BACKEND=signal TIMEOUT 300 LABELS torture)
endif()
# And on the mprotect backend, where it is valid (x86).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
  add_test(NAME torture_rcu_mprotect_backend
    COMMAND quiesce-torture --type rcu --duration 2s --faults ${QT_FAULTS} --status-interval 1s
      --join-timeout 60s)
  set_tests_properties(torture_rcu_mprotect_backend PROPERTIES
    ENVIRONMENT QUIESCE_RCU_BACKEND=mprotect TIMEOUT 300 LABELS torture)
endif()
# The shutdown order: the shuffle fault names writers by pthread_t, so it
# must be gone before the first writer is joined (tools/torture/run.c).
# The run is held open after the writers' joins; a shuffle thread still
# running then finds a joined writer at its next move and aborts.
add_test(NAME torture_shuffle_after_writers
  COMMAND quiesce-torture --type percpu-rwsem --duration 300ms --faults shuffle
    --status-interval 1s --join-timeout 60s)
set_tests_properties(torture_shuffle_after_writers PROPERTIES
  ENVIRONMENT QUIESCE_TORTURE_TEST_HOLD_AFTER_WRITERS_MS=300 TIMEOUT 300 LABELS torture)
# The final checks have the join timeout too: held past it, as a hang in
# them would be, the run must fail saying so (tools/torture/run.c).
add_test(NAME torture_finish_deadline
  COMMAND quiesce-torture --type rcu --duration 300ms --status-interval 1s --join-timeout 1s)
set_tests_properties(torture_finish_deadline PROPERTIES
  ENVIRONMENT QUIESCE_TORTURE_TEST_HOLD_IN_FINISH_MS=10000
  PASS_REGULAR_EXPRESSION "final checks of rcu did not finish: still running at the deadline"
  TIMEOUT 300 LABELS torture)
