// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cache simulator core (cachesim.c) with hand-made access
 * sequences whose hits and misses are known, plus a long pseudo-random
 * sequence checked against a naive reference LRU.  TAP output; exit status
 * 1 on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "cachesim.h"
#include "../../harness/tap.h"


static struct cs_cache *new_cache(uint64_t size, unsigned int ways, unsigned int line)
{
	struct cs_geom g = { .size = size, .ways = ways, .line = line };
	char err[160];
	struct cs_cache *c = cs_cache_new(&g, err, sizeof(err));

	if (!c)
		printf("# cs_cache_new(%llu, %u, %u): %s\n",
		       (unsigned long long)size, ways, line, err);
	return c;
}

static void test_cold(void)
{
	/* 2 sets of 2 ways, 64-byte lines. */
	struct cs_cache *c = new_cache(256, 2, 64);
	struct cs_counts n = { 0 };
	uint64_t a;

	for (a = 0; a < 256; a += 64)
		cs_access(c, a, &n);
	ok(n.accesses == 4 && n.sa_miss == 4 && n.fa_miss == 4,
	   "cold: 4 new lines miss in both (%llu/%llu/%llu)",
	   (unsigned long long)n.accesses, (unsigned long long)n.sa_miss,
	   (unsigned long long)n.fa_miss);
	memset(&n, 0, sizeof(n));
	for (a = 0; a < 256; a += 16)
		cs_access(c, a + 3, &n);
	ok(n.accesses == 16 && !n.sa_miss && !n.fa_miss,
	   "cold: any byte of a cached line hits");
	cs_cache_free(c);
}

static void test_lru_order(void)
{
	/* One set of 4 ways: the fully- and set-associative caches agree. */
	struct cs_cache *c = new_cache(256, 4, 64);
	const uint64_t A = 0, B = 64, C = 128, D = 192, E = 256;
	unsigned int r;

	cs_access(c, A, NULL);
	cs_access(c, B, NULL);
	cs_access(c, C, NULL);
	cs_access(c, D, NULL);
	ok(cs_access(c, A, NULL) == 0, "lru: A hits after A B C D");
	ok(cs_access(c, E, NULL) == (CS_SA_MISS | CS_FA_MISS), "lru: E misses");
	ok(cs_access(c, A, NULL) == 0 && cs_access(c, C, NULL) == 0 &&
	   cs_access(c, D, NULL) == 0, "lru: A, C, D survive E (B was least recent)");
	r = cs_access(c, B, NULL);
	ok(r == (CS_SA_MISS | CS_FA_MISS), "lru: B was evicted");
	/* Order now (MRU first): B D C A; E went out for B. */
	ok(cs_access(c, E, NULL) == (CS_SA_MISS | CS_FA_MISS),
	   "lru: E was evicted by B");
	ok(cs_access(c, A, NULL) == (CS_SA_MISS | CS_FA_MISS),
	   "lru: A was evicted by E");
	cs_cache_free(c);
}

static void test_conflict(void)
{
	/* 32 KiB 8-way 64 B: 64 sets, a 4 KiB way; 9 lines 4 KiB apart share set 5. */
	struct cs_cache *c = new_cache(32768, 8, 64);
	struct cs_counts n = { 0 };
	int round, i;

	for (round = 0; round < 100; round++)
		for (i = 0; i < 9; i++)
			cs_access(c, 0x100000 + i * 4096 + 5 * 64, &n);
	ok(n.accesses == 900, "conflict: 900 accesses");
	ok(n.sa_miss == 900, "conflict: set-associative misses every access (%llu)",
	   (unsigned long long)n.sa_miss);
	ok(n.fa_miss == 9, "conflict: fully-associative misses only the 9 cold lines (%llu)",
	   (unsigned long long)n.fa_miss);
	cs_cache_free(c);
}

static void test_no_conflict_in_way(void)
{
	/* 8 lines 4 KiB apart fit the 8 ways of one set: only cold misses. */
	struct cs_cache *c = new_cache(32768, 8, 64);
	struct cs_counts n = { 0 };
	int round, i;

	for (round = 0; round < 100; round++)
		for (i = 0; i < 8; i++)
			cs_access(c, i * 4096, &n);
	ok(n.sa_miss == 8 && n.fa_miss == 8, "ways: 8 lines in one 8-way set miss only cold");
	cs_cache_free(c);
}

static void test_capacity(void)
{
	/*
	 * 1024 sequential lines cycled through a 512-line cache: every set
	 * sees 16 lines for 8 ways, the whole cache twice its capacity, so
	 * LRU misses always in both.
	 */
	struct cs_cache *c = new_cache(32768, 8, 64);
	struct cs_counts n = { 0 };
	int round, i;

	for (round = 0; round < 10; round++)
		for (i = 0; i < 1024; i++)
			cs_access(c, (uint64_t)i * 64, &n);
	ok(n.sa_miss == 10240 && n.fa_miss == 10240,
	   "capacity: twice the capacity cycled misses in both (%llu/%llu)",
	   (unsigned long long)n.sa_miss, (unsigned long long)n.fa_miss);
	cs_cache_free(c);
}

static void test_odd_ways(void)
{
	/* 48 KiB 12-way: 64 sets, 768 lines; non-power-of-two ways are valid. */
	struct cs_cache *c = new_cache(49152, 12, 64);
	struct cs_counts n = { 0 };
	int round, i;

	ok(c != NULL, "geometry: 48K 12-way 64B accepted");
	if (!c)
		return;
	for (round = 0; round < 3; round++)
		for (i = 0; i < 768; i++)
			cs_access(c, (uint64_t)i * 64, &n);
	ok(n.sa_miss == 768 && n.fa_miss == 768, "geometry: 768 lines fill 48K 12-way exactly");
	cs_cache_free(c);
}

static void test_bad_geometry(void)
{
	static const struct cs_geom bad[] = {
		{ 0, 8, 64 },		/* zero size */
		{ 32768, 0, 64 },	/* zero ways */
		{ 32768, 8, 0 },	/* zero line */
		{ 32768, 8, 48 },	/* line not a power of two */
		{ 3 * 8 * 64, 8, 64 },	/* 3 sets */
		{ 256, 8, 64 },		/* 8 ways, 4 lines */
		{ 32768 + 64, 8, 64 },	/* not a multiple of ways * line */
	};
	char err[160];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		ok(!cs_cache_new(&bad[i], err, sizeof(err)) && err[0],
		   "bad geometry %llu/%u/%u rejected: %s",
		   (unsigned long long)bad[i].size, bad[i].ways, bad[i].line, err);
	}
}

static void test_uncounted(void)
{
	struct cs_cache *c = new_cache(256, 4, 64);

	cs_access(c, 0, NULL);
	ok(cs_access(c, 0, NULL) == 0, "uncounted accesses still warm the cache");
	cs_cache_free(c);
}

/* Naive LRU over an array, MRU first; returns 1 on a miss. */
static int ref_access(uint64_t *lru, unsigned int cap, unsigned int *used, uint64_t line)
{
	unsigned int i;

	for (i = 0; i < *used; i++)
		if (lru[i] == line)
			break;
	if (i == *used) {
		if (*used < cap)
			(*used)++;
		i = *used - 1;
		memmove(&lru[1], &lru[0], i * sizeof(*lru));
		lru[0] = line;
		return 1;
	}
	memmove(&lru[1], &lru[0], i * sizeof(*lru));
	lru[0] = line;
	return 0;
}

static void test_reference(void)
{
	/* 8 sets of 4 ways (32 lines) against naive per-set and global LRU. */
	struct cs_cache *c = new_cache(32 * 64, 4, 64);
	uint64_t fa[32], sa[8][4];
	unsigned int fa_used = 0, sa_used[8] = { 0 };
	uint64_t x = 12345, line;
	int i, sa_bad = 0, fa_bad = 0;
	unsigned int r;

	for (i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* 96 distinct lines, skewed so both hits and misses occur. */
		line = (x >> 33) % ((x >> 20) & 1 ? 40 : 96);
		r = cs_access(c, line * 64 + (x & 63), NULL);
		sa_bad += !!(r & CS_SA_MISS) != ref_access(sa[line & 7], 4, &sa_used[line & 7], line);
		fa_bad += !!(r & CS_FA_MISS) != ref_access(fa, 32, &fa_used, line);
	}
	ok(!sa_bad, "reference: set-associative agrees with naive LRU (%d mismatches)", sa_bad);
	ok(!fa_bad, "reference: fully-associative agrees with naive LRU (%d mismatches)", fa_bad);
	cs_cache_free(c);
}

int main(void)
{
	test_cold();
	test_lru_order();
	test_conflict();
	test_no_conflict_in_way();
	test_capacity();
	test_odd_ways();
	test_bad_geometry();
	test_uncounted();
	test_reference();
	return tap_end();
}
