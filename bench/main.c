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

#define QB_MAX_SEEDS 32
#define QB_MAX_POINTS 2048

struct qb_seed_copy {
	int seed;
	char thread[96], kernel_before[48], kernel_after[48], kernel_change[48];
	char before_label[64], after_label[64], unit[16];
	double before, after;
};

struct qb_point {
	char plot[48], title[96], xlabel[32], ylabel[32], series[64];
	double x;
	struct qb_spread y;
};

static struct qb_seed_copy seeds[QB_MAX_SEEDS];
static int seed_count;
static struct qb_point points[QB_MAX_POINTS];
static int point_count;

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
	return qb_record_goal(experiment, subject, metric, unit, samples, n, NULL);
}

struct qb_spread qb_record_goal(const char *experiment, const char *subject,
				const char *metric, const char *unit,
				const double *samples, int n, const char *goal)
{
	double sorted[n > 0 ? n : 1];
	struct qb_row *row = new_row(experiment, subject, metric, unit);

	memcpy(sorted, samples, sizeof(double) * (size_t)n);
	qsort(sorted, (size_t)n, sizeof(double), compare_doubles);
	row->spread.n = n;
	row->spread.min = sorted[0];
	row->spread.max = sorted[n - 1];
	row->spread.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	snprintf(row->goal, sizeof(row->goal), "%s", goal ? goal : "");
	printf("  %-44s %-22s %12.4g %-8s [%.4g .. %.4g]%s%s\n", subject, metric,
	       row->spread.median, unit, row->spread.min, row->spread.max,
	       goal ? "  goal " : "", goal ? goal : "");
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

void qb_seed_result(const struct qb_seed_row *row)
{
	struct qb_seed_copy *c;

	if (seed_count == QB_MAX_SEEDS)
		return;
	c = &seeds[seed_count++];
	c->seed = row->seed;
	snprintf(c->thread, sizeof(c->thread), "%s", row->thread);
	snprintf(c->kernel_before, sizeof(c->kernel_before), "%s", row->kernel_before);
	snprintf(c->kernel_after, sizeof(c->kernel_after), "%s", row->kernel_after);
	snprintf(c->kernel_change, sizeof(c->kernel_change), "%s", row->kernel_change);
	snprintf(c->before_label, sizeof(c->before_label), "%s", row->ours_before_label);
	snprintf(c->after_label, sizeof(c->after_label), "%s", row->ours_after_label);
	snprintf(c->unit, sizeof(c->unit), "%s", row->unit);
	c->before = row->ours_before;
	c->after = row->ours_after;
}

static int compare_seeds(const void *a, const void *b)
{
	return ((const struct qb_seed_copy *)a)->seed - ((const struct qb_seed_copy *)b)->seed;
}

static void print_seed_table(void)
{
	if (!seed_count)
		return;
	qsort(seeds, (size_t)seed_count, sizeof(seeds[0]), compare_seeds);
	qb_heading("== seed table: each kernel thread's before/after, and its user-space analog now");
	for (int i = 0; i < seed_count; i++) {
		const struct qb_seed_copy *c = &seeds[i];

		printf("  seed %03d  %s\n", c->seed, c->thread);
		printf("     kernel:  %s -> %s  (%s)\n", c->kernel_before, c->kernel_after,
		       c->kernel_change);
		printf("     quiesce: %s %.4g %s -> %s %.4g %s  (after/before %.3g)\n",
		       c->before_label, c->before, c->unit, c->after_label, c->after, c->unit,
		       c->before ? c->after / c->before : NAN);
	}
	fflush(stdout);
}

static void write_seed_table(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seeds.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "seed,thread,kernel_before,kernel_after,kernel_change,before,before_value,"
		   "after,after_value,unit,after_over_before\n");
	for (int i = 0; i < seed_count; i++) {
		const struct qb_seed_copy *c = &seeds[i];

		fprintf(f, "%03d,\"%s\",\"%s\",\"%s\",\"%s\",\"%s\",%.6g,\"%s\",%.6g,%s,%.6g\n",
			c->seed, c->thread, c->kernel_before, c->kernel_after, c->kernel_change,
			c->before_label, c->before, c->after_label, c->after, c->unit,
			c->before ? c->after / c->before : NAN);
	}
	fclose(f);
}

void qb_plot_point(const char *plot, const char *title, const char *xlabel,
		   const char *ylabel, const char *series, double x, struct qb_spread y)
{
	struct qb_point *p;

	if (point_count == QB_MAX_POINTS)
		return;
	p = &points[point_count++];
	snprintf(p->plot, sizeof(p->plot), "%s", plot);
	snprintf(p->title, sizeof(p->title), "%s", title);
	snprintf(p->xlabel, sizeof(p->xlabel), "%s", xlabel);
	snprintf(p->ylabel, sizeof(p->ylabel), "%s", ylabel);
	snprintf(p->series, sizeof(p->series), "%s", series);
	p->x = x;
	p->y = y;
}

/*
 * A plot's axes: logarithmic where its values span more than SPAN_FOR_LOG
 * (else the small ones lie flat on zero); on a log x axis, or on an x axis
 * of whole numbers (thread counts), ticks only at the values measured.
 */
#define SPAN_FOR_LOG 30.0

static void write_axes(FILE *gp, const char *plot)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	bool whole_x = true;

	for (int j = 0; j < point_count; j++) {
		const struct qb_point *p = &points[j];

		if (strcmp(p->plot, plot))
			continue;
		xmin = fmin(xmin, p->x);
		xmax = fmax(xmax, p->x);
		ymin = fmin(ymin, p->y.min);
		ymax = fmax(ymax, p->y.max);
		whole_x &= p->x == floor(p->x);
	}
	if (ymin > 0 && ymax / ymin > SPAN_FOR_LOG)
		fprintf(gp, "set logscale y\nset format y '%%g'\n");
	if (xmin > 0 && xmax / xmin > SPAN_FOR_LOG)
		fprintf(gp, "set logscale x\nset format x '%%g'\n");
	if (whole_x || (xmin > 0 && xmax / xmin > SPAN_FOR_LOG)) {
		/* A tick at each value measured, and half a step of margin. */
		fprintf(gp, "set xtics (");
		for (int j = 0, first = 1; j < point_count; j++) {
			bool seen = false;

			if (strcmp(points[j].plot, plot))
				continue;
			for (int k = 0; k < j; k++)
				seen |= !strcmp(points[k].plot, plot) && points[k].x == points[j].x;
			if (!seen)
				fprintf(gp, "%s%g", first ? "" : ", ", points[j].x), first = 0;
		}
		fprintf(gp, ")\n");
		if (xmin > 0 && xmax / xmin > SPAN_FOR_LOG)
			fprintf(gp, "set xrange [%g:%g]\n", xmin / 1.5, xmax * 1.5);
		else
			fprintf(gp, "set xrange [%g:%g]\n", xmin - 0.5, xmax + 0.5);
	}
}

/*
 * Writes <plot>.dat (one block per series) and <plot>.gp for every plot,
 * and draws <plot>.png with gnuplot when it is installed.
 */
static void write_plots(const char *dir)
{
	bool gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
	int drawn = 0;

	for (int i = 0; i < point_count; i++) {
		char path[4096], series[32][64];
		int nseries = 0;
		bool first = true;
		FILE *dat, *gp;

		for (int j = 0; j < i; j++)
			first &= strcmp(points[j].plot, points[i].plot) != 0;
		if (!first)
			continue;
		snprintf(path, sizeof(path), "%s/%.47s.dat", dir, points[i].plot);
		dat = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/%.47s.gp", dir, points[i].plot);
		gp = fopen(path, "w");
		if (!dat || !gp) {
			if (dat)
				fclose(dat);
			if (gp)
				fclose(gp);
			continue;
		}
		for (int j = i; j < point_count; j++) {
			bool known = false;

			if (strcmp(points[j].plot, points[i].plot))
				continue;
			for (int k = 0; k < nseries; k++)
				known |= !strcmp(series[k], points[j].series);
			if (!known && nseries < 32)
				snprintf(series[nseries++], sizeof(series[0]), "%s", points[j].series);
		}
		for (int k = 0; k < nseries; k++) {
			fprintf(dat, "# %s\n", series[k]);
			for (int j = i; j < point_count; j++)
				if (!strcmp(points[j].plot, points[i].plot) &&
				    !strcmp(points[j].series, series[k]))
					fprintf(dat, "%g %g %g %g\n", points[j].x, points[j].y.median,
						points[j].y.min, points[j].y.max);
			fprintf(dat, "\n\n");
		}
		fclose(dat);
		fprintf(gp, "set terminal pngcairo size 900,560\nset output '%s/%s.png'\n"
			    "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n"
			    "set termoption noenhanced\nset key below\nset grid\n",
			dir, points[i].plot, points[i].title, points[i].xlabel, points[i].ylabel);
		write_axes(gp, points[i].plot);
		fprintf(gp, "plot ");
		for (int k = 0; k < nseries; k++)
			fprintf(gp, "%s'%s/%s.dat' index %d using 1:2:3:4 with yerrorlines title '%s'",
				k ? ", \\\n     " : "", dir, points[i].plot, k, series[k]);
		fprintf(gp, "\n");
		fclose(gp);
		if (gnuplot) {
			char cmd[4200];

			snprintf(cmd, sizeof(cmd), "gnuplot '%s/%.47s.gp'", dir, points[i].plot);
			drawn += system(cmd) == 0;
		}
	}
	if (point_count && !gnuplot)
		printf("plots: data and gnuplot scripts in %s/ (install gnuplot-nox to draw them)\n", dir);
	else if (drawn)
		printf("plots: %d PNG files in %s/\n", drawn, dir);
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

void qb_note(const char *fmt, ...)
{
	va_list ap;

	printf("    note: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void qb_progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "quiesce-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
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

const char *qb_kernel_knob(const char *name)
{
	static char values[2][16];
	static int next;
	char path[64], *value = values[next++ % 2];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(value, sizeof(values[0]), f))
		snprintf(value, sizeof(values[0]), "?");
	else
		value[strcspn(value, "\n")] = '\0';
	if (f)
		fclose(f);
	return value;
}

/*
 * The value of cpuinfo's field `key` ("key<tabs>: value") in line, or NULL
 * for another field; the newline is cut off.
 */
static char *cpuinfo_value(char *line, const char *key)
{
	size_t n = strlen(key);
	char *value;

	if (strncmp(line, key, n))
		return NULL;
	value = line + n + strspn(line + n, " \t");	/* "model" is not "model name" */
	if (*value != ':')
		return NULL;
	value += 1 + strspn(value + 1, " ");
	value[strcspn(value, "\n")] = '\0';
	return value;
}

/*
 * The first CPU's brand and, since a virtual machine's brand ("AMD EPYC")
 * does not say which core the host lends it, its family and model (x86)
 * or implementer and part (arm64): what a read pair costs depends on the
 * core (docs/BENCHMARKS.md, "How to read it").
 */
static void cpu_identity(char *out, size_t size)
{
	char brand[200] = "unknown", family[16] = "", model[16] = "";
	char implementer[16] = "", part[16] = "", line[4096], *v;	/* x86's "flags" is long */
	FILE *f = fopen("/proc/cpuinfo", "r");

	/* The first processor's block ends at the first empty line. */
	while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
		if ((v = cpuinfo_value(line, "model name")))
			snprintf(brand, sizeof(brand), "%s", v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			snprintf(family, sizeof(family), "%s", v);
		else if ((v = cpuinfo_value(line, "model")))
			snprintf(model, sizeof(model), "%s", v);
		else if ((v = cpuinfo_value(line, "CPU implementer")))
			snprintf(implementer, sizeof(implementer), "%s", v);
		else if ((v = cpuinfo_value(line, "CPU part")))
			snprintf(part, sizeof(part), "%s", v);
	}
	if (f)
		fclose(f);
	if (family[0])
		snprintf(out, size, "%s (family %s, model %s)", brand, family, model);
	else if (implementer[0])
		snprintf(out, size, "%s (implementer %s, part %s)", brand, implementer, part);
	else
		snprintf(out, size, "%s", brand);
}

static void print_machine(void)
{
	char cpu[256];
	struct utsname uts;
	long membarrier = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	cpu_identity(cpu, sizeof(cpu));
	uname(&uts);
	printf("machine: %s, %ld online CPUs, %s %s %s\n", cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), uts.sysname, uts.release, uts.machine);
	printf("membarrier: %s; grace-period backend: %s\n",
	       membarrier < 0 ? "unavailable" :
	       (membarrier & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ? "global + private expedited" : "global only",
	       quiesce_rcu_backend_name());
	/*
	 * The kernel's own grace periods set what membarrier(GLOBAL) costs,
	 * which rcu_normal rows and liburcu's mb-less flavors pay.
	 */
	printf("kernel: /sys/kernel/rcu_expedited = %s, /sys/kernel/rcu_normal = %s\n",
	       qb_kernel_knob("rcu_expedited"), qb_kernel_knob("rcu_normal"));
	printf("quiesce: %s%s\n", getenv("QUIESCE_RCU_NORMAL") ? "QUIESCE_RCU_NORMAL set; " : "",
	       getenv("QUIESCE_RCU_EXPEDITED") ? "QUIESCE_RCU_EXPEDITED set" : "default knobs");
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
	write_seed_table(dir);
	write_plots(dir);
	printf("\nresults: %s/results.csv, %s/results.json, %s/seeds.csv\n", dir, dir, dir);
}

static int compare_experiments(const void *a, const void *b)
{
	const struct qb_experiment *x = *(const struct qb_experiment *const *)a;
	const struct qb_experiment *y = *(const struct qb_experiment *const *)b;

	return x->order != y->order ? x->order - y->order : strcmp(x->name, y->name);
}

static bool wanted_experiment(const struct qb_experiment *e, const char *const *wanted,
			      int wanted_count)
{
	bool run = wanted_count == 0;

	for (int i = 0; i < wanted_count; i++)
		run |= !strcmp(wanted[i], e->name);
	return run;
}

/*
 * The whole report must fit in TOTAL_BUDGET_S (QUICK_BUDGET_S with --quick)
 * on any machine, whatever its grace periods cost: each experiment run gets
 * an equal share, and no more than one experiment alone would get.
 */
#define TOTAL_BUDGET_S 150.0
#define QUICK_BUDGET_S 36.0
#define ALONE_BUDGET_S 30.0
#define QUICK_ALONE_BUDGET_S 8.0

static uint64_t experiment_budget_ns(bool quick, const char *const *wanted, int wanted_count)
{
	double total = quick ? QUICK_BUDGET_S : TOTAL_BUDGET_S;
	double alone = quick ? QUICK_ALONE_BUDGET_S : ALONE_BUDGET_S;
	int n = 0;

	for (int j = 0; j < experiment_count; j++)
		n += wanted_experiment(experiments[j], wanted, wanted_count);
	if (n > 0 && total / n < alone)
		alone = total / n;
	return (uint64_t)(alone * 1e9);
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
	bool seed_table_printed = false;
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
	opt.budget_ns = experiment_budget_ns(opt.quick, wanted, wanted_count);
	start = qb_now_ns();
	for (int j = 0; j < experiment_count; j++) {
		if (!wanted_experiment(experiments[j], wanted, wanted_count))
			continue;
		if (experiments[j]->order >= 100 && !seed_table_printed) {
			print_seed_table();
			seed_table_printed = true;
		}
		qb_heading("== %s: %s", experiments[j]->name, experiments[j]->title);
		qb_progress("[%.0f s] %s", (qb_now_ns() - start) / 1e9, experiments[j]->name);
		experiments[j]->run(&opt);
	}
	if (!seed_table_printed)
		print_seed_table();
	write_results(out);
	printf("total time: %.1f s\n", (qb_now_ns() - start) / 1e9);
	return 0;
}
