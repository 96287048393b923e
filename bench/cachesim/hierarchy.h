/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each vCPU's cache hierarchy (struct cpu): the primary L1D, L1I and L2
 * with their MIN windows, the extra geometries, the cpus= hierarchies'
 * shared L1s and own L2s, and the evictor tables of conflicts=.  A data
 * access (data_access()) and a run of instruction fetches
 * (fetch_run_exec()) go through them all and count into the current
 * phase; under SMP a store invalidates its lines in the other vCPUs'
 * caches (write-invalidate).
 *
 * No QEMU dependency: the plugin hands over addresses (the physical one
 * through a callback, asked only when needed).  Tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_HIERARCHY_H
#define KCOLOUR_CACHESIM_HIERARCHY_H

#include <stdint.h>

#include "cachesim.h"
#include "conflicts.h"
#include "options.h"
#include "profile.h"
#include "run.h"

/* One vCPU's caches. */
struct cpu {
	struct cs_cache *cache[NR_CACHES];
	struct cs_cache *xcache[NR_XLEVELS][MAX_EXTRA];
	uint64_t xlast[MAX_EXTRA];	/* L1D extras: the line of the latest access */
	struct cs_cache *hl1[C_L2][MAX_HIER];	/* the shared L1s' caches */
	uint64_t hl1d_last[MAX_HIER];	/* their L1Ds: the line of the latest access */
	struct cs_cache *hl2[MAX_HIER];
	struct cs_min_window min[NR_CACHES];	/* the primaries' MIN windows */
	struct evict_slot *evict[NR_CACHES];	/* conflicts=, text_conflicts=,
						 * l2_conflicts=: [1 << EVICT_BITS] each */
	struct tb_prof *last_tb;	/* profile=: the TB started last */
};

/*
 * The instructions of a translation block that start in the same L1I line,
 * prepared at translation time; fetch_exec() runs once per run.  Only the
 * last instruction of a run can cross into the next line (the next one
 * then starts a new run there).
 */
struct fetch_run {
	uint64_t line_vaddr;
	uintptr_t host[2];	/* host address of each line, 0 if unknown */
	uint32_t accesses;	/* line fetches: one per instruction and line */
	uint16_t insns;
	uint8_t nr_lines;	/* 2 if the last instruction crosses a line */
	uint8_t region;
	uint8_t tb_start;	/* the run starts its TB (profile execs) */
	struct tb_prof *prof;	/* its TB's profile counts, with profile= */
};

/*
 * The caches of nr vCPUs into sim.cpu (opt must be parsed), and the
 * primaries' line shifts into sim.  0, or -1 after a message.
 */
int setup_cpus(unsigned int nr);
void free_cpus(void);

/* Every vCPU's MIN windows into the current phase, in vCPU order. */
void min_flush_all(void);

/*
 * The physical address (QEMU's RAM offset) of a data access's first byte:
 * phys(hw).  It costs QEMU a RAM block lookup, so data_access() asks only
 * when it needs it.
 */
typedef uint64_t (*phys_fn)(const void *hw);

/*
 * A load or store (store non-zero) of size bytes at vaddr by vCPU vcpu
 * (cpu = &sim.cpu[vcpu]), not IO: the primary L1D, its misses into the L2s,
 * the extras and hierarchies, the placement of the phase's stacks and
 * direct-map lines, and for a store with several vCPUs the invalidation
 * of the others' lines.
 */
void data_access(struct cpu *cpu, unsigned int vcpu, uint64_t vaddr, uint64_t size,
		 int store, phys_fn phys, const void *hw);

/* A run's instruction fetches through cpu's L1Is and their misses into the L2s. */
void fetch_run_exec(struct cpu *cpu, const struct fetch_run *run, struct phase *ph);

#endif /* KCOLOUR_CACHESIM_HIERARCHY_H */
