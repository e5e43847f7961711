/* report.h - the status line and the final summary. */
#ifndef QUIESCE_TORTURE_REPORT_H
#define QUIESCE_TORTURE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

struct torture_run;

/* One line on stderr: elapsed, operations, grace periods, violations. */
void torture_report_status(struct torture_run *run);

/* The summary on stdout, as text or (--json) one JSON object. */
void torture_report_summary(struct torture_run *run, uint64_t elapsed_ns, bool passed);

#endif
