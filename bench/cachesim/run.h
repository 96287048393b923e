/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's state (struct sim sim): the vCPUs' caches, the phases and
 * their counters, the host-to-RAM calibration and the output streams; and
 * the phases' life, opened and closed by the guest's marker stores
 * (marker_store()).  The arguments are in opt (options.h).
 *
 * Nothing here is locked: QEMU runs every vCPU's callbacks on one thread
 * (qemu_plugin_install() makes sure of it).  No QEMU dependency; tested by
 * test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_RUN_H
#define KCOLOUR_CACHESIM_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

struct cpu;	/* hierarchy.h */

struct sim {
	unsigned int l1d_shift, l1i_shift, l2_shift;	/* the primaries' */
	struct cpu *cpu;	/* [nr_cpus], by vcpu_index */
	unsigned int nr_cpus;
	FILE *out;

	int counting;
	struct phase cur;
	struct phase *phases;
	size_t nr_phases;

	/*
	 * Instruction fetches give host addresses, data accesses RAM offsets.
	 * Both map the kernel image linearly, which fixes the difference:
	 * kimage_host and kimage_ram are the host address and RAM offset of
	 * virtual address KIMAGE_START, learnt from the first kernel-image
	 * fetch and data access.
	 */
	int have_kimage_host, have_kimage_ram;
	uintptr_t kimage_host;
	uint64_t kimage_ram;

	/* conflicts=, text_conflicts=, l2_conflicts=: where to write. */
	FILE *conflicts_out[NR_CACHES];

	/* profile=: where to write. */
	FILE *prof_out;

	/* QEMU frees its qemu_info_t after install: keep what is reported. */
	char target[16];
	int api_min, api_cur, vcpus;
	char *outs_buf;		/* without out=: the report, for qemu_plugin_outs */
	size_t outs_len;
};

extern struct sim sim;

static inline struct phase *counting_phase(void)
{
	return sim.counting ? &sim.cur : NULL;
}

/* Whether the caches see this access (between_phases=). */
static inline int simulating(void)
{
	return sim.counting || opt.between_phases == BETWEEN_SIMULATE;
}

static inline struct cs_counts *counts(struct phase *ph, enum cache_id c, enum region r)
{
	return ph ? &ph->c[c][r] : NULL;
}

static inline struct cs_counts *xcounts(struct phase *ph, enum extra_level l,
					unsigned int i, enum region r)
{
	return ph ? &ph->x[l][i][r] : NULL;
}

/*
 * A marker store at vaddr, from any vCPU, opens or closes the phase for
 * all (kcolour-marker.h): a start zeroes the counters (a start inside a
 * phase restarts it), a stop keeps the phase's counts, its MIN windows
 * and profile flushed into it.  Other offsets mean nothing.
 */
void marker_store(uint64_t vaddr);

/* Free the phases' profiles and conflict tables, and the phases. */
void free_phases(void);

#endif /* KCOLOUR_CACHESIM_RUN_H */
