/*
 * quiesce-bench: runs the registered experiments and writes their figures to
 * bench-results/ as CSV and JSON.
 *
 *   quiesce-bench [--quick] [--reps N] [--out DIR] [all | NAME...]
 *   quiesce-bench --list
 */
#include "bench.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#define QB_MAX_EXPERIMENTS 64
#define QB_MAX_RECORDS 4096

struct qb_row {
	char experiment[48];
	char subject[96];
	char metric[64];
	char unit[16];
	struct qb_spread spread;
	char goal[16];
	bool is_ratio;
};

static const struct qb_experiment *experiments[QB_MAX_EXPERIMENTS];
static int experiment_count;
static struct qb_row rows[QB_MAX_RECORDS];
static int row_count;

void qb_register(const struct qb_experiment *e)
{
	if (experiment_count == QB_MAX_EXPERIMENTS) {
		fprintf(stderr, "quiesce-bench: too many experiments\n");
		abort();
	}
	experiments[experiment_count++] = e;
}

uint64_t qb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct qb_row *new_row(const char *experiment, const char *subject,
			      const char *metric, const char *unit)
{
	struct qb_row *row;

	if (row_count == QB_MAX_RECORDS) {
		fprintf(stderr, "quiesce-bench: too many figures\n");
		abort();
	}
	row = &rows[row_count++];
	memset(row, 0, sizeof(*row));
	snprintf(row->experiment, sizeof(row->experiment), "%s", experiment);
	snprintf(row->subject, sizeof(row->subject), "%s", subject);
	snprintf(row->metric, sizeof(row->metric), "%s", metric);
	snprintf(row->unit, sizeof(row->unit), "%s", unit);
	return row;
}

struct qb_spread qb_record(const char *experiment, const char *subject,
			   const char *metric, const char *unit,
			   const double *samples, int n)
{
	double sorted[n > 0 ? n : 1];
	struct qb_row *row = new_row(experiment, subject, metric, unit);

	memcpy(sorted, samples, sizeof(double) * (size_t)n);
	qsort(sorted, (size_t)n, sizeof(double), compare_doubles);
	row->spread.n = n;
	row->spread.min = sorted[0];
	row->spread.max = sorted[n - 1];
	row->spread.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	printf("  %-44s %-22s %12.4g %-8s [%.4g .. %.4g]\n", subject, metric,
	       row->spread.median, unit, row->spread.min, row->spread.max);
	fflush(stdout);
	return row->spread;
}

static const struct qb_row *find_row(const char *experiment, const char *metric,
				     const char *subject)
{
	for (int i = row_count - 1; i >= 0; i--)
		if (!rows[i].is_ratio && !strcmp(rows[i].experiment, experiment) &&
		    !strcmp(rows[i].metric, metric) && !strcmp(rows[i].subject, subject))
			return &rows[i];
	return NULL;
}

double qb_ratio(const char *experiment, const char *metric,
		const char *numerator, const char *denominator, const char *goal)
{
	const struct qb_row *num = find_row(experiment, metric, numerator);
	const struct qb_row *den = find_row(experiment, metric, denominator);
	char subject[96];
	struct qb_row *row;

	if (!num || !den || den->spread.median == 0 || den->spread.min == 0)
		return NAN;
	snprintf(subject, sizeof(subject), "%s / %s", numerator, denominator);
	row = new_row(experiment, subject, metric, "ratio");
	row->is_ratio = true;
	row->spread.n = num->spread.n;
	row->spread.median = num->spread.median / den->spread.median;
	row->spread.min = num->spread.min / den->spread.max;
	row->spread.max = num->spread.max / den->spread.min;
	snprintf(row->goal, sizeof(row->goal), "%s", goal ? goal : "");
	printf("  %-44s %-22s %12.3f x        [%.3f .. %.3f]%s%s\n", subject, metric,
	       row->spread.median, row->spread.min, row->spread.max,
	       goal ? "  goal " : "", goal ? goal : "");
	fflush(stdout);
	return row->spread.median;
}

void qb_missing_peer(const char *experiment, const char *peer, const char *package)
{
	struct qb_row *row = new_row(experiment, peer, "missing", "");

	snprintf(row->goal, sizeof(row->goal), "%s", "");
	printf("  %-44s not measured: not installed (apt-get install %s)\n", peer, package);
	snprintf(row->unit, sizeof(row->unit), "%.15s", package);
}

void qb_heading(const char *fmt, ...)
{
	va_list ap;

	printf("\n");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void qb_progress(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[K");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

struct qb_thread_start {
	pthread_barrier_t *barrier;
	void *(*fn)(void *);
	void *arg;
};

static void *qb_thread_trampoline(void *p)
{
	struct qb_thread_start *start = p;

	pthread_barrier_wait(start->barrier);
	return start->fn(start->arg);
}

void qb_run_threads(int n, void *(*fn)(void *), void *args, size_t arg_size)
{
	pthread_t tids[n];
	struct qb_thread_start starts[n];
	pthread_barrier_t barrier;

	pthread_barrier_init(&barrier, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		starts[i] = (struct qb_thread_start){ &barrier, fn, (char *)args + (size_t)i * arg_size };
		if (pthread_create(&tids[i], NULL, qb_thread_trampoline, &starts[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&barrier);
}

static void print_machine(void)
{
	char model[256] = "unknown";
	char line[512];
	struct utsname uts;
	FILE *f = fopen("/proc/cpuinfo", "r");
	long membarrier = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *colon = strchr(line, ':');

			snprintf(model, sizeof(model), "%.200s", colon ? colon + 2 : line);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	uname(&uts);
	printf("machine: %s, %ld online CPUs, %s %s %s\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN), uts.sysname, uts.release, uts.machine);
	printf("membarrier: %s; grace-period backend: %s\n",
	       membarrier < 0 ? "unavailable" :
	       (membarrier & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ? "global + private expedited" : "global only",
	       quiesce_rcu_backend_name());
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_results(const char *dir)
{
	char path[4096];
	FILE *csv, *json;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "quiesce-bench: mkdir %s: %s\n", dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json = fopen(path, "w");
	if (!csv || !json) {
		fprintf(stderr, "quiesce-bench: cannot write results in %s\n", dir);
		exit(1);
	}
	fprintf(csv, "experiment,subject,metric,unit,median,min,max,samples,goal\n");
	fprintf(json, "[\n");
	for (int i = 0; i < row_count; i++) {
		const struct qb_row *r = &rows[i];

		fprintf(csv, "%s,\"%s\",%s,%s,%.6g,%.6g,%.6g,%d,\"%s\"\n", r->experiment,
			r->subject, r->metric, r->unit, r->spread.median, r->spread.min,
			r->spread.max, r->spread.n, r->goal);
		fprintf(json, "  {\"experiment\": ");
		json_string(json, r->experiment);
		fprintf(json, ", \"subject\": ");
		json_string(json, r->subject);
		fprintf(json, ", \"metric\": ");
		json_string(json, r->metric);
		fprintf(json, ", \"unit\": ");
		json_string(json, r->unit);
		fprintf(json, ", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"samples\": %d, \"goal\": ",
			r->spread.median, r->spread.min, r->spread.max, r->spread.n);
		json_string(json, r->goal);
		fprintf(json, "}%s\n", i + 1 < row_count ? "," : "");
	}
	fprintf(json, "]\n");
	fclose(csv);
	fclose(json);
	printf("\nresults: %s/results.csv, %s/results.json\n", dir, dir);
}

static int compare_experiments(const void *a, const void *b)
{
	const struct qb_experiment *x = *(const struct qb_experiment *const *)a;
	const struct qb_experiment *y = *(const struct qb_experiment *const *)b;

	return x->order != y->order ? x->order - y->order : strcmp(x->name, y->name);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: quiesce-bench [--quick] [--reps N] [--out DIR] [all | EXPERIMENT...]\n"
		     "       quiesce-bench --list\n");
}

int main(int argc, char **argv)
{
	struct qb_options opt = { .quick = false, .repetitions = 0 };
	const char *out = "bench-results";
	const char *wanted[QB_MAX_EXPERIMENTS];
	int wanted_count = 0;
	uint64_t start;

	qsort(experiments, (size_t)experiment_count, sizeof(experiments[0]), compare_experiments);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			opt.quick = true;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			opt.repetitions = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--list")) {
			for (int j = 0; j < experiment_count; j++)
				printf("%-20s %s\n", experiments[j]->name, experiments[j]->title);
			return 0;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			usage(stderr);
			return 2;
		} else if (strcmp(argv[i], "all") && wanted_count < QB_MAX_EXPERIMENTS) {
			wanted[wanted_count++] = argv[i];
		}
	}
	if (opt.repetitions <= 0)
		opt.repetitions = opt.quick ? 3 : 5;
	for (int i = 0; i < wanted_count; i++) {
		bool found = false;

		for (int j = 0; j < experiment_count; j++)
			found |= !strcmp(wanted[i], experiments[j]->name);
		if (!found) {
			fprintf(stderr, "quiesce-bench: no experiment named %s (see --list)\n", wanted[i]);
			return 2;
		}
	}

	print_machine();
	start = qb_now_ns();
	for (int j = 0; j < experiment_count; j++) {
		bool run = wanted_count == 0;

		for (int i = 0; i < wanted_count; i++)
			run |= !strcmp(wanted[i], experiments[j]->name);
		if (!run)
			continue;
		qb_heading("== %s: %s", experiments[j]->name, experiments[j]->title);
		qb_progress("[%.0f s] %s", (qb_now_ns() - start) / 1e9, experiments[j]->name);
		experiments[j]->run(&opt);
	}
	qb_progress("%s", "");
	write_results(out);
	printf("total time: %.1f s\n", (qb_now_ns() - start) / 1e9);
	return 0;
}
