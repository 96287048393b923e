// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cache simulator core (cachesim.c) with hand-made access
 * sequences whose hits and misses are known, plus long pseudo-random
 * sequences checked against naive reference LRU and PLRU, Belady's MIN
 * checked against textbook traces and an exhaustive search, and the MIN
 * bounds checked against the caches.  TAP output; exit status 1 on any
 * failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"
#include "../../harness/tap.h"

#define LRU_MISS	(CS_SA_MISS | CS_FA_MISS)
#define ALL_MISS	(CS_SA_MISS | CS_FA_MISS | CS_PLRU_MISS)
#define ULL(x)		((unsigned long long)(x))

/* A 64-bit LCG: the same sequence on every run. */
static uint64_t rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

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
	ok(n.accesses == 4 && n.sa_miss == 4 && n.fa_miss == 4 && n.plru_miss == 4,
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
	/* PLRU differs from here on (test_tree_plru): LRU bits only. */
	ok(cs_access(c, A, NULL) == 0, "lru: A hits after A B C D");
	ok(cs_access(c, E, NULL) == ALL_MISS, "lru: E misses");
	ok(!(cs_access(c, A, NULL) & LRU_MISS) && !(cs_access(c, C, NULL) & LRU_MISS) &&
	   !(cs_access(c, D, NULL) & LRU_MISS), "lru: A, C, D survive E (B was least recent)");
	r = cs_access(c, B, NULL);
	ok((r & LRU_MISS) == LRU_MISS, "lru: B was evicted");
	/* Order now (MRU first): B D C A; E went out for B. */
	ok((cs_access(c, E, NULL) & LRU_MISS) == LRU_MISS, "lru: E was evicted by B");
	ok((cs_access(c, A, NULL) & LRU_MISS) == LRU_MISS, "lru: A was evicted by E");
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
	/* Tree-PLRU does not evict the next line of the cycle every time. */
	ok(n.plru_miss > 100 && n.plru_miss < 900,
	   "conflict: PLRU misses often, not always (%llu)", ULL(n.plru_miss));
	ok(n.sa_miss == 900, "conflict: set-associative misses every access (%llu)",
	   (unsigned long long)n.sa_miss);
	ok(n.fa_miss == 9, "conflict: fully-associative misses only the 9 cold lines (%llu)",
	   (unsigned long long)n.fa_miss);
	cs_cache_free(c);
}

static void test_evicted(void)
{
	/* 9 lines 4 KiB apart in one 8-way set: line k + 8 evicts line k. */
	struct cs_cache *c = new_cache(32768, 8, 64);
	uint64_t line[9], want;
	int i, wrong = 0;

	for (i = 0; i < 9; i++)
		line[i] = (0x100000 + i * 4096 + 5 * 64) >> cs_line_shift(c);
	for (i = 0; i < 8; i++) {
		cs_access(c, line[i] << cs_line_shift(c), NULL);
		wrong += cs_evicted(c) != CS_NO_LINE;
	}
	ok(!wrong, "evicted: filling the 8 empty ways evicts nothing");
	cs_access(c, line[0] << cs_line_shift(c), NULL);
	ok(cs_evicted(c) == CS_NO_LINE, "evicted: a hit evicts nothing");
	/* line 0 is now MRU: line 8 evicts the LRU one, line 1. */
	cs_access(c, line[8] << cs_line_shift(c), NULL);
	ok(cs_evicted(c) == line[1], "evicted: a miss in a full set names its LRU line");
	/* Line 1 comes back: it evicts line 2, and misses where the FA copy hits. */
	want = line[2];
	ok(cs_access(c, line[1] << cs_line_shift(c), NULL) == CS_SA_MISS && cs_evicted(c) == want,
	   "evicted: the victim, back, is a conflict miss (SA miss, FA hit) that evicts the next");
	cs_invalidate(c, line[3] << cs_line_shift(c));
	cs_access(c, 0x200000 + 5 * 64, NULL);
	ok(cs_evicted(c) == CS_NO_LINE, "evicted: a miss into an invalidated way evicts nothing");
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
	ok(n.sa_miss == 8 && n.fa_miss == 8 && n.plru_miss == 8,
	   "ways: 8 lines in one 8-way set miss only cold");
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
	ok(n.sa_miss == 768 && n.fa_miss == 768 && n.plru_miss == 768,
	   "geometry: 768 lines fill 48K 12-way exactly (bit-PLRU too)");
	ok(cs_plru_kind(c) == CS_PLRU_BIT, "geometry: 12 ways take bit-PLRU");
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


static void test_tree_plru(void)
{
	/*
	 * One 4-way set.  A B C D fill ways 0-3; A again points the root at
	 * the right half and that half's node at C's way, so E evicts C,
	 * where LRU evicts B.
	 */
	struct cs_cache *c = new_cache(256, 4, 64);
	const uint64_t A = 0, B = 64, C = 128, D = 192, E = 256;

	ok(cs_plru_kind(c) == CS_PLRU_TREE, "tree-plru: 4 ways take tree-PLRU");
	cs_access(c, A, NULL);
	cs_access(c, B, NULL);
	cs_access(c, C, NULL);
	cs_access(c, D, NULL);
	cs_access(c, A, NULL);
	ok(cs_access(c, E, NULL) == ALL_MISS, "tree-plru: A B C D A, E misses in all");
	ok(cs_access(c, A, NULL) == 0 && cs_access(c, D, NULL) == 0,
	   "tree-plru: A and D survive E in all");
	ok(cs_access(c, B, NULL) == LRU_MISS, "tree-plru: B survives E in PLRU, not in LRU");
	ok(cs_access(c, C, NULL) & CS_PLRU_MISS, "tree-plru: C was PLRU's victim");
	cs_cache_free(c);
}

static void test_bit_plru(void)
{
	/*
	 * One 3-way set.  A B C: C's bit would make all three 1, so only C's
	 * stays; D takes way 0 (A's, the lowest 0 bit): bits 101; B would set
	 * all, so only B's stays: 010; E takes way 0 (D's).  LRU holds E B D.
	 */
	const uint64_t A = 0, B = 64, C = 128, D = 192, E = 256;
	const uint64_t seq[] = { A, B, C, D, B, E };
	struct cs_cache *c = new_cache(192, 3, 64), *c2 = new_cache(192, 3, 64);
	unsigned int i;

	ok(cs_plru_kind(c) == CS_PLRU_BIT, "bit-plru: 3 ways take bit-PLRU");
	for (i = 0; i < 6; i++) {
		cs_access(c, seq[i], NULL);
		cs_access(c2, seq[i], NULL);
	}
	ok(cs_access(c, C, NULL) == LRU_MISS, "bit-plru: A B C D B E, then C hits in PLRU only");
	ok(cs_access(c2, D, NULL) == CS_PLRU_MISS, "bit-plru: ... D was PLRU's victim, not LRU's");
	cs_cache_free(c);
	cs_cache_free(c2);
}

/* With 1 and 2 ways, tree-PLRU is LRU. */
static void test_plru_small(void)
{
	static const unsigned int ways[] = { 1, 2 };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct cs_cache *c = new_cache(8 * ways[k] * 64, ways[k], 64);
		uint64_t x = 99 + k;
		int i, bad = 0;

		for (i = 0; i < 50000; i++) {
			unsigned int r = cs_access(c, (rnd(&x) % 40) * 64, NULL);

			bad += !(r & CS_SA_MISS) != !(r & CS_PLRU_MISS);
		}
		ok(!bad, "plru: %u-way PLRU misses exactly as LRU (%d differences)", ways[k], bad);
		cs_cache_free(c);
	}
}

/*
 * Naive PLRU of one set, indexed by level (a different layout from the
 * core's): level l has 2^l nodes, node j covering ways [j, j+1) * ways/2^l.
 */
struct ref_plru {
	unsigned int ways, levels, tree;
	uint64_t tag[128];
	uint8_t node[7][64];	/* tree */
	uint8_t mru[128];	/* bit */
};

static void ref_plru_touch(struct ref_plru *p, unsigned int w)
{
	unsigned int l, i, all = 1;

	if (p->tree) {
		for (l = 0; l < p->levels; l++) {
			unsigned int sub = w >> (p->levels - 1 - l);

			p->node[l][sub >> 1] = !(sub & 1);
		}
		return;
	}
	p->mru[w] = 1;
	for (i = 0; i < p->ways; i++)
		all &= p->mru[i];
	if (all) {
		memset(p->mru, 0, sizeof(p->mru));
		p->mru[w] = 1;
	}
}

/* Returns 1 on a miss. */
static int ref_plru_access(struct ref_plru *p, uint64_t line)
{
	unsigned int w, l;

	for (w = 0; w < p->ways; w++)
		if (p->tag[w] == line) {
			ref_plru_touch(p, w);
			return 0;
		}
	for (w = 0; w < p->ways && p->tag[w] != UINT64_MAX; w++)
		;
	if (w == p->ways && p->tree)
		for (w = 0, l = 0; l < p->levels; l++)
			w = 2 * w + p->node[l][w];
	else if (w == p->ways)
		for (w = 0; p->mru[w]; w++)
			;
	p->tag[w] = line;
	ref_plru_touch(p, w);
	return 1;
}

static void test_plru_reference(void)
{
	static const unsigned int ways[] = { 4, 8, 16, 32, 64, 128, 3, 6, 10, 12, 20, 48, 96 };
	unsigned int k;

	for (k = 0; k < sizeof(ways) / sizeof(ways[0]); k++) {
		unsigned int w = ways[k], sets = 4, s, i;
		struct cs_cache *c = new_cache((uint64_t)sets * w * 64, w, 64);
		static struct ref_plru ref[4];
		uint64_t x = 7 + k;
		int bad = 0;

		for (s = 0; s < sets; s++) {
			memset(&ref[s], 0, sizeof(ref[s]));
			ref[s].ways = w;
			ref[s].tree = !(w & (w - 1));
			while ((1u << ref[s].levels) < w)
				ref[s].levels++;
			for (i = 0; i < 128; i++)
				ref[s].tag[i] = UINT64_MAX;
		}
		for (i = 0; i < 100000; i++) {
			/* About 1.5 lines per way a set, skewed: hits and misses. */
			uint64_t r = rnd(&x), line = r % (r & 1 ? sets * w / 2 : sets * w * 3 / 2);
			unsigned int res = cs_access(c, line * 64, NULL);

			bad += !!(res & CS_PLRU_MISS) != ref_plru_access(&ref[line % sets], line);
		}
		ok(!bad && cs_plru_kind(c) == (ref[0].tree ? CS_PLRU_TREE : CS_PLRU_BIT),
		   "plru: %u-way %s-PLRU agrees with a naive one (%d mismatches)", w,
		   ref[0].tree ? "tree" : "bit", bad);
		cs_cache_free(c);
	}
}

static void test_min_textbook(void)
{
	/* The classic demand-paging example: 3 frames, 9 faults. */
	static const uint64_t t[] = { 7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1 };
	static const uint8_t want[] = { 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0 };
	static const uint64_t rep[] = { 5, 5, 6, 6, 6, 5, 9, 9 };
	const size_t n = sizeof(t) / sizeof(t[0]);
	uint8_t missed[20];
	uint64_t m;

	m = cs_min_misses(t, n, 3, missed);
	ok(m == 9, "min: textbook trace, 3 lines: 9 misses (%llu)", ULL(m));
	ok(!memcmp(missed, want, n), "min: textbook trace, 3 lines: the 9 misses where expected");
	/* 4 lines: 7 0 1 2 cold, then 3, 4, 1 and 7. */
	m = cs_min_misses(t, n, 4, NULL);
	ok(m == 8, "min: textbook trace, 4 lines: 8 misses (%llu)", ULL(m));
	m = cs_min_misses(t, n, 6, NULL);
	ok(m == 6, "min: capacity >= distinct lines: the 6 cold misses (%llu)", ULL(m));
	m = cs_min_misses(t, n, 1000, NULL);
	ok(m == 6, "min: capacity far above the lines: still 6 (%llu)", ULL(m));
	m = cs_min_misses(t, n, 1, NULL);
	ok(m == n, "min: capacity 1, no line twice in a row: all miss (%llu)", ULL(m));
	m = cs_min_misses(rep, sizeof(rep) / sizeof(rep[0]), 1, NULL);
	ok(m == 4, "min: capacity 1 misses every change of line (%llu, want 4)", ULL(m));
	m = cs_min_misses(t, n, 0, missed);
	ok(m == n && missed[0] && missed[n - 1], "min: capacity 0 misses everything");
	ok(cs_min_misses(t, 0, 3, NULL) == 0, "min: no accesses, no misses");
}

/* The fewest misses of any demand-paging cache over t[i..n-1], by search. */
static unsigned int brute_min(const uint64_t *t, size_t i, size_t n, uint64_t *held,
			      unsigned int used, unsigned int cap)
{
	unsigned int k, best = ~0u;

	for (; i < n; i++) {
		for (k = 0; k < used && held[k] != t[i]; k++)
			;
		if (k == used)
			break;
	}
	if (i == n)
		return 0;
	if (used < cap) {
		held[used] = t[i];
		best = 1 + brute_min(t, i + 1, n, held, used + 1, cap);
		return best;
	}
	for (k = 0; k < cap; k++) {
		uint64_t old = held[k];
		unsigned int m;

		held[k] = t[i];
		m = 1 + brute_min(t, i + 1, n, held, used, cap);
		held[k] = old;
		if (m < best)
			best = m;
	}
	return best;
}

static void test_min_exhaustive(void)
{
	uint64_t t[12], held[4], x = 4242;
	int trial, bad = 0;

	for (trial = 0; trial < 300; trial++) {
		unsigned int cap = 1 + trial % 3, i;
		unsigned int lines = cap + 1 + trial % 4;
		uint64_t m;

		for (i = 0; i < 12; i++)
			t[i] = rnd(&x) % lines;
		m = cs_min_misses(t, 12, cap, NULL);
		if (m != brute_min(t, 0, 12, held, 0, cap)) {
			if (!bad)
				printf("# trial %d: cap %u, MIN %llu, search %u\n", trial, cap,
				       ULL(m), brute_min(t, 0, 12, held, 0, cap));
			bad++;
		}
	}
	ok(!bad, "min: equals an exhaustive search on 300 short traces (%d differ)", bad);
}

/*
 * On pseudo-random traces: MIN over the whole trace <= FA-LRU (both start
 * empty); the windowed bound <= SA-LRU and PLRU, also when the caches
 * start warm; and the windows add up to the per-window MIN.
 */
static void test_min_bounds(void)
{
	static const struct cs_geom geoms[] = {
		{ 4096, 4, 64 }, { 2048, 2, 64 }, { 3072, 12, 64 }, { 3072, 6, 64 },
		{ 8192, 8, 64 }, { 1024, 1, 64 },
	};
	enum { N = 6000, WARM = 2000, WIN = 700 };
	static uint64_t trace[N];
	unsigned int g;

	for (g = 0; g < sizeof(geoms) / sizeof(geoms[0]); g++) {
		const struct cs_geom *geom = &geoms[g];
		struct cs_cache *c = new_cache(geom->size, geom->ways, geom->line);
		uint64_t cap = geom->size / geom->line, bound = 0, per_window = 0, whole;
		struct cs_counts n = { 0 }, cold = { 0 }, by_tag[2] = { { 0 } };
		struct cs_min_window w;
		uint64_t x = 1000 + g;
		size_t i, k;
		int full_ok = 1;

		if (cs_min_init(&w, WIN, cap)) {
			ok(0, "min bounds: cs_min_init");
			continue;
		}
		/* Lines over 3x the capacity, some hot: every kind of miss. */
		for (i = 0; i < N; i++) {
			uint64_t r = rnd(&x);

			trace[i] = r & 1 ? r % (cap / 2 + 1) : r % (3 * cap);
		}
		/* The caches warm on the first WARM accesses; the bound sees the rest. */
		for (i = 0; i < N; i++) {
			cs_access(c, trace[i] * 64, i < WARM ? &cold : &n);
			if (i < WARM)
				continue;
			if (cs_min_add(&w, trace[i], trace[i] & 1)) {
				full_ok &= w.n == WIN;
				/* The plain function on the same window, for the tag sums. */
				per_window += cs_min_misses(w.line, w.n, cap, NULL);
				cs_min_flush(&w, by_tag, &bound);
			}
		}
		per_window += cs_min_misses(w.line, w.n, cap, NULL);
		cs_min_flush(&w, by_tag, &bound);
		ok(full_ok && w.n == 0 && bound > 0 && bound <= n.sa_miss && bound <= n.plru_miss &&
		   bound <= n.fa_miss,
		   "min bounds: %llu/%u: windowed bound %llu <= warm SA-LRU %llu, PLRU %llu, FA-LRU %llu",
		   ULL(geom->size), geom->ways, ULL(bound), ULL(n.sa_miss), ULL(n.plru_miss),
		   ULL(n.fa_miss));
		ok(by_tag[0].min_miss + by_tag[1].min_miss == per_window,
		   "min bounds: %llu/%u: per-tag MIN misses add up to the windows' (%llu)",
		   ULL(geom->size), geom->ways, ULL(per_window));

		/* From cold, over the whole trace. */
		cs_cache_free(c);
		c = new_cache(geom->size, geom->ways, geom->line);
		memset(&n, 0, sizeof(n));
		for (i = 0; i < N; i++)
			cs_access(c, trace[i] * 64, &n);
		whole = cs_min_misses(trace, N, cap, NULL);
		ok(whole <= n.fa_miss && whole <= n.sa_miss && whole <= n.plru_miss && whole > cap,
		   "min bounds: %llu/%u: cold MIN %llu <= FA-LRU %llu, SA-LRU %llu, PLRU %llu",
		   ULL(geom->size), geom->ways, ULL(whole), ULL(n.fa_miss), ULL(n.sa_miss),
		   ULL(n.plru_miss));
		/* Windows from empty: their MIN adds up to at least the whole's. */
		for (k = 0, bound = 0; k < N; k += WIN)
			bound += cs_min_misses(trace + k, k + WIN < N ? WIN : N - k, cap, NULL);
		ok(bound >= whole, "min bounds: %llu/%u: empty-start windows miss no less (%llu >= %llu)",
		   ULL(geom->size), geom->ways, ULL(bound), ULL(whole));
		cs_min_free(&w);
		cs_cache_free(c);
	}
}

static void test_min_window(void)
{
	struct cs_min_window w;
	struct cs_counts by_tag[3] = { { 0 } };
	uint64_t bound = 0;
	int rc;

	ok(cs_min_init(&w, 0, 4) == -1, "min window: size 0 refused");
	if (cs_min_init(&w, 4, 2)) {
		ok(0, "min window: cs_min_init");
		return;
	}
	ok(!cs_min_add(&w, 10, 0) && !cs_min_add(&w, 10, 1) && w.n == 1,
	   "min window: a repeat of the previous line is not recorded");
	ok(!cs_min_add(&w, 11, 1) && !cs_min_add(&w, 12, 2) && cs_min_add(&w, 10, 0),
	   "min window: full at 4 recorded accesses");
	/* 10 11 12 10 in 2 lines: 3 cold misses, then 10 is still there. */
	rc = cs_min_flush(&w, by_tag, &bound);
	ok(!rc && w.n == 0 && bound == 1 &&
	   by_tag[0].min_miss == 1 && by_tag[1].min_miss == 1 && by_tag[2].min_miss == 1,
	   "min window: 3 misses, one a tag, bound 3 - 2 = 1 (%llu)", ULL(bound));
	cs_min_add(&w, 10, 0);
	cs_min_reset(&w);
	ok(!cs_min_flush(&w, by_tag, &bound) && bound == 1 && by_tag[0].min_miss == 1,
	   "min window: reset forgets, an empty flush counts nothing");
	cs_min_free(&w);
}

static void test_invalidate(void)
{
	/* 2 sets of 2 ways. */
	struct cs_cache *c = new_cache(256, 2, 64);
	const uint64_t A = 0, B = 128, C = 256;	/* all in set 0 */

	cs_access(c, A, NULL);
	cs_access(c, B, NULL);
	ok(cs_invalidate(c, B + 5) == 1, "invalidate: a held line: 1");
	ok(cs_invalidate(c, B) == 0, "invalidate: again: 0");
	ok(cs_invalidate(c, 64) == 0, "invalidate: a line never seen: 0");
	ok(cs_access(c, B, NULL) == ALL_MISS, "invalidate: the removed line misses in all copies");
	/* B was the most recent line: its next access must not be skipped. */
	ok(cs_invalidate(c, B) == 1 && cs_access(c, B, NULL) == ALL_MISS,
	   "invalidate: the most recent line misses next");
	/* A B in the set; drop A, then C fills A's way and evicts nothing. */
	cs_invalidate(c, A);
	ok(cs_access(c, C, NULL) == ALL_MISS && cs_access(c, B, NULL) == 0,
	   "invalidate: the freed way is filled first (B stays)");
	cs_cache_free(c);
}

/* Invalidations mixed in, against the naive LRUs with removal. */
static int ref_remove(uint64_t *lru, unsigned int *used, uint64_t line)
{
	unsigned int i;

	for (i = 0; i < *used; i++)
		if (lru[i] == line) {
			memmove(&lru[i], &lru[i + 1], (*used - i - 1) * sizeof(*lru));
			(*used)--;
			return 1;
		}
	return 0;
}

static void test_invalidate_reference(void)
{
	struct cs_cache *c = new_cache(32 * 64, 4, 64);
	uint64_t fa[32], sa[8][4], x = 777, line;
	unsigned int fa_used = 0, sa_used[8] = { 0 };
	int i, sa_bad = 0, fa_bad = 0, inv_bad = 0, invals = 0;

	for (i = 0; i < 200000; i++) {
		uint64_t r = rnd(&x);

		line = r % ((r >> 20) & 1 ? 40 : 96);
		if (r % 5 == 0) {
			int held = cs_invalidate(c, line * 64);

			inv_bad += held != ref_remove(sa[line & 7], &sa_used[line & 7], line);
			ref_remove(fa, &fa_used, line);
			invals += held;
			continue;
		}
		r = cs_access(c, line * 64, NULL);
		sa_bad += !!(r & CS_SA_MISS) != ref_access(sa[line & 7], 4, &sa_used[line & 7], line);
		fa_bad += !!(r & CS_FA_MISS) != ref_access(fa, 32, &fa_used, line);
	}
	ok(!sa_bad && !fa_bad && !inv_bad && invals > 1000,
	   "invalidate: with %d invalidations, LRU copies agree with naive LRU (%d/%d/%d mismatches)",
	   invals, sa_bad, fa_bad, inv_bad);
	cs_cache_free(c);
}

/*
 * A cache with only the LRU copy: the same set-associative misses as one
 * with every copy over a long random stream, invalidations included, and
 * never an FA or PLRU miss.
 */
static void test_lru_only(void)
{
	struct cs_geom g = { .size = 48 * 1024, .ways = 12, .line = 64 };
	struct cs_counts full = { 0 }, lru = { 0 };
	struct cs_cache *a, *b;
	char err[160];
	uint64_t x = 777, addr;
	int i, differ = 0;

	a = cs_cache_new(&g, err, sizeof(err));
	b = cs_cache_new_copies(&g, 0, err, sizeof(err));
	if (!a || !b) {
		ok(0, "LRU only: caches made (%s)", err);
		return;
	}
	for (i = 0; i < 200000; i++) {
		addr = rnd(&x) % (256 * 1024);
		if (!(i % 97)) {
			differ += cs_invalidate(a, addr) != cs_invalidate(b, addr);
			continue;
		}
		differ += (cs_access(a, addr, &full) & CS_SA_MISS) !=
			  (cs_access(b, addr, &lru) & CS_SA_MISS);
	}
	ok(!differ && full.sa_miss == lru.sa_miss && full.sa_miss,
	   "LRU only: the same set-associative misses as every copy (%llu, %llu; %d differ)",
	   ULL(full.sa_miss), ULL(lru.sa_miss), differ);
	ok(!lru.fa_miss && !lru.plru_miss && full.fa_miss && full.plru_miss,
	   "LRU only: no FA or PLRU misses counted (%llu, %llu; every copy: %llu, %llu)",
	   ULL(lru.fa_miss), ULL(lru.plru_miss), ULL(full.fa_miss), ULL(full.plru_miss));
	cs_cache_free(a);
	cs_cache_free(b);
}

int main(void)
{
	test_cold();
	test_lru_order();
	test_conflict();
	test_evicted();
	test_no_conflict_in_way();
	test_capacity();
	test_odd_ways();
	test_bad_geometry();
	test_uncounted();
	test_reference();
	test_tree_plru();
	test_bit_plru();
	test_plru_small();
	test_plru_reference();
	test_min_textbook();
	test_min_exhaustive();
	test_min_bounds();
	test_min_window();
	test_invalidate();
	test_invalidate_reference();
	test_lru_only();
	return tap_end();
}
