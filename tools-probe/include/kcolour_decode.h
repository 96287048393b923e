/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcolour-probe's own CPUID cache decoder: CPUID cache descriptors -> the
 * caches of struct kcolour_geom, for the derivation in asm/kcolour_geom.h.
 *
 * The kernel takes its geometry from cacheinfo's decode of CPUID; like
 * cpuid, lscpu and hwloc, the probe keeps its own, so that it can also
 * decode a dump of a CPU it does not run on.  Probe-only, but kept to the
 * kernel's style: it must pass scripts/checkpatch.pl --strict like the
 * shared files.  CPUID is read through a caller-supplied function, so the
 * same decoder runs on the live CPU and on a recorded dump.
 */
#ifndef KCOLOUR_DECODE_H
#define KCOLOUR_DECODE_H

#include <linux/types.h>
#include <asm/kcolour_geom.h>

enum kcolour_vendor {
	KCOLOUR_VENDOR_OTHER,
	KCOLOUR_VENDOR_INTEL,
	KCOLOUR_VENDOR_AMD,
	KCOLOUR_VENDOR_HYGON,
	KCOLOUR_VENDOR_CENTAUR,
	KCOLOUR_VENDOR_ZHAOXIN,
	KCOLOUR_NR_VENDORS,
};

/* Why the decoder fell back, dropped or distrusted something: cpu->notes bits. */
enum kcolour_note {
	KCOLOUR_NOTE_NO_LEAF4,		/* max basic leaf < 4: leaf 4 not read */
	KCOLOUR_NOTE_LEAF2_USE_LEAF4,	/* descriptor 0xFF without usable leaf 4 */
	KCOLOUR_NOTE_LEAF2_UNKNOWN,	/* a descriptor byte not in the table */
	KCOLOUR_NOTE_LEAF2_REPEAT,	/* leaf 2 asks to be read more than once */
	KCOLOUR_NOTE_DEFERRED,		/* 0x80000006 says "see leaf 4/0x8000001D" */
	KCOLOUR_NOTE_BAD_ENTRY,		/* absurd geometry dropped */
	KCOLOUR_NOTE_RESERVED_TYPE,	/* leaf 4/0x8000001D reserved cache type */
	KCOLOUR_NOTE_TOO_MANY,		/* more caches than KCOLOUR_MAX_CACHES */
	KCOLOUR_NOTE_DISAGREE,		/* a lower-precedence source disagreed */
	KCOLOUR_NOTE_NO_INFO,		/* no cache information at all */
	KCOLOUR_NR_NOTES,
};

#define KCOLOUR_MAX_DISAGREE		4
#define KCOLOUR_MAX_SUBLEAFS		16

/* What the probe's decoder found. */
struct kcolour_cpu {
	u8 vendor;		/* enum kcolour_vendor */
	u8 family;
	u8 model;
	u8 nr_disagree;		/* valid entries in disagree[] */
	u8 unknown_descriptor;	/* first unknown leaf 2 byte, if any */
	u16 notes;		/* BIT(enum kcolour_note) */
	u32 max_leaf;
	u32 max_ext_leaf;
	/* The caches, for kcolour_recommend() and friends. */
	struct kcolour_geom geom;
	/* What a lower-precedence source said where it disagreed. */
	struct kcolour_cache disagree[KCOLOUR_MAX_DISAGREE];
};

/* Reads CPUID (leaf, subleaf) into regs[] = { eax, ebx, ecx, edx }. */
typedef void (*kcolour_cpuid_fn)(void *ctx, u32 leaf, u32 subleaf, u32 *regs);

int kcolour_decode(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx);

const char *kcolour_vendor_name(u8 vendor);
const char *kcolour_note_text(u8 note);

#endif /* KCOLOUR_DECODE_H */
