# What liburcu keeps header-only stays so: a program using the lists,
# urcu_ref, uatomic, the queues and stacks, and including <urcu.h> and
# <urcu/rculfhash.h> with _LGPL_SOURCE without calling them, links with
# threads alone (LTTng-tools' liblttng-ctl links no RCU library).  The
# link is the first half of the test; the run the second.
add_executable(urcu_header_only ${CMAKE_CURRENT_SOURCE_DIR}/tests/header_only/program.c)
target_include_directories(urcu_header_only PRIVATE ${QUIESCE_URCU_INCLUDE} ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(urcu_header_only PRIVATE Threads::Threads)
add_test(NAME urcu_header_only COMMAND urcu_header_only)
