/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcolour-cachesim's arguments: the primary caches' geometries, the extra
 * geometries (l1d_extra=, l2_extra=) and whole hierarchies (cpus=), the
 * address ranges, MIN's window and the output paths, with their defaults
 * (struct options opt); their parsing and checks (options_parse()), which
 * name each extra and build the shared L1 tables of the hierarchies.
 *
 * No QEMU dependency; tested by test-plugin.c.
 */
#ifndef KCOLOUR_CACHESIM_OPTIONS_H
#define KCOLOUR_CACHESIM_OPTIONS_H

#include <stdint.h>

#include "cachesim.h"
#include "globals.h"
#include "placement.h"

enum cache_id { C_L1D, C_L1I, C_L2, NR_CACHES };

extern const char *const cache_name[NR_CACHES];

/* Levels that take extra geometries (l1d_extra=, l2_extra=). */
enum extra_level { X_L1D, X_L2, NR_XLEVELS };
#define MAX_EXTRA	8

/*
 * A whole extra hierarchy (cpus=), reported as cpuN-L1D, cpuN-L1I and
 * cpuN-L2.  Its L1s are entries of the shared L1 tables (struct hier_l1),
 * which feed their misses to the L2 of every hierarchy that has them.  An
 * L1 of the primary's geometry is the primary itself, entry HL1_PRIMARY.
 * They keep the set-associative LRU copy, and their L2s the fully-associative
 * one too (conflict misses; L2 accesses are few): the other fa_miss and
 * plru_miss stay 0, except where the primary L1 stands in.
 */
#define MAX_HIER	24
#define HL1_PRIMARY	MAX_HIER

struct hier {
	struct cs_geom geom[NR_CACHES];
	unsigned int l1[C_L2];	/* [C_L1D], [C_L1I]: index in opt.hl1[] */
};

struct hier_l1 {
	struct cs_geom geom;
	unsigned int shift;
	unsigned int nr_l2;
	unsigned char l2[MAX_HIER];	/* the hierarchies it feeds */
};

/*
 * An L2 extra's page colours (l2_extra=SIZE:WAYS[:LINE]@NAME, recolour.h):
 * the frames' own, balanced, random, or balanced with the kernel image's too.
 */
enum recolour {
	RECOLOUR_NONE,
	RECOLOUR_BALANCED,
	RECOLOUR_RANDOM,
	RECOLOUR_BALANCED_ALL,
	NR_RECOLOURS
};

extern const char *const recolour_name[NR_RECOLOURS];

/* An extra geometry; each vCPU has its own cache of it (struct cpu). */
struct extra {
	struct cs_geom geom;	/* line 0 until resolved: the primary's line */
	unsigned int shift;
	enum recolour recolour;	/* L2 extras only */
	char name[64];		/* e.g. L1D-48K-12w, L2-256K-4w-128B, L2-256K-4w-balanced */
};

/*
 * What the caches do between the guest's phases (between_phases=): run,
 * so that every phase starts on caches warmed by what ran before it, or
 * stand still, which halves a short boot's time (the boot itself and the
 * programs' start-up go unsimulated); a phase then starts on the caches
 * the phase before left.
 */
enum between_phases {
	BETWEEN_SIMULATE,
	BETWEEN_SKIP,
	NR_BETWEEN
};

extern const char *const between_phases_name[NR_BETWEEN];

#define DEFAULT_MIN_WINDOW	(2u << 20)
#define MAX_MIN_WINDOW		(1u << 30)

/* The arguments (opt, globals.h), defaults until options_parse(); read-only after it. */
struct options {
	struct cs_geom geom[NR_CACHES];
	struct extra extra[NR_XLEVELS][MAX_EXTRA];
	unsigned int nr_extra[NR_XLEVELS];
	struct hier hier[MAX_HIER];
	unsigned int nr_hier;
	struct hier_l1 hl1[C_L2][MAX_HIER + 1];	/* the distinct L1Ds, L1Is */
	unsigned int nr_hl1[C_L2];
	uint64_t min_window;
	enum between_phases between_phases;
	struct address_map map;	/* stack_top=, text=, data= */
	const char *out_path;
	const char *prof_path;			/* profile= */
	/* [C_L1D] conflicts=, [C_L1I] text_conflicts=, [C_L2] l2_conflicts= */
	const char *conflicts_path[NR_CACHES];
};

/*
 * Parse QEMU's plugin arguments (key=value each) into opt and check them:
 * the data range's default, the geometries, the extras (named after their
 * geometry) and the hierarchies (the shared L1 tables).  0, or -1 after a
 * message on stderr (with the usage after a bad argument).
 */
int options_parse(int argc, char **argv);

#endif /* KCOLOUR_CACHESIM_OPTIONS_H */
