/*
 * urcu/uatomic.h, arch.h, system.h, compiler.h and tls-compat.h as
 * liburcu's users rely on them: the return value of each operation (cmpxchg
 * the value found, xchg the old one, add_return the new one), every size
 * liburcu supports, pointers, the optional memory orders, the shared
 * accessors, container_of, min/max, URCU_TLS, URCU_GCC_VERSION.  Then
 * atomicity: threads that increment, add, cmpxchg-increment and or-in bits
 * concurrently lose none of it, and a message passed with the
 * release/acquire forms (and with the cmm_smp_* fences around the plain
 * forms) is seen whole; the busted control (a non-atomic increment) must
 * be caught losing counts.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <urcu/arch.h>
#include <urcu/compiler.h>
#include <urcu/system.h>
#include <urcu/tls-compat.h>
#include <urcu/uatomic.h>

#include "check.h"

/* liburcu's compiler.h gives the version as one number; programs test it. */
#if !defined(URCU_GCC_VERSION) ||                                                 \
	URCU_GCC_VERSION != __GNUC__ * 10000 + __GNUC_MINOR__ * 100 + __GNUC_PATCHLEVEL__
#error "URCU_GCC_VERSION"
#endif

/* A load through a pointer to const must build cleanly, as liburcu's do. */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

#define THREADS 4
#define ROUNDS 50000

#define CHECK_RETURNS(type)                                                    \
	do {                                                                   \
		type v = 5;                                                    \
		const volatile type *cv = &v;                                  \
		CHECK(uatomic_read(&v) == 5, #type " read");                   \
		CHECK(uatomic_read(cv) == 5 && uatomic_load(cv, CMM_ACQUIRE) == 5 && \
			      CMM_LOAD_SHARED(*cv) == 5,                       \
		      #type " loads through a pointer to const");              \
		uatomic_set(&v, 7);                                            \
		CHECK(uatomic_load(&v, CMM_ACQUIRE) == 7, #type " set");       \
		CHECK(uatomic_cmpxchg(&v, 7, 9) == 7 && v == 9, #type " cmpxchg hit"); \
		CHECK(uatomic_cmpxchg(&v, 7, 11) == 9 && v == 9, #type " cmpxchg miss"); \
		CHECK(uatomic_xchg(&v, 3) == 9 && v == 3, #type " xchg");      \
		CHECK(uatomic_add_return(&v, 4) == 7, #type " add_return");    \
		CHECK(uatomic_sub_return(&v, 2) == 5, #type " sub_return");    \
		uatomic_add(&v, 10);                                           \
		uatomic_sub(&v, 3);                                            \
		uatomic_inc(&v);                                               \
		uatomic_dec(&v);                                               \
		uatomic_dec(&v);                                               \
		CHECK(v == 11, #type " add/sub/inc/dec gave %d", (int)v);      \
		uatomic_and(&v, 0x9);                                          \
		uatomic_or(&v, 0x4);                                           \
		CHECK(v == 0xd, #type " and/or gave %d", (int)v);              \
		uatomic_store(&v, 1, CMM_RELEASE);                             \
		CHECK(uatomic_cmpxchg_mo(&v, 1, 2, CMM_ACQ_REL, CMM_ACQUIRE) == 1, #type " cmpxchg_mo"); \
		CHECK(uatomic_xchg_mo(&v, 4, CMM_RELAXED) == 2, #type " xchg_mo"); \
		CHECK(uatomic_add_return(&v, 1, CMM_SEQ_CST) == 5, #type " add_return with an order"); \
	} while (0)

struct outer {
	int a;
	long member;
};

/* Message passing: the payload is written before the flag, read after it. */
static unsigned long payload[4];
static int flag;

/*
 * The sizes the operations support, as liburcu's feature macros say: x86
 * defines UATOMIC_HAS_ATOMIC_BYTE and _SHORT (0.13-0.15) and _INT and
 * _LLONG (0.15), and programs test them before they use the sizes, as
 * liburcu's own test_uatomic does (without them, it skips those sizes).
 */
static const int uatomic_has_sizes =
#ifdef UATOMIC_HAS_ATOMIC_BYTE
	1 |
#endif
#ifdef UATOMIC_HAS_ATOMIC_SHORT
	2 |
#endif
#ifdef UATOMIC_HAS_ATOMIC_INT
	4 |
#endif
#ifdef UATOMIC_HAS_ATOMIC_LLONG
	8 |
#endif
	0;

/*
 * Shared accesses to objects no atomic instruction covers: liburcu's are
 * volatile accesses of any type; these must build and link with no
 * libatomic, and keep their values.
 */
struct three_ints {
	int a, b, c;
};

static void shared_odd_sizes(void)
{
	struct three_ints t = { 1, 2, 3 }, u;
	long double ld = 2.5L, ld2;
	volatile long double vld = 1.25L;

	u = CMM_LOAD_SHARED(t);
	CHECK(u.a == 1 && u.b == 2 && u.c == 3, "CMM_LOAD_SHARED of a 12-byte struct");
	u.c = 9;
	u = CMM_STORE_SHARED(t, u);
	CHECK(t.c == 9 && u.c == 9 && _CMM_LOAD_SHARED(t).c == 9, "CMM_STORE_SHARED of a 12-byte struct");
	_CMM_STORE_SHARED(t, u);
	ld2 = CMM_STORE_SHARED(ld, 4.5L);
	CHECK(ld2 == 4.5L && CMM_LOAD_SHARED(ld) == 4.5L, "shared accesses to a long double");
	CMM_STORE_SHARED(vld, CMM_LOAD_SHARED(vld) * 2);
	CHECK(uatomic_read(&vld) == 2.5L, "shared accesses to a volatile long double");
	uatomic_set(&ld, 3.5L);
	uatomic_store(&vld, 0.5L, CMM_RELEASE);
	CHECK(ld == 3.5L && vld == 0.5L, "uatomic_set() and uatomic_store() of a long double");
}

DEFINE_URCU_TLS(int, tls_counter);
DEFINE_URCU_TLS_INIT(int, tls_init, 42);

static void single_thread(void)
{
	int shared = 0;
	struct outer o;
	void *p = &o, *q = &shared;

	CHECK_RETURNS(unsigned char);
	CHECK_RETURNS(short);
	CHECK_RETURNS(int);
	CHECK_RETURNS(unsigned long);
	CHECK_RETURNS(long long);

	CHECK(uatomic_cmpxchg(&p, (void *)&o, q) == &o && p == q, "pointer cmpxchg");
	CHECK(uatomic_xchg(&p, NULL) == q && p == NULL, "pointer xchg");

	CMM_STORE_SHARED(shared, 3);
	CHECK(CMM_LOAD_SHARED(shared) == 3 && CMM_ACCESS_ONCE(shared) == 3, "shared accessors");
	CHECK(CMM_STORE_SHARED(shared, 4) == 4, "CMM_STORE_SHARED yields the value");
	CHECK(caa_container_of(&o.member, struct outer, member) == &o, "caa_container_of");
	CHECK(caa_max(3, 9) == 9 && caa_min(3, 9) == 3, "caa_max / caa_min");
	CHECK(caa_likely(1) && !caa_unlikely(0), "branch hints keep values");
	CHECK(CAA_CACHE_LINE_SIZE >= 64 && CAA_BITS_PER_LONG == 8 * sizeof(long), "sizes");
	CHECK(CAA_ARRAY_SIZE(payload) == 4, "CAA_ARRAY_SIZE");
#if defined(__x86_64__) || defined(__i386__)
	/* liburcu's value: structs aligned with it keep one layout. */
	CHECK(CAA_CACHE_LINE_SIZE == 128, "CAA_CACHE_LINE_SIZE is %d", CAA_CACHE_LINE_SIZE);
#endif
	CHECK(uatomic_has_sizes == (1 | 2 | 4 | 8), "UATOMIC_HAS_ATOMIC_BYTE/SHORT/INT/LLONG: %#x",
	      uatomic_has_sizes);
	shared_odd_sizes();
	CHECK(URCU_TLS(tls_init) == 42 && URCU_TLS(tls_counter) == 0, "URCU_TLS");
	CHECK(caa_get_cycles() != 0 || caa_get_cycles() != 0, "caa_get_cycles counts");
	cmm_smp_mb();
	cmm_smp_rmb();
	cmm_smp_wmb();
	cmm_smp_mc();
	cmm_smp_rmc();
	cmm_smp_wmc();
	cmm_smp_read_barrier_depends();
	cmm_barrier();
	caa_cpu_relax();
}

static unsigned long counter, added, cas_counter, bits;
static bool busted;

static void *hammer(void *arg)
{
	int id = (int)(intptr_t)arg;

	URCU_TLS(tls_counter) = id;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long old, seen;

		if (busted) {
			/* Not atomic: a load and a store, which lose increments. */
			unsigned long v = uatomic_read(&counter);

			caa_cpu_relax();
			uatomic_set(&counter, v + 1);
		} else {
			uatomic_inc(&counter);
		}
		cmm_smp_mb__before_uatomic_add();
		uatomic_add(&added, 3);
		cmm_smp_mb__after_uatomic_add();
		old = uatomic_read(&cas_counter);
		while ((seen = uatomic_cmpxchg(&cas_counter, old, old + 1)) != old)
			old = seen;
		uatomic_or(&bits, 1UL << ((id * ROUNDS + i) % 64));
	}
	CHECK(URCU_TLS(tls_counter) == id, "thread-local variable shared");
	return NULL;
}

static unsigned long run_hammer(void)
{
	pthread_t t[THREADS];

	counter = added = cas_counter = bits = 0;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return counter;
}


static void *consumer(void *arg)
{
	for (int round = 1; round <= 2000; round++) {
		while (uatomic_load(&flag, CMM_ACQUIRE) != round)
			caa_cpu_relax();
		for (int i = 0; i < 4; i++)
			CHECK(CMM_LOAD_SHARED(payload[i]) == (unsigned long)round * (i + 1),
			      "a message seen before its payload");
		uatomic_set(&flag, -round);
	}
	return NULL;
}

static void message_passing(void)
{
	pthread_t t;

	pthread_create(&t, NULL, consumer, NULL);
	for (int round = 1; round <= 2000; round++) {
		for (int i = 0; i < 4; i++)
			CMM_STORE_SHARED(payload[i], (unsigned long)round * (i + 1));
		if (round % 2) {
			uatomic_store(&flag, round, CMM_RELEASE);
		} else {
			cmm_smp_wmb();
			uatomic_set(&flag, round);
		}
		while (uatomic_read(&flag) != -round)
			caa_cpu_relax();
		cmm_smp_mb();
	}
	pthread_join(t, NULL);
}

static void busted_child(void *arg)
{
	busted = true;
	/* Caught: counts lost; or given enough tries to lose some. */
	for (int tries = 0; tries < 50; tries++) {
		if (run_hammer() != (unsigned long)THREADS * ROUNDS)
			check_child_exit(1);
	}
	check_child_exit(0);
}

int main(void)
{
	single_thread();
	CHECK(run_hammer() == (unsigned long)THREADS * ROUNDS, "increments lost: %lu", counter);
	CHECK(added == 3UL * THREADS * ROUNDS, "adds lost: %lu", added);
	CHECK(cas_counter == (unsigned long)THREADS * ROUNDS, "cmpxchg increments lost");
	CHECK(bits == ~0UL, "or lost bits: %#lx", bits);
	message_passing();
	check_child_detects_violation(busted_child, NULL);
	printf("uatomic: all checks passed\n");
	return 0;
}
