/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an address lies: the x86_64 guest's address map, the region an
 * address counts in (classify(), by virtual address only: API v1 cannot
 * read registers), and where a phase's hot memory lies (struct placement,
 * the output's stacks=, stack_l2_sets= and direct_sketch=).
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_PLACEMENT_H
#define KCOLOUR_CACHESIM_PLACEMENT_H

#include <stdint.h>

#include "cachesim.h"

#define PAGE_SIZE	4096ull
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define THREAD_SIZE	16384ull

/* x86_64, 4-level paging, no KASLR (Documentation/arch/x86/x86_64/mm.rst). */
#define USER_END	0x0000800000000000ull
#define DIRECT_START	0xffff888000000000ull
#define DIRECT_END	(DIRECT_START + (64ull << 40))
#define VMALLOC_START	0xffffc90000000000ull
#define VMALLOC_END	0xffffe90000000000ull
#define KIMAGE_START	0xffffffff80000000ull	/* __START_KERNEL_map */
#define KIMAGE_END	0xffffffffc0000000ull
#define MODULES_START	0xffffffffa0000000ull

enum region {
	R_USER,
	R_STACK_TOP,
	R_STACK_REST,
	R_DIRECT,
	R_KTEXT,
	R_KDATA,
	R_OTHER,
	NR_REGIONS
};

extern const char *const region_name[NR_REGIONS];

/*
 * Where a phase's hot memory lies, to compare boots (the bench's layouts):
 * the L2 set of the first stack-top line touched in each 16 KiB stack
 * block, blocks in first-touch order, and a bottom-k sketch of the
 * physical direct-map lines touched (the k smallest hashes; two sketches
 * estimate the overlap of two boots' line sets).  Set indices and hashes
 * only: no address leaves the plugin.
 */
#define PLACED_STACKS	128
#define STACK_SLOTS	256	/* an open-addressed set of blocks seen */
#define SKETCH_K	64

struct placement {
	uint64_t block[STACK_SLOTS];	/* vaddr / THREAD_SIZE + 1, 0 empty */
	uint32_t stack_set[PLACED_STACKS];
	unsigned int nr_stacks;
	uint64_t sketch[SKETCH_K];	/* ascending */
	unsigned int nr_sketch;
};

/* The parts of the map this kernel's build decides (opt.map: text=, data=, stack_top=). */
struct address_map {
	uint64_t stack_top;	/* bytes under a stack's top that count as R_STACK_TOP */
	uint64_t text_start, text_end, data_start, data_end;
};

static inline enum region classify(const struct address_map *m, uint64_t a)
{
	if (a < USER_END)
		return R_USER;
	if (a >= VMALLOC_START && a < VMALLOC_END)
		return (a & (THREAD_SIZE - 1)) >= THREAD_SIZE - m->stack_top ?
			R_STACK_TOP : R_STACK_REST;
	if (a >= DIRECT_START && a < DIRECT_END)
		return R_DIRECT;
	if (a >= m->text_start && a < m->text_end)
		return R_KTEXT;
	if (a >= m->data_start && a < m->data_end)
		return R_KDATA;
	return R_OTHER;
}

/* splitmix64's finaliser: a well-mixed 64-bit hash of a line number. */
static inline uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * A phase's stack-top access at vaddr, physical phys: the first in its
 * 16 KiB block (up to PLACED_STACKS blocks) records the L2 set of phys, of
 * an L2 of geometry l2 and line shift l2_shift.
 */
void place_stack(struct placement *pl, uint64_t vaddr, uint64_t phys,
		 unsigned int l2_shift, const struct cs_geom *l2);
/* A phase's direct-map access, physical phys, into the bottom-k sketch. */
void place_direct(struct placement *pl, uint64_t phys, unsigned int l2_shift);

#endif /* KCOLOUR_CACHESIM_PLACEMENT_H */
