/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A phase's counts (struct phase): what the caches count into while the
 * guest's phase runs.  run.c keeps the phases; hierarchy.c counts into the
 * one it is handed.
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_PHASE_H
#define KCOLOUR_CACHESIM_PHASE_H

#include <stdint.h>

#include "cachesim.h"
#include "conflicts.h"
#include "options.h"
#include "placement.h"
#include "profile.h"

/* A phase's counts. */
struct phase {
	struct cs_counts c[NR_CACHES][NR_REGIONS];
	struct placement place;
	struct cs_counts x[NR_XLEVELS][MAX_EXTRA][NR_REGIONS];
	struct cs_counts hl1[C_L2][MAX_HIER][NR_REGIONS];
	struct cs_counts hl2[MAX_HIER][NR_REGIONS];
	uint64_t min_bound[NR_CACHES];	/* sum of max(0, MIN misses - lines) a window */
	uint64_t insns[NR_REGIONS];
	uint64_t l2_unresolved;	/* L1 misses whose physical line was unknown */
	struct prof_phase prof;	/* profile=: the phase's touched TBs */
	/* [C_L1D] conflicts=, [C_L1I] text_conflicts=, [C_L2] l2_conflicts= */
	struct conflict_table conflicts[NR_CACHES];
};

static inline struct cs_counts *counts(struct phase *ph, enum cache_id c, enum region r)
{
	return ph ? &ph->c[c][r] : NULL;
}

static inline struct cs_counts *xcounts(struct phase *ph, enum extra_level l,
					unsigned int i, enum region r)
{
	return ph ? &ph->x[l][i][r] : NULL;
}

#endif /* KCOLOUR_CACHESIM_PHASE_H */
