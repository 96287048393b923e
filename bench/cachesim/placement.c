// SPDX-License-Identifier: GPL-2.0
/*
 * Regions and placement: see placement.h.
 */
#include <string.h>

#include "placement.h"

const char *const region_name[NR_REGIONS] = {
	"user", "stack-top", "stack-rest", "direct", "ktext", "kdata", "other",
};

void place_stack(struct placement *pl, uint64_t vaddr, uint64_t phys,
		 unsigned int l2_shift, const struct cs_geom *l2)
{
	uint64_t block = vaddr / THREAD_SIZE + 1;
	unsigned int i = (unsigned int)(block * 0x9e3779b97f4a7c15ull >> 56);

	for (; pl->block[i % STACK_SLOTS]; i++)
		if (pl->block[i % STACK_SLOTS] == block)
			return;
	if (pl->nr_stacks == PLACED_STACKS)
		return;
	pl->block[i % STACK_SLOTS] = block;
	pl->stack_set[pl->nr_stacks++] = (uint32_t)((phys >> l2_shift) &
						    (l2->size / l2->ways / l2->line - 1));
}

void place_direct(struct placement *pl, uint64_t phys, unsigned int l2_shift)
{
	uint64_t h = mix64(phys >> l2_shift);
	unsigned int i;

	if (pl->nr_sketch == SKETCH_K && h >= pl->sketch[SKETCH_K - 1])
		return;
	for (i = 0; i < pl->nr_sketch && pl->sketch[i] < h; i++)
		;
	if (i < pl->nr_sketch && pl->sketch[i] == h)
		return;
	if (pl->nr_sketch < SKETCH_K)
		pl->nr_sketch++;
	memmove(&pl->sketch[i + 1], &pl->sketch[i],
		(pl->nr_sketch - 1 - i) * sizeof(pl->sketch[0]));
	pl->sketch[i] = h;
}
