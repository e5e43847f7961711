/*
 * quiesce-torture: validates quiesce's primitives on the machine it runs
 * on, in the manner of the kernel's rcutorture and locktorture.  See
 * docs/TORTURE.md and --help.
 */
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "torture.h"
#include "type_table.h"

int main(int argc, char **argv)
{
	struct torture_options opt;
	const struct torture_type *type;

	torture_parse_options(argc, argv, &opt);
	type = torture_type_find(opt.type, &opt.busted);
	if (!type) {
		fprintf(stderr, "quiesce-torture: unknown type '%s'; --list shows them\n", opt.type);
		return 2;
	}
	if (opt.faults & ~type->faults) {
		char faults[128];

		torture_faults_string(opt.faults & ~type->faults, faults, sizeof(faults));
		fprintf(stderr, "quiesce-torture: type %s does not support the fault(s) %s\n",
			type->name, faults);
		return 2;
	}
	if (opt.all_faults)
		opt.faults = type->faults;
	opt.faults &= ~opt.faults_excluded;
	if (!opt.json && !opt.quiet)
		fprintf(stderr, "quiesce-torture: type %s%s, seed %llu\n", type->name,
			opt.busted ? "-busted" : "", (unsigned long long)opt.seed);
	return torture_main(&opt, type);
}
