/*
 * type_table.c - the list of torture types.  A type with set_busted() also
 * exists as NAME-busted: the same checks against a deliberately broken
 * primitive, which must fail.
 */
#include "type_table.h"

#include <string.h>

#include "torture.h"

#define BUSTED_SUFFIX "-busted"

static const struct torture_type *const types[] = {
	&torture_type_rcu,
	&torture_type_rcu_expedited,
	&torture_type_rcu_poll,
	&torture_type_call_rcu,
	&torture_type_rwsem,
	&torture_type_percpu_rwsem,
	&torture_type_freeze,
	&torture_type_rcuhash,
	&torture_type_wfqueue,
	&torture_type_wfqueue_rcu,
	&torture_type_qsbr,
	&torture_type_srcu,
	&torture_type_rcu_mb,
};

const struct torture_type *torture_type_find(const char *name, bool *busted)
{
	size_t len = strlen(name), suffix = strlen(BUSTED_SUFFIX);

	*busted = len > suffix && strcmp(name + len - suffix, BUSTED_SUFFIX) == 0;
	if (*busted)
		len -= suffix;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i]->name) != len || strncmp(types[i]->name, name, len))
			continue;
		if (*busted && !types[i]->set_busted)
			return NULL;
		return types[i];
	}
	return NULL;
}

void torture_type_list(FILE *out)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		fprintf(out, "  %-20s %s\n", types[i]->name, types[i]->doc);
}
