/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's state (struct sim sim, globals.h): the phases and their
 * counters, and the output streams; and the phases' life, opened and
 * closed by the guest's marker stores (marker_store()), which calls down
 * into the caches (hierarchy.h) and hands them the counting phase.  The
 * arguments are in opt (options.h).
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_RUN_H
#define KCOLOUR_CACHESIM_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "globals.h"
#include "hierarchy.h"
#include "options.h"
#include "phase.h"

struct sim {
	FILE *out;

	int counting;
	struct phase cur;
	struct phase *phases;
	size_t nr_phases;

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

static inline struct phase *counting_phase(void)
{
	return sim.counting ? &sim.cur : NULL;
}

/* Whether the caches see this access (between_phases=). */
static inline int simulating(void)
{
	return sim.counting || opt.between_phases == BETWEEN_SIMULATE;
}

/*
 * A load or store as the plugin hands it over (hierarchy.h's data_access()),
 * and a run of instruction fetches (fetch_run_exec()): to the caches where
 * they see it (simulating()), counted into the phase there is, if any.
 */
void run_data_access(struct cpu *cpu, unsigned int vcpu, uint64_t vaddr, uint64_t size,
		     int store, phys_fn phys, const void *hw);
void run_fetch(struct cpu *cpu, const struct fetch_run *run);

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
