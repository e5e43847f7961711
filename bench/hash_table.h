/*
 * hash_table.h - one hash table as the rcuhash experiment sees it, so that
 * quiesce's table and its peers run the same measurement code.  Keys are
 * 64-bit integers; each table allocates and frees its own elements.
 */
#ifndef QUIESCE_BENCH_HASH_TABLE_H
#define QUIESCE_BENCH_HASH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qb_hash_table {
	const char *name;
	bool single_writer;		/* one updater at a time (ck_hs) */
	size_t elem_bytes;		/* what each element's malloc() asks for */
	size_t link_bytes;		/* of which the table's link (node) */
	bool deferred_free;		/* removals free after a grace period */
	void (*thread_online)(void);	/* before a thread's first use */
	void (*thread_offline)(void);
	/* presize 0: start small and let the table resize itself. */
	void *(*create)(size_t presize);
	/* Removes and frees every element, then the table. */
	void (*destroy)(void *table);
	/*
	 * Before a row or a repetition is timed: waits out the work the
	 * table's earlier updates left in the background (a resize that runs
	 * from callbacks, elements queued for freeing after a grace period),
	 * so that no measurement pays for another's.  NULL: the table leaves
	 * none.
	 */
	void (*settle)(void *table);
	bool (*insert)(void *table, uint64_t key);
	bool (*remove)(void *table, uint64_t key);
	/*
	 * n lookups of keys[(first + i) & mask], each in its own read-side section
	 * (or read lock); returns how many found their key.  Inlined in each
	 * table's file, as its users would write it.
	 */
	long (*lookups)(void *table, const uint64_t *keys, size_t mask, size_t first, long n);
};

extern const struct qb_hash_table qb_hash_quiesce;
extern const struct qb_hash_table qb_hash_rwlock;
#ifdef QUIESCE_HAVE_URCU
extern const struct qb_hash_table qb_hash_urcu_lfht;
#endif
#ifdef QUIESCE_HAVE_CK
extern const struct qb_hash_table qb_hash_ck_hs;
#endif

/* The hash every table uses: quiesce_rcuhash_hash_bytes() on 8 bytes. */
static inline uint64_t qb_hash_key(uint64_t key)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ 8 ^ key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

#endif
