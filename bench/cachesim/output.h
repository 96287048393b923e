/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results: the report (out=, or QEMU's log) with its config line and
 * each phase's lines (README.md, Output), the profile (profile=) and the
 * conflict files (conflicts=, text_conflicts=); opened at install, written
 * and closed at exit.
 *
 * No QEMU dependency (without out= the report is left in sim.outs_buf for
 * the plugin to hand to QEMU); tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_OUTPUT_H
#define KCOLOUR_CACHESIM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cachesim.h"
#include "placement.h"
#include "run.h"

/*
 * Open the profile, the conflict files and the report (out=, else a
 * memory stream into sim.outs_buf).  0, or -1 after a message.
 */
int open_outputs(void);

/*
 * Flush an open phase's MIN windows, write the report, the profile and the
 * conflict files, and close them (a message for each that fails).
 */
void write_results(void);

/* The config line (sim.cpu set up). */
void print_config(FILE *out);

/*
 * One cache's lines of a phase: every region, then region=all.  min_bound
 * is NULL for the extras, which have no MIN: no min_miss, no min_bound.
 */
void print_cache(FILE *out, size_t idx, const char *name, const struct cs_counts *k,
		 const uint64_t *min_bound);

/* A phase's stacks=, stack_l2_sets= and direct_sketch= line. */
void print_placement(FILE *out, size_t idx, const struct placement *pl);

/* All of a phase's lines: its head, the caches', the placement's. */
void print_phase(FILE *out, size_t idx, const struct phase *ph, int complete);

#endif /* KCOLOUR_CACHESIM_OUTPUT_H */
