/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each vCPU's cache hierarchy (struct cpu, in struct caches caches,
 * globals.h): the primary L1D, L1I and L2 with their MIN windows, the
 * extra geometries, the cpus= hierarchies' shared L1s and own L2s, and the
 * evictor tables of conflicts=.  A data access (data_access()) and a run of
 * instruction fetches (fetch_run_exec()) go through them all and count
 * into the phase the caller hands them (NULL outside a phase); under SMP a
 * store invalidates its lines in the other vCPUs' caches
 * (write-invalidate).  The caller decides whether the caches see an access
 * at all (run.h's simulating()).
 *
 * No QEMU dependency: the plugin hands over addresses (the physical one
 * through a callback, asked only when needed).  Tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_HIERARCHY_H
#define KCOLOUR_CACHESIM_HIERARCHY_H

#include <stdint.h>

#include "cachesim.h"
#include "conflicts.h"
#include "globals.h"
#include "options.h"
#include "phase.h"
#include "profile.h"

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

/* Every vCPU's caches, and what maps their addresses. */
struct caches {
	struct cpu *cpu;	/* [nr_cpus], by vcpu_index */
	unsigned int nr_cpus;
	unsigned int l1d_shift, l1i_shift, l2_shift;	/* the primaries' */
	/*
	 * Instruction fetches give host addresses, data accesses RAM offsets.
	 * Both map the kernel image linearly, which fixes the difference:
	 * kimage_host and kimage_ram are the host address and RAM offset of
	 * virtual address KIMAGE_START, learnt from the first kernel-image
	 * fetch and data access (the plugin's glue sets them).
	 */
	int have_kimage_host, have_kimage_ram;
	uintptr_t kimage_host;
	uint64_t kimage_ram;
};

/*
 * The caches of nr vCPUs into caches.cpu (opt must be parsed), and the
 * primaries' line shifts.  0, or -1 after a message.
 */
int setup_cpus(unsigned int nr);
void free_cpus(void);

/* Every vCPU's MIN windows into phase ph, in vCPU order. */
void min_flush_all(struct phase *ph);
/* Every vCPU's MIN windows emptied, for a phase that starts. */
void min_reset_all(void);

/*
 * The physical address (QEMU's RAM offset) of a data access's first byte:
 * phys(hw).  It costs QEMU a RAM block lookup, so data_access() asks only
 * when it needs it.
 */
typedef uint64_t (*phys_fn)(const void *hw);

/*
 * A load or store (store non-zero) of size bytes at vaddr by vCPU vcpu
 * (cpu = &caches.cpu[vcpu]), not IO, counted into ph: the primary L1D, its
 * misses into the L2s, the extras and hierarchies, the placement of the
 * phase's stacks and direct-map lines, and for a store with several vCPUs
 * the invalidation of the others' lines.
 */
void data_access(struct cpu *cpu, unsigned int vcpu, uint64_t vaddr, uint64_t size,
		 int store, phys_fn phys, const void *hw, struct phase *ph);

/*
 * A run's instruction fetches through cpu's L1Is and their misses into the
 * L2s, counted into ph.
 */
void fetch_run_exec(struct cpu *cpu, const struct fetch_run *run, struct phase *ph);

#endif /* KCOLOUR_CACHESIM_HIERARCHY_H */
