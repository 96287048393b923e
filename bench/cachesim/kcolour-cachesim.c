// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-cachesim: a QEMU TCG plugin (API version 1, QEMU 7.2) that
 * simulates L1D, L1I and L2 of each x86_64 guest CPU and counts accesses
 * and misses per address region, to see where kernel stack colouring
 * removes conflict misses.
 *
 *   L1D  every guest load/store, on the guest virtual address (a VIPT L1
 *        with a 4 KiB way indexes by page offset, the same in both);
 *   L1I  every instruction fetch, on the guest virtual address;
 *   L2   L1D and L1I set-associative misses, on the physical address
 *        (RAM offset, see host_to_ram()).
 *
 * IO (MMIO) accesses are skipped in all three.
 *
 * l1d_extra= and l2_extra= add up to MAX_EXTRA more geometries per level,
 * simulated in the same run: an extra L1D sees the primary L1D's access
 * stream, an extra L2 the primary L2's (the primary L1 misses), so one
 * boot compares several geometries on identical traffic.  They feed no
 * other level.
 *
 * cpus= adds up to MAX_HIER whole hierarchies, each a real CPU's L1D, L1I
 * and L2: each L1 sees the primary's accesses, and each L2 the misses of
 * its own two L1s, so one boot scores every CPU's caches on the same
 * guest run.  An L1 geometry that several of them share is simulated once.
 *
 * Each cache runs beside a fully-associative LRU cache of the same size
 * (cachesim.c); set-associative minus fully-associative misses are the
 * conflict misses.  A set-associative PLRU copy of each sees the same
 * accesses (L2 is still fed by the LRU L1s' misses).  No writebacks, no
 * prefetch, no inclusion, no TLBs.
 *
 * For the primaries, each phase's access stream is also recorded in
 * windows of min_window= accesses and run through Belady's MIN at each
 * window's end (cachesim.c): min_bound is a true lower bound on the misses
 * of any cache of that capacity (README.md).
 *
 * SMP: each vCPU has its own hierarchy, indexed by the callbacks'
 * vcpu_index, and counts add up over vCPUs.  A store invalidates its line
 * in the other vCPUs' L1D (kernel addresses) and L2.  Nothing here is
 * locked: with -icount or -accel tcg,thread=single, QEMU 7.2 runs all
 * vCPUs round-robin on one thread, so callbacks never run concurrently;
 * qemu_plugin_install() refuses more than one vCPU otherwise, where MTTCG
 * would run them in parallel.
 *
 * Region attribution is by virtual address only (API v1 cannot read
 * registers), for a guest booted with nokaslr on 4-level paging:
 *
 *   user        below 0x0000800000000000
 *   stack-top   vmalloc area 0xffffc90000000000-0xffffe8ffffffffff, the top
 *               stack_top bytes (default 2048) of each 16 KiB block: VMAP
 *               stacks are THREAD_SIZE (16 KiB) aligned, so this is where
 *               pt_regs and the hot entry frames of every task sit
 *   stack-rest  the rest of the vmalloc area
 *   direct      the direct map 0xffff888000000000 + 64 TiB (slab objects
 *               such as task_struct, page tables, per-CPU areas)
 *   ktext       text=START-END (default 0xffffffff81000000-0xffffffff82200000)
 *   kdata       data=START-END (default from the text end to 0xffffffffa0000000)
 *   other       anything else (vmemmap/struct page, cpu_entry_area, modules)
 *
 * Blind spots: vmalloc holds more than stacks (module-less kernels still
 * vmalloc BPF, percpu chunks beyond the first, large buffers), and the
 * stack-top rule counts the top of any 16 KiB-aligned vmalloc block; the
 * page walks of QEMU's softmmu are invisible (helpers such as XSAVE's go
 * through the plugin memory hooks and are seen).  See README.md.
 *
 * Counting is gated by the guest (workloads/kcolour-marker.h): a store to
 * the marker page's start offset opens a phase with zeroed counters, a
 * store to its stop offset closes it.  The caches run all the time, so a
 * phase starts warm.  At exit every phase is written as lines of
 * key=value pairs to out=PATH, or to QEMU's log.
 *
 * profile=PATH adds an instruction profile: per phase, the instructions
 * executed per translation block start address (counted where the phase
 * head counts them, so the totals agree).
 *
 * conflicts=PATH names both sides of the primary L1D's conflict misses on
 * the direct map, per phase: the line that missed and the line whose miss
 * evicted it (struct conflict_table); text_conflicts=PATH the same for the
 * primary L1I's conflict misses in the kernel text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-v1.h"
#include "cachesim.h"

#define KCOLOUR_MARKER_NO_GUEST
#include "../workloads/kcolour-marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = KCOLOUR_QEMU_PLUGIN_API;

#define unlikely(x)	__builtin_expect(!!(x), 0)

#define PAGE_SIZE	4096ull
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define THREAD_SIZE	16384ull

/* x86_64, 4-level paging, no KASLR (Documentation/arch/x86/x86_64/mm.rst). */
#define USER_END	0x0000800000000000ull
#define DIRECT_START	0xffff888000000000ull
#define DIRECT_END	(DIRECT_START + (64ull << 40))
#define VMALLOC_START	0xffffc90000000000ull
#define VMALLOC_END	0xffffe90000000000ull
#define KIMAGE_START	0xffffffff80000000ull	/* __START_KERNEL_map */
#define KIMAGE_END	0xffffffffc0000000ull
#define MODULES_START	0xffffffffa0000000ull

enum region {
	R_USER,
	R_STACK_TOP,
	R_STACK_REST,
	R_DIRECT,
	R_KTEXT,
	R_KDATA,
	R_OTHER,
	NR_REGIONS
};

static const char *const region_name[NR_REGIONS] = {
	"user", "stack-top", "stack-rest", "direct", "ktext", "kdata", "other",
};

enum cache_id { C_L1D, C_L1I, C_L2, NR_CACHES };

static const char *const cache_name[NR_CACHES] = { "L1D", "L1I", "L2" };

/* Levels that take extra geometries (l1d_extra=, l2_extra=). */
enum extra_level { X_L1D, X_L2, NR_XLEVELS };
#define MAX_EXTRA	8

static const enum cache_id xlevel_cache[NR_XLEVELS] = { C_L1D, C_L2 };

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
	unsigned int l1[C_L2];	/* [C_L1D], [C_L1I]: index in sim.hl1[] */
};

struct hier_l1 {
	struct cs_geom geom;
	unsigned int shift;
	unsigned int nr_l2;
	unsigned char l2[MAX_HIER];	/* the hierarchies it feeds */
};

/* An extra geometry; each vCPU has its own cache of it (struct cpu). */
struct extra {
	struct cs_geom geom;	/* line 0 until resolved: the primary's line */
	unsigned int shift;
	char name[64];		/* e.g. L1D-48K-12w, L2-256K-4w-128B */
};

/*
 * conflicts= (text_conflicts=): a conflict miss is an access that the
 * primary L1D's (L1I's) set-associative LRU copy misses and its
 * fully-associative copy hits.  Its evictor is the line whose miss last
 * pushed it out of its set: each vCPU keeps, for the lines its L1 evicted,
 * the line that did it, in a direct-mapped table (a slot taken by another
 * victim before its line comes back leaves that conflict's evictor
 * unknown, and counted so).  Pairs are kept for victims in the region the
 * table watches: the direct map (L1D), the kernel text (L1I).
 */
#define EVICT_BITS	16

struct evict_slot {
	uint64_t victim, evictor;	/* L1D line numbers (vaddr >> shift) */
};

/* A phase's direct-map conflict misses by (victim, evictor) line pair. */
struct conflict_pair {
	uint64_t victim, evictor;	/* evictor CS_NO_LINE: unknown */
	uint64_t n;			/* 0: an empty slot */
};

struct conflict_table {
	struct conflict_pair *slot;	/* open addressing, size a power of two */
	size_t size, used;
	uint64_t all;			/* conflict misses in every region */
	uint64_t watched, unknown;	/* in the watched region; of those, evictor unknown */
};

/* One vCPU's caches. */
struct cpu {
	struct cs_cache *cache[NR_CACHES];
	struct cs_cache *xcache[NR_XLEVELS][MAX_EXTRA];
	uint64_t xlast[MAX_EXTRA];	/* L1D extras: the line of the latest access */
	struct cs_cache *hl1[C_L2][MAX_HIER];	/* the shared L1s' caches */
	uint64_t hl1d_last[MAX_HIER];	/* their L1Ds: the line of the latest access */
	struct cs_cache *hl2[MAX_HIER];
	struct cs_min_window min[NR_CACHES];	/* the primaries' MIN windows */
	struct evict_slot *evict[C_L2];	/* [C_L1D] conflicts=, [C_L1I] text_conflicts=:
					 * [1 << EVICT_BITS] each */
};

#define DEFAULT_MIN_WINDOW	(2u << 20)
#define MAX_MIN_WINDOW		(1u << 30)

/* One translation block's profile counts in the current phase. */
struct tb_prof {
	uint64_t pc;
	uint64_t insns, execs;
	struct tb_prof *next;	/* touched list */
	int touched;
};

struct prof_rec {
	uint64_t pc, insns, execs;
};

/*
 * Where a phase's hot memory lies, to compare boots (the bench's layouts):
 * the L2 set of the first stack-top line touched in each 16 KiB stack
 * block, blocks in first-touch order, and a bottom-k sketch of the
 * physical direct-map lines touched (the k smallest hashes; two sketches
 * estimate the overlap of two boots' line sets).  Set indices and hashes
 * only: no address leaves the plugin.
 */
#define PLACED_STACKS	128
#define STACK_SLOTS	256	/* an open-addressed set of blocks seen */
#define SKETCH_K	64

struct placement {
	uint64_t block[STACK_SLOTS];	/* vaddr / THREAD_SIZE + 1, 0 empty */
	uint32_t stack_set[PLACED_STACKS];
	unsigned int nr_stacks;
	uint64_t sketch[SKETCH_K];	/* ascending */
	unsigned int nr_sketch;
};

struct phase {
	struct cs_counts c[NR_CACHES][NR_REGIONS];
	struct placement place;
	struct cs_counts x[NR_XLEVELS][MAX_EXTRA][NR_REGIONS];
	struct cs_counts hl1[C_L2][MAX_HIER][NR_REGIONS];
	struct cs_counts hl2[MAX_HIER][NR_REGIONS];
	uint64_t min_bound[NR_CACHES];	/* sum of max(0, MIN misses - lines) a window */
	uint64_t insns[NR_REGIONS];
	uint64_t l2_unresolved;	/* L1 misses whose physical line was unknown */
	struct prof_rec *prof;	/* profile=: the phase's touched TBs */
	size_t nr_prof;
	struct conflict_table conflicts[C_L2];	/* [C_L1D] conflicts=, [C_L1I] text_conflicts= */
};

/*
 * The instructions of a translation block that start in the same L1I line,
 * prepared at translation time; fetch_exec() runs once per run.  Only the
 * last instruction of a run can cross into the next line (the next one
 * then starts a new run there).
 */
struct fetch_run {
	uint64_t line_vaddr;
	uintptr_t host[2];	/* host address of each line, 0 if unknown */
	uint32_t accesses;	/* line fetches: one per instruction and line */
	uint16_t insns;
	uint8_t nr_lines;	/* 2 if the last instruction crosses a line */
	uint8_t region;
	uint8_t tb_start;	/* the run starts its TB (profile execs) */
	struct tb_prof *prof;	/* its TB's profile counts, with profile= */
};

/*
 * Runs and profile counts live in chunks that are never freed: QEMU 7.2
 * tells a plugin nothing when a TB dies.
 */
#define ARENA_WORDS	(32u << 10)	/* 256 KiB a chunk */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used;		/* words */
	uint64_t data[];	/* runs and tb_profs need no more alignment */
};

static struct {
	struct cs_geom geom[NR_CACHES];
	unsigned int l1d_shift, l1i_shift, l2_shift;
	struct extra extra[NR_XLEVELS][MAX_EXTRA];
	unsigned int nr_extra[NR_XLEVELS];
	struct hier hier[MAX_HIER];
	unsigned int nr_hier;
	struct hier_l1 hl1[C_L2][MAX_HIER + 1];	/* the distinct L1Ds, L1Is */
	unsigned int nr_hl1[C_L2];
	struct cpu *cpu;	/* [nr_cpus], by vcpu_index */
	unsigned int nr_cpus;
	uint64_t min_window;
	uint64_t stack_top, text_start, text_end, data_start, data_end;
	FILE *out;
	const char *out_path;

	int counting;
	struct phase cur;
	struct phase *phases;
	size_t nr_phases;

	/*
	 * Instruction fetches give host addresses, data accesses RAM offsets.
	 * Both map the kernel image linearly, which fixes the difference:
	 * kimage_host and kimage_ram are the host address and RAM offset of
	 * virtual address KIMAGE_START, learnt from the first kernel-image
	 * fetch and data access.
	 */
	int have_kimage_host, have_kimage_ram;
	uintptr_t kimage_host;
	uint64_t kimage_ram;

	struct arena_chunk *arena;

	/* conflicts= ([C_L1D]), text_conflicts= ([C_L1I]): where to write. */
	const char *conflicts_path[C_L2];
	FILE *conflicts_out[C_L2];

	/* profile=: TBs counted in the current phase, and where to write. */
	const char *prof_path;
	FILE *prof_out;
	struct tb_prof *touched;

	/* QEMU frees its qemu_info_t after install: keep what is reported. */
	char target[16];
	int api_min, api_cur, vcpus;
	char *outs_buf;		/* without out=: the report, for qemu_plugin_outs */
	size_t outs_len;
} sim = {
	.geom = {
		[C_L1D] = { 32768, 8, 64 },
		[C_L1I] = { 32768, 8, 64 },
		[C_L2] = { 4194304, 16, 64 },
	},
	.stack_top = 2048,
	.min_window = DEFAULT_MIN_WINDOW,
	.text_start = 0xffffffff81000000ull,
	.text_end = 0xffffffff82200000ull,
	.data_end = MODULES_START,
};

static enum region classify(uint64_t a)
{
	if (a < USER_END)
		return R_USER;
	if (a >= VMALLOC_START && a < VMALLOC_END)
		return (a & (THREAD_SIZE - 1)) >= THREAD_SIZE - sim.stack_top ?
			R_STACK_TOP : R_STACK_REST;
	if (a >= DIRECT_START && a < DIRECT_END)
		return R_DIRECT;
	if (a >= sim.text_start && a < sim.text_end)
		return R_KTEXT;
	if (a >= sim.data_start && a < sim.data_end)
		return R_KDATA;
	return R_OTHER;
}

static struct phase *counting_phase(void)
{
	return sim.counting ? &sim.cur : NULL;
}

static struct cs_counts *counts(struct phase *ph, enum cache_id c, enum region r)
{
	return ph ? &ph->c[c][r] : NULL;
}

static struct cs_counts *xcounts(struct phase *ph, enum extra_level l,
				 unsigned int i, enum region r)
{
	return ph ? &ph->x[l][i][r] : NULL;
}

static struct cpu *vcpu_of(unsigned int vcpu)
{
	if (unlikely(vcpu >= sim.nr_cpus)) {
		fprintf(stderr, "kcolour-cachesim: vCPU %u, but only %u at start (hotplug?)\n",
			vcpu, sim.nr_cpus);
		exit(1);
	}
	return &sim.cpu[vcpu];
}

/* A primary's MIN window is full, or the phase ends: MIN into the phase. */
static void min_flush(struct cpu *cpu, enum cache_id c)
{
	if (cs_min_flush(&cpu->min[c], sim.cur.c[c], &sim.cur.min_bound[c])) {
		fprintf(stderr, "kcolour-cachesim: out of memory for MIN over %s\n",
			cache_name[c]);
		exit(1);
	}
}

/* Record a primary's access for MIN (only inside a phase). */
static inline void min_add(struct cpu *cpu, struct phase *ph, enum cache_id c,
			   uint64_t line, enum region r)
{
	if (ph && cs_min_add(&cpu->min[c], line, r))
		min_flush(cpu, c);
}

static void l2_access(struct cpu *cpu, struct phase *ph, enum region r, int known,
		      uint64_t ram)
{
	unsigned int i;

	if (!known) {
		if (ph)
			ph->l2_unresolved++;
		return;
	}
	cs_access(cpu->cache[C_L2], ram, counts(ph, C_L2, r));
	min_add(cpu, ph, C_L2, ram >> sim.l2_shift, r);
	for (i = 0; i < sim.nr_extra[X_L2]; i++)
		cs_access(cpu->xcache[X_L2][i], ram, xcounts(ph, X_L2, i, r));
}

/*
 * One line's access to an L1 beside the primary.  The MRU line again hits in
 * all copies and changes nothing: count it without the call, the commonest
 * case on this hot path.  Returns cs_access()'s result, 0 for that hit.
 */
static inline unsigned int mru_access(struct cs_cache *c, uint64_t *mru, uint64_t line,
				      unsigned int shift, struct cs_counts *k)
{
	if (line == *mru) {
		if (k)
			k->accesses++;
		return 0;
	}
	*mru = line;
	return cs_access(c, line << shift, k);
}

/* The same access as the primary L1D, split at each extra's own lines. */
static void l1d_extra_access(struct cpu *cpu, struct phase *ph, enum region r,
			     uint64_t vaddr, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < sim.nr_extra[X_L1D]; i++) {
		unsigned int shift = sim.extra[X_L1D][i].shift;
		uint64_t line = vaddr >> shift;
		uint64_t last = (vaddr + size - 1) >> shift;

		for (; line <= last; line++)
			mru_access(cpu->xcache[X_L1D][i], &cpu->xlast[i], line, shift,
				   xcounts(ph, X_L1D, i, r));
	}
}

/* A miss of a shared L1 into the L2 of each hierarchy that has it. */
static void hier_l2_access(struct cpu *cpu, struct phase *ph, enum region r,
			   const struct hier_l1 *l1, uint64_t ram)
{
	unsigned int i;

	for (i = 0; i < l1->nr_l2; i++)
		cs_access(cpu->hl2[l1->l2[i]], ram, ph ? &ph->hl2[l1->l2[i]][r] : NULL);
}

/*
 * The primary L1D's access in each shared L1D, its misses into the L2s
 * (physical only on the first byte's page, as for the primary).
 */
static void hier_data_access(struct cpu *cpu, struct phase *ph, enum region r,
			     uint64_t vaddr, uint64_t size, uint64_t ram)
{
	unsigned int i;

	for (i = 0; i < sim.nr_hl1[C_L1D]; i++) {
		const struct hier_l1 *l1 = &sim.hl1[C_L1D][i];
		struct cs_counts *k = ph ? &ph->hl1[C_L1D][i][r] : NULL;
		uint64_t line = vaddr >> l1->shift;
		uint64_t last = (vaddr + size - 1) >> l1->shift;

		for (; line <= last; line++) {
			uint64_t lv = line << l1->shift;

			if (!(mru_access(cpu->hl1[C_L1D][i], &cpu->hl1d_last[i], line,
					 l1->shift, k) & CS_SA_MISS) ||
			    (lv > vaddr && (lv & PAGE_MASK) != (vaddr & PAGE_MASK)))
				continue;
			hier_l2_access(cpu, ph, r, l1, lv > vaddr ? ram + (lv - vaddr) : ram);
		}
	}
}

/* Invalidate the lines of [first, last] in c; count those the LRU copy held. */
static void inval_range(struct cs_cache *c, uint64_t first, uint64_t last,
			struct cs_counts *k)
{
	unsigned int shift = cs_line_shift(c);
	uint64_t line;

	for (line = first >> shift; line <= last >> shift; line++)
		if (cs_invalidate(c, line << shift) && k)
			k->inval++;
}

/*
 * The same for an L1 beside the primary, whose MRU shortcut must not hit a
 * removed line.
 */
static void inval_l1_range(struct cs_cache *c, uint64_t *mru, uint64_t first, uint64_t last,
			   struct cs_counts *k)
{
	unsigned int shift = cs_line_shift(c);

	inval_range(c, first, last, k);
	if (*mru >= first >> shift && *mru <= last >> shift)
		*mru = UINT64_MAX;
}

/*
 * Write-invalidate: a store by vCPU v removes its lines from every other
 * vCPU's L2 (physical: the part on the first byte's page, whose address is
 * known) and, for kernel addresses, L1D, with their extras.  The L1Ds are
 * tagged by virtual address, and user addresses name different memory in
 * different processes (a forked ring shares one layout), so a user store
 * invalidates no other L1D.  MIN sees no invalidation.
 */
static void invalidate_others(unsigned int v, struct phase *ph, enum region r,
			      uint64_t vaddr, uint64_t size, uint64_t ram)
{
	uint64_t on_page = PAGE_SIZE - (vaddr & ~PAGE_MASK);
	uint64_t ram_last = ram + (size < on_page ? size : on_page) - 1;
	uint64_t vlast = vaddr + size - 1;
	unsigned int u, i;

	for (u = 0; u < sim.nr_cpus; u++) {
		struct cpu *cpu = &sim.cpu[u];

		if (u == v)
			continue;
		if (vaddr >= USER_END) {
			inval_range(cpu->cache[C_L1D], vaddr, vlast, counts(ph, C_L1D, r));
			for (i = 0; i < sim.nr_extra[X_L1D]; i++)
				inval_l1_range(cpu->xcache[X_L1D][i], &cpu->xlast[i], vaddr,
					       vlast, xcounts(ph, X_L1D, i, r));
			for (i = 0; i < sim.nr_hl1[C_L1D]; i++)
				inval_l1_range(cpu->hl1[C_L1D][i], &cpu->hl1d_last[i], vaddr,
					       vlast, ph ? &ph->hl1[C_L1D][i][r] : NULL);
		}
		inval_range(cpu->cache[C_L2], ram, ram_last, counts(ph, C_L2, r));
		for (i = 0; i < sim.nr_extra[X_L2]; i++)
			inval_range(cpu->xcache[X_L2][i], ram, ram_last, xcounts(ph, X_L2, i, r));
		for (i = 0; i < sim.nr_hier; i++)
			inval_range(cpu->hl2[i], ram, ram_last, ph ? &ph->hl2[i][r] : NULL);
	}
}

/* Drop the profile counts of a phase that is not kept. */
static void prof_discard(void)
{
	struct tb_prof *t;

	while ((t = sim.touched)) {
		sim.touched = t->next;
		t->insns = t->execs = 0;
		t->touched = 0;
	}
}

/* Move the profile counts of the current phase into it (touched TBs only). */
static void prof_flush(struct phase *ph)
{
	struct tb_prof *t;
	size_t n = 0;

	for (t = sim.touched; t; t = t->next)
		n++;
	ph->prof = n ? malloc(n * sizeof(*ph->prof)) : NULL;
	if (n && !ph->prof) {
		fprintf(stderr, "kcolour-cachesim: out of memory for the profile\n");
		exit(1);
	}
	ph->nr_prof = n;
	for (n = 0, t = sim.touched; t; t = t->next, n++) {
		ph->prof[n].pc = t->pc;
		ph->prof[n].insns = t->insns;
		ph->prof[n].execs = t->execs;
	}
	prof_discard();
}

/* Every vCPU's MIN windows into the current phase, in vCPU order. */
static void min_flush_all(void)
{
	unsigned int u, c;

	for (u = 0; u < sim.nr_cpus; u++)
		for (c = 0; c < NR_CACHES; c++)
			min_flush(&sim.cpu[u], c);
}

/* A marker store, from any vCPU, opens or closes the phase for all. */
static void marker_store(uint64_t vaddr)
{
	struct phase *p;
	unsigned int u, c;

	switch (vaddr - KCOLOUR_MARKER_ADDR) {
	case KCOLOUR_MARKER_START:
		/* A start inside a phase restarts it: the first one is lost. */
		free(sim.cur.prof);
		for (c = 0; c < C_L2; c++)
			free(sim.cur.conflicts[c].slot);
		memset(&sim.cur, 0, sizeof(sim.cur));
		prof_discard();
		for (u = 0; u < sim.nr_cpus; u++)
			for (c = 0; c < NR_CACHES; c++)
				cs_min_reset(&sim.cpu[u].min[c]);
		sim.counting = 1;
		break;
	case KCOLOUR_MARKER_STOP:
		if (!sim.counting)
			break;
		min_flush_all();
		if (sim.prof_path)
			prof_flush(&sim.cur);
		p = realloc(sim.phases, (sim.nr_phases + 1) * sizeof(*p));
		if (!p) {
			fprintf(stderr, "kcolour-cachesim: out of memory, phase %zu lost\n",
				sim.nr_phases);
			exit(1);
		}
		sim.phases = p;
		sim.phases[sim.nr_phases++] = sim.cur;
		sim.cur.prof = NULL;
		for (c = 0; c < C_L2; c++)
			sim.cur.conflicts[c].slot = NULL;
		sim.counting = 0;
		break;
	}
}

static void place_stack(struct placement *pl, uint64_t vaddr, uint64_t phys)
{
	uint64_t block = vaddr / THREAD_SIZE + 1;
	unsigned int i = (unsigned int)(block * 0x9e3779b97f4a7c15ull >> 56);

	for (; pl->block[i % STACK_SLOTS]; i++)
		if (pl->block[i % STACK_SLOTS] == block)
			return;
	if (pl->nr_stacks == PLACED_STACKS)
		return;
	pl->block[i % STACK_SLOTS] = block;
	pl->stack_set[pl->nr_stacks++] = (uint32_t)((phys >> sim.l2_shift) &
						    (sim.geom[C_L2].size / sim.geom[C_L2].ways /
						     sim.geom[C_L2].line - 1));
}

/* splitmix64's finaliser: a well-mixed 64-bit hash of a line number. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void place_direct(struct placement *pl, uint64_t phys)
{
	uint64_t h = mix64(phys >> sim.l2_shift);
	unsigned int i;

	if (pl->nr_sketch == SKETCH_K && h >= pl->sketch[SKETCH_K - 1])
		return;
	for (i = 0; i < pl->nr_sketch && pl->sketch[i] < h; i++)
		;
	if (i < pl->nr_sketch && pl->sketch[i] == h)
		return;
	if (pl->nr_sketch < SKETCH_K)
		pl->nr_sketch++;
	memmove(&pl->sketch[i + 1], &pl->sketch[i],
		(pl->nr_sketch - 1 - i) * sizeof(pl->sketch[0]));
	pl->sketch[i] = h;
}

static uint64_t pair_hash(uint64_t victim, uint64_t evictor)
{
	return mix64(victim * 0x9e3779b97f4a7c15ull ^ evictor);
}

/* The slot of a (victim, evictor) pair, a new one with n 0 if absent. */
static struct conflict_pair *conflict_slot(struct conflict_table *t, uint64_t victim,
					   uint64_t evictor)
{
	struct conflict_pair *p, *old = t->slot;
	size_t i, n = t->size;

	if (2 * (t->used + 1) > t->size) {
		t->size = n ? 2 * n : 1024;
		t->slot = calloc(t->size, sizeof(*t->slot));
		if (!t->slot) {
			fprintf(stderr, "kcolour-cachesim: out of memory for conflicts=\n");
			exit(1);
		}
		t->used = 0;
		for (i = 0; i < n; i++)
			if (old[i].n)
				conflict_slot(t, old[i].victim, old[i].evictor)->n = old[i].n;
		free(old);
	}
	for (i = pair_hash(victim, evictor) & (t->size - 1);; i = (i + 1) & (t->size - 1)) {
		p = &t->slot[i];
		if (!p->victim) {	/* a direct-map or text line is never 0 */
			p->victim = victim;
			p->evictor = evictor;
			t->used++;
			return p;
		}
		if (p->victim == victim && p->evictor == evictor)
			return p;
	}
}

/* The region whose conflict pairs each table keeps. */
static const enum region conflict_region[C_L2] = { [C_L1D] = R_DIRECT, [C_L1I] = R_KTEXT };

/* The slot of a vCPU's evictor table (c: C_L1D or C_L1I) that holds line. */
static struct evict_slot *evict_slot(struct cpu *cpu, unsigned int c, uint64_t line)
{
	return &cpu->evict[c][mix64(line) >> (64 - EVICT_BITS)];
}

/*
 * conflicts=, text_conflicts=: after the primary L1 c's access to line (res
 * its verdict), count a conflict miss in the watched region with its
 * evictor, and note the line this access evicted.
 */
static void note_conflict(struct cpu *cpu, unsigned int c, struct phase *ph,
			  unsigned int res, uint64_t line, enum region r)
{
	uint64_t victim = cs_evicted(cpu->cache[c]);
	struct conflict_table *t;
	struct evict_slot *e;

	if (!(res & CS_SA_MISS))
		return;
	if (ph && !(res & CS_FA_MISS)) {
		t = &ph->conflicts[c];
		t->all++;
		if (r == conflict_region[c]) {
			e = evict_slot(cpu, c, line);
			t->watched++;
			if (e->victim != line)
				t->unknown++;
			conflict_slot(t, line, e->victim == line ? e->evictor : CS_NO_LINE)->n++;
		}
	}
	if (victim != CS_NO_LINE) {
		e = evict_slot(cpu, c, victim);
		e->victim = victim;
		e->evictor = line;
	}
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct cpu *cpu = vcpu_of(vcpu);
	struct qemu_plugin_hwaddr *hw;
	uint64_t ram, line, last, size;
	struct phase *ph;
	enum region r;

	(void)udata;
	if (unlikely((vaddr & PAGE_MASK) == KCOLOUR_MARKER_ADDR) &&
	    qemu_plugin_mem_is_store(info))
		marker_store(vaddr);

	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	if (unlikely(!sim.have_kimage_ram) && vaddr >= KIMAGE_START &&
	    vaddr < KIMAGE_END) {
		sim.kimage_ram = qemu_plugin_hwaddr_phys_addr(hw) - (vaddr - KIMAGE_START);
		sim.have_kimage_ram = 1;
	}

	ph = counting_phase();
	r = classify(vaddr);
	if (ph && r == R_STACK_TOP)
		place_stack(&ph->place, vaddr, qemu_plugin_hwaddr_phys_addr(hw));
	else if (ph && r == R_DIRECT)
		place_direct(&ph->place, qemu_plugin_hwaddr_phys_addr(hw));
	size = 1ull << qemu_plugin_mem_size_shift(info);
	last = (vaddr + size - 1) >> sim.l1d_shift;
	for (line = vaddr >> sim.l1d_shift; line <= last; line++) {
		uint64_t lv = line << sim.l1d_shift;
		unsigned int res = cs_access(cpu->cache[C_L1D], lv, counts(ph, C_L1D, r));

		if (cpu->evict[C_L1D])
			note_conflict(cpu, C_L1D, ph, res, line, r);
		min_add(cpu, ph, C_L1D, line, r);
		if (!(res & CS_SA_MISS))
			continue;
		/* The physical address is known only on the first byte's page. */
		if (lv > vaddr && (lv & PAGE_MASK) != (vaddr & PAGE_MASK)) {
			l2_access(cpu, ph, r, 0, 0);
			continue;
		}
		ram = qemu_plugin_hwaddr_phys_addr(hw);
		if (lv > vaddr)
			ram += lv - vaddr;
		l2_access(cpu, ph, r, 1, ram);
		hier_l2_access(cpu, ph, r, &sim.hl1[C_L1D][HL1_PRIMARY], ram);
	}
	if (sim.nr_extra[X_L1D])
		l1d_extra_access(cpu, ph, r, vaddr, size);
	if (sim.nr_hier)
		hier_data_access(cpu, ph, r, vaddr, size, qemu_plugin_hwaddr_phys_addr(hw));
	if (sim.nr_cpus > 1 && qemu_plugin_mem_is_store(info))
		invalidate_others(vcpu, ph, r, vaddr, size, qemu_plugin_hwaddr_phys_addr(hw));
}

/* The RAM offset of an instruction line, from its host address. */
static int host_to_ram(uintptr_t host, uint64_t *ram)
{
	if (!host || !sim.have_kimage_host || !sim.have_kimage_ram)
		return 0;
	*ram = host - sim.kimage_host + sim.kimage_ram;
	return 1;
}

static inline void fetch_run_exec(struct cpu *cpu, const struct fetch_run *run,
				  struct phase *ph)
{
	enum region r = run->region;
	unsigned int i, h;
	uint64_t ram = 0;

	if (ph) {
		ph->insns[r] += run->insns;
		/* Fetches after the first from a line are MRU hits. */
		ph->c[C_L1I][r].accesses += run->accesses - run->nr_lines;
		for (h = 0; h < sim.nr_hl1[C_L1I]; h++)
			ph->hl1[C_L1I][h][r].accesses += run->accesses - run->nr_lines;
	}
	for (i = 0; i < run->nr_lines; i++) {
		uint64_t lv = run->line_vaddr + ((uint64_t)i << sim.l1i_shift);
		unsigned int res = cs_access(cpu->cache[C_L1I], lv, counts(ph, C_L1I, r));
		/* Only a miss goes on to an L2. */
		int known = ((res & CS_SA_MISS) || sim.nr_hl1[C_L1I]) &&
			    host_to_ram(run->host[i], &ram);

		if (cpu->evict[C_L1I])
			note_conflict(cpu, C_L1I, ph, res, lv >> sim.l1i_shift, r);
		min_add(cpu, ph, C_L1I, lv >> sim.l1i_shift, r);
		if (res & CS_SA_MISS) {
			l2_access(cpu, ph, r, known, ram);
			if (known)
				hier_l2_access(cpu, ph, r, &sim.hl1[C_L1I][HL1_PRIMARY], ram);
		}
		/* The shared L1Is' lines are the primary's (setup_hiers()). */
		for (h = 0; h < sim.nr_hl1[C_L1I]; h++) {
			res = cs_access(cpu->hl1[C_L1I][h], lv,
					ph ? &ph->hl1[C_L1I][h][r] : NULL);
			if ((res & CS_SA_MISS) && known)
				hier_l2_access(cpu, ph, r, &sim.hl1[C_L1I][h], ram);
		}
	}
}

static void fetch_exec(unsigned int vcpu, void *udata)
{
	fetch_run_exec(vcpu_of(vcpu), udata, counting_phase());
}

/* fetch_exec() with profile=: a separate callback keeps the other free. */
static void fetch_exec_prof(unsigned int vcpu, void *udata)
{
	struct fetch_run *run = udata;
	struct phase *ph = counting_phase();
	struct tb_prof *t = run->prof;

	fetch_run_exec(vcpu_of(vcpu), run, ph);
	if (!ph)
		return;
	if (!t->touched) {
		t->touched = 1;
		t->next = sim.touched;
		sim.touched = t;
	}
	t->insns += run->insns;
	t->execs += run->tb_start;
}

/* Zeroed memory that lives until exit. */
static void *arena_alloc(size_t size)
{
	struct arena_chunk *ch = sim.arena;
	size_t words = (size + sizeof(uint64_t) - 1) / sizeof(uint64_t);

	if (!ch || ch->used + words > ARENA_WORDS) {
		ch = calloc(1, sizeof(*ch) + ARENA_WORDS * sizeof(uint64_t));
		if (!ch) {
			fprintf(stderr, "kcolour-cachesim: out of memory\n");
			exit(1);
		}
		ch->next = sim.arena;
		sim.arena = ch;
	}
	ch->used += words;
	return &ch->data[ch->used - words];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct fetch_run *run = NULL;
	struct tb_prof *prof = NULL;
	unsigned int shift = sim.l1i_shift;
	uint64_t pending = 0;	/* line vaddr still without a host address */
	int have_pending = 0;

	(void)id;
	if (sim.prof_path && n) {
		prof = arena_alloc(sizeof(*prof));
		prof->pc = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		uint64_t first = vaddr >> shift;
		uint64_t last = (vaddr + qemu_plugin_insn_size(insn) - 1) >> shift;
		uintptr_t host = (uintptr_t)qemu_plugin_insn_haddr(insn);

		if (unlikely(!sim.have_kimage_host) && host &&
		    vaddr >= KIMAGE_START && vaddr < KIMAGE_END) {
			sim.kimage_host = host - (vaddr - KIMAGE_START);
			sim.have_kimage_host = 1;
		}
		/* A line crossed into from the previous page: this insn's page. */
		if (have_pending && host &&
		    (pending & PAGE_MASK) == (vaddr & PAGE_MASK))
			run->host[1] = host - (vaddr - pending);
		have_pending = 0;

		if (!run || first != run->line_vaddr >> shift) {
			run = arena_alloc(sizeof(*run));
			run->line_vaddr = first << shift;
			run->host[0] = host ? host - (vaddr - run->line_vaddr) : 0;
			run->nr_lines = 1;
			run->region = classify(vaddr);
			run->tb_start = i == 0;
			run->prof = prof;
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
							       prof ? fetch_exec_prof : fetch_exec,
							       QEMU_PLUGIN_CB_NO_REGS, run);
		}
		run->insns++;
		run->accesses += last - first + 1;
		if (last != first) {
			uint64_t next = last << shift;

			run->nr_lines = 2;
			if (run->host[0] && (next & PAGE_MASK) == (vaddr & PAGE_MASK))
				run->host[1] = run->host[0] + (1u << shift);
			else {
				pending = next;
				have_pending = 1;
			}
		}
		qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

/*
 * One cache's lines of a phase: every region, then region=all.  min_bound
 * is NULL for the extras, which have no MIN: no min_miss, no min_bound.
 */
static void print_cache(size_t idx, const char *name, const struct cs_counts *k,
			const uint64_t *min_bound)
{
	struct cs_counts sum = { 0 };
	int r;

	for (r = 0; r <= NR_REGIONS; r++) {
		const struct cs_counts *n = r < NR_REGIONS ? &k[r] : &sum;

		fprintf(sim.out, "cachesim phase=%zu cache=%s region=%s accesses=%" PRIu64
			" sa_miss=%" PRIu64 " fa_miss=%" PRIu64 " plru_miss=%" PRIu64,
			idx, name, r < NR_REGIONS ? region_name[r] : "all",
			n->accesses, n->sa_miss, n->fa_miss, n->plru_miss);
		if (min_bound)
			fprintf(sim.out, " min_miss=%" PRIu64, n->min_miss);
		fprintf(sim.out, " inval=%" PRIu64, n->inval);
		if (min_bound && r == NR_REGIONS)
			fprintf(sim.out, " min_bound=%" PRIu64, *min_bound);
		fputc('\n', sim.out);
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

static void print_placement(size_t idx, const struct placement *pl)
{
	unsigned int i;

	fprintf(sim.out, "cachesim phase=%zu stacks=%u stack_l2_sets=", idx,
		pl->nr_stacks);
	for (i = 0; i < pl->nr_stacks; i++)
		fprintf(sim.out, "%s%" PRIu32, i ? "," : "", pl->stack_set[i]);
	fprintf(sim.out, "%s direct_sketch=", pl->nr_stacks ? "" : "-");
	for (i = 0; i < pl->nr_sketch; i++)
		fprintf(sim.out, "%s%016" PRIx64, i ? "," : "", pl->sketch[i]);
	fprintf(sim.out, "%s\n", pl->nr_sketch ? "" : "-");
}

static void print_phase(size_t idx, const struct phase *ph, int complete)
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
	fputs(line, sim.out);
	for (c = 0; c < NR_CACHES; c++)
		print_cache(idx, cache_name[c], ph->c[c], &ph->min_bound[c]);
	print_placement(idx, &ph->place);
	for (l = 0; l < NR_XLEVELS; l++)
		for (i = 0; i < sim.nr_extra[l]; i++)
			print_cache(idx, sim.extra[l][i].name, ph->x[l][i], NULL);
	for (i = 0; i < sim.nr_hier; i++) {
		for (c = 0; c < NR_CACHES; c++) {
			snprintf(line, sizeof(line), "cpu%u-%s", i + 1, cache_name[c]);
			print_cache(idx, line, c == C_L2 ? ph->hl2[i] :
				    sim.hier[i].l1[c] == HL1_PRIMARY ? ph->c[c] :
				    ph->hl1[c][sim.hier[i].l1[c]], NULL);
		}
	}
}

static int prof_cmp(const void *a, const void *b)
{
	const struct prof_rec *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/*
 * A phase's profile, by pc: a vaddr translated more than once (again after
 * a flush, or in another process) had a tb_prof per translation.
 */
static void print_profile(size_t idx, struct phase *ph)
{
	size_t i, j;

	qsort(ph->prof, ph->nr_prof, sizeof(*ph->prof), prof_cmp);
	for (i = 0; i < ph->nr_prof; i = j) {
		struct prof_rec sum = ph->prof[i];

		for (j = i + 1; j < ph->nr_prof && ph->prof[j].pc == sum.pc; j++) {
			sum.insns += ph->prof[j].insns;
			sum.execs += ph->prof[j].execs;
		}
		fprintf(sim.prof_out, "profile phase=%zu pc=0x%016" PRIx64 " insns=%" PRIu64
			" execs=%" PRIu64 "\n", idx, sum.pc, sum.insns, sum.execs);
	}
}

/* The line shift of the primary L1 c (C_L1D or C_L1I). */
static unsigned int l1_shift(unsigned int c)
{
	return c == C_L1D ? sim.l1d_shift : sim.l1i_shift;
}

/*
 * A line of a conflicts file as an address: in the direct map its physical
 * address (nokaslr), in the kernel text its virtual one (nokaslr, as in
 * System.map).
 */
static uint64_t conflict_addr(unsigned int c, uint64_t line)
{
	uint64_t a = line << l1_shift(c);

	return c == C_L1D ? a - DIRECT_START : a;
}

/*
 * conflicts=, text_conflicts=: a phase's head (conflict misses in all
 * regions, in the watched one, those with an unknown evictor, distinct
 * pairs), then one line a (victim, evictor) pair: the victim's address
 * (conflict_addr()), the evictor's too if it lies in the watched region,
 * else its region, or ? if unknown.
 */
static void print_conflicts(unsigned int c, size_t idx, const struct conflict_table *t)
{
	static const char *const word[C_L2] = { [C_L1D] = "conflict", [C_L1I] = "text-conflict" };
	unsigned int shift = l1_shift(c);
	FILE *out = sim.conflicts_out[c];
	uint64_t ev;
	size_t i;

	fprintf(out, "%ss phase=%zu all=%" PRIu64 " %s=%" PRIu64 " unknown=%" PRIu64
		" pairs=%zu\n", word[c], idx, t->all, region_name[conflict_region[c]], t->watched,
		t->unknown, t->used);
	for (i = 0; i < t->size; i++) {
		if (!t->slot[i].victim)
			continue;
		fprintf(out, "%s phase=%zu victim=0x%" PRIx64 " evictor=", word[c], idx,
			conflict_addr(c, t->slot[i].victim));
		ev = t->slot[i].evictor;
		if (ev == CS_NO_LINE)
			fputc('?', out);
		else if (classify(ev << shift) == conflict_region[c])
			fprintf(out, "0x%" PRIx64, conflict_addr(c, ev));
		else
			fputs(region_name[classify(ev << shift)], out);
		fprintf(out, " n=%" PRIu64 "\n", t->slot[i].n);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct arena_chunk *ch;
	unsigned int l, x, u;
	size_t i;
	int c;

	(void)id;
	(void)udata;
	/* An open phase is reported with its windows so far. */
	if (sim.counting)
		min_flush_all();
	fprintf(sim.out, "cachesim config target=%s api=%d..%d vcpus=%d", sim.target,
		sim.api_min, sim.api_cur, sim.vcpus);
	for (c = 0; c < NR_CACHES; c++)
		fprintf(sim.out, " %s=%" PRIu64 "/%u/%u", cache_name[c], sim.geom[c].size,
			sim.geom[c].ways, sim.geom[c].line);
	/* Only with extras: without, the line stays as it always was. */
	for (l = 0; l < NR_XLEVELS; l++)
		for (x = 0; x < sim.nr_extra[l]; x++) {
			const struct cs_geom *g = &sim.extra[l][x].geom;

			fprintf(sim.out, "%s%" PRIu64 "/%u/%u",
				x ? "+" : l == X_L1D ? " L1D_extra=" : " L2_extra=",
				g->size, g->ways, g->line);
		}
	for (x = 0; x < sim.nr_hier; x++)
		for (c = 0; c < NR_CACHES; c++)
			fprintf(sim.out, "%s%" PRIu64 "/%u/%u", c ? "-" : x ? "+" : " cpus=",
				sim.hier[x].geom[c].size, sim.hier[x].geom[c].ways,
				sim.hier[x].geom[c].line);
	fprintf(sim.out, " stack_top=%" PRIu64 " text=0x%" PRIx64 "-0x%" PRIx64
		" data=0x%" PRIx64 "-0x%" PRIx64 " phases=%zu ram_calibrated=%d",
		sim.stack_top, sim.text_start, sim.text_end, sim.data_start, sim.data_end,
		sim.nr_phases, sim.have_kimage_host && sim.have_kimage_ram);
	fprintf(sim.out, " min_window=%" PRIu64 " plru=", sim.min_window);
	for (c = 0; c < NR_CACHES; c++)
		fprintf(sim.out, "%s%s", c ? "/" : "",
			cs_plru_kind(sim.cpu[0].cache[c]) == CS_PLRU_TREE ? "tree" : "bit");
	fputc('\n', sim.out);
	for (i = 0; i < sim.nr_phases; i++)
		print_phase(i, &sim.phases[i], 1);
	if (sim.counting)
		print_phase(sim.nr_phases, &sim.cur, 0);
	if (sim.prof_out) {
		if (sim.counting)
			prof_flush(&sim.cur);
		for (i = 0; i < sim.nr_phases; i++)
			print_profile(i, &sim.phases[i]);
		if (sim.counting)
			print_profile(sim.nr_phases, &sim.cur);
		if (fclose(sim.prof_out))
			fprintf(stderr, "kcolour-cachesim: writing %s: %m\n", sim.prof_path);
	}
	for (c = 0; c < C_L2; c++) {
		if (!sim.conflicts_out[c])
			continue;
		for (i = 0; i < sim.nr_phases; i++)
			print_conflicts(c, i, &sim.phases[i].conflicts[c]);
		if (sim.counting)
			print_conflicts(c, sim.nr_phases, &sim.cur.conflicts[c]);
		if (fclose(sim.conflicts_out[c]))
			fprintf(stderr, "kcolour-cachesim: writing %s: %m\n", sim.conflicts_path[c]);
	}
	if (fclose(sim.out))
		fprintf(stderr, "kcolour-cachesim: writing %s: %m\n",
			sim.out_path ? sim.out_path : "the report");
	if (!sim.out_path)
		qemu_plugin_outs(sim.outs_buf);
	free(sim.outs_buf);

	for (u = 0; u < sim.nr_cpus; u++) {
		for (c = 0; c < NR_CACHES; c++) {
			cs_cache_free(sim.cpu[u].cache[c]);
			cs_min_free(&sim.cpu[u].min[c]);
		}
		for (l = 0; l < NR_XLEVELS; l++)
			for (x = 0; x < sim.nr_extra[l]; x++)
				cs_cache_free(sim.cpu[u].xcache[l][x]);
		for (c = 0; c < C_L2; c++)
			for (x = 0; x < sim.nr_hl1[c]; x++)
				cs_cache_free(sim.cpu[u].hl1[c][x]);
		for (x = 0; x < sim.nr_hier; x++)
			cs_cache_free(sim.cpu[u].hl2[x]);
	}
	for (u = 0; u < sim.nr_cpus; u++)
		for (c = 0; c < C_L2; c++)
			free(sim.cpu[u].evict[c]);
	free(sim.cpu);
	while ((ch = sim.arena)) {
		sim.arena = ch->next;
		free(ch);
	}
	for (i = 0; i < sim.nr_phases; i++) {
		free(sim.phases[i].prof);
		for (c = 0; c < C_L2; c++)
			free(sim.phases[i].conflicts[c].slot);
	}
	free(sim.cur.prof);
	for (c = 0; c < C_L2; c++)
		free(sim.cur.conflicts[c].slot);
	free(sim.phases);
}

/* A number with an optional K or M suffix (binary). */
static int parse_size(const char *s, uint64_t *val)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || !*s)
		return -1;
	v = strtoull(s, &end, 0);
	if (*end == 'K' || *end == 'k') {
		v <<= 10;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v <<= 20;
		end++;
	}
	if (*end)
		return -1;
	*val = v;
	return 0;
}

/* START-END in hex (0x optional), START < END. */
static int parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	char *p, *q;

	*start = strtoull(s, &p, 16);
	if (p == s || *p != '-')
		return -1;
	*end = strtoull(p + 1, &q, 16);
	if (q == p + 1 || *q || *start >= *end)
		return -1;
	return 0;
}

/*
 * One geometry SIZE:WAYS[:LINE] of len bytes at p into *g; LINE 0 means
 * "the primary's", resolved later.  0, or -1 if malformed.
 */
static int parse_geom(const char *p, size_t len, struct cs_geom *g)
{
	uint64_t v[3] = { 0, 0, 0 };
	char item[64], *field = item, *colon;
	int nf = 0;

	if (!len || len >= sizeof(item))
		return -1;
	memcpy(item, p, len);
	item[len] = 0;
	do {
		colon = strchr(field, ':');
		if (colon)
			*colon = 0;
		if (nf == 3 || parse_size(field, &v[nf++]))
			return -1;
		if (colon)
			field = colon + 1;
	} while (colon);
	/* An explicit line of 0 must not read as "the primary's". */
	if (nf < 2 || v[1] > 1024 || v[2] > 4096 || (nf == 3 && !v[2]))
		return -1;
	g->size = v[0];
	g->ways = (unsigned int)v[1];
	g->line = (unsigned int)v[2];
	return 0;
}

/*
 * The items of a list argument, separated by '/' or '+' (QEMU splits plugin
 * arguments at commas): calls item(p, len, index) for each, at most max.
 * Returns 0, or -2 after a message.
 */
static int parse_list(const char *key, const char *val, unsigned int max,
		      unsigned int *nr, const char *want,
		      int (*item)(const char *p, size_t len, unsigned int i))
{
	const char *p = val;
	unsigned int n = 0;

	for (;;) {
		size_t len = strcspn(p, "/+");

		if (n == max) {
			fprintf(stderr, "kcolour-cachesim: %s: more than %u items\n", key, max);
			return -2;
		}
		if (item(p, len, n)) {
			fprintf(stderr, "kcolour-cachesim: %s: bad item '%.*s' in '%s': want %s, several separated by '/' (ways <= 1024, line <= 4096)\n",
				key, (int)len, p, val, want);
			return -2;
		}
		n++;
		p += len;
		if (!*p)
			break;
		p++;
	}
	*nr = n;
	return 0;
}

static int parse_l1d_extra(const char *p, size_t len, unsigned int i)
{
	return parse_geom(p, len, &sim.extra[X_L1D][i].geom);
}

static int parse_l2_extra(const char *p, size_t len, unsigned int i)
{
	return parse_geom(p, len, &sim.extra[X_L2][i].geom);
}

/* A hierarchy L1D-L1I-L2, each SIZE:WAYS[:LINE]. */
static int parse_hier(const char *p, size_t len, unsigned int i)
{
	const char *end = p + len;
	int c;

	for (c = 0; c < NR_CACHES; c++) {
		const char *dash = memchr(p, '-', end - p);
		size_t n = (dash ? dash : end) - p;

		if ((c < NR_CACHES - 1) != !!dash || parse_geom(p, n, &sim.hier[i].geom[c]))
			return -1;
		p += n + 1;
	}
	return 0;
}

static int parse_arg(const char *arg)
{
	static const char *const prefix[NR_CACHES] = { "l1d_", "l1i_", "l2_" };
	const char *eq = strchr(arg, '=');
	const char *val;
	size_t klen;
	uint64_t v;
	int c;

	if (!eq)
		return -1;
	klen = eq - arg;
	val = eq + 1;
	if (!strncmp(arg, "l1d_extra=", klen + 1))
		return parse_list("l1d_extra", val, MAX_EXTRA, &sim.nr_extra[X_L1D],
				  "SIZE:WAYS[:LINE]", parse_l1d_extra);
	if (!strncmp(arg, "l2_extra=", klen + 1))
		return parse_list("l2_extra", val, MAX_EXTRA, &sim.nr_extra[X_L2],
				  "SIZE:WAYS[:LINE]", parse_l2_extra);
	if (!strncmp(arg, "cpus=", klen + 1))
		return parse_list("cpus", val, MAX_HIER, &sim.nr_hier,
				  "L1D-L1I-L2, each SIZE:WAYS[:LINE]", parse_hier);
	for (c = 0; c < NR_CACHES; c++) {
		size_t plen = strlen(prefix[c]);
		const char *k = arg + plen;

		if (klen <= plen || strncmp(arg, prefix[c], plen))
			continue;
		if (parse_size(val, &v))
			return -1;
		if (!strncmp(k, "size=", 5))
			sim.geom[c].size = v;
		else if (!strncmp(k, "ways=", 5) && v <= 1024)
			sim.geom[c].ways = (unsigned int)v;
		else if (!strncmp(k, "line=", 5) && v <= 4096)
			sim.geom[c].line = (unsigned int)v;
		else
			return -1;
		return 0;
	}
	if (!strncmp(arg, "min_window=", klen + 1))
		return parse_size(val, &sim.min_window) || !sim.min_window ||
		       sim.min_window > MAX_MIN_WINDOW ? -1 : 0;
	if (!strncmp(arg, "stack_top=", klen + 1))
		return parse_size(val, &sim.stack_top) || !sim.stack_top ||
		       sim.stack_top > THREAD_SIZE ? -1 : 0;
	if (!strncmp(arg, "text=", klen + 1))
		return parse_range(val, &sim.text_start, &sim.text_end);
	if (!strncmp(arg, "data=", klen + 1))
		return parse_range(val, &sim.data_start, &sim.data_end);
	if (!strncmp(arg, "out=", klen + 1) && *val) {
		sim.out_path = val;
		return 0;
	}
	if (!strncmp(arg, "profile=", klen + 1) && *val) {
		sim.prof_path = val;
		return 0;
	}
	if (!strncmp(arg, "conflicts=", klen + 1) && *val) {
		sim.conflicts_path[C_L1D] = val;
		return 0;
	}
	if (!strncmp(arg, "text_conflicts=", klen + 1) && *val) {
		sim.conflicts_path[C_L1I] = val;
		return 0;
	}
	return -1;
}

/* 48K, 2M or plain bytes, for cache names. */
static void size_str(char *buf, size_t len, uint64_t v)
{
	if (v >= (1u << 20) && !(v & ((1u << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else if (v >= 1024 && !(v & 1023))
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* Check the extra geometries of a level and name them after their geometry. */
static int setup_extras(enum extra_level l)
{
	const char *level = cache_name[xlevel_cache[l]];
	char err[256], size[24];
	unsigned int i, j;

	for (i = 0; i < sim.nr_extra[l]; i++) {
		struct extra *x = &sim.extra[l][i];
		struct cs_geom *g = &x->geom;
		int n;

		if (!g->line)
			g->line = sim.geom[xlevel_cache[l]].line;
		if (cs_geom_check(g, err, sizeof(err))) {
			fprintf(stderr, "kcolour-cachesim: %s extra geometry %u (%" PRIu64 ":%u:%u): %s\n",
				level, i + 1, g->size, g->ways, g->line, err);
			return -1;
		}
		x->shift = __builtin_ctz(g->line);
		size_str(size, sizeof(size), g->size);
		n = snprintf(x->name, sizeof(x->name), "%s-%s-%uw", level, size, g->ways);
		/* The line only when it is not the usual 64 bytes. */
		if (g->line != 64 && n > 0 && (size_t)n < sizeof(x->name))
			snprintf(x->name + n, sizeof(x->name) - n, "-%uB", g->line);
		for (j = 0; j < i; j++) {
			if (!strcmp(sim.extra[l][j].name, x->name)) {
				fprintf(stderr, "kcolour-cachesim: %s extra geometry %s given twice\n",
					level, x->name);
				return -1;
			}
		}
	}
	return 0;
}

/* The shared L1 table entry of level c with geometry g, added if new. */
static unsigned int hier_l1_of(enum cache_id c, const struct cs_geom *g)
{
	unsigned int i;

	if (!memcmp(&sim.geom[c], g, sizeof(*g)))
		return HL1_PRIMARY;
	for (i = 0; i < sim.nr_hl1[c]; i++)
		if (!memcmp(&sim.hl1[c][i].geom, g, sizeof(*g)))
			return i;
	sim.hl1[c][i].geom = *g;
	sim.hl1[c][i].shift = __builtin_ctz(g->line);
	sim.nr_hl1[c]++;
	return i;
}

/*
 * Check the hierarchies' geometries and build the shared L1 tables.  An L1I
 * line must be the primary's: the fetch runs are cut at the primary's lines.
 */
static int setup_hiers(void)
{
	char err[256];
	unsigned int i;
	int c;

	for (i = 0; i < sim.nr_hier; i++) {
		struct hier *h = &sim.hier[i];

		for (c = 0; c < NR_CACHES; c++) {
			struct cs_geom *g = &h->geom[c];

			if (!g->line)
				g->line = sim.geom[c].line;
			if (c == C_L1I && g->line != sim.geom[C_L1I].line)
				snprintf(err, sizeof(err), "line %u, not the primary's %u",
					 g->line, sim.geom[C_L1I].line);
			else if (!cs_geom_check(g, err, sizeof(err)))
				err[0] = 0;
			if (err[0]) {
				fprintf(stderr, "kcolour-cachesim: cpu%u-%s (%" PRIu64 ":%u:%u): %s\n",
					i + 1, cache_name[c], g->size, g->ways, g->line, err);
				return -1;
			}
		}
		for (c = 0; c < C_L2; c++) {
			struct hier_l1 *l1;

			h->l1[c] = hier_l1_of(c, &h->geom[c]);
			l1 = &sim.hl1[c][h->l1[c]];
			l1->l2[l1->nr_l2++] = (unsigned char)i;
		}
	}
	return 0;
}

static const char usage[] =
	"kcolour-cachesim: arguments (all optional), e.g.\n"
	"  -plugin kcolour-cachesim.so,l1d_size=32K,l1d_ways=8,l1d_line=64,"
	"l1i_size=32K,l1i_ways=8,l1i_line=64,l2_size=4M,l2_ways=16,l2_line=64,"
	"stack_top=2048,text=ffffffff81000000-ffffffff82200000,"
	"data=ffffffff82200000-ffffffffa0000000,out=PATH,"
	"l1d_extra=48K:12/64K:2,l2_extra=256K:4/1M:16:64,"
	"cpus=48K:12-32K:8-1280K:20/64K:2-64K:2-1M:16,profile=PATH,min_window=2M,"
	"conflicts=PATH,text_conflicts=PATH\n";

/* One vCPU's caches and MIN windows.  0, or -1 after a message. */
static int setup_cpu(struct cpu *cpu)
{
	char err[256];
	unsigned int l, i;
	int c;

	for (c = 0; c < NR_CACHES; c++) {
		cpu->cache[c] = cs_cache_new(&sim.geom[c], err, sizeof(err));
		if (!cpu->cache[c]) {
			fprintf(stderr, "kcolour-cachesim: %s: %s\n", cache_name[c], err);
			return -1;
		}
		if (cs_min_init(&cpu->min[c], sim.min_window, cs_lines(cpu->cache[c]))) {
			fprintf(stderr, "kcolour-cachesim: out of memory for a MIN window of %" PRIu64
				" accesses\n", sim.min_window);
			return -1;
		}
	}
	for (l = 0; l < NR_XLEVELS; l++) {
		for (i = 0; i < sim.nr_extra[l]; i++) {
			cpu->xcache[l][i] = cs_cache_new(&sim.extra[l][i].geom, err, sizeof(err));
			if (!cpu->xcache[l][i]) {
				fprintf(stderr, "kcolour-cachesim: %s: %s\n",
					sim.extra[l][i].name, err);
				return -1;
			}
		}
	}
	for (c = 0; c < C_L2; c++) {
		for (i = 0; i < sim.nr_hl1[c]; i++) {
			cpu->hl1[c][i] = cs_cache_new_copies(&sim.hl1[c][i].geom, 0, err,
							     sizeof(err));
			if (!cpu->hl1[c][i]) {
				fprintf(stderr, "kcolour-cachesim: a cpus= %s: %s\n",
					cache_name[c], err);
				return -1;
			}
		}
	}
	for (i = 0; i < sim.nr_hier; i++) {
		cpu->hl2[i] = cs_cache_new_copies(&sim.hier[i].geom[C_L2], CS_FA_MISS, err,
						  sizeof(err));
		if (!cpu->hl2[i]) {
			fprintf(stderr, "kcolour-cachesim: cpu%u-L2: %s\n", i + 1, err);
			return -1;
		}
	}
	for (c = 0; c < C_L2; c++) {
		if (!sim.conflicts_path[c])
			continue;
		cpu->evict[c] = calloc(1u << EVICT_BITS, sizeof(*cpu->evict[c]));
		if (!cpu->evict[c]) {
			fprintf(stderr, "kcolour-cachesim: out of memory for conflicts=\n");
			return -1;
		}
	}
	for (i = 0; i < MAX_EXTRA; i++)
		cpu->xlast[i] = UINT64_MAX;
	for (i = 0; i < MAX_HIER; i++)
		cpu->hl1d_last[i] = UINT64_MAX;
	return 0;
}

/*
 * Whether QEMU runs every vCPU on one thread, from its command line: the v1
 * API does not tell.  QEMU 7.2 does so with -icount (also with
 * thread=multi) and with -accel tcg,thread=single; otherwise TCG is
 * multi-threaded (MTTCG).
 */
static int one_tcg_thread(void)
{
	char buf[16384];
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n, i;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, "-icount") || !strcmp(buf + i, "--icount") ||
		    (!strncmp(buf + i, "tcg,", 4) && strstr(buf + i, ",thread=single")))
			return 1;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	char err[256];
	unsigned int u;
	int i, c, rc;

	if (info->version.min > KCOLOUR_QEMU_PLUGIN_API ||
	    info->version.cur < KCOLOUR_QEMU_PLUGIN_API) {
		fprintf(stderr, "kcolour-cachesim: built for QEMU plugin API %d, but this QEMU accepts %d..%d\n",
			KCOLOUR_QEMU_PLUGIN_API, info->version.min, info->version.cur);
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "kcolour-cachesim: needs qemu-system-x86_64 (got %s%s)\n",
			info->target_name, info->system_emulation ? "" : ", user mode");
		return -1;
	}
	if (info->system.smp_vcpus < 1 || info->system.max_vcpus != info->system.smp_vcpus) {
		fprintf(stderr, "kcolour-cachesim: needs a fixed vCPU count (got %d, at most %d: no maxcpus=)\n",
			info->system.smp_vcpus, info->system.max_vcpus);
		return -1;
	}
	/* Unlocked state: the vCPUs must never run callbacks at once. */
	if (info->system.smp_vcpus > 1 && !one_tcg_thread()) {
		fprintf(stderr, "kcolour-cachesim: %d vCPUs need -icount or -accel tcg,thread=single (one TCG thread for all; MTTCG would race on the plugin's state)\n",
			info->system.smp_vcpus);
		return -1;
	}
	snprintf(sim.target, sizeof(sim.target), "%s", info->target_name);
	sim.api_min = info->version.min;
	sim.api_cur = info->version.cur;
	sim.vcpus = info->system.smp_vcpus;
	for (i = 0; i < argc; i++) {
		rc = parse_arg(argv[i]);
		if (rc == -1)
			fprintf(stderr, "kcolour-cachesim: bad argument '%s'"
				" (unknown key, bad number or empty range)\n", argv[i]);
		if (rc) {
			fputs(usage, stderr);
			return -1;
		}
	}
	if (!sim.data_start)
		sim.data_start = sim.text_end;
	if (sim.data_start >= sim.data_end) {
		fprintf(stderr, "kcolour-cachesim: empty data range (text ends at 0x%" PRIx64 ")\n",
			sim.text_end);
		return -1;
	}
	/* Fetch runs assume an instruction (<= 15 bytes) touches at most 2 lines. */
	if (sim.geom[C_L1I].line < 16) {
		fprintf(stderr, "kcolour-cachesim: l1i_line must be at least 16\n");
		return -1;
	}
	for (c = 0; c < NR_CACHES; c++) {
		if (cs_geom_check(&sim.geom[c], err, sizeof(err))) {
			fprintf(stderr, "kcolour-cachesim: %s: %s\n", cache_name[c], err);
			return -1;
		}
	}
	if (setup_extras(X_L1D) || setup_extras(X_L2) || setup_hiers())
		return -1;
	sim.nr_cpus = (unsigned int)info->system.smp_vcpus;
	sim.cpu = calloc(sim.nr_cpus, sizeof(*sim.cpu));
	if (!sim.cpu) {
		fprintf(stderr, "kcolour-cachesim: out of memory\n");
		return -1;
	}
	for (u = 0; u < sim.nr_cpus; u++)
		if (setup_cpu(&sim.cpu[u]))
			return -1;
	sim.l1d_shift = cs_line_shift(sim.cpu[0].cache[C_L1D]);
	sim.l1i_shift = cs_line_shift(sim.cpu[0].cache[C_L1I]);
	sim.l2_shift = cs_line_shift(sim.cpu[0].cache[C_L2]);
	if (sim.prof_path) {
		sim.prof_out = fopen(sim.prof_path, "w");
		if (!sim.prof_out) {
			fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n", sim.prof_path);
			return -1;
		}
	}
	for (c = 0; c < C_L2; c++) {
		if (!sim.conflicts_path[c])
			continue;
		sim.conflicts_out[c] = fopen(sim.conflicts_path[c], "w");
		if (!sim.conflicts_out[c]) {
			fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n",
				sim.conflicts_path[c]);
			return -1;
		}
	}
	if (sim.out_path)
		sim.out = fopen(sim.out_path, "w");
	else
		sim.out = open_memstream(&sim.outs_buf, &sim.outs_len);
	if (!sim.out) {
		fprintf(stderr, "kcolour-cachesim: cannot open %s: %m\n",
			sim.out_path ? sim.out_path : "a memory stream");
		return -1;
	}

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
