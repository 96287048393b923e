// SPDX-License-Identifier: GPL-2.0
/*
 * Page colours for an extra L2 (l2_extra=...@balanced, @random): see
 * recolour.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recolour.h"

/* Recoloured frames start here, above any RAM offset's frame (2^48 bytes). */
#define RECOLOURED_FRAMES	(1ull << 36)
#define PAGE_SHIFT		12

int recolour_init(struct recolour_map *m, enum recolour policy, const struct cs_geom *g)
{
	uint64_t way = g->size / g->ways;

	memset(m, 0, sizeof(*m));
	m->policy = policy;
	m->colours = way > PAGE_SIZE ? (unsigned int)(way / PAGE_SIZE) : 1;
	m->used = calloc(m->colours, sizeof(*m->used));
	return m->used ? 0 : -1;
}

void recolour_free(struct recolour_map *m)
{
	free(m->to);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* to[] long enough for frame: doubled, so a boot grows it a few times. */
static void cover(struct recolour_map *m, uint64_t frame)
{
	uint64_t n = m->nr_frames ? m->nr_frames : 1u << 16;
	uint64_t *to;

	while (n <= frame)
		n *= 2;
	to = realloc(m->to, n * sizeof(*to));
	if (!to) {
		fprintf(stderr, "kcolour-cachesim: out of memory for an L2's page colours\n");
		exit(1);
	}
	memset(to + m->nr_frames, 0, (n - m->nr_frames) * sizeof(*to));
	m->to = to;
	m->nr_frames = n;
}

/*
 * The kernel image's frames, by physical address: nokaslr maps the image at
 * __START_KERNEL_map + physical, and below the PCI hole a RAM offset is the
 * physical address.  (By the first access's region it would be wrong: the
 * decompressor writes the image through an identity map.)
 */
static int in_image(uint64_t ram)
{
	return ram + KIMAGE_START >= opt.map.text_start && ram + KIMAGE_START < opt.map.data_end;
}

/* ram's address in m's placement, its frame seen. */
static uint64_t placed(const struct recolour_map *m, uint64_t ram)
{
	return ((m->to[ram >> PAGE_SHIFT] - 1) << PAGE_SHIFT) | (ram & (PAGE_SIZE - 1));
}

uint64_t recolour(struct recolour_map *m, uint64_t ram)
{
	uint64_t frame = ram >> PAGE_SHIFT, to, colour;

	if (frame >= m->nr_frames)
		cover(m, frame);
	if (!m->to[frame]) {
		if (m->policy != RECOLOUR_BALANCED_ALL && in_image(ram)) {
			to = frame;
		} else {
			colour = m->policy == RECOLOUR_RANDOM ? mix64(frame) % m->colours :
				 m->dealt++ % m->colours;
			to = RECOLOURED_FRAMES + m->used[colour]++ * m->colours + colour;
		}
		m->to[frame] = to + 1;
	}
	return placed(m, ram);
}

uint64_t recolour_seen(const struct recolour_map *m, uint64_t ram)
{
	uint64_t frame = ram >> PAGE_SHIFT;

	if (frame >= m->nr_frames || !m->to[frame])
		return UINT64_MAX;
	return placed(m, ram);
}
