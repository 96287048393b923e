/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcolour cache geometry: derive the kernel stack colouring parameters from
 * the geometry of the CPU's caches.
 *
 * This header and kcolour_geom.c are shared byte for byte between the kernel
 * (arch/x86) and the userspace kcolour-probe, so that the two can never
 * disagree on what a geometry means.  The kernel takes the geometry from
 * cacheinfo's decode of CPUID; the probe, like cpuid and lscpu, has its own
 * decoder.  Both files allocate nothing and call only what the probe's
 * include/linux headers provide too.
 */
#ifndef _ASM_X86_KCOLOUR_GEOM_H
#define _ASM_X86_KCOLOUR_GEOM_H

#include <linux/types.h>

enum kcolour_cache_type {
	KCOLOUR_CACHE_NONE,
	KCOLOUR_CACHE_DATA,
	KCOLOUR_CACHE_INST,
	KCOLOUR_CACHE_UNIFIED,
	KCOLOUR_CACHE_TRACE,
	KCOLOUR_NR_CACHE_TYPES,
};

/*
 * Where a cache's geometry came from: the kernel's cacheinfo, or one of the
 * CPUID sources of the probe's decoder, in the order it trusts them.
 */
enum kcolour_source {
	KCOLOUR_SRC_NONE,
	KCOLOUR_SRC_CACHEINFO,		/* the kernel's cacheinfo decode */
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

#define KCOLOUR_MAX_CACHES		12
#define KCOLOUR_MIN_STEP		64	/* FRED aligns RSP0 to 64 bytes */
#define KCOLOUR_MAX_STEP		4096
#define KCOLOUR_MAX_COLOURS		1024
#define KCOLOUR_MIN_SHIFT		6
#define KCOLOUR_MAX_SHIFT		30
/* The stack budget's cap: a quarter of x86-64's 16 KiB kernel stack. */
#define KCOLOUR_MAX_OFFSET_LIMIT	4096
#define KCOLOUR_MAX_LINE		4096
/*
 * The default step and budget, chosen by a cache simulation sweep: a step
 * of one hot stack top (its pt_regs and entry frames span about 1 KiB), so
 * that two colours do not share those lines, and three colours.
 */
#define KCOLOUR_DEFAULT_STEP		1024
#define KCOLOUR_DEFAULT_MAX_OFFSET	2048
/*
 * rr takes no lock at fork, and balanced's more even spread lowered the
 * simulated cycles measurably on none of 17 CPUs.
 */
#define KCOLOUR_DEFAULT_POLICY		KCOLOUR_POLICY_RR
#define KCOLOUR_FALLBACK_SHIFT		12	/* a 4 KiB way: see kcolour_recommend() */
/*
 * The L1Ds where colouring stack tops lowered misses, in a cache simulation
 * of the L1D, L1I and L2 of 17 CPUs on the same kernel runs: at most 8 ways
 * (64K 2-way, 24K 6-way, 32K 8-way), and a way of at least 4 KiB.  With 12
 * ways the stack tops of a ring of 16 tasks share their sets without
 * evicting each other, and spreading them evicts other data: 3 colours x
 * 1 KiB made that ring miss more on 48K 12-way L1Ds and gained nothing
 * measurable over the workloads.  A 2 KiB way (Pentium 4) leaves no set
 * to move to that is not already full.  See kcolour_gains().
 */
#define KCOLOUR_GAIN_MAX_WAYS		8
#define KCOLOUR_GAIN_MIN_WAY_SIZE	4096

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

/* The caches of one CPU, by level. */
struct kcolour_geom {
	u8 nr;			/* valid entries in cache[] */
	struct kcolour_cache cache[KCOLOUR_MAX_CACHES];
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

bool kcolour_check_cache(struct kcolour_cache *c);
const struct kcolour_cache *kcolour_find(const struct kcolour_geom *g, u8 level);
u8 kcolour_pick_level(const struct kcolour_geom *g);

u32 kcolour_way_size(const struct kcolour_cache *c);
bool kcolour_gains(const struct kcolour_cache *c);
u8 kcolour_shift_bits(const struct kcolour_cache *c);
int kcolour_derive(const struct kcolour_cache *c, struct kcolour_params *p);
int kcolour_recommend(const struct kcolour_geom *g, struct kcolour_params *p);
u16 kcolour_addr_colour(const struct kcolour_params *p, u64 addr);

const char *kcolour_type_name(u8 type);
const char *kcolour_source_name(u8 source);
const char *kcolour_policy_name(u8 policy);
int kcolour_policy_parse(const char *s);

#endif /* _ASM_X86_KCOLOUR_GEOM_H */
