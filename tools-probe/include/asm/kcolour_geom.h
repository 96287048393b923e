/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcolour cache geometry: decode the CPUID cache descriptors and derive the
 * kernel stack colouring parameters from them.
 *
 * This header and kcolour_geom.c are shared byte for byte between the kernel
 * (arch/x86) and the userspace kcolour-probe, so that the two can never
 * disagree.  They use fixed-width types only, call nothing, and allocate
 * nothing.  CPUID is read through a caller-supplied function, so the same
 * decoder runs on the live CPU and on a recorded dump.
 */
#ifndef _ASM_X86_KCOLOUR_GEOM_H
#define _ASM_X86_KCOLOUR_GEOM_H

#include <linux/types.h>

enum kcolour_vendor {
	KCOLOUR_VENDOR_OTHER,
	KCOLOUR_VENDOR_INTEL,
	KCOLOUR_VENDOR_AMD,
	KCOLOUR_VENDOR_HYGON,
	KCOLOUR_VENDOR_CENTAUR,
	KCOLOUR_VENDOR_ZHAOXIN,
	KCOLOUR_NR_VENDORS,
};

enum kcolour_cache_type {
	KCOLOUR_CACHE_NONE,
	KCOLOUR_CACHE_DATA,
	KCOLOUR_CACHE_INST,
	KCOLOUR_CACHE_UNIFIED,
	KCOLOUR_CACHE_TRACE,
	KCOLOUR_NR_CACHE_TYPES,
};

/* Where a cache's geometry came from, in the order the decoder trusts them. */
enum kcolour_source {
	KCOLOUR_SRC_NONE,
	KCOLOUR_SRC_LEAF4,		/* Intel deterministic cache parameters */
	KCOLOUR_SRC_LEAF2,		/* Intel descriptor bytes */
	KCOLOUR_SRC_AMD_1D,		/* AMD/Hygon 0x8000001D */
	KCOLOUR_SRC_AMD_L1,		/* legacy 0x80000005 */
	KCOLOUR_SRC_AMD_L2L3,		/* legacy 0x80000006 */
	KCOLOUR_NR_SOURCES,
};

enum kcolour_policy {
	KCOLOUR_POLICY_ADDR,		/* address bits above the shift, masked */
	KCOLOUR_POLICY_MOD,		/* address above the shift, modulo odd count */
	KCOLOUR_POLICY_RR,		/* round-robin */
	KCOLOUR_POLICY_BALANCED,	/* least-used colour among live tasks */
	KCOLOUR_NR_POLICIES,
};

/* Why the decoder fell back, dropped or distrusted something: g->notes bits. */
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

#define KCOLOUR_MAX_CACHES		12
#define KCOLOUR_MAX_DISAGREE		4
#define KCOLOUR_MAX_SUBLEAFS		16
#define KCOLOUR_MIN_STEP		64	/* FRED aligns RSP0 to 64 bytes */
#define KCOLOUR_MAX_STEP		4096
#define KCOLOUR_MAX_COLOURS		1024
#define KCOLOUR_MIN_SHIFT		6
#define KCOLOUR_MAX_SHIFT		30
#define KCOLOUR_MAX_OFFSET_LIMIT	8192
/*
 * The default step and budget, chosen by a cache simulation sweep: a step
 * of one hot stack top (its pt_regs and entry frames span about 1 KiB), so
 * that two colours do not share those lines, and three colours.  The
 * Kconfig defaults of KSTACK_COLOUR_STEP and _MAX_OFFSET are the same.
 */
#define KCOLOUR_DEFAULT_STEP		1024
#define KCOLOUR_DEFAULT_MAX_OFFSET	2048
#define KCOLOUR_FALLBACK_SHIFT		12	/* a 4 KiB way: see kcolour_recommend() */

struct kcolour_cache {
	u8 level;
	u8 type;		/* enum kcolour_cache_type */
	u8 source;		/* enum kcolour_source */
	u8 descriptor;		/* leaf 2 descriptor byte, 0 for other sources */
	u32 size;		/* bytes; micro-ops for a trace cache */
	u32 ways;		/* 0: fully associative */
	u32 line;		/* bytes; 0 for a trace cache */
	u32 sets;		/* 1 for a fully associative cache */
};

struct kcolour_geom {
	u8 vendor;		/* enum kcolour_vendor */
	u8 family;
	u8 model;
	u8 nr;			/* valid entries in cache[] */
	u8 nr_disagree;		/* valid entries in disagree[] */
	u8 unknown_descriptor;	/* first unknown leaf 2 byte, if any */
	u16 notes;		/* BIT(enum kcolour_note) */
	u32 max_leaf;
	u32 max_ext_leaf;
	struct kcolour_cache cache[KCOLOUR_MAX_CACHES];
	/* What a lower-precedence source said where it disagreed. */
	struct kcolour_cache disagree[KCOLOUR_MAX_DISAGREE];
};

/*
 * The colouring parameters.  As input to kcolour_derive(), a zero shift,
 * colours or step means "derive it"; policy and max_offset are taken as given.
 */
struct kcolour_params {
	u8 level;		/* cache level the colours target, 0: none */
	u8 policy;		/* enum kcolour_policy */
	u8 shift;		/* STACK_SHIFT_BITS: log2 of the way size */
	u16 colours;		/* 1: no colouring */
	u16 step;		/* bytes between colours, a multiple of 64 */
	u16 max_offset;		/* largest offset a task may get */
};

/* Reads CPUID (leaf, subleaf) into regs[] = { eax, ebx, ecx, edx }. */
typedef void (*kcolour_cpuid_fn)(void *ctx, u32 leaf, u32 subleaf, u32 *regs);

int kcolour_decode(struct kcolour_geom *g, kcolour_cpuid_fn cpuid, void *ctx);
const struct kcolour_cache *kcolour_find(const struct kcolour_geom *g, u8 level);
u8 kcolour_pick_level(const struct kcolour_geom *g);

u32 kcolour_way_size(const struct kcolour_cache *c);
u8 kcolour_shift_bits(const struct kcolour_cache *c);
int kcolour_derive(const struct kcolour_cache *c, struct kcolour_params *p);
int kcolour_recommend(const struct kcolour_geom *g, struct kcolour_params *p);
u16 kcolour_addr_colour(const struct kcolour_params *p, u64 addr);

const char *kcolour_vendor_name(u8 vendor);
const char *kcolour_type_name(u8 type);
const char *kcolour_source_name(u8 source);
const char *kcolour_policy_name(u8 policy);
const char *kcolour_note_text(u8 note);
int kcolour_policy_parse(const char *s);

#endif /* _ASM_X86_KCOLOUR_GEOM_H */
