# Fails when the overlay's shared library exports a symbol that is not one
# of liburcu's names: the flavors' urcu_<flavor>_* functions and objects,
# the pointer functions rcu_*_sym*, liburcu-cds's cds_* / __cds_* ones, and
# quiesce_urcu_linked (overlay/src/link_check.c).
execute_process(COMMAND nm -D --defined-only ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(count 0)
foreach(line ${lines})
  string(REGEX REPLACE "^[0-9a-f]* +[A-Za-z] +" "" sym "${line}")
  if(sym STREQUAL "")
    continue()
  endif()
  if(NOT sym MATCHES "^(urcu_(memb|mb|signal|bp|qsbr)_[a-z_]+|rcu_(dereference|cmpxchg_pointer|xchg_pointer|set_pointer)_sym2?|_?_?cds_[a-z_0-9]+|quiesce_urcu_linked)$")
    message(FATAL_ERROR "exported, and not a liburcu name: ${sym}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "no symbol exported from ${LIB}")
endif()
message(STATUS "${count} exported symbols, all liburcu names")
