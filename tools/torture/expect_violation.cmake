# Runs quiesce-torture on a busted type and passes only when the tool
# failed (non-zero exit) AND said why: a violation of one of the kinds
# EXPECT names (a regular expression: the checks the broken primitive is
# there to prove, "age|freed" for a grace period that does not wait), (in
# a ThreadSanitizer build) the data race that a missing release or
# acquire is, which TSan may report before the tool's own checks see its
# effect, or the library's own consistency checks stopping the process
# ("quiesce: ..." and an abort: a broken rcu_sync gate can leave a per-CPU
# reader count at -1, which the next writer reports before the tool's
# checks see it).  Threads that a broken primitive left stuck count only
# with HANG_OK (a broken freezer can deadlock before any check sees it):
# elsewhere a hang proves that something broke, not that the checks catch
# it.  A busted primitive the checker misses, a violation of another
# kind, or a run that dies for another reason fails the test.
#   cmake -DTOOL=<quiesce-torture> -DTYPE=<type>-busted -DDURATION=120s
#         -DFAULTS=delay -DEXPECT=age|freed [-DHANG_OK=1]
#         -P expect_violation.cmake
# The run stops at its first violation; DURATION is the most a slow machine
# may take to hit the window.  The short join timeout makes threads that a
# broken primitive left stuck a finding quickly (a slow machine can only
# make a busted run pass sooner that way, never fail it).
if(NOT EXPECT)
  message(FATAL_ERROR "EXPECT (the violation kinds the control must report) is not set")
endif()
execute_process(
  COMMAND ${TOOL} --type ${TYPE} --duration ${DURATION} --faults ${FAULTS}
    --stop-on-violation --join-timeout 2s
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TYPE} passed: the checker missed a deliberately broken primitive")
endif()
set(caught "violation \\((${EXPECT})\\)|ThreadSanitizer: data race")
# The library's line counts only with the abort() that follows it: a
# warning (quiesce_warn()) is printed the same way and stops nothing.
if(rc STREQUAL "Subprocess aborted")
  string(APPEND caught "|(^|\n)quiesce: [^\n]*\\(thread [0-9]+\\)")
endif()
if(HANG_OK)
  string(APPEND caught "|did not finish")
endif()
if(NOT "${out}${err}" MATCHES "${caught}")
  message(FATAL_ERROR "${TYPE} failed (${rc}) without reporting a violation of the kind "
    "its control is for (${EXPECT})")
endif()
