/*
 * rcuhash.h - between the parts of the rcuhash experiment: lookups and
 * memory (rcuhash.c), the mixes and the growth (rcuhash_updates.c).
 */
#ifndef QUIESCE_BENCH_RCUHASH_H
#define QUIESCE_BENCH_RCUHASH_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "hash_table.h"

#define EXP "rcuhash"
#define CHUNK 64	/* lookups or operations between looks at the clock */

/* The tables compared, quiesce's first, then the peers this build has. */
extern const struct qb_hash_table *const qb_rcuhash_tables[];
extern const size_t qb_rcuhash_ntables;

/* A key for index i: distinct for distinct i (the mix is a bijection). */
static inline uint64_t qb_rcuhash_key(uint64_t i)
{
	return qb_hash_key(i * 2 + 1);
}

/* An equal share of the time left until deadline, and at least min_ns. */
static inline uint64_t qb_rcuhash_share_ns(uint64_t deadline, uint64_t parts, uint64_t min_ns)
{
	uint64_t now = qb_now_ns(), ns = now < deadline ? (deadline - now) / parts : 0;

	return ns > min_ns ? ns : min_ns;
}

/* "1K", "64K", "1M": in a static buffer, for one row at a time. */
const char *qb_rcuhash_size_label(size_t n);

void qb_rcuhash_run_mix(const struct qb_options *opt, uint64_t deadline);
void qb_rcuhash_run_grow(const struct qb_options *opt, size_t n, uint64_t deadline);

#endif
