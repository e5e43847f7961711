# The installed overlay builds liburcu-style programs through its pkg-config
# files, -I/-l and find_package(quiesce COMPONENTS urcu) (plain build only,
# as tests/install_consume.sh).
if(QUIESCE_SANITIZE STREQUAL "")
  add_test(NAME urcu_install_and_consume
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/install_consume_urcu.sh
      ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
endif()
