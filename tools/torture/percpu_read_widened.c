/*
 * percpu_read_widened.c - the read side with its restartable sequence
 * widened (percpu_read.h).  The define must precede every include.
 */
#define QUIESCE_TEST_RSEQ_WINDOW_SPINS 64
#define TORTURE_PERCPU_READ_TABLE torture_percpu_read_widened
#include "percpu_read_table.h"
