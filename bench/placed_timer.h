/*
 * placed_timer.h - one timed loop compiled at many code offsets.
 *
 * A loop of a few nanoseconds an iteration runs at a speed that depends on
 * where its instructions fall in memory, not only on what they are: on the
 * AMD EPYC of our 2-CPU machines, the same read lock+unlock pair took
 * 1.1 ns an iteration at a few offsets and half that or less at most,
 * quiesce's and liburcu's alike.  A program that inlines the pair gets
 * whichever offset its compiler and linker give it.  A bench that times
 * one copy of the loop reports that luck: the quiesce / liburcu read-pair
 * ratio was 0.70 in one build and 1.57 in the next, with the same library
 * code.
 *
 * QB_PLACED_TIMER(name, setup, body...) defines name[], QB_PLACEMENTS copies
 * of one timer, each entered through a different number of no-op
 * instructions (0, 4, ..., 60 of them), which moves the timed loop through
 * its cache line (the compiler still aligns a loop's head: gcc to 8 bytes,
 * so with gcc the 16 copies take 8 offsets).  Each copy runs `setup` once,
 * then `body` `iterations` times, and returns the ns an iteration.
 *
 * qb_placed_ns() times every copy in turns until a deadline and returns the
 * median of the copies' best batches: the speed a program gets at a
 * typical offset, the same for every library measured.
 */
#ifndef QUIESCE_BENCH_PLACED_TIMER_H
#define QUIESCE_BENCH_PLACED_TIMER_H

#include <stdint.h>

#include "bench.h"

#define QB_PLACEMENTS 16

typedef double (*qb_placed_timer)(long iterations);

/* One copy: `pad` no-ops between the function's start and its loop. */
#define QB_PLACED_COPY(name, pad, setup, ...)                                   \
	__attribute__((noinline, aligned(64))) static double name##_at_##pad(long iterations) \
	{                                                                       \
		uint64_t start_;                                                \
                                                                                \
		__asm__ volatile(".rept " #pad "\n\tnop\n\t.endr");             \
		setup;                                                          \
		start_ = qb_now_ns();                                           \
		for (long qb_i_ = 0; qb_i_ < iterations; qb_i_++) {             \
			__VA_ARGS__;                                            \
		}                                                               \
		return (double)(qb_now_ns() - start_) / (double)iterations;     \
	}

#define QB_PLACED_TIMER(name, setup, ...)                                       \
	QB_PLACED_COPY(name, 0, setup, __VA_ARGS__)                             \
	QB_PLACED_COPY(name, 4, setup, __VA_ARGS__)                             \
	QB_PLACED_COPY(name, 8, setup, __VA_ARGS__)                             \
	QB_PLACED_COPY(name, 12, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 16, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 20, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 24, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 28, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 32, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 36, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 40, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 44, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 48, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 52, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 56, setup, __VA_ARGS__)                            \
	QB_PLACED_COPY(name, 60, setup, __VA_ARGS__)                            \
	static const qb_placed_timer name[QB_PLACEMENTS] = {                    \
		name##_at_0, name##_at_4, name##_at_8, name##_at_12,            \
		name##_at_16, name##_at_20, name##_at_24, name##_at_28,         \
		name##_at_32, name##_at_36, name##_at_40, name##_at_44,         \
		name##_at_48, name##_at_52, name##_at_56, name##_at_60,         \
	}

/*
 * ns an iteration: each copy's best batch of `batch` iterations, the
 * copies taken in turns until the deadline (each at least once), then the
 * median over the copies.
 */
double qb_placed_ns(const qb_placed_timer timers[QB_PLACEMENTS], long batch, uint64_t deadline);

#endif
