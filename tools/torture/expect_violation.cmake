# Runs quiesce-torture on a busted type and passes only when the tool
# failed (non-zero exit) AND said why ("violation"): a busted primitive the
# checker misses, or a run that dies for another reason, fails the test.
#   cmake -DTOOL=<quiesce-torture> -DTYPE=<type>-busted -DDURATION=3s -P expect_violation.cmake
execute_process(
  COMMAND ${TOOL} --type ${TYPE} --duration ${DURATION} --faults delay --stop-on-violation
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TYPE} passed: the checker missed a deliberately broken primitive")
endif()
if(NOT "${out}${err}" MATCHES "violation \\(")
  message(FATAL_ERROR "${TYPE} failed (${rc}) without reporting a violation")
endif()
