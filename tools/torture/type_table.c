/*
 * type_table.c - the list of torture types.  A type with busted controls
 * also exists as NAME-busted and NAME-busted-CONTROL: the same checks
 * against a deliberately broken primitive, which must fail.
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

/* The control that SUFFIX ("-busted" or "-busted-NAME") names, or NULL. */
static const struct torture_control *control_named(const struct torture_type *type,
						   const char *suffix)
{
	size_t len = strlen(BUSTED_SUFFIX);

	if (!type->controls || strncmp(suffix, BUSTED_SUFFIX, len))
		return NULL;
	suffix += len;
	if (*suffix == '\0')
		return &type->controls[0];
	if (*suffix++ != '-')
		return NULL;
	for (const struct torture_control *c = type->controls + 1; c->name; c++)
		if (strcmp(c->name, suffix) == 0)
			return c;
	return NULL;
}

const struct torture_type *torture_type_find(const char *name,
					     const struct torture_control **control)
{
	*control = NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t len = strlen(types[i]->name);

		if (strncmp(types[i]->name, name, len))
			continue;
		if (name[len] == '\0')
			return types[i];
		if ((*control = control_named(types[i], name + len)))
			return types[i];
	}
	return NULL;
}

const char *torture_type_label(const struct torture_type *type,
			       const struct torture_control *control, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", type->name, control ? BUSTED_SUFFIX : "",
		 control && control->name[0] ? "-" : "", control ? control->name : "");
	return buf;
}

void torture_type_list(FILE *out)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		fprintf(out, "  %-30s %s\n", types[i]->name, types[i]->doc);
		for (const struct torture_control *c = types[i]->controls; c && c->name; c++) {
			char label[64];

			fprintf(out, "    %-28s %s\n",
				torture_type_label(types[i], c, label, sizeof(label)), c->doc);
		}
	}
}
