/*
 * options.c - parsing the command line and documenting it.
 */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "type_table.h"

#define DEFAULT_DURATION_NS (60ull * 1000000000u)
#define DEFAULT_WRITERS 2
#define DEFAULT_STALL_TIMEOUT_MS 200
#define DEFAULT_STATUS_INTERVAL_NS (5ull * 1000000000u)
#define DEFAULT_JOIN_TIMEOUT_NS (10ull * 1000000000u)

static const struct {
	const char *name;
	unsigned bit;
	const char *doc;
} fault_table[] = {
	{ "delay", TORTURE_FAULT_DELAY,
	  "random delays and yields inside read-side sections and between\n"
	  "                       acquire and release" },
	{ "sleep", TORTURE_FAULT_SLEEP,
	  "readers sleep while holding (only where the primitive allows it:\n"
	  "                       lock types, never inside an RCU read-side section)" },
	{ "churn", TORTURE_FAULT_CHURN,
	  "short-lived threads register, read and exit, half of them\n"
	  "                       without unregistering" },
	{ "fork", TORTURE_FAULT_FORK,
	  "fork() in the middle of the run; the child runs a 1 s torture of\n"
	  "                       its own and must pass" },
	{ "signals", TORTURE_FAULT_SIGNALS,
	  "SIGUSR1 delivered to readers; RCU types read inside the handler,\n"
	  "                       other types sleep in it (a preemption at a random point)" },
	{ "shuffle", TORTURE_FAULT_SHUFFLE, "move readers and writers between CPUs" },
	{ "stall", TORTURE_FAULT_STALL,
	  "an occasional long reader (RCU types); with a short stall timeout,\n"
	  "                       a grace period that waits for it must warn, naming it" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: quiesce-torture --type TYPE [options]\n"
		"\n"
		"Hammers one quiesce primitive with concurrent readers and writers that\n"
		"check its guarantees, and injects faults.  Exits 0 only when no violation\n"
		"was seen, every thread finished and the run did what its checks need\n"
		"(reads overlapping updates, each fault injected); 1 otherwise; 2 on a\n"
		"usage error.\n"
		"\n"
		"Options:\n"
		"  -t, --type TYPE      the primitive to torture (see Types below)\n"
		"  -d, --duration D     how long to run: 90, 90s, 500ms, 10m, 2h (default 60s)\n"
		"  -r, --readers N      reader threads (default: online CPUs, at least 2)\n"
		"  -w, --writers N      writer threads (default %d)\n"
		"  -s, --seed S         random seed, printed so a run can be repeated\n"
		"                       (default: from the clock); thread timing still varies\n"
		"  -f, --faults LIST    comma-separated faults to inject; 'all' for every\n"
		"                       fault the type supports, '-NAME' to leave one out\n"
		"                       (all,-fork); default: none\n"
		"      --stall-timeout MS  the stall timeout set for the stall fault\n"
		"                       (default %d); a long reader holds 8 times as long\n"
		"  -i, --status-interval D  time between status lines (default 5s)\n"
		"      --join-timeout D  how long writers, then the other threads, then the\n"
		"                       type's final checks each get to finish once the run\n"
		"                       ends (default 10s); any still running fails the run\n"
		"  -j, --json           print the final summary as one JSON object on stdout\n"
		"  -x, --stop-on-violation  end the run at the first violation\n"
		"  -l, --list           list the types and exit\n"
		"  -h, --help           this text\n"
		"\n"
		"Faults:\n",
		DEFAULT_WRITERS, DEFAULT_STALL_TIMEOUT_MS);
	for (size_t i = 0; i < sizeof(fault_table) / sizeof(fault_table[0]); i++)
		fprintf(out, "  %-20s %s\n", fault_table[i].name, fault_table[i].doc);
	fprintf(out, "\nTypes, each with its busted controls (a deliberately broken primitive\n"
		     "that must fail within seconds; TYPE-busted is the first):\n");
	torture_type_list(out);
	fprintf(out,
		"\nA status line goes to stderr every interval: elapsed time, read-side and\n"
		"update operations, grace periods, violations so far.\n");
}

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "quiesce-torture: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'quiesce-torture --help'.\n");
	exit(2);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 0);
	return *end == '\0';
}

static uint64_t parse_duration(const char *s)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ms", 1000000ull }, { "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull }, { "", 1000000000ull },
	};
	char *end;
	double v = strtod(s, &end);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (end != s && v > 0 && strcmp(end, units[i].suffix) == 0)
			return (uint64_t)(v * (double)units[i].ns);
	}
	usage_error("invalid duration '%s'", s);
	return 0;
}

static unsigned parse_count(const char *s, const char *what)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v == 0 || v > 1024)
		usage_error(what, s);
	return (unsigned)v;
}

static void parse_faults(const char *list, struct torture_options *opt)
{
	char *copy = strdup(list), *save = NULL;

	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		bool exclude = name[0] == '-';
		size_t i;

		name += exclude;
		if (strcmp(name, "all") == 0 && !exclude) {
			opt->all_faults = true;
			continue;
		}
		for (i = 0; i < sizeof(fault_table) / sizeof(fault_table[0]); i++)
			if (strcmp(name, fault_table[i].name) == 0)
				break;
		if (i == sizeof(fault_table) / sizeof(fault_table[0]))
			usage_error("unknown fault '%s'", name);
		if (exclude)
			opt->faults_excluded |= fault_table[i].bit;
		else
			opt->faults |= fault_table[i].bit;
	}
	free(copy);
}

void torture_faults_string(unsigned faults, char *buf, unsigned len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(fault_table) / sizeof(fault_table[0]); i++) {
		if (!(faults & fault_table[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "," : "", fault_table[i].name);
	}
}

void torture_parse_options(int argc, char **argv, struct torture_options *opt)
{
	enum { OPT_STALL_TIMEOUT = 256, OPT_JOIN_TIMEOUT };
	static const struct option longopts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "faults", required_argument, NULL, 'f' },
		{ "stall-timeout", required_argument, NULL, OPT_STALL_TIMEOUT },
		{ "status-interval", required_argument, NULL, 'i' },
		{ "join-timeout", required_argument, NULL, OPT_JOIN_TIMEOUT },
		{ "json", no_argument, NULL, 'j' },
		{ "stop-on-violation", no_argument, NULL, 'x' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	*opt = (struct torture_options){
		.duration_ns = DEFAULT_DURATION_NS,
		.readers = cpus > 2 ? (unsigned)cpus : 2,
		.writers = DEFAULT_WRITERS,
		.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
		.stall_timeout_ms = DEFAULT_STALL_TIMEOUT_MS,
		.status_interval_ns = DEFAULT_STATUS_INTERVAL_NS,
		.join_timeout_ns = DEFAULT_JOIN_TIMEOUT_NS,
	};
	while ((c = getopt_long(argc, argv, "t:d:r:w:s:f:i:jxlh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			opt->type = optarg;
			break;
		case 'd':
			opt->duration_ns = parse_duration(optarg);
			break;
		case 'r':
			opt->readers = parse_count(optarg, "--readers wants 1 to 1024, not '%s'");
			break;
		case 'w':
			opt->writers = parse_count(optarg, "--writers wants 1 to 1024, not '%s'");
			break;
		case 's':
			if (!parse_u64(optarg, &opt->seed))
				usage_error("invalid seed '%s'", optarg);
			break;
		case 'f':
			parse_faults(optarg, opt);
			break;
		case OPT_STALL_TIMEOUT:
			if (!parse_u64(optarg, &opt->stall_timeout_ms) || !opt->stall_timeout_ms)
				usage_error("invalid stall timeout '%s'", optarg);
			break;
		case 'i':
			opt->status_interval_ns = parse_duration(optarg);
			break;
		case OPT_JOIN_TIMEOUT:
			opt->join_timeout_ns = parse_duration(optarg);
			break;
		case 'j':
			opt->json = true;
			break;
		case 'x':
			opt->stop_on_violation = true;
			break;
		case 'l':
			torture_type_list(stdout);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try 'quiesce-torture --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!opt->type)
		usage_error("%s", "--type is required");
}
