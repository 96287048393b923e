/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conflicts= and text_conflicts=: who evicts whom.  The evictor tables a
 * vCPU keeps for its primary L1D and L1I, a phase's conflict misses by
 * (victim, evictor) line pair (struct conflict_table), and their files.
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_CONFLICTS_H
#define KCOLOUR_CACHESIM_CONFLICTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cachesim.h"
#include "options.h"
#include "placement.h"


/*
 * conflicts= (text_conflicts=, l2_conflicts=): a conflict miss is an access
 * that the primary L1D's (L1I's, L2's) set-associative LRU copy misses and
 * its fully-associative copy hits.  Its evictor is the line whose miss last
 * pushed it out of its set: each vCPU keeps, for the lines its L1 evicted,
 * the line that did it, in a direct-mapped table (a slot taken by another
 * victim before its line comes back leaves that conflict's evictor
 * unknown, and counted so).  Pairs are kept for victims in the region the
 * table watches: the direct map (L1D), the kernel text (L1I), every region
 * (L2, whose lines are physical: the host names each by its page frame).
 */
#define EVICT_BITS	16

struct evict_slot {
	uint64_t victim, evictor;	/* line numbers (address >> line shift) */
	unsigned char region;		/* the evicting access's enum region */
};

/*
 * A phase's conflict misses in the watched region by (victim, evictor) line
 * pair, and the regions of the latest accesses on each side (NR_REGIONS:
 * unknown), which name an L2 line's use where its page frame does not.
 */
struct conflict_pair {
	uint64_t victim, evictor;	/* evictor CS_NO_LINE: unknown */
	uint64_t n;			/* 0: an empty slot */
	unsigned char victim_region, evictor_region;
};

struct conflict_table {
	struct conflict_pair *slot;	/* open addressing, size a power of two */
	size_t size, used;
	uint64_t all;			/* conflict misses in every region */
	uint64_t watched, unknown;	/* in the watched region; of those, evictor unknown */
};

/* The region whose conflict pairs each table keeps; NR_REGIONS: all (L2). */
extern const enum region conflict_region[NR_CACHES];

/*
 * conflicts=, text_conflicts=, l2_conflicts=: after the primary cache
 * c's access to line (res its verdict; l1 the cache, evict its vCPU's
 * evictor table of 1 << EVICT_BITS slots), count a conflict miss in the
 * watched region with its evictor into t (NULL outside a phase), and note
 * the line this access evicted.
 */
void note_conflict(struct evict_slot *evict, const struct cs_cache *l1, unsigned int c,
		   struct conflict_table *t, unsigned int res, uint64_t line, enum region r);

/*
 * A phase's conflicts of the primary cache c (line shift shift) to out: its
 * head (conflict misses in all regions, in the watched one, those with an
 * unknown evictor, distinct pairs), then one line a (victim, evictor)
 * pair: the victim's address (a direct-map or L2 line's physical address,
 * a text line's virtual one), the evictor's too if it lies in the watched
 * region, else its region, or ? if unknown; for the L2, the regions of the
 * latest accesses on both sides too.
 */
void print_conflicts(FILE *out, unsigned int c, unsigned int shift, size_t idx,
		     const struct conflict_table *t);

#endif /* KCOLOUR_CACHESIM_CONFLICTS_H */
