// SPDX-License-Identifier: GPL-2.0
/*
 * Cache simulator core: set-associative LRU, fully-associative LRU and
 * set-associative PLRU of the same capacity, and Belady's MIN over a
 * recorded stream.  See cachesim.h.
 *
 * Set-associative LRU: each set is an array of line numbers, most recently
 * used first; a hit moves the line to the front, a miss drops the last one.
 * Linear in the way count, which is small (<= 32 in practice).
 *
 * Fully-associative LRU: a hash table (chained through node indices) finds
 * a line in O(1), a doubly-linked list over the same nodes keeps LRU order,
 * so every access is O(1) even for a 64K-line L2.
 *
 * PLRU: each set holds its line numbers by way and its state: the tree's
 * nodes 1..ways-1 (heap order, node k's children 2k and 2k+1, leaf
 * ways + w is way w; 0 points the victim left, 1 right), or the MRU bits.
 * A miss fills the lowest empty way first, as hardware does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"

#define NO_LINE	CS_NO_LINE	/* an empty way */
#define NIL	(-1)

struct fa_cache {
	uint64_t *key;		/* line number held by each node */
	int32_t *prev, *next;	/* LRU list, MRU at head */
	int32_t *hnext;		/* hash chain */
	int32_t *bucket;
	unsigned int hash_bits;
	int32_t head, tail, used, capacity;
	int32_t free;		/* invalidated nodes, chained through hnext */
};

struct cs_cache {
	uint64_t last_line;	/* most recent line: MRU in all copies */
	uint64_t evicted;	/* the LRU copy's victim on the latest access */
	unsigned int line_shift;
	unsigned int ways;
	uint64_t set_mask;
	uint64_t lines;
	uint64_t *sets;		/* LRU: sets * ways line numbers, MRU first */
	uint64_t *ptag;		/* PLRU: sets * ways line numbers, by way */
	uint64_t *pstate;	/* PLRU <= 64 ways: a word of state a set */
	uint64_t *pmask, *pval;	/* tree <= 64 ways: a way's path, and where it points */
	uint64_t pfull;		/* bit <= 64 ways: every way's bit */
	uint8_t *phint;		/* <= 64 ways: the way a set touched last */
	uint8_t *pbits;		/* PLRU > 64 ways: sets * ways bytes of state */
	enum cs_plru plru;
	unsigned int copies;	/* CS_FA_MISS, CS_PLRU_MISS: the copies kept */
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
	fa->head = fa->tail = fa->free = NIL;
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
	if (fa->free != NIL) {
		n = fa->free;
		fa->free = fa->hnext[n];
	} else if (fa->used < fa->capacity) {
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

/* Returns 1 if the line was there. */
static int fa_invalidate(struct fa_cache *fa, uint64_t line)
{
	int32_t *link = &fa->bucket[fa_hash(fa, line)];
	int32_t n;

	for (n = *link; n != NIL; link = &fa->hnext[n], n = *link) {
		if (fa->key[n] != line)
			continue;
		*link = fa->hnext[n];
		fa_unlink(fa, n);
		fa->hnext[n] = fa->free;
		fa->free = n;
		return 1;
	}
	return 0;
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
	c->evicted = set[c->ways - 1];
	memmove(&set[1], &set[0], (c->ways - 1) * sizeof(*set));
	set[0] = line;
	return 1;
}

/* Returns 1 if the line was there; the set's empty ways stay at its end. */
static int sa_invalidate(struct cs_cache *c, uint64_t line)
{
	uint64_t *set = &c->sets[(line & c->set_mask) * c->ways];
	unsigned int i;

	for (i = 0; i < c->ways; i++) {
		if (set[i] == line) {
			memmove(&set[i], &set[i + 1], (c->ways - 1 - i) * sizeof(*set));
			set[c->ways - 1] = NO_LINE;
			return 1;
		}
	}
	return 0;
}

/*
 * PLRU of up to 64 ways keeps a set's state in one word: tree node k is
 * bit k, MRU bit w is bit w.  A tree access sets the nodes on way w's path
 * (pmask[w]) to point away from it (pval[w]).
 */
static void plru_touch(const struct cs_cache *c, uint64_t *state, unsigned int w)
{
	uint64_t s = *state;

	if (c->plru == CS_PLRU_TREE) {
		*state = (s & ~c->pmask[w]) | c->pval[w];
		return;
	}
	s |= 1ull << w;
	/* All ones would leave no victim: keep only w's. */
	*state = s == c->pfull ? 1ull << w : s;
}

static unsigned int plru_victim(const struct cs_cache *c, uint64_t s)
{
	unsigned int k;

	if (c->plru == CS_PLRU_TREE) {
		for (k = 1; k < c->ways; k = 2 * k + ((s >> k) & 1))
			;
		return k - c->ways;
	}
	/* The lowest 0 bit; bit-PLRU never has all ways' bits set. */
	return __builtin_ctzll(~s);
}

/* Returns 1 on a miss. */
static int plru_access(struct cs_cache *c, uint64_t line)
{
	uint64_t set = line & c->set_mask;
	uint64_t *tag = &c->ptag[set * c->ways];
	unsigned int w = c->phint[set];

	/* The set's latest way first: the scan's exit is hard to predict. */
	if (tag[w] == line) {
		plru_touch(c, &c->pstate[set], w);
		return 0;
	}
	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line) {
			c->phint[set] = w;
			plru_touch(c, &c->pstate[set], w);
			return 0;
		}
	}
	for (w = 0; w < c->ways && tag[w] != NO_LINE; w++)
		;
	if (w == c->ways)
		w = plru_victim(c, c->pstate[set]);
	c->phint[set] = w;
	tag[w] = line;
	plru_touch(c, &c->pstate[set], w);
	return 1;
}

/*
 * Wider PLRU (more than 64 ways, which no hardware has, but a geometry may
 * ask for): one byte of state per way, node k or MRU bit w at byte k or w.
 */
static void wide_touch(const struct cs_cache *c, uint8_t *bits, unsigned int w)
{
	unsigned int i, node;

	if (c->plru == CS_PLRU_TREE) {
		for (node = c->ways + w; node > 1; node >>= 1)
			bits[node >> 1] = !(node & 1);
		return;
	}
	if (bits[w])
		return;
	bits[w] = 1;
	for (i = 0; i < c->ways; i++)
		if (!bits[i])
			return;
	memset(bits, 0, c->ways);
	bits[w] = 1;
}

static unsigned int wide_victim(const struct cs_cache *c, const uint8_t *bits)
{
	unsigned int k;

	if (c->plru == CS_PLRU_TREE) {
		for (k = 1; k < c->ways; k = 2 * k + bits[k])
			;
		return k - c->ways;
	}
	for (k = 0; k < c->ways; k++)
		if (!bits[k])
			return k;
	return 0;
}

static int wide_access(struct cs_cache *c, uint64_t line)
{
	uint64_t base = (line & c->set_mask) * c->ways;
	uint64_t *tag = &c->ptag[base];
	unsigned int w, empty = c->ways;
	int miss = 0;

	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line)
			break;
		if (tag[w] == NO_LINE && empty == c->ways)
			empty = w;
	}
	if (w == c->ways) {
		w = empty < c->ways ? empty : wide_victim(c, &c->pbits[base]);
		tag[w] = line;
		miss = 1;
	}
	wide_touch(c, &c->pbits[base], w);
	return miss;
}

static void plru_invalidate(struct cs_cache *c, uint64_t line)
{
	uint64_t set = line & c->set_mask;
	uint64_t base = set * c->ways;
	unsigned int w;

	for (w = 0; w < c->ways; w++) {
		if (c->ptag[base + w] != line)
			continue;
		c->ptag[base + w] = NO_LINE;
		/* A tree keeps its pointers: the empty way is filled first anyway. */
		if (c->plru != CS_PLRU_BIT)
			return;
		if (c->pbits)
			c->pbits[base + w] = 0;
		else
			c->pstate[set] &= ~(1ull << w);
		return;
	}
}

/* The PLRU state; up to 64 ways, also the tree's per-way masks. */
static int plru_init(struct cs_cache *c, uint64_t sets)
{
	unsigned int w, node;

	if (c->ways > 64) {
		c->pbits = calloc(sets * c->ways, 1);
		return c->pbits ? 0 : -1;
	}
	c->pstate = calloc(sets, sizeof(*c->pstate));
	c->phint = calloc(sets, 1);
	c->pmask = calloc(c->ways, sizeof(*c->pmask));
	c->pval = calloc(c->ways, sizeof(*c->pval));
	if (!c->pstate || !c->phint || !c->pmask || !c->pval)
		return -1;
	c->pfull = c->ways == 64 ? ~0ull : (1ull << c->ways) - 1;
	for (w = 0; w < c->ways; w++) {
		for (node = c->ways + w; node > 1; node >>= 1) {
			c->pmask[w] |= 1ull << (node >> 1);
			if (!(node & 1))
				c->pval[w] |= 1ull << (node >> 1);
		}
	}
	return 0;
}

struct cs_cache *cs_cache_new(const struct cs_geom *geom, char *err, size_t errlen)
{
	return cs_cache_new_copies(geom, CS_FA_MISS | CS_PLRU_MISS, err, errlen);
}

struct cs_cache *cs_cache_new_copies(const struct cs_geom *geom, unsigned int copies,
				     char *err, size_t errlen)
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
	c->lines = lines;
	c->plru = is_pow2(geom->ways) ? CS_PLRU_TREE : CS_PLRU_BIT;
	c->copies = copies & (CS_FA_MISS | CS_PLRU_MISS);
	c->sets = malloc(lines * sizeof(*c->sets));
	c->ptag = malloc(lines * sizeof(*c->ptag));
	if (!c->sets || !c->ptag ||
	    ((c->copies & CS_PLRU_MISS) && plru_init(c, lines / geom->ways)) ||
	    ((c->copies & CS_FA_MISS) && fa_init(&c->fa, (int32_t)lines))) {
		cs_cache_free(c);
		goto nomem;
	}
	for (i = 0; i < lines; i++)
		c->sets[i] = c->ptag[i] = NO_LINE;
	c->last_line = c->evicted = NO_LINE;
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
	free(cache->ptag);
	free(cache->pstate);
	free(cache->phint);
	free(cache->pmask);
	free(cache->pval);
	free(cache->pbits);
	free(cache);
}

unsigned int cs_line_shift(const struct cs_cache *cache)
{
	return cache->line_shift;
}

uint64_t cs_lines(const struct cs_cache *cache)
{
	return cache->lines;
}

enum cs_plru cs_plru_kind(const struct cs_cache *cache)
{
	return cache->plru;
}

unsigned int cs_access(struct cs_cache *cache, uint64_t addr,
		       struct cs_counts *counts)
{
	uint64_t line = addr >> cache->line_shift;
	unsigned int res = 0;

	cache->evicted = NO_LINE;
	/* Another access to the most recent line hits and changes no state. */
	if (line != cache->last_line) {
		if (sa_access(cache, line))
			res |= CS_SA_MISS;
		if ((cache->copies & CS_FA_MISS) && fa_access(&cache->fa, line))
			res |= CS_FA_MISS;
		if ((cache->copies & CS_PLRU_MISS) &&
		    (cache->ways <= 64 ? plru_access(cache, line) : wide_access(cache, line)))
			res |= CS_PLRU_MISS;
		cache->last_line = line;
	}
	if (counts) {
		counts->accesses++;
		counts->sa_miss += res & CS_SA_MISS ? 1 : 0;
		counts->fa_miss += res & CS_FA_MISS ? 1 : 0;
		counts->plru_miss += res & CS_PLRU_MISS ? 1 : 0;
	}
	return res;
}

uint64_t cs_evicted(const struct cs_cache *cache)
{
	return cache->evicted;
}

int cs_invalidate(struct cs_cache *cache, uint64_t addr)
{
	uint64_t line = addr >> cache->line_shift;
	int held = sa_invalidate(cache, line);

	if (cache->copies & CS_FA_MISS)
		fa_invalidate(&cache->fa, line);
	if (cache->copies & CS_PLRU_MISS)
		plru_invalidate(cache, line);
	if (line == cache->last_line)
		cache->last_line = NO_LINE;
	return held;
}

/*
 * Belady's MIN.  A backward pass gives each access the index of the next
 * access to its line (next[], NONE if none), through an open-addressing
 * table of the latest index seen per line.  The forward pass keeps the
 * cached lines that have a next use in a max-heap keyed by that next use;
 * lines never used again are only counted (dead), and go first.  Keys are
 * access indices, each the next use of at most one cached line, so an
 * array indexed by key (pos[], the table's memory again) gives a key's
 * heap slot, and access i hits iff key i is in the heap.
 */
#define NONE	UINT32_MAX

struct min_heap {
	uint32_t *key;		/* max-heap of next uses */
	uint32_t *pos;		/* pos[key]: its slot in key[], or NONE */
	size_t n;
};

static void heap_set(struct min_heap *h, size_t i, uint32_t key)
{
	h->key[i] = key;
	h->pos[key] = (uint32_t)i;
}

static void heap_up(struct min_heap *h, size_t i)
{
	uint32_t k = h->key[i];

	while (i > 0 && h->key[(i - 1) / 2] < k) {
		heap_set(h, i, h->key[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(h, i, k);
}

static void heap_down(struct min_heap *h, size_t i)
{
	uint32_t k = h->key[i];
	size_t c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->key[c + 1] > h->key[c])
			c++;
		if (h->key[c] <= k)
			break;
		heap_set(h, i, h->key[c]);
		i = c;
	}
	heap_set(h, i, k);
}

static void heap_del(struct min_heap *h, size_t i)
{
	h->pos[h->key[i]] = NONE;
	if (i == --h->n)
		return;
	heap_set(h, i, h->key[h->n]);
	if (i > 0 && h->key[(i - 1) / 2] < h->key[i])
		heap_up(h, i);
	else
		heap_down(h, i);
}

static uint64_t min_run(const uint64_t *lines, size_t n, size_t capacity,
			uint8_t *missed, const uint8_t *tag, struct cs_counts *by_tag)
{
	struct min_heap h = { 0 };
	uint32_t *next, *slot;
	size_t i, nslots = 2, mask, dead = 0;
	unsigned int bits = 1;
	uint64_t misses = 0;

	if (n >= NONE - 1)
		return UINT64_MAX;
	if (!n)
		return 0;
	if (!capacity) {
		for (i = 0; i < n; i++) {
			if (missed)
				missed[i] = 1;
			if (by_tag)
				by_tag[tag[i]].min_miss++;
		}
		return n;
	}
	/* At most half full: short probe sequences. */
	while (nslots < 2 * n) {
		nslots <<= 1;
		bits++;
	}
	mask = nslots - 1;
	next = malloc(n * sizeof(*next));
	slot = malloc(nslots * sizeof(*slot));
	h.key = malloc((capacity < n ? capacity : n) * sizeof(*h.key));
	if (!next || !slot || !h.key) {
		misses = UINT64_MAX;
		goto out;
	}
	memset(slot, 0xff, nslots * sizeof(*slot));
	for (i = n; i-- > 0;) {
		uint64_t line = lines[i];
		size_t s = (size_t)((line * 0x9e3779b97f4a7c15ull) >> (64 - bits));

		while (slot[s] != NONE && lines[slot[s]] != line)
			s = (s + 1) & mask;
		next[i] = slot[s];
		slot[s] = (uint32_t)i;
	}

	h.pos = slot;
	memset(h.pos, 0xff, n * sizeof(*h.pos));
	for (i = 0; i < n; i++) {
		uint32_t nx = next[i], p = h.pos[i];

		if (p != NONE) {
			/* A hit: the line's next use moves on (up, in a max-heap). */
			if (nx != NONE) {
				heap_set(&h, p, nx);
				heap_up(&h, p);
			} else {
				heap_del(&h, p);
				dead++;
			}
			if (missed)
				missed[i] = 0;
			continue;
		}
		misses++;
		if (missed)
			missed[i] = 1;
		if (by_tag)
			by_tag[tag[i]].min_miss++;
		if (h.n + dead == capacity) {
			if (dead)
				dead--;
			else
				heap_del(&h, 0);
		}
		if (nx != NONE) {
			h.n++;
			heap_set(&h, h.n - 1, nx);
			heap_up(&h, h.n - 1);
		} else {
			dead++;
		}
	}
out:
	free(next);
	free(slot);
	free(h.key);
	return misses;
}

uint64_t cs_min_misses(const uint64_t *lines, size_t n, size_t capacity,
		       uint8_t *missed)
{
	return min_run(lines, n, capacity, missed, NULL, NULL);
}

int cs_min_init(struct cs_min_window *w, size_t size, uint64_t capacity)
{
	memset(w, 0, sizeof(*w));
	if (!size || size >= NONE - 1)
		return -1;
	w->line = malloc(size * sizeof(*w->line));
	w->tag = malloc(size);
	if (!w->line || !w->tag) {
		cs_min_free(w);
		return -1;
	}
	w->size = size;
	w->capacity = capacity;
	return 0;
}

void cs_min_free(struct cs_min_window *w)
{
	free(w->line);
	free(w->tag);
	memset(w, 0, sizeof(*w));
}

int cs_min_flush(struct cs_min_window *w, struct cs_counts *by_tag, uint64_t *bound)
{
	uint64_t misses;

	if (!w->n)
		return 0;
	misses = min_run(w->line, w->n, w->capacity, NULL, w->tag, by_tag);
	w->n = 0;
	if (misses == UINT64_MAX)
		return -1;
	/*
	 * A cache that starts empty can play any start state at the cost of
	 * at most capacity extra misses (load those lines on first use), so
	 * MIN from empty minus capacity is a floor from any state.
	 */
	if (misses > w->capacity)
		*bound += misses - w->capacity;
	return 0;
}
