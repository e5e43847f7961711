/* Concurrency Kit's ck_rwlock behind the rwsem workload's vtable. */
#include <ck_rwlock.h>
#include <stdio.h>
#include <stdlib.h>

#include <quiesce/compiler.h>

#include "rwsem_workload.h"

static void *ck_create(void)
{
	ck_rwlock_t *lock = aligned_alloc(QUIESCE_CACHELINE, QUIESCE_CACHELINE);

	if (!lock) {
		perror("aligned_alloc");
		exit(1);
	}
	ck_rwlock_init(lock);
	return lock;
}

static void ck_read_lock(void *lock) { ck_rwlock_read_lock(lock); }
static void ck_read_unlock(void *lock) { ck_rwlock_read_unlock(lock); }
static void ck_write_lock(void *lock) { ck_rwlock_write_lock(lock); }
static void ck_write_unlock(void *lock) { ck_rwlock_write_unlock(lock); }

const struct qb_rwlock_ops qb_rwsem_ck = {
	.name = "ck_rwlock",
	.create = ck_create,
	.destroy = free,
	.read_lock = ck_read_lock,
	.read_unlock = ck_read_unlock,
	.write_lock = ck_write_lock,
	.write_unlock = ck_write_unlock,
};
