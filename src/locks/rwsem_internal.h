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
/*
 * Test hook, as above: a writer in the slow path ignores other writers and
 * takes the lock while one holds it (whose up_write() then aborts: the
 * owner is the other, or the count no longer shows the lock, which the
 * other released).  The torture's rwsem-busted-writers must catch it.
 */
extern bool quiesce_rwsem_test_busted_writers_share;

#endif
