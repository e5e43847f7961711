# Knot DNS's kdig pattern: a program built without _LGPL_SOURCE links with
# a file of empty stubs of liburcu's out-of-line symbols and no library at
# all (no libquiesce, no libquiesce-urcu, no threads).  The build fails if
# the overlay's headers reach for anything else.
add_executable(urcu_stub_link ${CMAKE_CURRENT_SOURCE_DIR}/tests/stub/program.c
  ${CMAKE_CURRENT_SOURCE_DIR}/tests/stub/stubs.c)
target_include_directories(urcu_stub_link PRIVATE ${QUIESCE_URCU_INCLUDE} ${PROJECT_SOURCE_DIR}/include)
add_test(NAME urcu_stub_link COMMAND urcu_stub_link)
