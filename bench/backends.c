/*
 * backends: grace-period latency on each heavy-barrier backend.
 *
 * synchronize_rcu() and synchronize_rcu_expedited(), median and p99, with
 * 0, 1 and 2 busy reader threads, on membarrier, mprotect (x86 only) and
 * the signal handshake, beside liburcu's memb synchronize_rcu().
 *
 * The library chooses its backend once, at start-up, so each backend runs
 * in a child: this program again (/proc/self/exe), with
 * QUIESCE_RCU_BACKEND set and QB_BACKENDS_CHILD="<repetitions> <calls>
 * <deadline ns>".  A constructor here sees that variable before main()
 * runs, measures, writes one line per repetition to stdout and exits; the
 * parent records the lines.  A child whose library fell back to another
 * backend (mprotect off x86) says so, and its rows are left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <quiesce/rcu.h>

#include "bench.h"
#include "rcu_flavor.h"
#include "sync_latency.h"

#define EXP "backends"
#define CHILD_ENV "QB_BACKENDS_CHILD"
#define MAX_READERS 2

extern char **environ;

static const char *const backends[] = { "membarrier", "mprotect", "signal" };
#define BACKENDS (sizeof(backends) / sizeof(backends[0]))

static const struct qb_rcu_flavor *const kinds[] = { &qb_quiesce_rcu, &qb_quiesce_rcu_expedited };
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))

/*
 * The child: every kind and reader count, each given an equal share of the
 * time left.  Lines: "backend <name>", then "<kind> <readers> <calls timed>
 * <median us> <p99 us>" per repetition.
 */
__attribute__((constructor)) static void backends_child(void)
{
	const char *spec = getenv(CHILD_ENV);
	int reps, calls;
	unsigned long long deadline;
	uint64_t start, share;
	int rows = (int)KINDS * (MAX_READERS + 1), row = 0;

	if (!spec)
		return;
	if (sscanf(spec, "%d %d %llu", &reps, &calls, &deadline) != 3 || reps < 1 || calls < 1) {
		fprintf(stderr, "quiesce-bench: bad %s=%s\n", CHILD_ENV, spec);
		_exit(2);
	}
	start = qb_now_ns();
	share = deadline > start ? (deadline - start) / (uint64_t)(rows * reps) : 0;
	printf("backend %s\n", quiesce_rcu_backend_name());
	for (size_t k = 0; k < KINDS; k++) {
		for (int readers = 0; readers <= MAX_READERS; readers++) {
			for (int r = 0; r < reps; r++, row++) {
				double median, p99;
				int n = qb_sync_latency(kinds[k], readers, calls,
						start + share * (uint64_t)(row + 1), &median, &p99);

				printf("%zu %d %d %.3f %.3f\n", k, readers, n, median, p99);
			}
		}
	}
	fflush(stdout);
	_exit(0);
}

static char subject_buf[BACKENDS][KINDS][96];

static const char *subject(size_t backend, size_t kind)
{
	snprintf(subject_buf[backend][kind], sizeof(subject_buf[0][0]), "%s (%s)",
		 kinds[kind]->name, backends[backend]);
	return subject_buf[backend][kind];
}

static void metric(char *out, size_t cap, const char *what, int readers)
{
	snprintf(out, cap, "%s, %d readers", what, readers);
}

/*
 * Runs one backend's child until deadline and records its rows.  Returns
 * false when its library chose another backend.
 */
static bool run_backend(const struct qb_options *opt, size_t b, int calls, uint64_t deadline)
{
	int reps = opt->repetitions;
	double medians[KINDS][MAX_READERS + 1][reps], p99s[KINDS][MAX_READERS + 1][reps];
	int filled[KINDS][MAX_READERS + 1], fewest[KINDS][MAX_READERS + 1];
	char spec[96], backend_env[64], line[160], chosen[32] = "";
	size_t envc = 0;
	int fds[2], status;
	pid_t pid;
	FILE *in;

	while (environ[envc])
		envc++;
	char *envp[envc + 3];
	size_t j = 0;

	for (size_t i = 0; i < envc; i++) {
		if (strncmp(environ[i], "QUIESCE_RCU_BACKEND=", 20) &&
		    strncmp(environ[i], CHILD_ENV "=", sizeof(CHILD_ENV)))
			envp[j++] = environ[i];
	}
	snprintf(spec, sizeof(spec), CHILD_ENV "=%d %d %llu", reps, calls,
		 (unsigned long long)deadline);
	snprintf(backend_env, sizeof(backend_env), "QUIESCE_RCU_BACKEND=%s", backends[b]);
	envp[j++] = spec;
	envp[j++] = backend_env;
	envp[j] = NULL;

	if (pipe(fds)) {
		fprintf(stderr, "quiesce-bench: pipe: %s\n", strerror(errno));
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "quiesce-bench", NULL };

		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	close(fds[1]);
	memset(filled, 0, sizeof(filled));
	for (size_t k = 0; k < KINDS; k++)
		for (int r = 0; r <= MAX_READERS; r++)
			fewest[k][r] = calls;
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		size_t k;
		int readers, n;
		double median, p99;

		if (sscanf(line, "backend %31s", chosen) == 1)
			continue;
		if (sscanf(line, "%zu %d %d %lf %lf", &k, &readers, &n, &median, &p99) != 5 ||
		    k >= KINDS || readers < 0 || readers > MAX_READERS || filled[k][readers] >= reps)
			continue;
		medians[k][readers][filled[k][readers]] = median;
		p99s[k][readers][filled[k][readers]++] = p99;
		if (n < fewest[k][readers])
			fewest[k][readers] = n;
	}
	if (in)
		fclose(in);
	waitpid(pid, &status, 0);
	if (strcmp(chosen, backends[b])) {
		printf("%s: not valid on this machine (the library chose %s), left out\n",
		       backends[b], chosen[0] ? chosen : "nothing");
		return false;
	}
	for (size_t k = 0; k < KINDS; k++) {
		for (int r = 0; r <= MAX_READERS; r++) {
			char m50[48], m99[48];

			if (filled[k][r] < reps) {
				printf("%s, %d readers: the child gave %d of %d repetitions\n",
				       subject(b, k), r, filled[k][r], reps);
				if (!filled[k][r])
					continue;
			}
			if (fewest[k][r] < calls)
				printf("%s, %d readers: projected from %d of %d calls per repetition\n",
				       subject(b, k), r, fewest[k][r], calls);
			metric(m50, sizeof(m50), "median", r);
			metric(m99, sizeof(m99), "p99", r);
			qb_plot_point("backends-sync-latency", "grace-period latency by backend, median",
				      "busy reader threads", "microseconds", subject(b, k), r,
				      qb_record(EXP, subject(b, k), m50, "us", medians[k][r],
						filled[k][r]));
			qb_record(EXP, subject(b, k), m99, "us", p99s[k][r], filled[k][r]);
		}
	}
	return true;
}

#ifdef QUIESCE_HAVE_URCU
static void run_urcu(const struct qb_options *opt, int calls, uint64_t deadline)
{
	int reps = opt->repetitions;
	uint64_t start = qb_now_ns();
	uint64_t share = deadline > start ? (deadline - start) / (uint64_t)(3 * reps) : 0;

	for (int r = 0, row = 0; r <= MAX_READERS; r++) {
		double medians[reps], p99s[reps];
		char m50[48], m99[48];
		int fewest = calls;

		for (int i = 0; i < reps; i++, row++) {
			int n = qb_sync_latency(&qb_urcu_memb, r, calls, start + share * (uint64_t)(row + 1),
					&medians[i], &p99s[i]);

			if (n < fewest)
				fewest = n;
		}
		if (fewest < calls)
			printf("%s, %d readers: projected from %d of %d calls per repetition\n",
			       qb_urcu_memb.name, r, fewest, calls);
		metric(m50, sizeof(m50), "median", r);
		metric(m99, sizeof(m99), "p99", r);
		qb_plot_point("backends-sync-latency", "grace-period latency by backend, median",
			      "busy reader threads", "microseconds", qb_urcu_memb.name, r,
			      qb_record(EXP, qb_urcu_memb.name, m50, "us", medians, reps));
		qb_record(EXP, qb_urcu_memb.name, m99, "us", p99s, reps);
	}
}
#endif

static void print_rcu_expedited(void)
{
	printf("/sys/kernel/rcu_expedited = %s (membarrier(GLOBAL) waits for the kernel's "
	       "grace period, which this knob expedites)\n", qb_kernel_knob("rcu_expedited"));
}

static void run_backends(const struct qb_options *opt)
{
	int calls = opt->quick ? 60 : 300;
	uint64_t start = qb_now_ns();
	bool measured[BACKENDS];

	print_rcu_expedited();
#ifndef QUIESCE_HAVE_URCU
	qb_missing_peer(EXP, "liburcu", "liburcu-dev");
#endif
	qb_heading("synchronize latency by backend, with 0-%d busy reader threads", MAX_READERS);
	for (size_t b = 0; b < BACKENDS; b++) {
		qb_progress("backends: %s (a child process)", backends[b]);
		measured[b] = run_backend(opt, b, calls, qb_deadline(opt, start, 0.28 * (double)(b + 1)));
	}
#ifdef QUIESCE_HAVE_URCU
	qb_progress("backends: liburcu memb");
	run_urcu(opt, calls, qb_deadline(opt, start, 1.0));
	for (size_t b = 0; b < BACKENDS; b++) {
		for (size_t k = 0; measured[b] && k < KINDS; k++) {
			for (int r = 0; r <= MAX_READERS; r++) {
				char m50[48];

				metric(m50, sizeof(m50), "median", r);
				qb_ratio(EXP, m50, subject(b, k), qb_urcu_memb.name, NULL);
			}
		}
	}
#else
	(void)measured;
#endif
}

QB_EXPERIMENT(backends_experiment, .name = "backends",
	      .title = "grace-period latency on each barrier backend (membarrier, mprotect, "
		       "signal) against liburcu memb",
	      .order = 101, .run = run_backends);
