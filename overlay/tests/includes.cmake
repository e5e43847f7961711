# Each overlay header brings what liburcu's of the same name brings, in both
# linking modes, against the liburcu installed here (skipped without one).
if(QUIESCE_SANITIZE STREQUAL "")
  add_test(NAME urcu_includes_match_liburcu
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/includes_match_liburcu.sh
      ${CMAKE_CURRENT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include ${CMAKE_C_COMPILER})
  set_tests_properties(urcu_includes_match_liburcu PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The overlay has every header liburcu 0.13 to 0.15 installs, less the
# internals docs/LIBURCU.md names.
add_test(NAME urcu_headers_of_liburcu
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/headers_of_liburcu.sh
    ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_C_COMPILER})
