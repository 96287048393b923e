/* SPDX-License-Identifier: GPL-2.0 */
/*
 * l2_extra=SIZE:WAYS[:LINE]@POLICY: an extra L2 that sees the primary L2's
 * accesses with every page frame outside the kernel image moved to another
 * page colour (the L2 set bits above the 4 KiB page offset: way size / page
 * size colours), to bound what page colouring could do on the same trace:
 *
 *   balanced  colours dealt round robin, in the order the L2 first sees the
 *             frames: what an allocator that deals colours would give the
 *             pages, first touch standing in for the allocation order;
 *   random    the colour of a hash of the frame number: another arbitrary
 *             placement, the placebo beside balanced;
 *   balanced-all  balanced, the kernel image's frames too: what placing the
 *             image's hot pages could add (a layout's job, not an allocator's).
 *
 * Otherwise the kernel image's frames (text= to the end of data=, physical
 * under nokaslr) keep their addresses: the image is physically contiguous
 * and no allocator places it.
 * A recoloured frame gets a new frame number above any RAM offset, so no
 * two frames share a line.  The map is the L2 extra's, shared by the vCPUs
 * (frames are).
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_RECOLOUR_H
#define KCOLOUR_CACHESIM_RECOLOUR_H

#include <stdint.h>

#include "cachesim.h"
#include "options.h"
#include "placement.h"

struct recolour_map {
	enum recolour policy;
	unsigned int colours;	/* way size / PAGE_SIZE, at least 1 */
	uint64_t *to;		/* [RAM frame]: its new frame + 1, 0 if not seen */
	uint64_t nr_frames;	/* entries of to[] */
	uint64_t dealt;		/* balanced: frames recoloured so far */
	uint64_t *used;		/* [colour]: frames given that colour so far */
};

/* m for policy on an L2 of geometry g.  0, or -1 out of memory. */
int recolour_init(struct recolour_map *m, enum recolour policy, const struct cs_geom *g);
void recolour_free(struct recolour_map *m);

/*
 * The address in m's placement of RAM offset ram: a frame's first access
 * fixes its new frame.  Exits out of memory, as the caches' MIN windows do.
 */
uint64_t recolour(struct recolour_map *m, uint64_t ram);

/* The same without dealing a colour: UINT64_MAX for a frame not yet seen. */
uint64_t recolour_seen(const struct recolour_map *m, uint64_t ram);

#endif /* KCOLOUR_CACHESIM_RECOLOUR_H */
