// SPDX-License-Identifier: GPL-2.0
/*
 * The vCPUs' cache hierarchies, their accesses and SMP invalidation: see
 * hierarchy.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hierarchy.h"
#include "placement.h"
#include "recolour.h"

struct caches caches;

/* The L2 extras' page colours (recolour.h), shared by the vCPUs. */
static struct recolour_map l2_colours[MAX_EXTRA];

/* A primary's MIN window is full, or the phase ends: MIN into phase ph. */
static void min_flush(struct cpu *cpu, enum cache_id c, struct phase *ph)
{
	if (cs_min_flush(&cpu->min[c], ph->c[c], &ph->min_bound[c])) {
		fprintf(stderr, "kcolour-cachesim: out of memory for MIN over %s\n",
			cache_name[c]);
		exit(1);
	}
}

/* Record a primary's access for MIN (only inside a phase). */
static inline void min_add(struct cpu *cpu, struct phase *ph, enum cache_id c,
			   uint64_t line, enum region r)
{
	if (ph && cs_min_add(&cpu->min[c], line, r))
		min_flush(cpu, c, ph);
}

static void l2_access(struct cpu *cpu, struct phase *ph, enum region r, int known,
		      uint64_t ram)
{
	unsigned int i, res;

	if (!known) {
		if (ph)
			ph->l2_unresolved++;
		return;
	}
	res = cs_access(cpu->cache[C_L2], ram, counts(ph, C_L2, r));

	if (cpu->evict[C_L2])
		note_conflict(cpu->evict[C_L2], cpu->cache[C_L2], C_L2,
			      ph ? &ph->conflicts[C_L2] : NULL, res, ram >> caches.l2_shift, r);
	min_add(cpu, ph, C_L2, ram >> caches.l2_shift, r);
	for (i = 0; i < opt.nr_extra[X_L2]; i++)
		cs_access(cpu->xcache[X_L2][i],
			  opt.extra[X_L2][i].recolour ? recolour(&l2_colours[i], ram) : ram,
			  xcounts(ph, X_L2, i, r));
}

/*
 * One line's access to an L1 beside the primary.  The MRU line again hits in
 * all copies and changes nothing: count it without the call, the commonest
 * case on this hot path.  Returns cs_access()'s result, 0 for that hit.
 */
static inline unsigned int mru_access(struct cs_cache *c, uint64_t *mru, uint64_t line,
				      unsigned int shift, struct cs_counts *k)
{
	if (line == *mru) {
		if (k)
			k->accesses++;
		return 0;
	}
	*mru = line;
	return cs_access(c, line << shift, k);
}

/* The same access as the primary L1D, split at each extra's own lines. */
static void l1d_extra_access(struct cpu *cpu, struct phase *ph, enum region r,
			     uint64_t vaddr, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < opt.nr_extra[X_L1D]; i++) {
		unsigned int shift = opt.extra[X_L1D][i].shift;
		uint64_t line = vaddr >> shift;
		uint64_t last = (vaddr + size - 1) >> shift;

		for (; line <= last; line++)
			mru_access(cpu->xcache[X_L1D][i], &cpu->xlast[i], line, shift,
				   xcounts(ph, X_L1D, i, r));
	}
}

/* A miss of a shared L1 into the L2 of each hierarchy that has it. */
static void hier_l2_access(struct cpu *cpu, struct phase *ph, enum region r,
			   const struct hier_l1 *l1, uint64_t ram)
{
	unsigned int i;

	for (i = 0; i < l1->nr_l2; i++)
		cs_access(cpu->hl2[l1->l2[i]], ram, ph ? &ph->hl2[l1->l2[i]][r] : NULL);
}

/*
 * The primary L1D's access in each shared L1D, its misses into the L2s
 * (physical only on the first byte's page, as for the primary).
 */
static void hier_data_access(struct cpu *cpu, struct phase *ph, enum region r,
			     uint64_t vaddr, uint64_t size, uint64_t ram)
{
	unsigned int i;

	for (i = 0; i < opt.nr_hl1[C_L1D]; i++) {
		const struct hier_l1 *l1 = &opt.hl1[C_L1D][i];
		struct cs_counts *k = ph ? &ph->hl1[C_L1D][i][r] : NULL;
		uint64_t line = vaddr >> l1->shift;
		uint64_t last = (vaddr + size - 1) >> l1->shift;

		for (; line <= last; line++) {
			uint64_t lv = line << l1->shift;

			if (!(mru_access(cpu->hl1[C_L1D][i], &cpu->hl1d_last[i], line,
					 l1->shift, k) & CS_SA_MISS) ||
			    (lv > vaddr && (lv & PAGE_MASK) != (vaddr & PAGE_MASK)))
				continue;
			hier_l2_access(cpu, ph, r, l1, lv > vaddr ? ram + (lv - vaddr) : ram);
		}
	}
}

/* Invalidate the lines of [first, last] in c; count those the LRU copy held. */
static void inval_range(struct cs_cache *c, uint64_t first, uint64_t last,
			struct cs_counts *k)
{
	unsigned int shift = cs_line_shift(c);
	uint64_t line;

	for (line = first >> shift; line <= last >> shift; line++)
		if (cs_invalidate(c, line << shift) && k)
			k->inval++;
}

/*
 * The same for an L1 beside the primary, whose MRU shortcut must not hit a
 * removed line.
 */
static void inval_l1_range(struct cs_cache *c, uint64_t *mru, uint64_t first, uint64_t last,
			   struct cs_counts *k)
{
	unsigned int shift = cs_line_shift(c);

	inval_range(c, first, last, k);
	if (*mru >= first >> shift && *mru <= last >> shift)
		*mru = UINT64_MAX;
}

/*
 * Write-invalidate: a store by vCPU v removes its lines from every other
 * vCPU's L2 (physical: the part on the first byte's page, whose address is
 * known) and, for kernel addresses, L1D, with their extras.  The L1Ds are
 * tagged by virtual address, and user addresses name different memory in
 * different processes (a forked ring shares one layout), so a user store
 * invalidates no other L1D.  MIN sees no invalidation.
 */
static void invalidate_others(unsigned int v, struct phase *ph, enum region r,
			      uint64_t vaddr, uint64_t size, uint64_t ram)
{
	uint64_t on_page = PAGE_SIZE - (vaddr & ~PAGE_MASK);
	uint64_t ram_last = ram + (size < on_page ? size : on_page) - 1;
	uint64_t vlast = vaddr + size - 1;
	unsigned int u, i;

	for (u = 0; u < caches.nr_cpus; u++) {
		struct cpu *cpu = &caches.cpu[u];

		if (u == v)
			continue;
		if (vaddr >= USER_END) {
			inval_range(cpu->cache[C_L1D], vaddr, vlast, counts(ph, C_L1D, r));
			for (i = 0; i < opt.nr_extra[X_L1D]; i++)
				inval_l1_range(cpu->xcache[X_L1D][i], &cpu->xlast[i], vaddr,
					       vlast, xcounts(ph, X_L1D, i, r));
			for (i = 0; i < opt.nr_hl1[C_L1D]; i++)
				inval_l1_range(cpu->hl1[C_L1D][i], &cpu->hl1d_last[i], vaddr,
					       vlast, ph ? &ph->hl1[C_L1D][i][r] : NULL);
		}
		inval_range(cpu->cache[C_L2], ram, ram_last, counts(ph, C_L2, r));
		for (i = 0; i < opt.nr_extra[X_L2]; i++) {
			uint64_t to = opt.extra[X_L2][i].recolour ?
				      recolour_seen(&l2_colours[i], ram) : ram;

			/* A frame the L2 never saw has no line to lose. */
			if (to != UINT64_MAX)
				inval_range(cpu->xcache[X_L2][i], to, to + (ram_last - ram),
					    xcounts(ph, X_L2, i, r));
		}
		for (i = 0; i < opt.nr_hier; i++)
			inval_range(cpu->hl2[i], ram, ram_last, ph ? &ph->hl2[i][r] : NULL);
	}
}

void min_flush_all(struct phase *ph)
{
	unsigned int u, c;

	for (u = 0; u < caches.nr_cpus; u++)
		for (c = 0; c < NR_CACHES; c++)
			min_flush(&caches.cpu[u], c, ph);
}

void min_reset_all(void)
{
	unsigned int u, c;

	for (u = 0; u < caches.nr_cpus; u++)
		for (c = 0; c < NR_CACHES; c++)
			cs_min_reset(&caches.cpu[u].min[c]);
}

void data_access(struct cpu *cpu, unsigned int vcpu, uint64_t vaddr, uint64_t size,
		 int store, phys_fn phys, const void *hw, struct phase *ph)
{
	enum region r = classify(&opt.map, vaddr);
	uint64_t ram, line, last;

	if (ph && r == R_STACK_TOP)
		place_stack(&ph->place, vaddr, phys(hw), caches.l2_shift, &opt.geom[C_L2]);
	else if (ph && r == R_DIRECT)
		place_direct(&ph->place, phys(hw), caches.l2_shift);
	last = (vaddr + size - 1) >> caches.l1d_shift;
	for (line = vaddr >> caches.l1d_shift; line <= last; line++) {
		uint64_t lv = line << caches.l1d_shift;
		unsigned int res = cs_access(cpu->cache[C_L1D], lv, counts(ph, C_L1D, r));

		if (cpu->evict[C_L1D])
			note_conflict(cpu->evict[C_L1D], cpu->cache[C_L1D], C_L1D,
				      ph ? &ph->conflicts[C_L1D] : NULL, res, line, r);
		min_add(cpu, ph, C_L1D, line, r);
		if (!(res & CS_SA_MISS))
			continue;
		/* The physical address is known only on the first byte's page. */
		if (lv > vaddr && (lv & PAGE_MASK) != (vaddr & PAGE_MASK)) {
			l2_access(cpu, ph, r, 0, 0);
			continue;
		}
		ram = phys(hw);
		if (lv > vaddr)
			ram += lv - vaddr;
		l2_access(cpu, ph, r, 1, ram);
		hier_l2_access(cpu, ph, r, &opt.hl1[C_L1D][HL1_PRIMARY], ram);
	}
	if (opt.nr_extra[X_L1D])
		l1d_extra_access(cpu, ph, r, vaddr, size);
	if (opt.nr_hier)
		hier_data_access(cpu, ph, r, vaddr, size, phys(hw));
	if (caches.nr_cpus > 1 && store)
		invalidate_others(vcpu, ph, r, vaddr, size, phys(hw));
}

/* The RAM offset of an instruction line, from its host address. */
static int host_to_ram(uintptr_t host, uint64_t *ram)
{
	if (!host || !caches.have_kimage_host || !caches.have_kimage_ram)
		return 0;
	*ram = host - caches.kimage_host + caches.kimage_ram;
	return 1;
}

void fetch_run_exec(struct cpu *cpu, const struct fetch_run *run, struct phase *ph)
{
	enum region r = run->region;
	unsigned int i, h;
	uint64_t ram = 0;

	if (ph) {
		ph->insns[r] += run->insns;
		/* Fetches after the first from a line are MRU hits. */
		ph->c[C_L1I][r].accesses += run->accesses - run->nr_lines;
		for (h = 0; h < opt.nr_hl1[C_L1I]; h++)
			ph->hl1[C_L1I][h][r].accesses += run->accesses - run->nr_lines;
	}
	for (i = 0; i < run->nr_lines; i++) {
		uint64_t lv = run->line_vaddr + ((uint64_t)i << caches.l1i_shift);
		unsigned int res = cs_access(cpu->cache[C_L1I], lv, counts(ph, C_L1I, r));
		/* Only a miss goes on to an L2. */
		int known = ((res & CS_SA_MISS) || opt.nr_hl1[C_L1I]) &&
			    host_to_ram(run->host[i], &ram);

		if (cpu->evict[C_L1I])
			note_conflict(cpu->evict[C_L1I], cpu->cache[C_L1I], C_L1I,
				      ph ? &ph->conflicts[C_L1I] : NULL, res, lv >> caches.l1i_shift, r);
		min_add(cpu, ph, C_L1I, lv >> caches.l1i_shift, r);
		if (res & CS_SA_MISS) {
			l2_access(cpu, ph, r, known, ram);
			if (known)
				hier_l2_access(cpu, ph, r, &opt.hl1[C_L1I][HL1_PRIMARY], ram);
		}
		/* The shared L1Is' lines are the primary's (setup_hiers()). */
		for (h = 0; h < opt.nr_hl1[C_L1I]; h++) {
			res = cs_access(cpu->hl1[C_L1I][h], lv,
					ph ? &ph->hl1[C_L1I][h][r] : NULL);
			if ((res & CS_SA_MISS) && known)
				hier_l2_access(cpu, ph, r, &opt.hl1[C_L1I][h], ram);
		}
	}
}

/* One vCPU's caches and MIN windows.  0, or -1 after a message. */
static int setup_cpu(struct cpu *cpu)
{
	char err[256];
	unsigned int l, i;
	int c;

	for (c = 0; c < NR_CACHES; c++) {
		cpu->cache[c] = cs_cache_new(&opt.geom[c], err, sizeof(err));
		if (!cpu->cache[c]) {
			fprintf(stderr, "kcolour-cachesim: %s: %s\n", cache_name[c], err);
			return -1;
		}
		if (cs_min_init(&cpu->min[c], opt.min_window, cs_lines(cpu->cache[c]))) {
			fprintf(stderr, "kcolour-cachesim: out of memory for a MIN window of %" PRIu64
				" accesses\n", opt.min_window);
			return -1;
		}
	}
	for (l = 0; l < NR_XLEVELS; l++) {
		for (i = 0; i < opt.nr_extra[l]; i++) {
			cpu->xcache[l][i] = cs_cache_new(&opt.extra[l][i].geom, err, sizeof(err));
			if (!cpu->xcache[l][i]) {
				fprintf(stderr, "kcolour-cachesim: %s: %s\n",
					opt.extra[l][i].name, err);
				return -1;
			}
		}
	}
	for (c = 0; c < C_L2; c++) {
		for (i = 0; i < opt.nr_hl1[c]; i++) {
			cpu->hl1[c][i] = cs_cache_new_copies(&opt.hl1[c][i].geom, 0, err,
							     sizeof(err));
			if (!cpu->hl1[c][i]) {
				fprintf(stderr, "kcolour-cachesim: a cpus= %s: %s\n",
					cache_name[c], err);
				return -1;
			}
		}
	}
	for (i = 0; i < opt.nr_hier; i++) {
		cpu->hl2[i] = cs_cache_new_copies(&opt.hier[i].geom[C_L2], CS_FA_MISS, err,
						  sizeof(err));
		if (!cpu->hl2[i]) {
			fprintf(stderr, "kcolour-cachesim: cpu%u-L2: %s\n", i + 1, err);
			return -1;
		}
	}
	for (c = 0; c < NR_CACHES; c++) {
		if (!opt.conflicts_path[c])
			continue;
		cpu->evict[c] = calloc(1u << EVICT_BITS, sizeof(*cpu->evict[c]));
		if (!cpu->evict[c]) {
			fprintf(stderr, "kcolour-cachesim: out of memory for conflicts=\n");
			return -1;
		}
	}
	for (i = 0; i < MAX_EXTRA; i++)
		cpu->xlast[i] = UINT64_MAX;
	for (i = 0; i < MAX_HIER; i++)
		cpu->hl1d_last[i] = UINT64_MAX;
	return 0;
}

int setup_cpus(unsigned int nr)
{
	unsigned int u;

	caches.nr_cpus = nr;
	caches.cpu = calloc(caches.nr_cpus, sizeof(*caches.cpu));
	if (!caches.cpu) {
		fprintf(stderr, "kcolour-cachesim: out of memory\n");
		return -1;
	}
	for (u = 0; u < caches.nr_cpus; u++)
		if (setup_cpu(&caches.cpu[u]))
			return -1;
	for (u = 0; u < opt.nr_extra[X_L2]; u++) {
		if (opt.extra[X_L2][u].recolour &&
		    recolour_init(&l2_colours[u], opt.extra[X_L2][u].recolour,
				  &opt.extra[X_L2][u].geom)) {
			fprintf(stderr, "kcolour-cachesim: out of memory\n");
			return -1;
		}
	}
	caches.l1d_shift = cs_line_shift(caches.cpu[0].cache[C_L1D]);
	caches.l1i_shift = cs_line_shift(caches.cpu[0].cache[C_L1I]);
	caches.l2_shift = cs_line_shift(caches.cpu[0].cache[C_L2]);
	return 0;
}

void free_cpus(void)
{
	unsigned int l, x, u;
	int c;

	for (u = 0; u < caches.nr_cpus; u++) {
		for (c = 0; c < NR_CACHES; c++) {
			cs_cache_free(caches.cpu[u].cache[c]);
			cs_min_free(&caches.cpu[u].min[c]);
		}
		for (l = 0; l < NR_XLEVELS; l++)
			for (x = 0; x < opt.nr_extra[l]; x++)
				cs_cache_free(caches.cpu[u].xcache[l][x]);
		for (c = 0; c < C_L2; c++)
			for (x = 0; x < opt.nr_hl1[c]; x++)
				cs_cache_free(caches.cpu[u].hl1[c][x]);
		for (x = 0; x < opt.nr_hier; x++)
			cs_cache_free(caches.cpu[u].hl2[x]);
	}
	for (u = 0; u < caches.nr_cpus; u++)
		for (c = 0; c < NR_CACHES; c++)
			free(caches.cpu[u].evict[c]);
	for (x = 0; x < MAX_EXTRA; x++)
		recolour_free(&l2_colours[x]);
	free(caches.cpu);
}
