/*
 * hash_stress.c - the hash-table tests' stress harness (hash_stress.h).
 */
#include "hash_stress.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

#define BUSTED_MIN_RESIZES 100000
#define DEADLINE_NS (240ull * 1000000000ull)

atomic_bool hash_stress_stop;
atomic_ulong hash_stress_violations, hash_stress_lookups, hash_stress_iterations,
	hash_stress_resizes;
static atomic_ulong updaters_done, min_resizes;
static const struct hash_stress *stress;

void hash_item_init(struct hash_item *it, unsigned long key)
{
	it->key = key;
	it->check = ~key;
	it->magic = HASH_ITEM_LIVE;
}

unsigned long hash_item_key(const struct hash_item *it)
{
	return __atomic_load_n(&it->key, __ATOMIC_RELAXED);
}

bool hash_item_intact(const struct hash_item *it, unsigned long key)
{
	return __atomic_load_n(&it->magic, __ATOMIC_RELAXED) == HASH_ITEM_LIVE &&
	       __atomic_load_n(&it->key, __ATOMIC_RELAXED) == key &&
	       __atomic_load_n(&it->check, __ATOMIC_RELAXED) == ~key;
}

void hash_stress_violation(const char *fmt, unsigned long v)
{
	fprintf(stderr, "violation: ");
	fprintf(stderr, fmt, v);
	fputc('\n', stderr);
	atomic_fetch_add(&hash_stress_violations, 1);
}

static uint64_t next_random(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return *rng >> 33;
}

static bool may_stop(void)
{
	return atomic_load(&updaters_done) == stress->updaters &&
	       atomic_load(&hash_stress_resizes) >= atomic_load(&min_resizes) &&
	       atomic_load(&hash_stress_iterations) >= stress->min_iterations &&
	       atomic_load(&hash_stress_lookups) >= stress->min_lookups;
}

static void *reader(void *arg)
{
	const struct hash_stress *s = stress;
	uint64_t rng = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL;

	s->register_thread();
	for (unsigned long i = 0; !atomic_load(&hash_stress_stop); i++) {
		if (s->iterate && i % s->iterate_every == s->iterate_every - 1) {
			s->iterate();
			atomic_fetch_add(&hash_stress_iterations, 1);
		}
		if (s->lookup_batch) {
			if (s->read_lock)
				s->read_lock();
			for (unsigned j = 0; j < s->lookup_batch; j++)
				s->lookup(next_random(&rng) % s->lookup_keys);
			if (s->read_unlock)
				s->read_unlock();
			atomic_fetch_add_explicit(&hash_stress_lookups, s->lookup_batch,
						  memory_order_relaxed);
		}
		if (s->quiescent_state)
			s->quiescent_state();
		if (may_stop())
			atomic_store(&hash_stress_stop, true);
	}
	s->unregister_thread();
	return NULL;
}

static void *updater(void *arg)
{
	const struct hash_stress *s = stress;
	uint64_t rng = (uintptr_t)arg * 0xbf58476d1ce4e5b9ULL;

	s->register_thread();
	for (unsigned long i = 0; i < s->update_ops && !atomic_load(&hash_stress_stop); i++) {
		next_random(&rng);
		s->update((rng >> 33) % s->update_keys, (unsigned)(rng >> 20));
		if (s->quiescent_state)
			s->quiescent_state();
	}
	atomic_fetch_add(&updaters_done, 1);
	s->unregister_thread();
	return NULL;
}

static void *resizer(void *arg)
{
	const struct hash_stress *s = stress;
	uint64_t rng = 12345;

	s->register_thread();
	while (!atomic_load(&hash_stress_stop)) {
		if (s->resize(next_random(&rng)))
			atomic_fetch_add(&hash_stress_resizes, 1);
		if (s->quiescent_state)
			s->quiescent_state();
	}
	s->unregister_thread();
	return NULL;
}

void hash_stress_run(const struct hash_stress *s, bool busted)
{
	pthread_t r[HASH_STRESS_MAX_THREADS], u[HASH_STRESS_MAX_THREADS], z;
	uint64_t deadline = check_now_ns() + DEADLINE_NS;

	CHECK(s->readers <= HASH_STRESS_MAX_THREADS && s->updaters <= HASH_STRESS_MAX_THREADS,
	      "at most %d readers and updaters", HASH_STRESS_MAX_THREADS);
	stress = s;
	atomic_store(&hash_stress_stop, false);
	atomic_store(&hash_stress_violations, 0);
	atomic_store(&hash_stress_lookups, 0);
	atomic_store(&hash_stress_iterations, 0);
	atomic_store(&hash_stress_resizes, 0);
	atomic_store(&updaters_done, 0);
	atomic_store(&min_resizes, busted ? BUSTED_MIN_RESIZES : s->min_resizes);
	for (unsigned i = 0; i < s->readers; i++)
		pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	for (unsigned i = 0; i < s->updaters; i++)
		pthread_create(&u[i], NULL, updater, (void *)(uintptr_t)(i + 1));
	pthread_create(&z, NULL, resizer, NULL);
	check_preempt_start(r, (int)s->readers, 200);
	/* Woken by the timer: the readers end the run, or a violation does. */
	while (!atomic_load(&hash_stress_stop) && !atomic_load(&hash_stress_violations)) {
		CHECK(check_now_ns() < deadline, "hung: %lu lookups, %lu iterations, %lu resizes",
		      atomic_load(&hash_stress_lookups), atomic_load(&hash_stress_iterations),
		      atomic_load(&hash_stress_resizes));
		check_sleep_us(10000);
	}
	atomic_store(&hash_stress_stop, true);
	check_preempt_stop();
	for (unsigned i = 0; i < s->readers; i++)
		check_join_within(r[i], 60000, "reader");
	for (unsigned i = 0; i < s->updaters; i++)
		check_join_within(u[i], 60000, "updater");
	check_join_within(z, 60000, "resizer");
	CHECK(!atomic_load(&hash_stress_violations), "%lu violations",
	      atomic_load(&hash_stress_violations));
}
