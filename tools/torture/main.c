/*
 * quiesce-torture: validates quiesce's primitives on the machine it runs
 * on, in the manner of the kernel's rcutorture and locktorture.  See
 * docs/TORTURE.md and --help.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "torture.h"
#include "type_table.h"

/*
 * Under a sanitizer, --faults all leaves out fork (--faults fork still asks
 * for it).  ThreadSanitizer cannot follow threads started in the child of a
 * multithreaded fork().  AddressSanitizer does not take its allocator's
 * locks around fork() (upstream does since December 2023, llvm-project
 * #75290; not the runtimes of GCC 12 and Clang 14): the child can copy one
 * that another thread of the run holds (a churn thread starting or
 * exiting, a writer allocating) and hang at its first allocation that
 * needs it, usually in starting its first thread.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_BUILD 1
#endif
#endif
#ifdef SANITIZER_BUILD
#define FAULTS_NOT_IN_ALL TORTURE_FAULT_FORK
#else
#define FAULTS_NOT_IN_ALL 0u
#endif

int main(int argc, char **argv)
{
	struct torture_options opt;
	const struct torture_type *type;

	torture_parse_options(argc, argv, &opt);
	type = torture_type_find(opt.type, &opt.control);
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
	if (opt.all_faults) {
		cpu_set_t cpus;

		opt.faults |= type->faults & ~FAULTS_NOT_IN_ALL;
		/*
		 * With one CPU allowed, shuffle cannot move anything and the run
		 * would fail as unchecked (evidence.c): all leaves it out there;
		 * --faults shuffle still asks for it.
		 */
		if (!sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) < 2)
			opt.faults &= ~TORTURE_FAULT_SHUFFLE;
	}
	opt.faults &= ~opt.faults_excluded;
	/* The type supports them: its own control's check needs them. */
	if (opt.control)
		opt.faults |= opt.control->faults;
	if (!opt.json && !opt.quiet) {
		char label[64];

		fprintf(stderr, "quiesce-torture: type %s, seed %llu\n",
			torture_type_label(type, opt.control, label, sizeof(label)),
			(unsigned long long)opt.seed);
	}
	return torture_main(&opt, type);
}
