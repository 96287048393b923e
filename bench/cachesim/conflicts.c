// SPDX-License-Identifier: GPL-2.0
/*
 * Conflict pairs: see conflicts.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "conflicts.h"

static uint64_t pair_hash(uint64_t victim, uint64_t evictor)
{
	return mix64(victim * 0x9e3779b97f4a7c15ull ^ evictor);
}

/* The slot of a (victim, evictor) pair, a new one with n 0 if absent. */
static struct conflict_pair *conflict_slot(struct conflict_table *t, uint64_t victim,
					   uint64_t evictor)
{
	struct conflict_pair *p, *old = t->slot;
	size_t i, n = t->size;

	if (2 * (t->used + 1) > t->size) {
		t->size = n ? 2 * n : 1024;
		t->slot = calloc(t->size, sizeof(*t->slot));
		if (!t->slot) {
			fprintf(stderr, "kcolour-cachesim: out of memory for conflicts=\n");
			exit(1);
		}
		t->used = 0;
		for (i = 0; i < n; i++)
			if (old[i].n)
				*conflict_slot(t, old[i].victim, old[i].evictor) = old[i];
		free(old);
	}
	for (i = pair_hash(victim, evictor) & (t->size - 1);; i = (i + 1) & (t->size - 1)) {
		p = &t->slot[i];
		/*
		 * A direct-map or text line is never 0, nor an L2 line:
		 * x86 keeps the first 64 KiB of physical memory reserved.
		 */
		if (!p->victim) {
			p->victim = victim;
			p->evictor = evictor;
			t->used++;
			return p;
		}
		if (p->victim == victim && p->evictor == evictor)
			return p;
	}
}

const enum region conflict_region[NR_CACHES] = {
	[C_L1D] = R_DIRECT, [C_L1I] = R_KTEXT, [C_L2] = NR_REGIONS,
};

/* The slot of an evictor table that holds line. */
static struct evict_slot *evict_slot(struct evict_slot *evict, uint64_t line)
{
	return &evict[mix64(line) >> (64 - EVICT_BITS)];
}

void note_conflict(struct evict_slot *evict, const struct cs_cache *l1, unsigned int c,
		   struct conflict_table *t, unsigned int res, uint64_t line, enum region r)
{
	uint64_t victim = cs_evicted(l1);
	struct conflict_pair *p;
	struct evict_slot *e;

	if (!(res & CS_SA_MISS))
		return;
	if (t && !(res & CS_FA_MISS)) {
		t->all++;
		if (r == conflict_region[c] || conflict_region[c] == NR_REGIONS) {
			e = evict_slot(evict, line);
			t->watched++;
			if (e->victim != line)
				t->unknown++;
			p = conflict_slot(t, line, e->victim == line ? e->evictor : CS_NO_LINE);
			p->n++;
			p->victim_region = r;
			p->evictor_region = e->victim == line ? e->region : NR_REGIONS;
		}
	}
	if (victim != CS_NO_LINE) {
		e = evict_slot(evict, victim);
		e->victim = victim;
		e->evictor = line;
		e->region = r;
	}
}

/*
 * A line of a conflicts file as an address: in the direct map its physical
 * address (nokaslr), in the kernel text its virtual one (nokaslr, as in
 * System.map); an L2 line is physical already.
 */
static uint64_t conflict_addr(unsigned int c, unsigned int shift, uint64_t line)
{
	uint64_t a = line << shift;

	return c == C_L1D ? a - DIRECT_START : a;
}

static const char *region_label(unsigned int r)
{
	return r < NR_REGIONS ? region_name[r] : "?";
}

/* Whether an evictor line lies where c's table keeps pairs. */
static int watched(unsigned int c, unsigned int shift, uint64_t line)
{
	return conflict_region[c] == NR_REGIONS || classify(&opt.map, line << shift) == conflict_region[c];
}

void print_conflicts(FILE *out, unsigned int c, unsigned int shift, size_t idx,
		     const struct conflict_table *t)
{
	static const char *const word[NR_CACHES] = {
		[C_L1D] = "conflict", [C_L1I] = "text-conflict", [C_L2] = "l2-conflict",
	};
	enum region w = conflict_region[c];
	uint64_t ev;
	size_t i;

	fprintf(out, "%ss phase=%zu all=%" PRIu64 " %s=%" PRIu64 " unknown=%" PRIu64
		" pairs=%zu\n", word[c], idx, t->all, w == NR_REGIONS ? "watched" : region_name[w],
		t->watched,
		t->unknown, t->used);
	for (i = 0; i < t->size; i++) {
		if (!t->slot[i].victim)
			continue;
		fprintf(out, "%s phase=%zu victim=0x%" PRIx64 " evictor=", word[c], idx,
			conflict_addr(c, shift, t->slot[i].victim));
		ev = t->slot[i].evictor;
		if (ev == CS_NO_LINE)
			fputc('?', out);
		else if (watched(c, shift, ev))
			fprintf(out, "0x%" PRIx64, conflict_addr(c, shift, ev));
		else
			fputs(region_name[classify(&opt.map, ev << shift)], out);
		fprintf(out, " n=%" PRIu64, t->slot[i].n);
		if (w == NR_REGIONS)
			fprintf(out, " victim_region=%s evictor_region=%s",
				region_label(t->slot[i].victim_region),
				region_label(t->slot[i].evictor_region));
		fputc('\n', out);
	}
}
