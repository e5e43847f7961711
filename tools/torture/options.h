/* options.h - the command line of quiesce-torture. */
#ifndef QUIESCE_TORTURE_OPTIONS_H
#define QUIESCE_TORTURE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

struct torture_control;

enum torture_fault {
	TORTURE_FAULT_DELAY = 1u << 0,	 /* random delays and yields while holding */
	TORTURE_FAULT_SLEEP = 1u << 1,	 /* readers sleep while holding */
	TORTURE_FAULT_CHURN = 1u << 2,	 /* threads register, work and exit */
	TORTURE_FAULT_FORK = 1u << 3,	 /* fork(); the child tortures too */
	TORTURE_FAULT_SIGNALS = 1u << 4, /* signals delivered to readers */
	TORTURE_FAULT_SHUFFLE = 1u << 5, /* CPU affinity shuffling */
	TORTURE_FAULT_STALL = 1u << 6,	 /* an occasional long reader */
	TORTURE_FAULT_ALL = (1u << 7) - 1,
};

struct torture_options {
	const char *type;
	/* The busted control the type name asked for (NULL: none). */
	const struct torture_control *control;
	uint64_t duration_ns;
	unsigned readers, writers;
	uint64_t seed;
	unsigned faults;		/* TORTURE_FAULT_* */
	bool all_faults;		/* --faults all: those the type supports */
	unsigned faults_excluded;	/* --faults -NAME */
	uint64_t stall_timeout_ms;
	uint64_t status_interval_ns;
	uint64_t join_timeout_ns;	/* how long threads get to finish */
	bool json;
	bool stop_on_violation;
	bool quiet;			/* no status lines or summary (fork child) */
	bool is_child;			/* a fork() child: starts no fork of its own */
};

/* Parses argv; exits with status 2 on a usage error, 0 after --help. */
void torture_parse_options(int argc, char **argv, struct torture_options *opt);

/* "delay,signals": the enabled faults, for reports. */
void torture_faults_string(unsigned faults, char *buf, unsigned len);

#endif
