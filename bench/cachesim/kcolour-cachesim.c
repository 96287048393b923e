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
 * other level.  An L2 extra written SIZE:WAYS[:LINE]@balanced or @random
 * gives each page frame outside the kernel image another page colour
 * (recolour.h): what page colouring could do, on the same trace.
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
 * phase starts warm (between_phases=skip: they stand still between
 * phases).  At exit every phase is written as lines of key=value pairs to
 * out=PATH, or to QEMU's log.
 *
 * profile=PATH adds an instruction profile: per phase, the instructions
 * executed per translation block start address (counted where the phase
 * head counts them, so the totals agree), and how often each kernel-text
 * TB was entered from each kernel-text TB run before it: a function's
 * callers, for ordering hot text by call affinity.
 *
 * conflicts=PATH names both sides of the primary L1D's conflict misses on
 * the direct map, per phase: the line that missed and the line whose miss
 * evicted it (struct conflict_table); text_conflicts=PATH the same for the
 * primary L1I's conflict misses in the kernel text, l2_conflicts=PATH for
 * the primary L2's in every region, by physical line.
 *
 * This file is the QEMU-facing glue: install, the translation callback
 * that prepares the fetch runs, the memory and fetch callbacks, and the
 * exit callback.  What they call has no QEMU dependency:
 *
 *   globals.h    the global state, all of it, and why
 *   options.c    the arguments: a table of keys, checks, extras and hierarchies
 *   placement.c  the address map and regions, and the placement line
 *   phase.h      a phase's counts
 *   hierarchy.c  each vCPU's caches, their accesses and SMP invalidation
 *   recolour.c   the page colours of l2_extra=...@balanced and @random
 *   conflicts.c  conflicts=, text_conflicts=, l2_conflicts=: evictors and pairs
 *   profile.c    profile=: instructions per TB and phase, entries into TBs
 *   run.c        the run's state and the phases (the marker); calls down
 *   output.c     the report and the other files
 *   cachesim.c   the caches and Belady's MIN
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-v1.h"
#include "cachesim.h"
#include "hierarchy.h"
#include "options.h"
#include "output.h"
#include "placement.h"
#include "profile.h"
#include "run.h"

#define KCOLOUR_MARKER_NO_GUEST
#include "../workloads/kcolour-marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = KCOLOUR_QEMU_PLUGIN_API;

#define unlikely(x)	__builtin_expect(!!(x), 0)

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

static struct arena_chunk *arena;	/* the newest chunk */

static struct cpu *vcpu_of(unsigned int vcpu)
{
	if (unlikely(vcpu >= caches.nr_cpus)) {
		fprintf(stderr, "kcolour-cachesim: vCPU %u, but only %u at start (hotplug?)\n",
			vcpu, caches.nr_cpus);
		exit(1);
	}
	return &caches.cpu[vcpu];
}

static uint64_t hw_phys(const void *hw)
{
	return qemu_plugin_hwaddr_phys_addr(hw);
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct cpu *cpu = vcpu_of(vcpu);
	struct qemu_plugin_hwaddr *hw;

	(void)udata;
	if (unlikely((vaddr & PAGE_MASK) == KCOLOUR_MARKER_ADDR) &&
	    qemu_plugin_mem_is_store(info))
		marker_store(vaddr);
	/* between_phases=skip: only the calibration needs the address. */
	if (!simulating() && caches.have_kimage_ram)
		return;

	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	if (unlikely(!caches.have_kimage_ram) && vaddr >= KIMAGE_START &&
	    vaddr < KIMAGE_END) {
		caches.kimage_ram = qemu_plugin_hwaddr_phys_addr(hw) - (vaddr - KIMAGE_START);
		caches.have_kimage_ram = 1;
	}

	run_data_access(cpu, vcpu, vaddr, 1ull << qemu_plugin_mem_size_shift(info),
			qemu_plugin_mem_is_store(info), hw_phys, hw);
}

static void fetch_exec(unsigned int vcpu, void *udata)
{
	run_fetch(vcpu_of(vcpu), udata);
}

/* fetch_exec() with profile=: a separate callback keeps the other free. */
static void fetch_exec_prof(unsigned int vcpu, void *udata)
{
	struct fetch_run *run = udata;
	struct cpu *cpu = vcpu_of(vcpu);

	run_fetch(cpu, run);
	prof_exec(run->prof, &cpu->last_tb, run->insns, run->tb_start, !!counting_phase());
}

/* Zeroed memory that lives until exit. */
static void *arena_alloc(size_t size)
{
	struct arena_chunk *ch = arena;
	size_t words = (size + sizeof(uint64_t) - 1) / sizeof(uint64_t);

	if (!ch || ch->used + words > ARENA_WORDS) {
		ch = calloc(1, sizeof(*ch) + ARENA_WORDS * sizeof(uint64_t));
		if (!ch) {
			fprintf(stderr, "kcolour-cachesim: out of memory\n");
			exit(1);
		}
		ch->next = arena;
		arena = ch;
	}
	ch->used += words;
	return &ch->data[ch->used - words];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct fetch_run *run = NULL;
	struct tb_prof *prof = NULL;
	unsigned int shift = caches.l1i_shift;
	uint64_t pending = 0;	/* line vaddr still without a host address */
	int have_pending = 0;

	(void)id;
	if (opt.prof_path && n) {
		prof = arena_alloc(sizeof(*prof));
		prof->pc = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
		prof->text = classify(&opt.map, prof->pc) == R_KTEXT;
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		uint64_t first = vaddr >> shift;
		uint64_t last = (vaddr + qemu_plugin_insn_size(insn) - 1) >> shift;
		uintptr_t host = (uintptr_t)qemu_plugin_insn_haddr(insn);

		if (unlikely(!caches.have_kimage_host) && host &&
		    vaddr >= KIMAGE_START && vaddr < KIMAGE_END) {
			caches.kimage_host = host - (vaddr - KIMAGE_START);
			caches.have_kimage_host = 1;
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
			run->region = classify(&opt.map, vaddr);
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

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	struct arena_chunk *ch;

	(void)id;
	(void)udata;
	write_results();
	if (!opt.out_path)
		qemu_plugin_outs(sim.outs_buf);
	free(sim.outs_buf);

	free_cpus();
	while ((ch = arena)) {
		arena = ch->next;
		free(ch);
	}
	free_phases();
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
	if (options_parse(argc, argv))
		return -1;
	if (setup_cpus((unsigned int)info->system.smp_vcpus) || open_outputs())
		return -1;

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
