/*
 * placed_timer.c - the median over a placed timer's copies (placed_timer.h).
 */
#include "placed_timer.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double qb_placed_ns(const qb_placed_timer timers[QB_PLACEMENTS], long batch, uint64_t deadline)
{
	double best[QB_PLACEMENTS];

	for (int p = 0; p < QB_PLACEMENTS; p++)
		best[p] = timers[p](batch);
	/* In turns, so that a slow stretch of the machine falls on every copy. */
	while (qb_now_ns() < deadline) {
		for (int p = 0; p < QB_PLACEMENTS; p++) {
			double ns = timers[p](batch);

			if (ns < best[p])
				best[p] = ns;
		}
	}
	qsort(best, QB_PLACEMENTS, sizeof(best[0]), compare_doubles);
	return (best[QB_PLACEMENTS / 2 - 1] + best[QB_PLACEMENTS / 2]) / 2;
}
