// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-cachesim: a QEMU TCG plugin (API version 1, QEMU 7.2) that
 * simulates L1D, L1I and L2 of one x86_64 guest CPU and counts accesses and
 * misses per address region, to see where kernel stack colouring removes
 * conflict misses.
 *
 *   L1D  every guest load/store, on the guest virtual address (a VIPT L1
 *        with a 4 KiB way indexes by page offset, the same in both);
 *   L1I  every instruction fetch, on the guest virtual address;
 *   L2   L1D and L1I set-associative misses, on the physical address
 *        (RAM offset, see host_to_ram()).
 *
 * IO (MMIO) accesses are skipped in all three.
 *
 * Each cache runs beside a fully-associative LRU cache of the same size
 * (cachesim.c); set-associative minus fully-associative misses are the
 * conflict misses.  No writebacks, no prefetch, no inclusion, no TLBs.
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

struct phase {
	struct cs_counts c[NR_CACHES][NR_REGIONS];
	uint64_t insns[NR_REGIONS];
	uint64_t l2_unresolved;	/* L1 misses whose physical line was unknown */
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
};

/* Runs are never freed: QEMU 7.2 tells a plugin nothing when a TB dies. */
#define RUN_CHUNK	4096
struct run_chunk {
	struct run_chunk *next;
	unsigned int used;
	struct fetch_run runs[RUN_CHUNK];
};

static struct {
	struct cs_geom geom[NR_CACHES];
	struct cs_cache *cache[NR_CACHES];
	unsigned int l1d_shift, l1i_shift;
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

	struct run_chunk *runs;
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

static void l2_access(struct phase *ph, enum region r, int known, uint64_t ram)
{
	if (known)
		cs_access(sim.cache[C_L2], ram, counts(ph, C_L2, r));
	else if (ph)
		ph->l2_unresolved++;
}

static void marker_store(uint64_t vaddr)
{
	struct phase *p;

	switch (vaddr - KCOLOUR_MARKER_ADDR) {
	case KCOLOUR_MARKER_START:
		memset(&sim.cur, 0, sizeof(sim.cur));
		sim.counting = 1;
		break;
	case KCOLOUR_MARKER_STOP:
		if (!sim.counting)
			break;
		p = realloc(sim.phases, (sim.nr_phases + 1) * sizeof(*p));
		if (!p) {
			fprintf(stderr, "kcolour-cachesim: out of memory, phase %zu lost\n",
				sim.nr_phases);
			exit(1);
		}
		sim.phases = p;
		sim.phases[sim.nr_phases++] = sim.cur;
		sim.counting = 0;
		break;
	}
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t ram, line, last, size;
	struct phase *ph;
	enum region r;

	(void)vcpu;
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
	size = 1ull << qemu_plugin_mem_size_shift(info);
	last = (vaddr + size - 1) >> sim.l1d_shift;
	for (line = vaddr >> sim.l1d_shift; line <= last; line++) {
		uint64_t lv = line << sim.l1d_shift;

		if (!(cs_access(sim.cache[C_L1D], lv, counts(ph, C_L1D, r)) & CS_SA_MISS))
			continue;
		/* The physical address is known only on the first byte's page. */
		if (lv > vaddr && (lv & PAGE_MASK) != (vaddr & PAGE_MASK)) {
			l2_access(ph, r, 0, 0);
			continue;
		}
		ram = qemu_plugin_hwaddr_phys_addr(hw);
		l2_access(ph, r, 1, lv > vaddr ? ram + (lv - vaddr) : ram);
	}
}

/* The RAM offset of an instruction line, from its host address. */
static int host_to_ram(uintptr_t host, uint64_t *ram)
{
	if (!host || !sim.have_kimage_host || !sim.have_kimage_ram)
		return 0;
	*ram = host - sim.kimage_host + sim.kimage_ram;
	return 1;
}

static void fetch_exec(unsigned int vcpu, void *udata)
{
	struct fetch_run *run = udata;
	struct phase *ph = counting_phase();
	enum region r = run->region;
	unsigned int i;
	uint64_t ram = 0;

	(void)vcpu;
	if (ph) {
		ph->insns[r] += run->insns;
		/* Fetches after the first from a line are MRU hits. */
		ph->c[C_L1I][r].accesses += run->accesses - run->nr_lines;
	}
	for (i = 0; i < run->nr_lines; i++) {
		uint64_t lv = run->line_vaddr + ((uint64_t)i << sim.l1i_shift);

		if (cs_access(sim.cache[C_L1I], lv, counts(ph, C_L1I, r)) & CS_SA_MISS) {
			int known = host_to_ram(run->host[i], &ram);

			l2_access(ph, r, known, ram);
		}
	}
}

static struct fetch_run *new_run(void)
{
	struct run_chunk *ch = sim.runs;

	if (!ch || ch->used == RUN_CHUNK) {
		ch = calloc(1, sizeof(*ch));
		if (!ch) {
			fprintf(stderr, "kcolour-cachesim: out of memory\n");
			exit(1);
		}
		ch->next = sim.runs;
		sim.runs = ch;
	}
	return &ch->runs[ch->used++];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct fetch_run *run = NULL;
	unsigned int shift = sim.l1i_shift;
	uint64_t pending = 0;	/* line vaddr still without a host address */
	int have_pending = 0;

	(void)id;
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
			run = new_run();
			run->line_vaddr = first << shift;
			run->host[0] = host ? host - (vaddr - run->line_vaddr) : 0;
			run->nr_lines = 1;
			run->region = classify(vaddr);
			qemu_plugin_register_vcpu_insn_exec_cb(insn, fetch_exec,
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

static void print_phase(size_t idx, const struct phase *ph, int complete)
{
	char line[512];
	uint64_t total = 0;
	int c, r;

	for (r = 0; r < NR_REGIONS; r++)
		total += ph->insns[r];
	snprintf(line, sizeof(line),
		 "cachesim phase=%zu complete=%d insns=%" PRIu64 " insns_user=%" PRIu64
		 " insns_ktext=%" PRIu64 " insns_other=%" PRIu64 " l2_unresolved=%" PRIu64 "\n",
		 idx, complete, total, ph->insns[R_USER], ph->insns[R_KTEXT],
		 total - ph->insns[R_USER] - ph->insns[R_KTEXT], ph->l2_unresolved);
	fputs(line, sim.out);
	for (c = 0; c < NR_CACHES; c++) {
		struct cs_counts sum = { 0 };

		for (r = 0; r <= NR_REGIONS; r++) {
			const struct cs_counts *k = r < NR_REGIONS ? &ph->c[c][r] : &sum;

			fprintf(sim.out, "cachesim phase=%zu cache=%s region=%s accesses=%" PRIu64
				" sa_miss=%" PRIu64 " fa_miss=%" PRIu64 "\n",
				idx, cache_name[c], r < NR_REGIONS ? region_name[r] : "all",
				k->accesses, k->sa_miss, k->fa_miss);
			if (r < NR_REGIONS) {
				sum.accesses += k->accesses;
				sum.sa_miss += k->sa_miss;
				sum.fa_miss += k->fa_miss;
			}
		}
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct run_chunk *ch;
	size_t i;
	int c;

	(void)id;
	(void)udata;
	fprintf(sim.out, "cachesim config target=%s api=%d..%d vcpus=%d", sim.target,
		sim.api_min, sim.api_cur, sim.vcpus);
	for (c = 0; c < NR_CACHES; c++)
		fprintf(sim.out, " %s=%" PRIu64 "/%u/%u", cache_name[c], sim.geom[c].size,
			sim.geom[c].ways, sim.geom[c].line);
	fprintf(sim.out, " stack_top=%" PRIu64 " text=0x%" PRIx64 "-0x%" PRIx64
		" data=0x%" PRIx64 "-0x%" PRIx64 " phases=%zu ram_calibrated=%d\n",
		sim.stack_top, sim.text_start, sim.text_end, sim.data_start, sim.data_end,
		sim.nr_phases, sim.have_kimage_host && sim.have_kimage_ram);
	for (i = 0; i < sim.nr_phases; i++)
		print_phase(i, &sim.phases[i], 1);
	if (sim.counting)
		print_phase(sim.nr_phases, &sim.cur, 0);
	if (fclose(sim.out))
		fprintf(stderr, "kcolour-cachesim: writing %s: %m\n",
			sim.out_path ? sim.out_path : "the report");
	if (!sim.out_path)
		qemu_plugin_outs(sim.outs_buf);
	free(sim.outs_buf);

	for (c = 0; c < NR_CACHES; c++)
		cs_cache_free(sim.cache[c]);
	while ((ch = sim.runs)) {
		sim.runs = ch->next;
		free(ch);
	}
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
	return -1;
}

static const char usage[] =
	"kcolour-cachesim: arguments (all optional), e.g.\n"
	"  -plugin kcolour-cachesim.so,l1d_size=32K,l1d_ways=8,l1d_line=64,"
	"l1i_size=32K,l1i_ways=8,l1i_line=64,l2_size=4M,l2_ways=16,l2_line=64,"
	"stack_top=2048,text=ffffffff81000000-ffffffff82200000,"
	"data=ffffffff82200000-ffffffffa0000000,out=PATH\n";

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	char err[256];
	int i, c;

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
	if (info->system.smp_vcpus != 1) {
		fprintf(stderr, "kcolour-cachesim: simulates one CPU's caches; run with -smp 1 (got %d vCPUs)\n",
			info->system.smp_vcpus);
		return -1;
	}
	snprintf(sim.target, sizeof(sim.target), "%s", info->target_name);
	sim.api_min = info->version.min;
	sim.api_cur = info->version.cur;
	sim.vcpus = info->system.smp_vcpus;
	for (i = 0; i < argc; i++) {
		if (parse_arg(argv[i])) {
			fprintf(stderr, "kcolour-cachesim: bad argument '%s'"
				" (unknown key, bad number or empty range)\n%s", argv[i], usage);
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
		sim.cache[c] = cs_cache_new(&sim.geom[c], err, sizeof(err));
		if (!sim.cache[c]) {
			fprintf(stderr, "kcolour-cachesim: %s: %s\n", cache_name[c], err);
			return -1;
		}
	}
	sim.l1d_shift = cs_line_shift(sim.cache[C_L1D]);
	sim.l1i_shift = cs_line_shift(sim.cache[C_L1I]);
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
