/* rwsem_internal.h - what the tests may reach inside the rwsem. */
#ifndef QUIESCE_RWSEM_INTERNAL_H
#define QUIESCE_RWSEM_INTERNAL_H

#include <stdbool.h>

/*
 * Test hook, hidden from the shared library: when set, a writer in the
 * slow path ignores readers and takes the lock while they hold it.  The
 * stress test sets it in a child to prove that its checker notices.
 */
extern bool quiesce_rwsem_test_busted_writer;

#endif
