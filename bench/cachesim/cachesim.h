/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cache simulator core for kcolour-cachesim.  A cache here is three copies
 * of one capacity seeing the same accesses:
 *
 *   - set-associative LRU, the cache being measured;
 *   - fully-associative LRU: what it misses are cold and capacity misses,
 *     so set-associative minus fully-associative misses estimates the
 *     conflict misses that colouring can remove;
 *   - set-associative pseudo-LRU of the same geometry, as hardware does it:
 *     tree-PLRU when the way count is a power of two, bit-PLRU (one MRU
 *     bit a way) otherwise.
 *
 * Beside them, Belady's MIN (cs_min_misses(), and the windowed buffer
 * struct cs_min_window) gives the optimal miss count of a fully-associative
 * cache over a recorded access stream: a true lower bound.
 *
 * No QEMU dependency; tested by test-cachesim.c.
 */
#ifndef KCOLOUR_CACHESIM_H
#define KCOLOUR_CACHESIM_H

#include <stddef.h>
#include <stdint.h>

struct cs_geom {
	uint64_t size;		/* bytes */
	unsigned int ways;
	unsigned int line;	/* bytes */
};

/* Per-region counters of one cache. */
struct cs_counts {
	uint64_t accesses;
	uint64_t sa_miss;	/* set-associative LRU misses */
	uint64_t fa_miss;	/* fully-associative LRU misses */
	uint64_t plru_miss;	/* set-associative PLRU misses */
	uint64_t min_miss;	/* Belady MIN misses (cs_min_flush()) */
	uint64_t inval;		/* lines cs_invalidate() removed (LRU copy) */
};

/* No line: an empty way, or no victim (cs_evicted()). */
#define CS_NO_LINE	UINT64_MAX

/* cs_access() result bits. */
#define CS_SA_MISS	1u
#define CS_FA_MISS	2u
#define CS_PLRU_MISS	4u

enum cs_plru { CS_PLRU_TREE, CS_PLRU_BIT };

struct cs_cache;

/*
 * Check a geometry: non-zero size, ways and line; line and set count
 * powers of two; size a multiple of ways * line (so ways <= lines).
 * Returns 0, or -1 with a message in err.
 */
int cs_geom_check(const struct cs_geom *geom, char *err, size_t errlen);

/* A new, empty cache; NULL with a message in err on bad geometry or ENOMEM. */
struct cs_cache *cs_cache_new(const struct cs_geom *geom, char *err, size_t errlen);
/*
 * The same with only some copies: copies holds CS_FA_MISS and/or
 * CS_PLRU_MISS for the copies kept beside the set-associative LRU one.  A
 * copy not kept costs nothing and never misses.
 */
struct cs_cache *cs_cache_new_copies(const struct cs_geom *geom, unsigned int copies,
				     char *err, size_t errlen);
void cs_cache_free(struct cs_cache *cache);

unsigned int cs_line_shift(const struct cs_cache *cache);

/* Capacity in lines (size / line). */
uint64_t cs_lines(const struct cs_cache *cache);

/* The PLRU kind of the cache's PLRU copy: tree iff ways is a power of two. */
enum cs_plru cs_plru_kind(const struct cs_cache *cache);

/*
 * One access to the line holding addr, in all three copies.  Counted in
 * *counts unless counts is NULL (the copies' state changes either way).
 * Returns CS_SA_MISS, CS_FA_MISS and/or CS_PLRU_MISS.
 */
unsigned int cs_access(struct cs_cache *cache, uint64_t addr,
		       struct cs_counts *counts);

/*
 * The line number (address >> line shift) that the set-associative LRU
 * copy evicted on the latest cs_access(), or CS_NO_LINE: a hit, or a miss
 * that filled an empty way.  With the fully-associative copy's verdict it
 * names both sides of a conflict miss.
 */
uint64_t cs_evicted(const struct cs_cache *cache);

/*
 * Remove the line holding addr from all three copies (a coherence
 * invalidation).  Returns 1 if the set-associative LRU copy held it, else
 * 0; the other copies may differ.  Counts nothing: the caller knows the
 * region.
 */
int cs_invalidate(struct cs_cache *cache, uint64_t addr);

/*
 * Belady's MIN: the misses of an optimal fully-associative cache of
 * capacity lines, starting empty, over lines[0..n-1] (line numbers, not
 * addresses).  On a miss with the cache full it evicts the line whose next
 * use is furthest away (never used again first).  If missed is not NULL,
 * missed[i] is set to 1 if access i misses, else 0.  O(n log capacity)
 * time, 12-20 bytes per access of scratch memory.  capacity 0 misses
 * everything.  Returns UINT64_MAX if out of memory or n >= 2^32 - 1.
 */
uint64_t cs_min_misses(const uint64_t *lines, size_t n, size_t capacity,
		       uint8_t *missed);

/*
 * A window of one cache's access stream for MIN: cs_min_add() records an
 * access (line number and a tag, a region say) and returns 1 when the
 * window is full; cs_min_flush() then runs MIN over it from an empty cache
 * and empties it.  An access to the line of the window's previous access
 * is not recorded: MIN hits it whatever the cache, and it changes no
 * decision.
 */
struct cs_min_window {
	uint64_t *line;
	uint8_t *tag;
	size_t n, size;
	uint64_t capacity;	/* lines */
};

/* 0, or -1 if out of memory; size is the window in recorded accesses, > 0. */
int cs_min_init(struct cs_min_window *w, size_t size, uint64_t capacity);
void cs_min_free(struct cs_min_window *w);

static inline int cs_min_add(struct cs_min_window *w, uint64_t line, uint8_t tag)
{
	if (w->n && w->line[w->n - 1] == line)
		return 0;
	w->line[w->n] = line;
	w->tag[w->n] = tag;
	return ++w->n == w->size;
}

/* Forget the recorded accesses. */
static inline void cs_min_reset(struct cs_min_window *w)
{
	w->n = 0;
}

/*
 * Run MIN over the window from an empty cache and empty it: each miss adds
 * 1 to by_tag[tag].min_miss, and max(0, misses - capacity) is added to
 * *bound.  Summed over the windows of a stream, *bound is a lower bound on
 * the misses of any cache of this capacity over that stream, whatever its
 * state at the start (see README.md).  0, or -1 if out of memory (the
 * window is emptied and nothing counted).
 */
int cs_min_flush(struct cs_min_window *w, struct cs_counts *by_tag, uint64_t *bound);

#endif /* KCOLOUR_CACHESIM_H */
