/*
 * report.c - what a run tells its user: a status line every interval and a
 * summary at the end, as text or as one JSON object.
 */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>

#include "torture.h"
#include "type_table.h"

/*
 * Counters are read with atomic loads throughout: the status line runs
 * beside the threads, and so does the summary of a run whose threads did
 * not all finish.
 */
struct totals {
	uint64_t reads, writes, signal_reads, grace_periods, violations;
	uint64_t signals_handled, delays, sleeps;
};

static void sum_totals(struct torture_run *run, struct totals *tot)
{
	const struct torture_options *opt = run->opt;

	*tot = (struct totals){
		.reads = QUIESCE_LOAD(&run->churn_ops),
		.violations = torture_violations(run),
		.delays = QUIESCE_LOAD(&run->churn_delays),
		.sleeps = QUIESCE_LOAD(&run->churn_sleeps),
	};
	for (unsigned i = 0; i < opt->readers + opt->writers; i++) {
		struct torture_thread *t = i < opt->readers ? &run->readers[i]
							  : &run->writers[i - opt->readers];

		if (i < opt->readers)
			tot->reads += QUIESCE_LOAD(&t->ops);
		else
			tot->writes += QUIESCE_LOAD(&t->ops);
		tot->signal_reads += QUIESCE_LOAD(&t->signal_ops);
		tot->signals_handled += QUIESCE_LOAD(&t->signals_handled);
		tot->delays += QUIESCE_LOAD(&t->delays);
		tot->sleeps += QUIESCE_LOAD(&t->sleeps);
	}
	if (run->type->grace_periods)
		tot->grace_periods = run->type->grace_periods(run);
}

static const char *type_label(const struct torture_run *run, char *buf, size_t len)
{
	return torture_type_label(run->type, run->opt->control, buf, len);
}

void torture_report_status(struct torture_run *run)
{
	struct totals tot;
	char label[64];
	char gps[48] = "";

	sum_totals(run, &tot);
	if (run->type->grace_periods)
		snprintf(gps, sizeof(gps), ", %" PRIu64 " grace periods", tot.grace_periods);
	fprintf(stderr, "[%7.1fs] %s: %" PRIu64 " reads, %" PRIu64 " updates%s, %" PRIu64 " violations\n",
		(double)(torture_now_ns() - run->start_ns) / 1e9, type_label(run, label, sizeof(label)),
		tot.reads, tot.writes, gps, tot.violations);
}

static void summary_text(struct torture_run *run, const struct totals *tot, double secs,
			 const char *faults, bool passed)
{
	const struct torture_options *opt = run->opt;
	char label[64];

	printf("quiesce-torture %s: %s\n", type_label(run, label, sizeof(label)),
	       passed ? "PASSED" : "FAILED");
	printf("  duration %.1f s, seed %" PRIu64 ", %u readers, %u writers, faults: %s\n", secs,
	       opt->seed, opt->readers, opt->writers, faults[0] ? faults : "none");
	printf("  reads %" PRIu64 " (%" PRIu64 " in signal handlers), updates %" PRIu64, tot->reads,
	       tot->signal_reads, tot->writes);
	if (run->type->grace_periods)
		printf(", grace periods %" PRIu64, tot->grace_periods);
	printf("\n  churn threads %" PRIu64 ", forks %" PRIu64 ", signals %" PRIu64
	       " (%" PRIu64 " handled), affinity changes %" PRIu64 ", delays %" PRIu64
	       ", sleeps %" PRIu64 "\n",
	       QUIESCE_LOAD(&run->churn_threads), QUIESCE_LOAD(&run->forks),
	       QUIESCE_LOAD(&run->signals_sent), tot->signals_handled, QUIESCE_LOAD(&run->shuffles),
	       tot->delays, tot->sleeps);
	if (opt->faults & TORTURE_FAULT_STALL)
		printf("  long reads %" PRIu64 " (%" PRIu64 " checked for a stall warning), "
		       "stall warnings %" PRIu64 "\n",
		       QUIESCE_LOAD(&run->long_reads), QUIESCE_LOAD(&run->long_reads_checked),
		       QUIESCE_LOAD(&run->stall_warnings));
	if (run->type->report)
		run->type->report(run, stdout, false);
	printf("  violations %" PRIu64, tot->violations);
	for (int k = 0; k < TV_KINDS; k++)
		if (QUIESCE_LOAD(&run->violations[k]))
			printf(", %s %" PRIu64, torture_violation_name(k),
			       QUIESCE_LOAD(&run->violations[k]));
	printf("\n");
	if (run->unchecked)
		printf("  not checked: %u essential events never happened (described on stderr)\n",
		       run->unchecked);
	if (run->unfinished)
		printf("  %u threads did not finish\n", run->unfinished);
}

static void summary_json(struct torture_run *run, const struct totals *tot, double secs,
			 const char *faults, bool passed)
{
	const struct torture_options *opt = run->opt;

	printf("{\"type\":\"%s\",\"busted\":%s,\"control\":\"%s\",\"result\":\"%s\","
	       "\"duration_s\":%.3f,\"seed\":%" PRIu64 ",\"readers\":%u,\"writers\":%u,"
	       "\"faults\":\"%s\",",
	       run->type->name, opt->control ? "true" : "false",
	       opt->control ? opt->control->name : "", passed ? "pass" : "fail", secs,
	       opt->seed, opt->readers, opt->writers, faults);
	printf("\"reads\":%" PRIu64 ",\"signal_reads\":%" PRIu64 ",\"updates\":%" PRIu64
	       ",\"grace_periods\":%" PRIu64 ",",
	       tot->reads, tot->signal_reads, tot->writes, tot->grace_periods);
	printf("\"churn_threads\":%" PRIu64 ",\"forks\":%" PRIu64 ",\"signals\":%" PRIu64
	       ",\"affinity_changes\":%" PRIu64 ",\"signals_handled\":%" PRIu64
	       ",\"delays\":%" PRIu64 ",\"sleeps\":%" PRIu64 ",\"long_reads\":%" PRIu64
	       ",\"long_reads_checked\":%" PRIu64 ",\"stall_warnings\":%" PRIu64 ",",
	       QUIESCE_LOAD(&run->churn_threads), QUIESCE_LOAD(&run->forks), QUIESCE_LOAD(&run->signals_sent), QUIESCE_LOAD(&run->shuffles), tot->signals_handled,
	       tot->delays, tot->sleeps, QUIESCE_LOAD(&run->long_reads),
	       QUIESCE_LOAD(&run->long_reads_checked), run->stall_warnings);
	printf("\"unfinished_threads\":%u,\"unchecked\":%u,\"violations\":%" PRIu64 ",\"violation_kinds\":{",
	       run->unfinished, run->unchecked, tot->violations);
	for (int k = 0; k < TV_KINDS; k++)
		printf("%s\"%s\":%" PRIu64, k ? "," : "", torture_violation_name(k),
		       QUIESCE_LOAD(&run->violations[k]));
	printf("}");
	if (run->type->report)
		run->type->report(run, stdout, true);
	printf("}\n");
}

void torture_report_summary(struct torture_run *run, uint64_t elapsed_ns, bool passed)
{
	struct totals tot;
	char faults[128];
	double secs = (double)elapsed_ns / 1e9;

	sum_totals(run, &tot);
	torture_faults_string(run->opt->faults, faults, sizeof(faults));
	if (run->opt->json)
		summary_json(run, &tot, secs, faults, passed);
	else
		summary_text(run, &tot, secs, faults, passed);
	fflush(stdout);
}
