// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-probe's own CPUID cache decoder: CPUID cache descriptors -> the
 * caches the shared derivation (lib/kcolour_geom.c) works on.  The kernel
 * uses cacheinfo's decode instead; see kcolour_decode.h.  Probe-only, but it
 * must pass scripts/checkpatch.pl --strict like the shared files.
 *
 * Sources, by vendor, in order of trust (a later source only fills in a
 * level/type pair an earlier one did not describe, and is recorded in
 * cpu->disagree[] where it says something else):
 *
 *   Intel, Centaur, Zhaoxin, others: leaf 4, leaf 2, 0x80000005/6
 *   AMD, Hygon:                      0x8000001D, 0x80000005/6
 */
#include <linux/array_size.h>
#include <linux/bits.h>
#include <asm/kcolour_geom.h>
#include <kcolour_decode.h>

#define KCOLOUR_LEAF_EXT_BASE		0x80000000U
#define KCOLOUR_LEAF_AMD_L1		0x80000005U
#define KCOLOUR_LEAF_AMD_L2L3		0x80000006U
#define KCOLOUR_LEAF_AMD_CACHE		0x8000001DU
#define KCOLOUR_TOPOEXT			BIT(22)	/* 0x80000001 ECX */
#define KCOLOUR_MAX_CACHE_BYTES		BIT_ULL(31)

enum { EAX, EBX, ECX, EDX };

struct kcolour_vendor_id {
	u32 ebx, edx, ecx;		/* the leaf 0 string, in register order */
	u8 vendor;
	const char *name;
};

static const struct kcolour_vendor_id kcolour_vendors[] = {
	{ 0x756e6547, 0x49656e69, 0x6c65746e, KCOLOUR_VENDOR_INTEL, "GenuineIntel" },
	{ 0x68747541, 0x69746e65, 0x444d4163, KCOLOUR_VENDOR_AMD, "AuthenticAMD" },
	{ 0x6f677948, 0x6e65476e, 0x656e6975, KCOLOUR_VENDOR_HYGON, "HygonGenuine" },
	{ 0x746e6543, 0x48727561, 0x736c7561, KCOLOUR_VENDOR_CENTAUR, "CentaurHauls" },
	{ 0x68532020, 0x68676e61, 0x20206961, KCOLOUR_VENDOR_ZHAOXIN, "  Shanghai  " },
};

/*
 * Intel SDM vol. 2A, table "Encoding of CPUID Leaf 2 Descriptors", cache
 * entries only, plus the few that older editions listed (0x10, 0x15, 0x1a,
 * 0x77, 0x7e, 0x81, 0x88-0x8d).  Sizes in KiB (K-micro-ops for trace caches).
 * Linux's table in cacheinfo.c keeps only the size; colouring needs ways and
 * line, and its 0xdc-0xde sizes (2/4/8 MiB) are not the SDM's 1.5/3/6 MiB.
 */
struct kcolour_desc {
	u8 desc;
	u8 level;
	u8 type;
	u8 ways;
	u16 line;
	u16 kib;
};

#define L1D(d, kib, ways, line)	{ d, 1, KCOLOUR_CACHE_DATA, ways, line, kib }
#define L1I(d, kib, ways, line)	{ d, 1, KCOLOUR_CACHE_INST, ways, line, kib }
#define L2U(d, kib, ways, line)	{ d, 2, KCOLOUR_CACHE_UNIFIED, ways, line, kib }
#define L3U(d, kib, ways, line)	{ d, 3, KCOLOUR_CACHE_UNIFIED, ways, line, kib }
#define TRC(d, kuops, ways)	{ d, 1, KCOLOUR_CACHE_TRACE, ways, 0, kuops }

static const struct kcolour_desc kcolour_leaf2[] = {
	L1I(0x06, 8, 4, 32),	L1I(0x08, 16, 4, 32),	L1I(0x09, 32, 4, 64),
	L1D(0x0a, 8, 2, 32),	L1D(0x0c, 16, 4, 32),	L1D(0x0d, 16, 4, 64),
	L1D(0x0e, 24, 6, 64),	L1D(0x10, 16, 4, 32),	L1I(0x15, 16, 4, 32),
	L2U(0x1a, 96, 6, 64),	L2U(0x1d, 128, 2, 64),	L2U(0x21, 256, 8, 64),
	L3U(0x22, 512, 4, 64),	L3U(0x23, 1024, 8, 64),	L2U(0x24, 1024, 16, 64),
	L3U(0x25, 2048, 8, 64),	L3U(0x29, 4096, 8, 64),	L1D(0x2c, 32, 8, 64),
	L1I(0x30, 32, 8, 64),	L2U(0x39, 128, 4, 64),	L2U(0x3a, 192, 6, 64),
	L2U(0x3b, 128, 2, 64),	L2U(0x3c, 256, 4, 64),	L2U(0x3d, 384, 6, 64),
	L2U(0x3e, 512, 4, 64),	L2U(0x3f, 256, 2, 64),	L2U(0x41, 128, 4, 32),
	L2U(0x42, 256, 4, 32),	L2U(0x43, 512, 4, 32),	L2U(0x44, 1024, 4, 32),
	L2U(0x45, 2048, 4, 32),	L3U(0x46, 4096, 4, 64),	L3U(0x47, 8192, 8, 64),
	L2U(0x48, 3072, 12, 64), L2U(0x49, 4096, 16, 64), L3U(0x4a, 6144, 12, 64),
	L3U(0x4b, 8192, 16, 64), L3U(0x4c, 12288, 12, 64), L3U(0x4d, 16384, 16, 64),
	L2U(0x4e, 6144, 24, 64), L1D(0x60, 16, 8, 64),	L1D(0x66, 8, 4, 64),
	L1D(0x67, 16, 4, 64),	L1D(0x68, 32, 4, 64),	TRC(0x70, 12, 8),
	TRC(0x71, 16, 8),	TRC(0x72, 32, 8),	TRC(0x73, 64, 8),
	L1I(0x77, 16, 4, 64),	L2U(0x78, 1024, 4, 64),	L2U(0x79, 128, 8, 64),
	L2U(0x7a, 256, 8, 64),	L2U(0x7b, 512, 8, 64),	L2U(0x7c, 1024, 8, 64),
	L2U(0x7d, 2048, 8, 64),	L2U(0x7e, 256, 8, 128),	L2U(0x7f, 512, 2, 64),
	L2U(0x80, 512, 8, 64),	L2U(0x81, 128, 8, 32),	L2U(0x82, 256, 8, 32),
	L2U(0x83, 512, 8, 32),	L2U(0x84, 1024, 8, 32),	L2U(0x85, 2048, 8, 32),
	L2U(0x86, 512, 4, 64),	L2U(0x87, 1024, 8, 64),	L3U(0x88, 2048, 4, 64),
	L3U(0x89, 4096, 4, 64),	L3U(0x8a, 8192, 4, 64),	L3U(0x8d, 3072, 12, 128),
	L3U(0xd0, 512, 4, 64),	L3U(0xd1, 1024, 4, 64),	L3U(0xd2, 2048, 4, 64),
	L3U(0xd6, 1024, 8, 64),	L3U(0xd7, 2048, 8, 64),	L3U(0xd8, 4096, 8, 64),
	L3U(0xdc, 1536, 12, 64), L3U(0xdd, 3072, 12, 64), L3U(0xde, 6144, 12, 64),
	L3U(0xe2, 2048, 16, 64), L3U(0xe3, 4096, 16, 64), L3U(0xe4, 8192, 16, 64),
	L3U(0xea, 12288, 24, 64), L3U(0xeb, 18432, 24, 64), L3U(0xec, 24576, 24, 64),
};

/* On family 0Fh model 06h (Xeon MP) descriptor 0x49 is the L3, not the L2. */
static const struct kcolour_desc kcolour_leaf2_0x49_f0f_m06 = L3U(0x49, 4096, 16, 64);

/*
 * Descriptor bytes that are known and describe no cache: TLBs, prefetch
 * sizes, 0x40 ("no L2, or no L3 if there is an L2"), 0xfe ("TLBs are in leaf
 * 0x18") and 0xff ("caches are in leaf 4").
 */
static const u8 kcolour_leaf2_other[] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x0b, 0x40, 0x4f, 0x50, 0x51, 0x52, 0x55,
	0x56, 0x57, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x61, 0x63, 0x64, 0x6a, 0x6b,
	0x6c, 0x6d, 0x76, 0xa0, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xba,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xca, 0xf0, 0xf1, 0xfe, 0xff,
};

#define KCOLOUR_LEAF2_USE_LEAF4		0xff

/*
 * 0x80000006 L2/L3 associativity codes (AMD APM vol. 3, Intel SDM agrees on
 * the common ones).  0 means disabled; 0xffff marks "fully associative";
 * 0 for a non-zero code means reserved or "see elsewhere".
 */
#define KCOLOUR_ASSOC_FULL		0xffff
#define KCOLOUR_ASSOC_SEE_LEAF4		0x7	/* Intel: "see leaf 4" */
#define KCOLOUR_ASSOC_SEE_1D		0x9	/* AMD: "see 0x8000001D" */

static const u16 kcolour_assoc_code[16] = {
	[0x1] = 1, [0x2] = 2, [0x3] = 3, [0x4] = 4, [0x5] = 6, [0x6] = 8,
	[0x8] = 16, [0xa] = 32, [0xb] = 48, [0xc] = 64, [0xd] = 96, [0xe] = 128,
	[0xf] = KCOLOUR_ASSOC_FULL,
};

static u32 kcolour_bits(u32 reg, u8 hi, u8 lo)
{
	return (reg >> lo) & (u32)(GENMASK(hi - lo, 0));
}

static void kcolour_note(struct kcolour_cpu *cpu, enum kcolour_note note)
{
	cpu->notes |= BIT(note);
}

static const struct kcolour_cache *kcolour_find_slot(const struct kcolour_geom *g, u8 level,
						     u8 type)
{
	int i;

	for (i = 0; i < g->nr; i++)
		if (g->cache[i].level == level && g->cache[i].type == type)
			return &g->cache[i];
	return NULL;
}

static bool kcolour_same_shape(const struct kcolour_cache *a, const struct kcolour_cache *b)
{
	return a->size == b->size && a->ways == b->ways && a->line == b->line;
}

/*
 * Checks a candidate's geometry and adds it, unless a more trusted source
 * already described that level and type.  size, ways and line must be set;
 * kcolour_check_cache() derives sets when the source gives none (sets == 0).
 */
static void kcolour_add(struct kcolour_cpu *cpu, struct kcolour_cache c)
{
	const struct kcolour_cache *have;

	if (!kcolour_check_cache(&c)) {
		kcolour_note(cpu, KCOLOUR_NOTE_BAD_ENTRY);
		return;
	}

	have = kcolour_find_slot(&cpu->geom, c.level, c.type);
	if (have) {
		if (!kcolour_same_shape(have, &c) && have->source != c.source &&
		    cpu->nr_disagree < KCOLOUR_MAX_DISAGREE) {
			cpu->disagree[cpu->nr_disagree++] = c;
			kcolour_note(cpu, KCOLOUR_NOTE_DISAGREE);
		}
		return;
	}

	if (cpu->geom.nr >= KCOLOUR_MAX_CACHES) {
		kcolour_note(cpu, KCOLOUR_NOTE_TOO_MANY);
		return;
	}
	cpu->geom.cache[cpu->geom.nr++] = c;
}

/* Leaf 4 and AMD's 0x8000001D share one layout. */
static void kcolour_decode_deterministic(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid,
					 void *ctx, u32 leaf, u8 source)
{
	static const u8 types[] = {
		[1] = KCOLOUR_CACHE_DATA, [2] = KCOLOUR_CACHE_INST, [3] = KCOLOUR_CACHE_UNIFIED,
	};
	u32 r[4], type, i;
	u64 ways, parts, line, sets, size;
	struct kcolour_cache c;

	for (i = 0; i < KCOLOUR_MAX_SUBLEAFS; i++) {
		cpuid(ctx, leaf, i, r);
		type = kcolour_bits(r[EAX], 4, 0);
		if (!type)
			break;
		if (type >= ARRAY_SIZE(types)) {
			kcolour_note(cpu, KCOLOUR_NOTE_RESERVED_TYPE);
			continue;
		}
		ways = kcolour_bits(r[EBX], 31, 22) + 1ULL;
		parts = kcolour_bits(r[EBX], 21, 12) + 1ULL;
		line = kcolour_bits(r[EBX], 11, 0) + 1ULL;
		sets = r[ECX] + 1ULL;
		size = ways * parts * line * sets;
		if (size > KCOLOUR_MAX_CACHE_BYTES) {
			kcolour_note(cpu, KCOLOUR_NOTE_BAD_ENTRY);
			continue;
		}
		c = (struct kcolour_cache) {
			.level = kcolour_bits(r[EAX], 7, 5),
			.type = types[type],
			.source = source,
			.size = size,
			.ways = (r[EAX] & BIT(9)) ? 0 : ways,
			.line = line,
			.sets = sets,
		};
		kcolour_add(cpu, c);
	}
}

static const struct kcolour_desc *kcolour_leaf2_lookup(const struct kcolour_cpu *cpu, u8 desc)
{
	unsigned int i;

	if (desc == 0x49 && cpu->family == 0x0f && cpu->model == 0x06)
		return &kcolour_leaf2_0x49_f0f_m06;
	for (i = 0; i < ARRAY_SIZE(kcolour_leaf2); i++)
		if (kcolour_leaf2[i].desc == desc)
			return &kcolour_leaf2[i];
	return NULL;
}

static bool kcolour_leaf2_known_other(u8 desc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kcolour_leaf2_other); i++)
		if (kcolour_leaf2_other[i] == desc)
			return true;
	return false;
}

static void kcolour_leaf2_byte(struct kcolour_cpu *cpu, u8 desc, bool have_leaf4)
{
	const struct kcolour_desc *d;
	struct kcolour_cache c = { .source = KCOLOUR_SRC_LEAF2, .descriptor = desc };

	if (!desc)
		return;
	if (desc == KCOLOUR_LEAF2_USE_LEAF4 && !have_leaf4)
		kcolour_note(cpu, KCOLOUR_NOTE_LEAF2_USE_LEAF4);
	d = kcolour_leaf2_lookup(cpu, desc);
	if (!d) {
		if (!kcolour_leaf2_known_other(desc) && !cpu->unknown_descriptor) {
			cpu->unknown_descriptor = desc;
			kcolour_note(cpu, KCOLOUR_NOTE_LEAF2_UNKNOWN);
		}
		return;
	}
	c.level = d->level;
	c.type = d->type;
	c.ways = d->ways;
	c.line = d->line;
	c.size = d->kib * 1024U;
	if (d->type == KCOLOUR_CACHE_TRACE)
		c.sets = 0;
	kcolour_add(cpu, c);
}

static void kcolour_decode_leaf2(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx,
				 bool have_leaf4)
{
	u32 r[4];
	int reg, byte;

	cpuid(ctx, 2, 0, r);
	/* AL is how often leaf 2 must be read; every CPU since the P6 says 1. */
	if ((r[EAX] & 0xff) > 1)
		kcolour_note(cpu, KCOLOUR_NOTE_LEAF2_REPEAT);
	r[EAX] &= ~0xffU;
	for (reg = EAX; reg <= EDX; reg++) {
		if (r[reg] & BIT(31))	/* register holds no descriptors */
			continue;
		for (byte = 0; byte < 4; byte++)
			kcolour_leaf2_byte(cpu, (u8)(r[reg] >> (8 * byte)), have_leaf4);
	}
}

static void kcolour_decode_amd_l1(struct kcolour_cpu *cpu, u32 reg, u8 type)
{
	u32 assoc = kcolour_bits(reg, 23, 16);
	struct kcolour_cache c = {
		.level = 1,
		.type = type,
		.source = KCOLOUR_SRC_AMD_L1,
		.size = kcolour_bits(reg, 31, 24) * 1024U,
		.line = kcolour_bits(reg, 7, 0),
		/* The L1 field is a plain way count, not an associativity code. */
		.ways = assoc == 0xff ? 0 : assoc,
	};

	if (!c.size)
		return;
	if (!assoc) {
		kcolour_note(cpu, KCOLOUR_NOTE_BAD_ENTRY);
		return;
	}
	kcolour_add(cpu, c);
}

static void kcolour_decode_amd_l2l3(struct kcolour_cpu *cpu, u8 level, u32 kib, u32 code, u32 line)
{
	struct kcolour_cache c = {
		.level = level,
		.type = KCOLOUR_CACHE_UNIFIED,
		.source = KCOLOUR_SRC_AMD_L2L3,
		.size = kib * 1024U,
		.line = line,
	};

	if (!code || !kib)		/* disabled or absent */
		return;
	if (code == KCOLOUR_ASSOC_SEE_LEAF4 || code == KCOLOUR_ASSOC_SEE_1D) {
		if (!kcolour_find_slot(&cpu->geom, level, KCOLOUR_CACHE_UNIFIED))
			kcolour_note(cpu, KCOLOUR_NOTE_DEFERRED);
		return;
	}
	if (!kcolour_assoc_code[code]) {
		kcolour_note(cpu, KCOLOUR_NOTE_BAD_ENTRY);
		return;
	}
	c.ways = kcolour_assoc_code[code] == KCOLOUR_ASSOC_FULL ? 0 : kcolour_assoc_code[code];
	kcolour_add(cpu, c);
}

static void kcolour_decode_legacy(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4];

	if (cpu->max_ext_leaf >= KCOLOUR_LEAF_AMD_L1) {
		cpuid(ctx, KCOLOUR_LEAF_AMD_L1, 0, r);
		kcolour_decode_amd_l1(cpu, r[ECX], KCOLOUR_CACHE_DATA);
		kcolour_decode_amd_l1(cpu, r[EDX], KCOLOUR_CACHE_INST);
	}
	if (cpu->max_ext_leaf >= KCOLOUR_LEAF_AMD_L2L3) {
		cpuid(ctx, KCOLOUR_LEAF_AMD_L2L3, 0, r);
		kcolour_decode_amd_l2l3(cpu, 2, kcolour_bits(r[ECX], 31, 16),
					kcolour_bits(r[ECX], 15, 12), kcolour_bits(r[ECX], 7, 0));
		/* L3 size is in 512 KiB units. */
		kcolour_decode_amd_l2l3(cpu, 3, kcolour_bits(r[EDX], 31, 18) * 512U,
					kcolour_bits(r[EDX], 15, 12), kcolour_bits(r[EDX], 7, 0));
	}
}

static void kcolour_decode_ident(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4], family, model;
	unsigned int i;

	cpuid(ctx, 0, 0, r);
	cpu->max_leaf = r[EAX];
	cpu->vendor = KCOLOUR_VENDOR_OTHER;
	for (i = 0; i < ARRAY_SIZE(kcolour_vendors); i++) {
		if (r[EBX] == kcolour_vendors[i].ebx && r[EDX] == kcolour_vendors[i].edx &&
		    r[ECX] == kcolour_vendors[i].ecx)
			cpu->vendor = kcolour_vendors[i].vendor;
	}
	if (cpu->max_leaf >= 1) {
		cpuid(ctx, 1, 0, r);
		family = kcolour_bits(r[EAX], 11, 8);
		model = kcolour_bits(r[EAX], 7, 4);
		if (family == 0x0f)
			family += kcolour_bits(r[EAX], 27, 20);
		if (family == 0x06 || family >= 0x0f)
			model |= kcolour_bits(r[EAX], 19, 16) << 4;
		cpu->family = family;
		cpu->model = model;
	}
	cpuid(ctx, KCOLOUR_LEAF_EXT_BASE, 0, r);
	if ((r[EAX] & 0xffff0000U) == KCOLOUR_LEAF_EXT_BASE)
		cpu->max_ext_leaf = r[EAX];
}

static bool kcolour_has_topoext(const struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4];

	if (cpu->max_ext_leaf < KCOLOUR_LEAF_AMD_CACHE)
		return false;
	cpuid(ctx, KCOLOUR_LEAF_EXT_BASE + 1, 0, r);
	return r[ECX] & KCOLOUR_TOPOEXT;
}

/* Keeps cache[] ordered by level, then type (data, instruction, unified, trace). */
static void kcolour_sort(struct kcolour_geom *g)
{
	struct kcolour_cache t;
	int i, j;

	for (i = 1; i < g->nr; i++) {
		t = g->cache[i];
		for (j = i; j > 0; j--) {
			const struct kcolour_cache *p = &g->cache[j - 1];

			if (p->level < t.level || (p->level == t.level && p->type <= t.type))
				break;
			g->cache[j] = g->cache[j - 1];
		}
		g->cache[j] = t;
	}
}

/**
 * kcolour_decode - decode every cache the CPU describes
 * @cpu: result, fully overwritten
 * @cpuid: reads one CPUID leaf/subleaf
 * @ctx: passed to @cpuid
 *
 * Return: the number of caches found (0 with KCOLOUR_NOTE_NO_INFO set when
 * the CPU offers no usable cache information).
 */
int kcolour_decode(struct kcolour_cpu *cpu, kcolour_cpuid_fn cpuid, void *ctx)
{
	bool have_leaf4;

	*cpu = (struct kcolour_cpu) { 0 };
	kcolour_decode_ident(cpu, cpuid, ctx);

	if (cpu->vendor == KCOLOUR_VENDOR_AMD || cpu->vendor == KCOLOUR_VENDOR_HYGON) {
		if (kcolour_has_topoext(cpu, cpuid, ctx))
			kcolour_decode_deterministic(cpu, cpuid, ctx, KCOLOUR_LEAF_AMD_CACHE,
						     KCOLOUR_SRC_AMD_1D);
	} else {
		/*
		 * Past the maximum basic leaf Intel CPUs echo the highest basic
		 * leaf, which would decode as plausible garbage.
		 */
		have_leaf4 = cpu->max_leaf >= 4;
		if (have_leaf4)
			kcolour_decode_deterministic(cpu, cpuid, ctx, 4, KCOLOUR_SRC_LEAF4);
		else
			kcolour_note(cpu, KCOLOUR_NOTE_NO_LEAF4);
		have_leaf4 = have_leaf4 && cpu->geom.nr;
		if (cpu->max_leaf >= 2)
			kcolour_decode_leaf2(cpu, cpuid, ctx, have_leaf4);
	}
	kcolour_decode_legacy(cpu, cpuid, ctx);

	if (!cpu->geom.nr)
		kcolour_note(cpu, KCOLOUR_NOTE_NO_INFO);
	kcolour_sort(&cpu->geom);
	return cpu->geom.nr;
}

static const char * const kcolour_note_texts[] = {
	[KCOLOUR_NOTE_NO_LEAF4] = "maximum basic leaf below 4: leaf 4 not read",
	[KCOLOUR_NOTE_LEAF2_USE_LEAF4] = "leaf 2 defers to leaf 4, which gave nothing",
	[KCOLOUR_NOTE_LEAF2_UNKNOWN] = "unknown leaf 2 descriptor ignored",
	[KCOLOUR_NOTE_LEAF2_REPEAT] = "leaf 2 asks for repeated reads: first read used",
	[KCOLOUR_NOTE_DEFERRED] = "0x80000006 defers to leaf 4 or 0x8000001d, which gave nothing",
	[KCOLOUR_NOTE_BAD_ENTRY] = "cache entry with impossible geometry dropped",
	[KCOLOUR_NOTE_RESERVED_TYPE] = "cache entry with reserved type ignored",
	[KCOLOUR_NOTE_TOO_MANY] = "more caches than the decoder keeps",
	[KCOLOUR_NOTE_DISAGREE] = "sources disagree: the more trusted one is used",
	[KCOLOUR_NOTE_NO_INFO] = "no cache information",
};

const char *kcolour_vendor_name(u8 vendor)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kcolour_vendors); i++)
		if (kcolour_vendors[i].vendor == vendor)
			return kcolour_vendors[i].name;
	return "unknown";
}

const char *kcolour_note_text(u8 note)
{
	if (note < ARRAY_SIZE(kcolour_note_texts) && kcolour_note_texts[note])
		return kcolour_note_texts[note];
	return "unknown";
}
