// SPDX-License-Identifier: GPL-2.0
/*
 * The results: see output.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hierarchy.h"
#include "output.h"

void print_cache(FILE *out, size_t idx, const char *name, const struct cs_counts *k,
		 const uint64_t *min_bound)
{
	struct cs_counts sum = { 0 };
	int r;

	for (r = 0; r <= NR_REGIONS; r++) {
		const struct cs_counts *n = r < NR_REGIONS ? &k[r] : &sum;

		fprintf(out, "cachesim phase=%zu cache=%s region=%s accesses=%" PRIu64
			" sa_miss=%" PRIu64 " fa_miss=%" PRIu64 " plru_miss=%" PRIu64,
			idx, name, r < NR_REGIONS ? region_name[r] : "all",
			n->accesses, n->sa_miss, n->fa_miss, n->plru_miss);
		if (min_bound)
			fprintf(out, " min_miss=%" PRIu64, n->min_miss);
		fprintf(out, " inval=%" PRIu64, n->inval);
		if (min_bound && r == NR_REGIONS)
			fprintf(out, " min_bound=%" PRIu64, *min_bound);
		fputc('\n', out);
		if (r < NR_REGIONS) {
			sum.accesses += n->accesses;
			sum.sa_miss += n->sa_miss;
			sum.fa_miss += n->fa_miss;
			sum.plru_miss += n->plru_miss;
			sum.min_miss += n->min_miss;
			sum.inval += n->inval;
		}
	}
}

void print_placement(FILE *out, size_t idx, const struct placement *pl)
{
	unsigned int i;

	fprintf(out, "cachesim phase=%zu stacks=%u stack_l2_sets=", idx,
		pl->nr_stacks);
	for (i = 0; i < pl->nr_stacks; i++)
		fprintf(out, "%s%" PRIu32, i ? "," : "", pl->stack_set[i]);
	fprintf(out, "%s direct_sketch=", pl->nr_stacks ? "" : "-");
	for (i = 0; i < pl->nr_sketch; i++)
		fprintf(out, "%s%016" PRIx64, i ? "," : "", pl->sketch[i]);
	fprintf(out, "%s\n", pl->nr_sketch ? "" : "-");
}

void print_phase(FILE *out, size_t idx, const struct phase *ph, int complete)
{
	char line[512];
	uint64_t total = 0;
	unsigned int l, i;
	int c, r;

	for (r = 0; r < NR_REGIONS; r++)
		total += ph->insns[r];
	snprintf(line, sizeof(line),
		 "cachesim phase=%zu complete=%d insns=%" PRIu64 " insns_user=%" PRIu64
		 " insns_ktext=%" PRIu64 " insns_other=%" PRIu64 " l2_unresolved=%" PRIu64 "\n",
		 idx, complete, total, ph->insns[R_USER], ph->insns[R_KTEXT],
		 total - ph->insns[R_USER] - ph->insns[R_KTEXT], ph->l2_unresolved);
	fputs(line, out);
	for (c = 0; c < NR_CACHES; c++)
		print_cache(out, idx, cache_name[c], ph->c[c], &ph->min_bound[c]);
	print_placement(out, idx, &ph->place);
	for (l = 0; l < NR_XLEVELS; l++)
		for (i = 0; i < opt.nr_extra[l]; i++)
			print_cache(out, idx, opt.extra[l][i].name, ph->x[l][i], NULL);
	for (i = 0; i < opt.nr_hier; i++) {
		for (c = 0; c < NR_CACHES; c++) {
			snprintf(line, sizeof(line), "cpu%u-%s", i + 1, cache_name[c]);
			print_cache(out, idx, line, c == C_L2 ? ph->hl2[i] :
				    opt.hier[i].l1[c] == HL1_PRIMARY ? ph->c[c] :
				    ph->hl1[c][opt.hier[i].l1[c]], NULL);
		}
	}
}

/* The line shift of the primary cache c. */
static unsigned int line_shift(unsigned int c)
{
	static const unsigned int *const shift[NR_CACHES] = {
		[C_L1D] = &caches.l1d_shift, [C_L1I] = &caches.l1i_shift, [C_L2] = &caches.l2_shift,
	};

	return *shift[c];
}

void print_config(FILE *out)
{
	unsigned int l, x;
	int c;

	fprintf(out, "cachesim config target=%s api=%d..%d vcpus=%d", sim.target,
		sim.api_min, sim.api_cur, sim.vcpus);
	for (c = 0; c < NR_CACHES; c++)
		fprintf(out, " %s=%" PRIu64 ":%u:%u", cache_name[c], opt.geom[c].size,
			opt.geom[c].ways, opt.geom[c].line);
	/* Only with extras: without, the line stays as it always was. */
	for (l = 0; l < NR_XLEVELS; l++)
		for (x = 0; x < opt.nr_extra[l]; x++) {
			const struct cs_geom *g = &opt.extra[l][x].geom;

			fprintf(out, "%s%" PRIu64 ":%u:%u",
				x ? "+" : l == X_L1D ? " L1D_extra=" : " L2_extra=",
				g->size, g->ways, g->line);
		}
	for (x = 0; x < opt.nr_hier; x++)
		for (c = 0; c < NR_CACHES; c++)
			fprintf(out, "%s%" PRIu64 ":%u:%u", c ? "-" : x ? "+" : " cpus=",
				opt.hier[x].geom[c].size, opt.hier[x].geom[c].ways,
				opt.hier[x].geom[c].line);
	fprintf(out, " stack_top=%" PRIu64 " text=0x%" PRIx64 "-0x%" PRIx64
		" data=0x%" PRIx64 "-0x%" PRIx64 " phases=%zu ram_calibrated=%d",
		opt.map.stack_top, opt.map.text_start, opt.map.text_end, opt.map.data_start, opt.map.data_end,
		sim.nr_phases, caches.have_kimage_host && caches.have_kimage_ram);
	fprintf(out, " min_window=%" PRIu64 " plru=", opt.min_window);
	for (c = 0; c < NR_CACHES; c++)
		fprintf(out, "%s%s", c ? "/" : "",
			cs_plru_kind(caches.cpu[0].cache[c]) == CS_PLRU_TREE ? "tree" : "bit");
	fprintf(out, " between_phases=%s\n", between_phases_name[opt.between_phases]);
}

void write_results(void)
{
	size_t i;
	int c;

	/* An open phase is reported with its windows so far. */
	if (sim.counting)
		min_flush_all(&sim.cur);
	print_config(sim.out);
	for (i = 0; i < sim.nr_phases; i++)
		print_phase(sim.out, i, &sim.phases[i], 1);
	if (sim.counting)
		print_phase(sim.out, sim.nr_phases, &sim.cur, 0);
	if (sim.prof_out) {
		if (sim.counting)
			prof_flush(&sim.cur.prof);
		for (i = 0; i < sim.nr_phases; i++)
			print_profile(sim.prof_out, i, &sim.phases[i].prof);
		if (sim.counting)
			print_profile(sim.prof_out, sim.nr_phases, &sim.cur.prof);
		if (fclose(sim.prof_out))
			fprintf(stderr, "kcolour-cachesim: writing %s: %m\n", opt.prof_path);
	}
	for (c = 0; c < NR_CACHES; c++) {
		if (!sim.conflicts_out[c])
			continue;
		for (i = 0; i < sim.nr_phases; i++)
			print_conflicts(sim.conflicts_out[c], c, line_shift(c), i,
					&sim.phases[i].conflicts[c]);
		if (sim.counting)
			print_conflicts(sim.conflicts_out[c], c, line_shift(c), sim.nr_phases,
					&sim.cur.conflicts[c]);
		if (fclose(sim.conflicts_out[c]))
			fprintf(stderr, "kcolour-cachesim: writing %s: %m\n", opt.conflicts_path[c]);
	}
	if (fclose(sim.out))
		fprintf(stderr, "kcolour-cachesim: writing %s: %m\n",
			opt.out_path ? opt.out_path : "the report");
}

int open_outputs(void)
{
	int c;

	if (opt.prof_path) {
		sim.prof_out = fopen(opt.prof_path, "w");
		if (!sim.prof_out) {
			fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n", opt.prof_path);
			return -1;
		}
	}
	for (c = 0; c < NR_CACHES; c++) {
		if (!opt.conflicts_path[c])
			continue;
		sim.conflicts_out[c] = fopen(opt.conflicts_path[c], "w");
		if (!sim.conflicts_out[c]) {
			fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n",
				opt.conflicts_path[c]);
			return -1;
		}
	}
	if (opt.out_path)
		sim.out = fopen(opt.out_path, "w");
	else
		sim.out = open_memstream(&sim.outs_buf, &sim.outs_len);
	if (!sim.out) {
		fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n",
			opt.out_path ? opt.out_path : "a memory stream");
		return -1;
	}
	return 0;
}
