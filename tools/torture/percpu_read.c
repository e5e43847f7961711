/* percpu_read.c - the read side as the library inlines it (percpu_read.h). */
#define TORTURE_PERCPU_READ_TABLE torture_percpu_read_plain
#include "percpu_read_table.h"

const struct torture_percpu_read *torture_percpu_read = &torture_percpu_read_plain;
