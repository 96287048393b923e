// SPDX-License-Identifier: GPL-2.0
/*
 * Cache simulator core: set-associative LRU beside fully-associative LRU
 * of the same capacity.  See cachesim.h.
 *
 * Set-associative: each set is an array of line numbers, most recently used
 * first; a hit moves the line to the front, a miss drops the last one.
 * Linear in the way count, which is small (<= 32 in practice).
 *
 * Fully-associative: a hash table (chained through node indices) finds a
 * line in O(1), a doubly-linked list over the same nodes keeps LRU order,
 * so every access is O(1) even for a 64K-line L2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"

#define NO_LINE	UINT64_MAX	/* an empty way: no real line number */
#define NIL	(-1)

struct fa_cache {
	uint64_t *key;		/* line number held by each node */
	int32_t *prev, *next;	/* LRU list, MRU at head */
	int32_t *hnext;		/* hash chain */
	int32_t *bucket;
	unsigned int hash_bits;
	int32_t head, tail, used, capacity;
};

struct cs_cache {
	uint64_t last_line;	/* most recent line: MRU in both caches */
	unsigned int line_shift;
	unsigned int ways;
	uint64_t set_mask;
	uint64_t *sets;		/* sets * ways line numbers, MRU first */
	struct fa_cache fa;
};

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static unsigned int log2u(uint64_t x)
{
	unsigned int n = 0;

	while (x >>= 1)
		n++;
	return n;
}

int cs_geom_check(const struct cs_geom *geom, char *err, size_t errlen)
{
	uint64_t way_bytes, sets;

	if (!geom->size || !geom->ways || !geom->line) {
		snprintf(err, errlen, "size, ways and line must be non-zero (size=%" PRIu64 " ways=%u line=%u)",
			 geom->size, geom->ways, geom->line);
		return -1;
	}
	if (!is_pow2(geom->line)) {
		snprintf(err, errlen, "line size %u is not a power of two", geom->line);
		return -1;
	}
	way_bytes = (uint64_t)geom->ways * geom->line;
	if (geom->size < way_bytes) {
		snprintf(err, errlen, "%u ways of %u bytes exceed the size %" PRIu64 " (more ways than lines)",
			 geom->ways, geom->line, geom->size);
		return -1;
	}
	if (geom->size % way_bytes) {
		snprintf(err, errlen, "size %" PRIu64 " is not a multiple of ways * line (%" PRIu64 ")",
			 geom->size, way_bytes);
		return -1;
	}
	sets = geom->size / way_bytes;
	if (!is_pow2(sets)) {
		snprintf(err, errlen, "set count %" PRIu64 " is not a power of two", sets);
		return -1;
	}
	if (geom->size / geom->line > INT32_MAX / 2) {
		snprintf(err, errlen, "size %" PRIu64 " has too many lines", geom->size);
		return -1;
	}
	return 0;
}

static int fa_init(struct fa_cache *fa, int32_t capacity)
{
	size_t nbuckets;
	int32_t i;

	/* At least twice as many buckets as lines: short chains. */
	fa->hash_bits = log2u((uint64_t)capacity) + 1;
	if (!is_pow2(capacity))
		fa->hash_bits++;
	nbuckets = (size_t)1 << fa->hash_bits;
	fa->key = calloc(capacity, sizeof(*fa->key));
	fa->prev = calloc(capacity, sizeof(*fa->prev));
	fa->next = calloc(capacity, sizeof(*fa->next));
	fa->hnext = calloc(capacity, sizeof(*fa->hnext));
	fa->bucket = malloc(nbuckets * sizeof(*fa->bucket));
	if (!fa->key || !fa->prev || !fa->next || !fa->hnext || !fa->bucket)
		return -1;
	for (i = 0; i < (int32_t)nbuckets; i++)
		fa->bucket[i] = NIL;
	fa->head = fa->tail = NIL;
	fa->used = 0;
	fa->capacity = capacity;
	return 0;
}

static void fa_free(struct fa_cache *fa)
{
	free(fa->key);
	free(fa->prev);
	free(fa->next);
	free(fa->hnext);
	free(fa->bucket);
}

static unsigned int fa_hash(const struct fa_cache *fa, uint64_t line)
{
	return (unsigned int)((line * 0x9e3779b97f4a7c15ull) >> (64 - fa->hash_bits));
}

static void fa_unlink(struct fa_cache *fa, int32_t n)
{
	if (fa->prev[n] != NIL)
		fa->next[fa->prev[n]] = fa->next[n];
	else
		fa->head = fa->next[n];
	if (fa->next[n] != NIL)
		fa->prev[fa->next[n]] = fa->prev[n];
	else
		fa->tail = fa->prev[n];
}

static void fa_push_front(struct fa_cache *fa, int32_t n)
{
	fa->prev[n] = NIL;
	fa->next[n] = fa->head;
	if (fa->head != NIL)
		fa->prev[fa->head] = n;
	fa->head = n;
	if (fa->tail == NIL)
		fa->tail = n;
}

static void fa_unhash(struct fa_cache *fa, int32_t n)
{
	int32_t *link = &fa->bucket[fa_hash(fa, fa->key[n])];

	while (*link != n)
		link = &fa->hnext[*link];
	*link = fa->hnext[n];
}

/* Returns 1 on a miss. */
static int fa_access(struct fa_cache *fa, uint64_t line)
{
	unsigned int h = fa_hash(fa, line);
	int32_t n;

	for (n = fa->bucket[h]; n != NIL; n = fa->hnext[n]) {
		if (fa->key[n] == line) {
			if (fa->head != n) {
				fa_unlink(fa, n);
				fa_push_front(fa, n);
			}
			return 0;
		}
	}
	if (fa->used < fa->capacity) {
		n = fa->used++;
	} else {
		n = fa->tail;
		fa_unlink(fa, n);
		fa_unhash(fa, n);
	}
	fa->key[n] = line;
	fa->hnext[n] = fa->bucket[h];
	fa->bucket[h] = n;
	fa_push_front(fa, n);
	return 1;
}

/* Returns 1 on a miss. */
static int sa_access(struct cs_cache *c, uint64_t line)
{
	uint64_t *set = &c->sets[(line & c->set_mask) * c->ways];
	unsigned int i;

	if (set[0] == line)
		return 0;
	for (i = 1; i < c->ways; i++) {
		if (set[i] == line) {
			memmove(&set[1], &set[0], i * sizeof(*set));
			set[0] = line;
			return 0;
		}
	}
	memmove(&set[1], &set[0], (c->ways - 1) * sizeof(*set));
	set[0] = line;
	return 1;
}

struct cs_cache *cs_cache_new(const struct cs_geom *geom, char *err, size_t errlen)
{
	struct cs_cache *c;
	uint64_t lines, i;

	if (cs_geom_check(geom, err, errlen))
		return NULL;
	lines = geom->size / geom->line;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->line_shift = log2u(geom->line);
	c->ways = geom->ways;
	c->set_mask = lines / geom->ways - 1;
	c->sets = malloc(lines * sizeof(*c->sets));
	if (!c->sets || fa_init(&c->fa, (int32_t)lines)) {
		cs_cache_free(c);
		goto nomem;
	}
	for (i = 0; i < lines; i++)
		c->sets[i] = NO_LINE;
	c->last_line = NO_LINE;
	return c;
nomem:
	snprintf(err, errlen, "out of memory for a %" PRIu64 "-byte cache", geom->size);
	return NULL;
}

void cs_cache_free(struct cs_cache *cache)
{
	if (!cache)
		return;
	fa_free(&cache->fa);
	free(cache->sets);
	free(cache);
}

unsigned int cs_line_shift(const struct cs_cache *cache)
{
	return cache->line_shift;
}

unsigned int cs_access(struct cs_cache *cache, uint64_t addr,
		       struct cs_counts *counts)
{
	uint64_t line = addr >> cache->line_shift;
	unsigned int res = 0;

	/* Another access to the most recent line hits and changes no order. */
	if (line != cache->last_line) {
		if (sa_access(cache, line))
			res |= CS_SA_MISS;
		if (fa_access(&cache->fa, line))
			res |= CS_FA_MISS;
		cache->last_line = line;
	}
	if (counts) {
		counts->accesses++;
		counts->sa_miss += res & CS_SA_MISS ? 1 : 0;
		counts->fa_miss += res & CS_FA_MISS ? 1 : 0;
	}
	return res;
}
