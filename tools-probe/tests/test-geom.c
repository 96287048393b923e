// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the probe's decoder (lib/kcolour_decode.c) and the derivation
 * shared with the kernel (lib/kcolour_geom.c) with crafted CPUID registers:
 * every source, the quirks, and garbage.  TAP output.
 */
#include <stdio.h>
#include <string.h>

#include <asm/kcolour_geom.h>
#include <kcolour_decode.h>
#include "../../harness/tap.h"

/* Leaf 0 vendor strings as EBX, ECX, EDX. */
#define INTEL	0x756e6547, 0x6c65746e, 0x49656e69
#define AMD	0x68747541, 0x444d4163, 0x69746e65
#define HYGON	0x6f677948, 0x656e6975, 0x6e65476e
#define CENTAUR	0x746e6543, 0x736c7561, 0x48727561
#define ZHAOXIN	0x68532020, 0x20206961, 0x68676e61

struct reg { u32 leaf, sub, a, b, c, d; };

/* A fake CPU: registers by (leaf, subleaf); optional Intel out-of-range echo. */
struct fake_cpu {
	const struct reg *regs;
	int n;
	int intel_echo;
	int reads[0x20];	/* basic leaves read, to prove what was not */
};


static const struct reg *lookup(const struct fake_cpu *f, u32 leaf, u32 sub)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->regs[i].leaf == leaf && f->regs[i].sub == sub)
			return &f->regs[i];
	return NULL;
}

static void fake_cpuid(void *ctx, u32 leaf, u32 sub, u32 *r)
{
	struct fake_cpu *f = ctx;
	const struct reg *e = lookup(f, leaf, sub);
	const struct reg *l0 = lookup(f, 0, 0);

	if (leaf < 0x20)
		f->reads[leaf]++;
	if (!e && f->intel_echo && l0 && leaf > l0->a && leaf < 0x80000000)
		e = lookup(f, l0->a, 0);
	r[0] = e ? e->a : 0;
	r[1] = e ? e->b : 0;
	r[2] = e ? e->c : 0;
	r[3] = e ? e->d : 0;
}

/* What the decoder found, and its caches (what the derivation reads). */
static struct kcolour_cpu dec;
static const struct kcolour_geom *g = &dec.geom;
static struct fake_cpu cpu;

#define DECODE(...) decode((const struct reg[]){ __VA_ARGS__ }, \
			   sizeof((const struct reg[]){ __VA_ARGS__ }) / sizeof(struct reg), 0)
#define DECODE_ECHO(...) decode((const struct reg[]){ __VA_ARGS__ }, \
				sizeof((const struct reg[]){ __VA_ARGS__ }) / sizeof(struct reg), 1)

static int decode(const struct reg *regs, int n, int echo)
{
	memset(&cpu, 0, sizeof(cpu));
	cpu.regs = regs;
	cpu.n = n;
	cpu.intel_echo = echo;
	return kcolour_decode(&dec, fake_cpuid, &cpu);
}

static const struct kcolour_cache *slot(u8 level, u8 type)
{
	int i;

	for (i = 0; i < g->nr; i++)
		if (g->cache[i].level == level && g->cache[i].type == type)
			return &g->cache[i];
	return NULL;
}

/* One expected cache: level, type, size, ways, line, sets, source. */
static void expect(const char *what, u8 level, u8 type, u32 size, u32 ways, u32 line,
		   u32 sets, u8 source)
{
	const struct kcolour_cache *c = slot(level, type);

	ok(c && c->size == size && c->ways == ways && c->line == line && c->sets == sets &&
	   c->source == source,
	   "%s: L%u %s = %u B %u-way %u B line %u sets (%s)%s", what, level,
	   kcolour_type_name(type), size, ways, line, sets, kcolour_source_name(source),
	   c ? "" : " [missing]");
	if (c && !(c->size == size && c->ways == ways && c->line == line && c->sets == sets &&
		   c->source == source))
		printf("# got %u B %u-way %u B line %u sets (%s)\n", c->size, c->ways, c->line,
		       c->sets, kcolour_source_name(c->source));
}

static int has_note(enum kcolour_note n)
{
	return !!(dec.notes & (1U << n));
}

enum { D = KCOLOUR_CACHE_DATA, I = KCOLOUR_CACHE_INST, U = KCOLOUR_CACHE_UNIFIED,
       T = KCOLOUR_CACHE_TRACE };

static void test_leaf4(void)
{
	/* Skylake i7-6500U (fixture GenuineIntel00406E3_Skylake). */
	DECODE({ 0, 0, 0x16, INTEL }, { 1, 0, 0x000406e3 },
	       { 2, 0, 0x76036301, 0x00f0b5ff, 0, 0x00c30000 },
	       { 4, 0, 0x1c004121, 0x01c0003f, 0x3f }, { 4, 1, 0x1c004122, 0x01c0003f, 0x3f },
	       { 4, 2, 0x1c004143, 0x00c0003f, 0x3ff }, { 4, 3, 0x1c03c163, 0x03c0003f, 0xfff, 6 },
	       { 0x80000000, 0, 0x80000008 }, { 0x80000006, 0, 0, 0, 0x01006040 });
	ok(dec.vendor == KCOLOUR_VENDOR_INTEL && dec.family == 6 && dec.model == 0x4e,
	   "leaf 4: vendor Intel, family 6 model 0x4e");
	ok(g->nr == 4, "leaf 4: four caches (got %d)", g->nr);
	expect("leaf 4", 1, D, 32768, 8, 64, 64, KCOLOUR_SRC_LEAF4);
	expect("leaf 4", 1, I, 32768, 8, 64, 64, KCOLOUR_SRC_LEAF4);
	expect("leaf 4", 2, U, 262144, 4, 64, 1024, KCOLOUR_SRC_LEAF4);
	expect("leaf 4", 3, U, 4194304, 16, 64, 4096, KCOLOUR_SRC_LEAF4);
	ok(g->cache[0].type == D && g->cache[1].type == I && g->cache[3].level == 3,
	   "leaf 4: caches sorted by level, then data before instruction");
	/* 0x80000006 says 8-way for this 4-way L2: leaf 4 wins, the rest is recorded. */
	ok(has_note(KCOLOUR_NOTE_DISAGREE) && dec.nr_disagree == 1 &&
	   dec.disagree[0].source == KCOLOUR_SRC_AMD_L2L3 && dec.disagree[0].ways == 8,
	   "leaf 4 vs 0x80000006: disagreement recorded, leaf 4 trusted");
	ok(!has_note(KCOLOUR_NOTE_LEAF2_UNKNOWN), "leaf 2 descriptors of Skylake all known");

	/* Fully associative: EAX bit 9; ways reported 0, one set. */
	DECODE({ 0, 0, 4, INTEL }, { 4, 0, 0x00000223, 0x03c0003f, 0 });
	expect("leaf 4 fully associative", 1, U, 16 * 64, 0, 64, 1, KCOLOUR_SRC_LEAF4);

	/* Non-power-of-two sets (a 260 MiB 20-way L3 from a Xeon VM). */
	DECODE({ 0, 0, 4, INTEL }, { 4, 0, 0x163, 0x04c0003f, 0x33fff });
	expect("leaf 4 odd set count", 3, U, 272629760, 20, 64, 212992, KCOLOUR_SRC_LEAF4);
	ok(kcolour_shift_bits(slot(3, U)) == 24, "212992 sets round up to 18 index bits: shift 24");

	/* Prescott 2M L2: two lines per sector, so the index starts at bit 7. */
	DECODE({ 0, 0, 5, INTEL }, { 4, 0, 0x00004143, 0x01c0103f, 0x7ff });
	expect("leaf 4 sectored", 2, U, 2097152, 8, 64, 2048, KCOLOUR_SRC_LEAF4);
	ok(kcolour_way_size(slot(2, U)) == 262144 && kcolour_shift_bits(slot(2, U)) == 18,
	   "2 line partitions: 256 KiB way, shift 18 (not 6 + 11)");
}

static void test_leaf4_garbage(void)
{
	/* Max basic leaf 2: leaf 4 would echo leaf 2 (QEMU Conroe,level=2). */
	DECODE_ECHO({ 0, 0, 2, INTEL }, { 1, 0, 0x6f6 },
		    { 2, 0, 0x7d302c01, 0, 0, 0x0000004d });
	ok(cpu.reads[4] == 0, "max leaf 2: leaf 4 never read");
	ok(has_note(KCOLOUR_NOTE_NO_LEAF4), "max leaf 2: note says leaf 4 not read");
	expect("Conroe leaf 2", 1, D, 32768, 8, 64, 64, KCOLOUR_SRC_LEAF2);
	expect("Conroe leaf 2", 1, I, 32768, 8, 64, 64, KCOLOUR_SRC_LEAF2);
	expect("Conroe leaf 2", 2, U, 2097152, 8, 64, 4096, KCOLOUR_SRC_LEAF2);
	expect("Conroe leaf 2", 3, U, 16777216, 16, 64, 16384, KCOLOUR_SRC_LEAF2);

	/* Leaf 4 present but empty, leaf 2 says "use leaf 4": nothing, noted. */
	DECODE({ 0, 0, 4, INTEL }, { 2, 0, 0x00000001, 0, 0, 0x000000ff });
	ok(g->nr == 0 && has_note(KCOLOUR_NOTE_LEAF2_USE_LEAF4) && has_note(KCOLOUR_NOTE_NO_INFO),
	   "empty leaf 4 + descriptor 0xff: no caches, both noted");

	/* Absurd geometry: sets overflow, level 0, reserved type. */
	DECODE({ 0, 0, 4, INTEL }, { 4, 0, 0x121, 0xffffffff, 0xffffffff },
	       { 4, 1, 0x001, 0x01c0003f, 0x3f }, { 4, 2, 0x125, 0x01c0003f, 0x3f },
	       { 4, 3, 0x122, 0x01c0003f, 0x3f });
	ok(g->nr == 1 && has_note(KCOLOUR_NOTE_BAD_ENTRY) && has_note(KCOLOUR_NOTE_RESERVED_TYPE),
	   "overflowing sets, level 0 and type 5 dropped; the good entry kept (nr %d)", g->nr);
	expect("after garbage", 1, I, 32768, 8, 64, 64, KCOLOUR_SRC_LEAF4);

	/* A leaf 4 that never ends stops after KCOLOUR_MAX_SUBLEAFS reads. */
	{
		struct reg r[KCOLOUR_MAX_SUBLEAFS + 2] = { { 0, 0, 4, INTEL } };
		int i;

		for (i = 1; i < KCOLOUR_MAX_SUBLEAFS + 2; i++)
			r[i] = (struct reg){ 4, i - 1, 0x21 + 0x20 * (i % 4), 0x01c0003f, 0x3f };
		decode(r, KCOLOUR_MAX_SUBLEAFS + 2, 0);
		ok(cpu.reads[4] == KCOLOUR_MAX_SUBLEAFS && g->nr <= KCOLOUR_MAX_CACHES,
		   "endless leaf 4: %d reads, %d caches", cpu.reads[4], g->nr);
	}
}

static void test_leaf2(void)
{
	/* Pentium III Coppermine. */
	DECODE({ 0, 0, 3, INTEL }, { 1, 0, 0x683 }, { 2, 0, 0x03020101, 0, 0, 0x0c040882 });
	ok(g->nr == 3, "P3 leaf 2: three caches (got %d)", g->nr);
	expect("P3 leaf 2", 1, D, 16384, 4, 32, 128, KCOLOUR_SRC_LEAF2);
	expect("P3 leaf 2", 1, I, 16384, 4, 32, 128, KCOLOUR_SRC_LEAF2);
	expect("P3 leaf 2", 2, U, 262144, 8, 32, 1024, KCOLOUR_SRC_LEAF2);
	ok(slot(1, D)->descriptor == 0x0c, "P3: descriptor byte kept (0x0c)");

	/* Pentium 4 Northwood: trace cache, 0x40 = no L3. */
	DECODE({ 0, 0, 2, INTEL }, { 1, 0, 0xf29 }, { 2, 0, 0x665b5001, 0, 0, 0x007b7040 });
	expect("P4 leaf 2", 1, D, 8192, 4, 64, 32, KCOLOUR_SRC_LEAF2);
	expect("P4 leaf 2", 2, U, 524288, 8, 64, 1024, KCOLOUR_SRC_LEAF2);
	ok(slot(1, T) && slot(1, T)->size == 12288 && slot(1, T)->ways == 8,
	   "P4 leaf 2: trace cache 12K uops 8-way");
	ok(!slot(3, U) && !has_note(KCOLOUR_NOTE_LEAF2_UNKNOWN), "P4 leaf 2: no L3, all bytes known");

	/* 0x49: L2 in general, L3 on family 0Fh model 06h. */
	DECODE({ 0, 0, 2, INTEL }, { 1, 0, 0x6f6 }, { 2, 0, 0x00004901 });
	expect("0x49 on family 6", 2, U, 4194304, 16, 64, 4096, KCOLOUR_SRC_LEAF2);
	DECODE({ 0, 0, 2, INTEL }, { 1, 0, 0xf64 }, { 2, 0, 0x00004901 });
	expect("0x49 on family 0Fh model 06h", 3, U, 4194304, 16, 64, 4096, KCOLOUR_SRC_LEAF2);
	ok(!slot(2, U), "0x49 on family 0Fh model 06h: no L2");

	/* Bit 31 marks a register without descriptors; AL > 1; unknown byte. */
	DECODE({ 0, 0, 2, INTEL }, { 2, 0, 0x00002c02, 0x80003000, 0x00000099 });
	ok(slot(1, D) && !slot(1, I), "register with bit 31 set is ignored");
	ok(has_note(KCOLOUR_NOTE_LEAF2_REPEAT), "AL = 2 noted");
	ok(has_note(KCOLOUR_NOTE_LEAF2_UNKNOWN) && dec.unknown_descriptor == 0x99,
	   "unknown descriptor 0x99 noted");

	/* Leaf 4 wins; leaf 2 only adds what leaf 4 cannot describe (trace). */
	DECODE({ 0, 0, 5, INTEL }, { 1, 0, 0xf43 }, { 2, 0, 0x605b7001, 0, 0, 0x007d7040 },
	       { 4, 0, 0x00000121, 0x01c0003f, 0x1f }, { 4, 1, 0x00000143, 0x01c0003f, 0x7ff });
	ok(slot(1, T) && slot(1, T)->source == KCOLOUR_SRC_LEAF2,
	   "Prescott: trace cache from leaf 2 beside leaf 4");
	expect("Prescott", 1, D, 16384, 8, 64, 32, KCOLOUR_SRC_LEAF4);
	expect("Prescott", 2, U, 1048576, 8, 64, 2048, KCOLOUR_SRC_LEAF4);
	ok(dec.nr_disagree == 1 && dec.disagree[0].descriptor == 0x7d,
	   "Prescott: leaf 2's different L2 (0x7d) recorded as a disagreement");
}

static void test_amd(void)
{
	/* Zen 4 Raphael: 0x8000001D with TOPOEXT. */
	DECODE({ 0, 0, 0x10, AMD }, { 1, 0, 0x00a60f12 }, { 0x80000000, 0, 0x80000028 },
	       { 0x80000001, 0, 0, 0, 0x75c237ff },
	       { 0x80000005, 0, 0xff48ff40, 0xff48ff40, 0x20080140, 0x20080140 },
	       { 0x80000006, 0, 0x5c002200, 0x6c004200, 0x04006140, 0x03009140 },
	       { 0x8000001d, 0, 0x00004121, 0x01c0003f, 0x3f },
	       { 0x8000001d, 1, 0x00004122, 0x01c0003f, 0x3f },
	       { 0x8000001d, 2, 0x00004143, 0x01c0003f, 0x7ff, 2 },
	       { 0x8000001d, 3, 0x0003c163, 0x03c0003f, 0x17fff, 1 });
	ok(dec.vendor == KCOLOUR_VENDOR_AMD && dec.family == 0x19 && dec.model == 0x61,
	   "Raphael: AMD family 0x19 model 0x61");
	ok(cpu.reads[4] == 0, "AMD: leaf 4 never read");
	expect("Raphael", 1, D, 32768, 8, 64, 64, KCOLOUR_SRC_AMD_1D);
	expect("Raphael", 1, I, 32768, 8, 64, 64, KCOLOUR_SRC_AMD_1D);
	expect("Raphael", 2, U, 1048576, 8, 64, 2048, KCOLOUR_SRC_AMD_1D);
	expect("Raphael", 3, U, 100663296, 16, 64, 98304, KCOLOUR_SRC_AMD_1D);
	ok(!has_note(KCOLOUR_NOTE_DEFERRED) && !dec.nr_disagree,
	   "Raphael: 0x80000006 code 9 is silent where 0x8000001D answered");

	/* K8: legacy only; the L1 field is a plain way count. */
	DECODE({ 0, 0, 1, AMD }, { 1, 0, 0xf51 }, { 0x80000000, 0, 0x80000018 },
	       { 0x80000005, 0, 0xff08ff08, 0xff20ff20, 0x40020140, 0x40020140 },
	       { 0x80000006, 0, 0, 0x42004200, 0x04008140, 0 });
	expect("K8", 1, D, 65536, 2, 64, 512, KCOLOUR_SRC_AMD_L1);
	expect("K8", 1, I, 65536, 2, 64, 512, KCOLOUR_SRC_AMD_L1);
	expect("K8", 2, U, 1048576, 16, 64, 1024, KCOLOUR_SRC_AMD_L2L3);
	ok(!slot(3, U), "K8: EDX 0, no L3");

	/* QEMU EPYC under TCG: TOPOEXT masked, so 0x8000001D is not used. */
	DECODE({ 0, 0, 0xd, AMD }, { 0x80000000, 0, 0x8000001f },
	       { 0x80000001, 0, 0, 0, 0 },
	       { 0x8000001d, 0, 0x121, 0x03c0003f, 0x3f },
	       { 0x80000005, 0, 0, 0, 0x20080140, 0x40040140 },
	       { 0x80000006, 0, 0, 0, 0x02006140, 0x00808140 });
	expect("EPYC (no TOPOEXT)", 1, D, 32768, 8, 64, 64, KCOLOUR_SRC_AMD_L1);
	expect("EPYC (no TOPOEXT)", 1, I, 65536, 4, 64, 256, KCOLOUR_SRC_AMD_L1);
	expect("EPYC (no TOPOEXT)", 2, U, 524288, 8, 64, 1024, KCOLOUR_SRC_AMD_L2L3);
	expect("EPYC (no TOPOEXT)", 3, U, 16777216, 16, 64, 16384, KCOLOUR_SRC_AMD_L2L3);

	/* Codes: 9 without 0x8000001D, 0xf fully associative, 3 three-way, 7 reserved. */
	DECODE({ 0, 0, 1, HYGON }, { 0x80000000, 0, 0x80000006 },
	       { 0x80000006, 0, 0, 0, 0x00409040, 0x0080f040 });
	ok(dec.vendor == KCOLOUR_VENDOR_HYGON && has_note(KCOLOUR_NOTE_DEFERRED) && !slot(2, U),
	   "Hygon code 9 without 0x8000001D: no L2, noted");
	expect("code 0xf", 3, U, 16777216, 0, 64, 1, KCOLOUR_SRC_AMD_L2L3);
	DECODE({ 0, 0, 1, AMD }, { 0x80000000, 0, 0x80000006 },
	       { 0x80000006, 0, 0, 0, 0x00c03040 });
	expect("code 3", 2, U, 196608, 3, 64, 1024, KCOLOUR_SRC_AMD_L2L3);

	/* Garbage: L1 associativity 0, L1 line 0, L2 line 0. */
	DECODE({ 0, 0, 1, AMD }, { 0x80000000, 0, 0x80000006 },
	       { 0x80000005, 0, 0, 0, 0x20000140, 0x20080100 },
	       { 0x80000006, 0, 0, 0, 0x02006100 });
	ok(g->nr == 0 && has_note(KCOLOUR_NOTE_BAD_ENTRY) && has_note(KCOLOUR_NOTE_NO_INFO),
	   "0 ways, 0 line: everything dropped and noted, no division by zero");
}

static void test_other_vendors(void)
{
	/* Zhaoxin KX-6640MA (fixture CentaurHauls00307B0): leaf 4, leaf 2 = 0xff. */
	DECODE({ 0, 0, 0xd, CENTAUR }, { 2, 0, 0x635af001, 0, 0, 0xff },
	       { 4, 0, 0x0c000121, 0x01c0003f, 0x3f }, { 4, 1, 0x0c000122, 0x01c0003f, 0x3f },
	       { 4, 2, 0x0c00c143, 0x03c0003f, 0xfff, 2 }, { 0x80000000, 0, 0x80000008 },
	       { 0x80000005, 0, 0x04200420, 0x06600660, 0x20080140, 0x20080140 },
	       { 0x80000006, 0, 0, 0, 0x10008140 });
	ok(dec.vendor == KCOLOUR_VENDOR_CENTAUR && g->nr == 3 && !dec.nr_disagree,
	   "Centaur: leaf 4, and 0x80000005/6 agree");
	expect("Centaur", 2, U, 4194304, 16, 64, 4096, KCOLOUR_SRC_LEAF4);
	DECODE({ 0, 0, 1, ZHAOXIN }, { 0x80000000, 0, 0x80000006 },
	       { 0x80000005, 0, 0, 0, 0x40040140 });
	ok(dec.vendor == KCOLOUR_VENDOR_ZHAOXIN, "Zhaoxin vendor string recognised");
	expect("Zhaoxin legacy", 1, D, 65536, 4, 64, 256, KCOLOUR_SRC_AMD_L1);

	/* No information at all (qemu64,level=1,xlevel=0x80000004). */
	DECODE({ 0, 0, 1, AMD }, { 0x80000000, 0, 0x80000004 });
	ok(g->nr == 0 && has_note(KCOLOUR_NOTE_NO_INFO), "no cache leaves: no caches, noted");
	DECODE({ 0, 0, 0, 0x11111111, 0x22222222, 0x33333333 }, { 0x80000000, 0, 0x1234 });
	ok(dec.vendor == KCOLOUR_VENDOR_OTHER && dec.max_ext_leaf == 0 && g->nr == 0,
	   "unknown vendor, garbage extended range: nothing decoded");
}

static struct kcolour_params derive(const struct kcolour_cache *c, u8 policy, u16 max_offset,
				    u8 shift, u16 colours, u16 step)
{
	struct kcolour_params p = { .policy = policy, .max_offset = max_offset, .shift = shift,
				    .colours = colours, .step = step };

	kcolour_derive(c, &p);
	return p;
}

static void test_derive(void)
{
	const struct kcolour_cache l1d = { 1, D, KCOLOUR_SRC_LEAF4, 0, 32768, 8, 64, 64 };
	const struct kcolour_cache l1d48 = { 1, D, KCOLOUR_SRC_LEAF4, 0, 49152, 12, 64, 64 };
	const struct kcolour_cache l2 = { 2, U, KCOLOUR_SRC_LEAF4, 0, 262144, 4, 64, 1024 };
	const struct kcolour_cache k8 = { 1, D, KCOLOUR_SRC_AMD_L1, 0, 65536, 2, 64, 512 };
	const struct kcolour_cache l128 = { 2, U, KCOLOUR_SRC_LEAF4, 0, 1048576, 8, 128, 1024 };
	const struct kcolour_cache p3 = { 1, D, KCOLOUR_SRC_LEAF2, 0, 16384, 4, 32, 128 };
	const struct kcolour_cache p4 = { 1, D, KCOLOUR_SRC_LEAF2, 0, 8192, 4, 64, 32 };
	const struct kcolour_cache full = { 1, D, KCOLOUR_SRC_LEAF4, 0, 1024, 0, 64, 1 };
	const u8 expect_policy[KCOLOUR_NR_POLICIES] = { 16, 17, 17, 17 };
	struct kcolour_params p;
	int i;

	ok(kcolour_way_size(&l1d) == 4096 && kcolour_shift_bits(&l1d) == 12,
	   "32K 8-way: 4 KiB way, shift 12");
	for (i = 0; i < KCOLOUR_NR_POLICIES; i++) {
		p = derive(&l1d, i, 1024, 0, 0, 0);
		ok(p.colours == expect_policy[i] && p.step == 64 && p.shift == 12,
		   "32K 8-way, 1 KiB budget, %s: %u colours x 64 B (DESIGN.md example)",
		   kcolour_policy_name(i), expect_policy[i]);
	}
	p = (struct kcolour_params){ .policy = KCOLOUR_POLICY_BALANCED, .max_offset = 1024 };
	ok(kcolour_derive(&l1d48, &p) == -1 && p.shift == 12 && p.colours == 1,
	   "48K 12-way: shift 12, no gain: 1 colour");
	p = derive(&l1d48, KCOLOUR_POLICY_BALANCED, 1024, 0, 3, 0);
	ok(p.colours == 3, "48K 12-way, colours=3 given: 3 colours (got %u)", p.colours);
	p = derive(&l1d48, KCOLOUR_POLICY_BALANCED, 1024, 12, 0, 0);
	ok(p.colours == 17, "48K 12-way, shift=12 given: 17 colours (got %u)", p.colours);
	ok(kcolour_gains(&l1d) && kcolour_gains(&k8) && kcolour_gains(&p3) && kcolour_gains(&l2) &&
	   !kcolour_gains(&l1d48) && !kcolour_gains(&p4),
	   "gains: 32K 8-way, 64K 2-way, 16K 4-way L1Ds and an L2 yes; 48K 12-way and "
	   "8K 4-way (2 KiB way) L1Ds no");
	p = derive(&p4, KCOLOUR_POLICY_BALANCED, 2048, 0, 0, 1024);
	ok(p.shift == 11 && p.colours == 1, "8K 4-way: shift 11, no gain: 1 colour (got %u)",
	   p.colours);
	ok(kcolour_way_size(&l2) == 65536 && kcolour_shift_bits(&l2) == 16,
	   "256K 4-way L2 (the 2001 seed): 64 KiB way, shift 16");
	p = derive(&l2, KCOLOUR_POLICY_MOD, 4096, 0, 0, 0);
	ok(p.colours == 65, "256K 4-way, 4 KiB budget, mod: 65 colours (got %u)", p.colours);
	p = derive(&l2, KCOLOUR_POLICY_ADDR, 4096, 0, 0, 0);
	ok(p.colours == 64, "256K 4-way, 4 KiB budget, addr: 64 colours (got %u)", p.colours);
	p = derive(&l2, KCOLOUR_POLICY_MOD, 8192, 0, 0, 0);
	ok(p.max_offset == 4096 && p.colours == 65,
	   "an 8 KiB budget is capped at 4 KiB, a quarter of the stack: 65 colours (got %u)",
	   p.colours);
	p = derive(&k8, KCOLOUR_POLICY_RR, 4096, 0, 0, 0);
	ok(kcolour_shift_bits(&k8) == 15 && p.colours == 65, "64K 2-way: shift 15, 65 colours");
	p = derive(&l128, KCOLOUR_POLICY_RR, 1024, 0, 0, 0);
	ok(p.step == 128 && p.colours == 9, "128 B lines: step 128, 9 colours (got %u x %u)",
	   p.colours, p.step);
	p = derive(&p3, KCOLOUR_POLICY_RR, 1024, 0, 0, 0);
	ok(p.step == 64 && p.colours == 17, "32 B lines: step still 64 (FRED)");
	p = (struct kcolour_params){ .policy = KCOLOUR_POLICY_RR, .max_offset = 1024 };
	ok(kcolour_derive(&full, &p) == -1 && p.colours == 1, "fully associative: no colouring");
	ok(derive(NULL, KCOLOUR_POLICY_RR, 1024, 0, 0, 0).colours == 1, "no cache: no colouring");

	/* Overrides. */
	p = derive(&l1d, KCOLOUR_POLICY_RR, 1024, 0, 0, 256);
	ok(p.step == 256 && p.colours == 5, "step 256: 5 colours (got %u)", p.colours);
	p = derive(&l1d, KCOLOUR_POLICY_ADDR, 1024, 0, 0, 256);
	ok(p.colours == 4, "step 256, addr: rounded down to 4");
	p = derive(&l1d, KCOLOUR_POLICY_RR, 1024, 0, 100, 0);
	ok(p.colours == 17, "colours=100 capped by the budget to 17");
	p = derive(&l1d, KCOLOUR_POLICY_MOD, 4096, 0, 8, 0);
	ok(p.colours == 7, "colours=8 with mod: 7 (odd)");
	p = derive(NULL, KCOLOUR_POLICY_BALANCED, 2048, 14, 0, 0);
	ok(p.shift == 14 && p.colours == 33, "shift=14 without a cache: 33 colours");
	p = derive(&l1d, KCOLOUR_POLICY_RR, 0, 0, 0, 0);
	ok(p.colours == 1, "max_offset 0: one colour");
	p = derive(&l1d, KCOLOUR_POLICY_RR, 65535, 0, 0, 0);
	ok(p.max_offset == KCOLOUR_MAX_OFFSET_LIMIT && p.colours == 64,
	   "budget clamped to 4096: 64 colours, one per line of the way");
	p = derive(&l1d, KCOLOUR_POLICY_RR, 1024, 0, 0, 100);
	ok(p.step == 128, "step 100 rounds up to 128");
}

static void test_recommend(void)
{
	struct kcolour_params p = { .policy = KCOLOUR_POLICY_BALANCED, .max_offset = 1024 };

	DECODE({ 0, 0, 1, AMD }, { 0x80000000, 0, 0x80000004 });
	ok(kcolour_recommend(g, &p) == 1 && p.level == 0 && p.shift == 12 && p.colours == 17,
	   "no information: safe default shift 12, 17 colours, level 0");

	DECODE({ 0, 0, 4, INTEL }, { 4, 0, 0x00000143, 0x01c0003f, 0x3ff });
	p = (struct kcolour_params){ .policy = KCOLOUR_POLICY_ADDR, .max_offset = 1024 };
	ok(kcolour_recommend(g, &p) == 0 && p.level == 2 && p.shift == 16 && p.colours == 16,
	   "only an L2: auto picks level 2, shift 16, 16 colours (got L%u %u %u)", p.level,
	   p.shift, p.colours);
}

static void test_addr_colour(void)
{
	struct kcolour_params p = { .policy = KCOLOUR_POLICY_ADDR, .shift = 12, .colours = 16 };
	struct kcolour_params m = { .policy = KCOLOUR_POLICY_MOD, .shift = 16, .colours = 17 };
	u64 a = 0xffffc90000abc000ULL;
	int distinct = 1, i, j;

	ok(kcolour_addr_colour(&p, a) == 0xc, "addr: (0x...abc000 >> 12) & 15 = 12");
	ok(kcolour_addr_colour(&m, a) == (u16)((a >> 16) % 17), "mod: (a >> 16) %% 17");
	/*
	 * The seed's trap: stacks 64 KiB apart collide in a 256K 4-way L2 and
	 * share bits 13-15, so those bits cannot separate them; bits above the
	 * shift do.
	 */
	for (i = 0; i < 17; i++)
		for (j = 0; j < i; j++)
			if (kcolour_addr_colour(&m, a + ((u64)i << 16)) ==
			    kcolour_addr_colour(&m, a + ((u64)j << 16)))
				distinct = 0;
	ok(distinct, "mod 17: 17 colliding stacks 64 KiB apart get 17 colours");
	ok((((a + (1ULL << 16)) >> 13) & 7) == ((a >> 13) & 7),
	   "bits 13-15 of two colliding stacks are equal (colouring from them changes nothing)");
	p.colours = 1;
	ok(kcolour_addr_colour(&p, a) == 0, "one colour: always 0");
}

static void test_names(void)
{
	int i, round_trip = 1;

	for (i = 0; i < KCOLOUR_NR_POLICIES; i++)
		round_trip &= kcolour_policy_parse(kcolour_policy_name(i)) == i;
	ok(round_trip && kcolour_policy_parse("banana") == -1 && kcolour_policy_parse("") == -1 &&
	   kcolour_policy_parse("rrx") == -1, "policy names round-trip, junk rejected");
	ok(!strcmp(kcolour_source_name(KCOLOUR_SRC_AMD_1D), "0x8000001d") &&
	   !strcmp(kcolour_source_name(200), "unknown") &&
	   !strcmp(kcolour_type_name(KCOLOUR_CACHE_TRACE), "trace"),
	   "JSON enum names, out-of-range safe");
	for (i = 0; i < KCOLOUR_NR_NOTES; i++)
		if (!strcmp(kcolour_note_text(i), "unknown"))
			round_trip = 0;
	ok(round_trip, "every note has a text");
}

int main(void)
{
	test_leaf4();
	test_leaf4_garbage();
	test_leaf2();
	test_amd();
	test_other_vendors();
	test_derive();
	test_recommend();
	test_addr_colour();
	test_names();
	return tap_end();
}
