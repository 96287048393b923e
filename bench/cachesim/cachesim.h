/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cache simulator core for kcolour-cachesim: a set-associative LRU cache
 * and, beside it, a fully-associative LRU cache of the same capacity.  The
 * fully-associative one is the conflict-free bound: what it misses are
 * cold and capacity misses, so set-associative misses minus
 * fully-associative misses are the conflict misses that colouring can
 * remove.  No QEMU dependency; tested by test-cachesim.c.
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
};

/* cs_access() result bits. */
#define CS_SA_MISS	1u
#define CS_FA_MISS	2u

struct cs_cache;

/*
 * Check a geometry: non-zero size, ways and line; line and set count
 * powers of two; size a multiple of ways * line (so ways <= lines).
 * Returns 0, or -1 with a message in err.
 */
int cs_geom_check(const struct cs_geom *geom, char *err, size_t errlen);

/* A new, empty cache pair; NULL with a message in err on bad geometry or ENOMEM. */
struct cs_cache *cs_cache_new(const struct cs_geom *geom, char *err, size_t errlen);
void cs_cache_free(struct cs_cache *cache);

unsigned int cs_line_shift(const struct cs_cache *cache);

/*
 * One access to the line holding addr, in both caches.  Counted in *counts
 * unless counts is NULL (the caches' state changes either way).  Returns
 * CS_SA_MISS and/or CS_FA_MISS.
 */
unsigned int cs_access(struct cs_cache *cache, uint64_t addr,
		       struct cs_counts *counts);

#endif /* KCOLOUR_CACHESIM_H */
