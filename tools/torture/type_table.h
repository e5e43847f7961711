/* type_table.h - every torture type, by name. */
#ifndef QUIESCE_TORTURE_TYPE_TABLE_H
#define QUIESCE_TORTURE_TYPE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct torture_type;

/*
 * Finds "NAME" or "NAME-busted"; sets *busted for the latter.  NULL when no
 * such type exists (or it has no busted variant).
 */
const struct torture_type *torture_type_find(const char *name, bool *busted);

/* One line per type, for --help and --list. */
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
void torture_rcu_sync_set_busted(bool on);

#endif
