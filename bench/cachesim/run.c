// SPDX-License-Identifier: GPL-2.0
/*
 * The run's state and its phases: see run.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

#define KCOLOUR_MARKER_NO_GUEST
#include "../workloads/kcolour-marker.h"

struct sim sim;

void run_data_access(struct cpu *cpu, unsigned int vcpu, uint64_t vaddr, uint64_t size,
		     int store, phys_fn phys, const void *hw)
{
	if (simulating())
		data_access(cpu, vcpu, vaddr, size, store, phys, hw, counting_phase());
}

void run_fetch(struct cpu *cpu, const struct fetch_run *run)
{
	if (simulating())
		fetch_run_exec(cpu, run, counting_phase());
}

void marker_store(uint64_t vaddr)
{
	struct phase *p;
	unsigned int c;

	switch (vaddr - KCOLOUR_MARKER_ADDR) {
	case KCOLOUR_MARKER_START:
		/* A start inside a phase restarts it: the first one is lost. */
		prof_phase_free(&sim.cur.prof);
		for (c = 0; c < NR_CACHES; c++)
			free(sim.cur.conflicts[c].slot);
		memset(&sim.cur, 0, sizeof(sim.cur));
		prof_discard();
		min_reset_all();
		sim.counting = 1;
		break;
	case KCOLOUR_MARKER_STOP:
		if (!sim.counting)
			break;
		min_flush_all(&sim.cur);
		if (opt.prof_path)
			prof_flush(&sim.cur.prof);
		p = realloc(sim.phases, (sim.nr_phases + 1) * sizeof(*p));
		if (!p) {
			fprintf(stderr, "kcolour-cachesim: out of memory, phase %zu lost\n",
				sim.nr_phases);
			exit(1);
		}
		sim.phases = p;
		sim.phases[sim.nr_phases++] = sim.cur;
		memset(&sim.cur.prof, 0, sizeof(sim.cur.prof));
		for (c = 0; c < NR_CACHES; c++)
			sim.cur.conflicts[c].slot = NULL;
		sim.counting = 0;
		break;
	}
}

void free_phases(void)
{
	size_t i;
	int c;

	for (i = 0; i < sim.nr_phases; i++) {
		prof_phase_free(&sim.phases[i].prof);
		for (c = 0; c < NR_CACHES; c++)
			free(sim.phases[i].conflicts[c].slot);
	}
	prof_phase_free(&sim.cur.prof);
	for (c = 0; c < NR_CACHES; c++)
		free(sim.cur.conflicts[c].slot);
	free(sim.phases);
	prof_free_entries();
}
