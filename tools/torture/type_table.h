/* type_table.h - every torture type, by name. */
#ifndef QUIESCE_TORTURE_TYPE_TABLE_H
#define QUIESCE_TORTURE_TYPE_TABLE_H

#include <stdio.h>

#include "torture.h"

/*
 * Finds "NAME", "NAME-busted" or "NAME-busted-CONTROL"; sets *control to
 * the control named, NULL for the plain type.  NULL when no such type or
 * control exists.
 */
const struct torture_type *torture_type_find(const char *name,
					     const struct torture_control **control);

/* "NAME", "NAME-busted" or "NAME-busted-CONTROL" into buf; returns buf. */
const char *torture_type_label(const struct torture_type *type,
			       const struct torture_control *control, char *buf, size_t len);

/* One line per type and per control, for --help and --list. */
void torture_type_list(FILE *out);

/* The types, each defined in its own file. */
extern const struct torture_type torture_type_rcu;
extern const struct torture_type torture_type_rcu_expedited;
extern const struct torture_type torture_type_rcu_poll;
extern const struct torture_type torture_type_call_rcu;
extern const struct torture_type torture_type_rwsem;
extern const struct torture_type torture_type_percpu_rwsem;
extern const struct torture_type torture_type_freeze;
extern const struct torture_type torture_type_rcuhash;
extern const struct torture_type torture_type_wfqueue;
extern const struct torture_type torture_type_wfqueue_rcu;
extern const struct torture_type torture_type_qsbr;
extern const struct torture_type torture_type_srcu;
extern const struct torture_type torture_type_rcu_mb;

/* Shared by the types built on rcu_sync (type_percpu_rwsem.c). */
extern const struct torture_control torture_rcu_sync_controls[];

#endif
