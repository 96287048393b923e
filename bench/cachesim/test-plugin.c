// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the plugin's QEMU-free logic, linked without QEMU (and
 * without kcolour-cachesim.c, the glue): the arguments and their error
 * messages (options.c), regions and placement (placement.c), the
 * hierarchies, their levels and SMP invalidation (hierarchy.c), the phases
 * (run.c), conflict pairs (conflicts.c), the profile (profile.c) and the
 * output lines (output.c).  The accesses go in as the plugin's callbacks
 * hand them over.  TAP output; exit status 1 on any failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachesim.h"
#include "conflicts.h"
#include "hierarchy.h"
#include "options.h"
#include "output.h"
#include "placement.h"
#include "profile.h"
#include "run.h"
#include "../../harness/tap.h"

#define KCOLOUR_MARKER_NO_GUEST
#include "../workloads/kcolour-marker.h"

#define ULL(x)		((unsigned long long)(x))
#define DIRECT(off)	(DIRECT_START + (off))

/* A 64-bit LCG: the same sequence on every run. */
static uint64_t rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static struct options defaults;

/* Back to the state of a fresh plugin. */
static void reset(void)
{
	if (caches.cpu)
		free_cpus();
	free_phases();
	prof_discard();
	memset(&sim, 0, sizeof(sim));
	memset(&caches, 0, sizeof(caches));
	opt = defaults;
}

/* options_parse()'s messages, from the latest parse(). */
static char errbuf[8192];

/*
 * options_parse() on the space-separated arguments in args (kept until the
 * next call: opt points into them), its stderr into errbuf.
 */
static int parse(const char *args)
{
	static char buf[2048];
	char *argv[64], *p;
	int argc = 0, rc, saved;
	FILE *tmp = tmpfile();
	size_t n;

	reset();
	snprintf(buf, sizeof(buf), "%s", args);
	for (p = strtok(buf, " "); p && argc < 64; p = strtok(NULL, " "))
		argv[argc++] = p;
	fflush(stderr);
	saved = dup(2);
	if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
		printf("# cannot capture stderr\n");
		exit(1);
	}
	rc = options_parse(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, tmp);
	errbuf[n] = 0;
	fclose(tmp);
	return rc;
}

/* parse() and setup_cpus(), for the tests that simulate. */
static int start(const char *args, unsigned int cpus)
{
	if (parse(args) || setup_cpus(cpus)) {
		printf("# start(%s, %u) failed: %s\n", args, cpus, errbuf);
		return -1;
	}
	return 0;
}

static int phys_calls;

static uint64_t phys_of(const void *hw)
{
	phys_calls++;
	return *(const uint64_t *)hw;
}

/* A data access as mem_access() hands it over, at physical address phys. */
static void acc(unsigned int vcpu, uint64_t vaddr, uint64_t size, int store, uint64_t phys)
{
	run_data_access(&caches.cpu[vcpu], vcpu, vaddr, size, store, phys_of, &phys);
}

/* A run of instruction fetches as fetch_exec() hands it over. */
static void fetch(unsigned int vcpu, const struct fetch_run *run)
{
	run_fetch(&caches.cpu[vcpu], run);
}

/* A direct-map access: physical = virtual - DIRECT_START, as in nokaslr. */
static void dacc(unsigned int vcpu, uint64_t off, uint64_t size, int store)
{
	acc(vcpu, DIRECT(off), size, store, off);
}

static void phase_open(void)
{
	marker_store(KCOLOUR_MARKER_ADDR + KCOLOUR_MARKER_START);
}

static void phase_close(void)
{
	marker_store(KCOLOUR_MARKER_ADDR + KCOLOUR_MARKER_STOP);
}

static int same_counts(const struct cs_counts *a, const struct cs_counts *b)
{
	return a->accesses == b->accesses && a->sa_miss == b->sa_miss &&
	       a->fa_miss == b->fa_miss && a->plru_miss == b->plru_miss &&
	       a->inval == b->inval;
}

static struct cs_counts sum_regions(const struct cs_counts *k)
{
	struct cs_counts s = { 0 };
	int r;

	for (r = 0; r < NR_REGIONS; r++) {
		s.accesses += k[r].accesses;
		s.sa_miss += k[r].sa_miss;
		s.fa_miss += k[r].fa_miss;
		s.plru_miss += k[r].plru_miss;
		s.min_miss += k[r].min_miss;
		s.inval += k[r].inval;
	}
	return s;
}

/* A memory stream to print into; mem_text() its text so far. */
static char *mem_buf;
static size_t mem_len;

static FILE *mem_open(void)
{
	free(mem_buf);
	mem_buf = NULL;
	return open_memstream(&mem_buf, &mem_len);
}

static const char *mem_text(FILE *f)
{
	fclose(f);
	return mem_buf ? mem_buf : "";
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- options.c ---- */

static void test_options_defaults(void)
{
	int rc = parse("");

	ok(!rc && !errbuf[0], "options: none given parse (%d, '%s')", rc, errbuf);
	ok(opt.geom[C_L1D].size == 32768 && opt.geom[C_L1D].ways == 8 &&
	   opt.geom[C_L1D].line == 64 && opt.geom[C_L2].size == 4194304 &&
	   opt.geom[C_L2].ways == 16 && opt.map.stack_top == 2048 &&
	   opt.min_window == 2u << 20 && opt.between_phases == BETWEEN_SIMULATE,
	   "options: the defaults are Skylake-Client's L1s, a 4M 16-way L2, stack_top=2048, min_window=2M, between_phases=simulate");
	ok(opt.map.text_start == 0xffffffff81000000ull && opt.map.text_end == 0xffffffff82200000ull &&
	   opt.map.data_start == opt.map.text_end && opt.map.data_end == MODULES_START,
	   "options: data= defaults to the text end up to the modules (0x%llx-0x%llx)",
	   ULL(opt.map.data_start), ULL(opt.map.data_end));
	ok(!opt.out_path && !opt.prof_path && !opt.conflicts_path[C_L1D] &&
	   !opt.conflicts_path[C_L1I] && !opt.conflicts_path[C_L2] && !opt.nr_extra[X_L1D] &&
	   !opt.nr_hier,
	   "options: no files, extras or hierarchies by default");
}

static void test_options_values(void)
{
	int rc = parse("l1d=48K:12 l1i=32K:8:128 l2=1M:0x10 "
		       "stack_top=4096 text=0xffffffff81000000-ffffffff81600000 "
		       "data=ffffffff81600000-0xffffffff81c16000 min_window=1K out=/o "
		       "profile=/p conflicts=/c text_conflicts=/t l2_conflicts=/l");

	ok(!rc, "options: a full set parses (%s)", errbuf);
	ok(opt.geom[C_L1D].size == 49152 && opt.geom[C_L1D].ways == 12 &&
	   opt.geom[C_L1I].line == 128 && opt.geom[C_L2].size == 1048576 &&
	   opt.geom[C_L2].ways == 16,
	   "options: K and M suffixes and 0x numbers (%llu %u %u %llu %u)",
	   ULL(opt.geom[C_L1D].size), opt.geom[C_L1D].ways, opt.geom[C_L1I].line,
	   ULL(opt.geom[C_L2].size), opt.geom[C_L2].ways);
	ok(opt.map.text_start == 0xffffffff81000000ull && opt.map.text_end == 0xffffffff81600000ull &&
	   opt.map.data_start == 0xffffffff81600000ull && opt.map.data_end == 0xffffffff81c16000ull,
	   "options: text= and data= in hex, 0x optional");
	ok(opt.map.stack_top == 4096 && opt.min_window == 1024, "options: stack_top=, min_window=");
	ok(opt.out_path && !strcmp(opt.out_path, "/o") && opt.prof_path &&
	   !strcmp(opt.prof_path, "/p") && opt.conflicts_path[C_L1D] &&
	   !strcmp(opt.conflicts_path[C_L1D], "/c") && opt.conflicts_path[C_L1I] &&
	   !strcmp(opt.conflicts_path[C_L1I], "/t") && opt.conflicts_path[C_L2] &&
	   !strcmp(opt.conflicts_path[C_L2], "/l"),
	   "options: out=, profile=, conflicts=, text_conflicts=, l2_conflicts=");
	ok(!parse("stack_top=16K min_window=1024M") && opt.map.stack_top == 16384 &&
	   opt.min_window == 1u << 30, "options: stack_top=16K and min_window=1024M are the limits");
}

/* Each of these is refused, with its message and (after a bad argument) the usage. */
static void test_options_rejected(void)
{
	static const struct {
		const char *args, *message;
		int usage;
	} bad[] = {
		{ "bogus=1", "kcolour-cachesim: bad argument 'bogus=1' (unknown key, bad number or empty range)\n", 1 },
		{ "noequals", "bad argument 'noequals'", 1 },
		{ "l1d=1Q:8", "bad argument 'l1d=1Q:8'", 1 },
		{ "l1d=-1:8", "bad argument 'l1d=-1:8'", 1 },
		{ "l1d=32K:2000", "bad argument 'l1d=32K:2000'", 1 },
		{ "l2=4M:16:4097", "bad argument 'l2=4M:16:4097'", 1 },
		{ "l1d_size=32K", "bad argument 'l1d_size=32K'", 1 },
		{ "min_window=17592186044417M", "bad argument 'min_window=17592186044417M'", 1 },
		{ "stack_top=99999999999999999999", "bad argument 'stack_top=99999999999999999999'", 1 },
		{ "l1d=32K", "bad argument 'l1d=32K'", 1 },
		{ "l1d_colour=4", "bad argument 'l1d_colour=4'", 1 },
		{ "text=zz", "bad argument 'text=zz'", 1 },
		{ "text=2-1", "bad argument 'text=2-1'", 1 },
		{ "data=ffffffff90000000-", "bad argument 'data=ffffffff90000000-'", 1 },
		{ "stack_top=0", "bad argument 'stack_top=0'", 1 },
		{ "stack_top=16385", "bad argument 'stack_top=16385'", 1 },
		{ "min_window=0", "bad argument 'min_window=0'", 1 },
		{ "min_window=2G", "bad argument 'min_window=2G'", 1 },
		{ "out=", "bad argument 'out='", 1 },
		{ "profile=", "bad argument 'profile='", 1 },
		{ "between_phases=never", "bad argument 'between_phases=never'", 1 },
		{ "l1d=0:8", "kcolour-cachesim: L1D: size, ways and line must be non-zero (size=0 ways=8 line=64)\n", 0 },
		{ "l1d=3K:8", "kcolour-cachesim: L1D: set count 6 is not a power of two\n", 0 },
		{ "l2=4M:12", "kcolour-cachesim: L2: ", 0 },
		{ "l1i=32K:8:8", "kcolour-cachesim: the L1I line must be at least 16\n", 0 },
		{ "text=ffffffff81000000-ffffffffa0000000",
		  "kcolour-cachesim: empty data range (text ends at 0xffffffffa0000000)\n", 0 },
		{ "l1d_extra=48K", "kcolour-cachesim: l1d_extra: bad item '48K' in '48K': want SIZE:WAYS[:LINE], several separated by '/' (ways <= 1024, line <= 4096)\n", 1 },
		{ "l2_extra=1M:16/x", "l2_extra: bad item 'x' in '1M:16/x'", 1 },
		{ "l2_extra=48K:12:0", "l2_extra: bad item '48K:12:0'", 1 },
		{ "l1d_extra=1K:1:1:1", "l1d_extra: bad item '1K:1:1:1'", 1 },
		{ "l2_extra=256K:4@tidy", "l2_extra: bad item '256K:4@tidy' in '256K:4@tidy': want SIZE:WAYS[:LINE][@balanced|@random|@balanced-all]", 1 },
		{ "l2_extra=256K:4@", "l2_extra: bad item '256K:4@'", 1 },
		{ "l1d_extra=32K:8@balanced", "l1d_extra: bad item '32K:8@balanced'", 1 },
		{ "l2_extra=256K:4@random/256K:4@random",
		  "kcolour-cachesim: L2 extra geometry L2-256K-4w-random given twice\n", 0 },
		{ "l2_extra=1M:1/1M:2/1M:4/1M:8/1M:16/2M:1/2M:2/2M:4/2M:8",
		  "kcolour-cachesim: l2_extra: more than 8 items\n", 1 },
		{ "l1d_extra=48K:12/48K:12", "kcolour-cachesim: L1D extra geometry L1D-48K-12w given twice\n", 0 },
		{ "l1d_extra=3K:2", "kcolour-cachesim: L1D extra geometry 1 (3072:2:64): set count 24 is not a power of two\n", 0 },
		{ "cpus=48K:12-32K:8", "cpus: bad item '48K:12-32K:8' in '48K:12-32K:8': want L1D-L1I-L2, each SIZE:WAYS[:LINE]", 1 },
		{ "cpus=48K:12-32K:8-1M:16-", "cpus: bad item '48K:12-32K:8-1M:16-'", 1 },
		{ "cpus=48K:12-32K:8:128-1M:16", "kcolour-cachesim: cpu1-L1I (32768:8:128): line 128, not the primary's 64\n", 0 },
		{ "cpus=32K:8-32K:8-1M:16/1M:3-32K:8-1M:16",
		  "kcolour-cachesim: cpu2-L1D (1048576:3:64): size 1048576 is not a multiple of ways * line (192)\n", 0 },
	};
	static const char usage_head[] = "kcolour-cachesim: arguments (all optional), e.g.\n";
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].args);
		char *usage = strstr(errbuf, usage_head);

		ok(rc == -1 && strstr(errbuf, bad[i].message) && !usage == !bad[i].usage,
		   "options: '%s' is refused: %.*s%s", bad[i].args,
		   (int)strcspn(bad[i].message, "\n"), bad[i].message,
		   bad[i].usage ? " (and the usage)" : "");
		if (rc != -1 || !strstr(errbuf, bad[i].message))
			printf("# rc %d, stderr: %s\n", rc, errbuf);
	}
	parse("l1d=1Q:8");
	ok(!strncmp(errbuf, "kcolour-cachesim: bad argument", 30) &&
	   strstr(errbuf, usage_head) && count_lines(errbuf) == 3,
	   "options: a bad argument gives one message, then the usage (two lines)");
	ok(parse("l1d=1Q:8 bogus2=1") == -1 && !strstr(errbuf, "bogus2"),
	   "options: parsing stops at the first bad argument");
}

static void test_options_extras(void)
{
	int rc = parse("l2=4M:16:128 l1d_extra=48K:12/32K:16:128+64K:2 l2_extra=256K:4/2M:16:64");

	ok(!rc && opt.nr_extra[X_L1D] == 3 && opt.nr_extra[X_L2] == 2,
	   "extras: '/' and '+' separate items (%u, %u; %s)", opt.nr_extra[X_L1D],
	   opt.nr_extra[X_L2], errbuf);
	ok(!strcmp(opt.extra[X_L1D][0].name, "L1D-48K-12w") &&
	   !strcmp(opt.extra[X_L1D][1].name, "L1D-32K-16w-128B") &&
	   !strcmp(opt.extra[X_L1D][2].name, "L1D-64K-2w"),
	   "extras: L1D names from the geometry, the line only when not 64 (%s %s %s)",
	   opt.extra[X_L1D][0].name, opt.extra[X_L1D][1].name, opt.extra[X_L1D][2].name);
	ok(!strcmp(opt.extra[X_L2][0].name, "L2-256K-4w-128B") &&
	   opt.extra[X_L2][0].geom.line == 128 && opt.extra[X_L2][0].shift == 7 &&
	   !strcmp(opt.extra[X_L2][1].name, "L2-2M-16w") && opt.extra[X_L2][1].shift == 6,
	   "extras: LINE defaults to the primary's line of the level (%s, %s)",
	   opt.extra[X_L2][0].name, opt.extra[X_L2][1].name);
	ok(parse("l1d_extra=1000:1") == -1 &&
	   strstr(errbuf, "kcolour-cachesim: L1D extra geometry 1 (1000:1:64): "),
	   "extras: a bad extra geometry is refused, named by its place and geometry");
	ok(!parse("l1d_extra=1536:3:512") && !strcmp(opt.extra[X_L1D][0].name, "L1D-1536-3w-512B"),
	   "extras: a size that is no whole K is named in bytes (%s)", opt.extra[X_L1D][0].name);
	rc = parse("l2_extra=256K:4@balanced/256K:4:128@random/256K:4");
	ok(!rc && !strcmp(opt.extra[X_L2][0].name, "L2-256K-4w-balanced") &&
	   opt.extra[X_L2][0].recolour == RECOLOUR_BALANCED &&
	   !strcmp(opt.extra[X_L2][1].name, "L2-256K-4w-128B-random") &&
	   opt.extra[X_L2][1].recolour == RECOLOUR_RANDOM && opt.extra[X_L2][1].shift == 7 &&
	   !strcmp(opt.extra[X_L2][2].name, "L2-256K-4w") && !opt.extra[X_L2][2].recolour,
	   "extras: an L2 extra's @POLICY sets its page colours and ends its name (%s %s %s)",
	   opt.extra[X_L2][0].name, opt.extra[X_L2][1].name, opt.extra[X_L2][2].name);
}

static void test_options_hiers(void)
{
	int rc = parse("cpus=48K:12-32K:8-1280K:20/32K:8-32K:8-1M:16/48K:12-64K:4-2M:16");
	const struct hier_l1 *d = opt.hl1[C_L1D], *i = opt.hl1[C_L1I];

	ok(!rc && opt.nr_hier == 3, "cpus: three hierarchies (%u; %s)", opt.nr_hier, errbuf);
	ok(opt.nr_hl1[C_L1D] == 1 && opt.nr_hl1[C_L1I] == 1 &&
	   opt.hier[0].l1[C_L1D] == 0 && opt.hier[2].l1[C_L1D] == 0 &&
	   opt.hier[1].l1[C_L1D] == HL1_PRIMARY && opt.hier[0].l1[C_L1I] == HL1_PRIMARY &&
	   opt.hier[1].l1[C_L1I] == HL1_PRIMARY && opt.hier[2].l1[C_L1I] == 0,
	   "cpus: an L1 geometry is simulated once, the primary's by the primary");
	ok(d[0].nr_l2 == 2 && d[0].l2[0] == 0 && d[0].l2[1] == 2 &&
	   d[HL1_PRIMARY].nr_l2 == 1 && d[HL1_PRIMARY].l2[0] == 1 &&
	   i[0].nr_l2 == 1 && i[0].l2[0] == 2 &&
	   i[HL1_PRIMARY].nr_l2 == 2 && i[HL1_PRIMARY].l2[0] == 0 && i[HL1_PRIMARY].l2[1] == 1,
	   "cpus: each shared L1 feeds the L2s of the hierarchies that have it");
	ok(d[0].geom.size == 49152 && d[0].geom.ways == 12 && d[0].shift == 6 &&
	   opt.hier[0].geom[C_L2].size == 1310720 && opt.hier[0].geom[C_L2].ways == 20 &&
	   opt.hier[0].geom[C_L2].line == 64,
	   "cpus: the geometries, LINE the primary's by default");
}

/* ---- placement.c ---- */

static void test_regions(void)
{
	static const struct {
		uint64_t a;
		enum region r;
	} at[] = {
		{ 0, R_USER }, { USER_END - 1, R_USER }, { USER_END, R_OTHER },
		{ VMALLOC_START, R_STACK_REST },
		{ VMALLOC_START + THREAD_SIZE - 2049, R_STACK_REST },
		{ VMALLOC_START + THREAD_SIZE - 2048, R_STACK_TOP },
		{ VMALLOC_START + THREAD_SIZE - 1, R_STACK_TOP },
		{ VMALLOC_START + THREAD_SIZE, R_STACK_REST },
		{ VMALLOC_END - 1, R_STACK_TOP }, { VMALLOC_END, R_OTHER },
		{ DIRECT_START - 1, R_OTHER }, { DIRECT_START, R_DIRECT },
		{ DIRECT_END - 1, R_DIRECT }, { DIRECT_END, R_OTHER },
		{ 0xffffea0000000000ull, R_OTHER },	/* vmemmap */
		{ 0xffffffff80ffffffull, R_OTHER },
		{ 0xffffffff81000000ull, R_KTEXT }, { 0xffffffff815fffffull, R_KTEXT },
		{ 0xffffffff81600000ull, R_KDATA }, { 0xffffffff81c15fffull, R_KDATA },
		{ 0xffffffff81c16000ull, R_OTHER }, { MODULES_START, R_OTHER },
	};
	unsigned int i, bad = 0;

	parse("text=ffffffff81000000-ffffffff81600000 data=ffffffff81600000-ffffffff81c16000");
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		if (classify(&opt.map, at[i].a) != at[i].r) {
			printf("# 0x%llx: %s, not %s\n", ULL(at[i].a),
			       region_name[classify(&opt.map, at[i].a)], region_name[at[i].r]);
			bad++;
		}
	}
	ok(!bad, "regions: %u boundaries classified (%u wrong)", i, bad);
	ok(!strcmp(region_name[R_USER], "user") && !strcmp(region_name[R_STACK_TOP], "stack-top") &&
	   !strcmp(region_name[R_STACK_REST], "stack-rest") &&
	   !strcmp(region_name[R_DIRECT], "direct") && !strcmp(region_name[R_KTEXT], "ktext") &&
	   !strcmp(region_name[R_KDATA], "kdata") && !strcmp(region_name[R_OTHER], "other"),
	   "regions: the names the output uses");
	parse("stack_top=4096");
	ok(classify(&opt.map, VMALLOC_START + 3 * THREAD_SIZE - 4096) == R_STACK_TOP &&
	   classify(&opt.map, VMALLOC_START + 3 * THREAD_SIZE - 4097) == R_STACK_REST &&
	   classify(&opt.map, 0xffffffff82200000ull) == R_KDATA,
	   "regions: stack_top= moves the stack-top boundary; data= follows the default text");
}

static void test_place_stack(void)
{
	static struct placement pl;
	const struct cs_geom l2 = { 4096, 4, 64 };	/* 16 sets */
	uint64_t b;

	memset(&pl, 0, sizeof(pl));
	place_stack(&pl, VMALLOC_START + 5 * THREAD_SIZE + 16000, 0x12345 << 6, 6, &l2);
	place_stack(&pl, VMALLOC_START + 5 * THREAD_SIZE + 15000, 0x999 << 6, 6, &l2);
	place_stack(&pl, VMALLOC_START + 2 * THREAD_SIZE + 16383, 0x7 << 6, 6, &l2);
	ok(pl.nr_stacks == 2 && pl.stack_set[0] == (0x12345 & 15) && pl.stack_set[1] == 7,
	   "placement: a block's first stack-top access names its L2 set, blocks in first-touch order (%u: %u %u)",
	   pl.nr_stacks, pl.stack_set[0], pl.stack_set[1]);
	for (b = 0; b < 300; b++)
		place_stack(&pl, VMALLOC_START + (100 + b) * THREAD_SIZE + 16000, b << 6, 6, &l2);
	ok(pl.nr_stacks == PLACED_STACKS && pl.stack_set[2] == 0 && pl.stack_set[3] == 1 &&
	   pl.stack_set[PLACED_STACKS - 1] == (PLACED_STACKS - 3) % 16,
	   "placement: at most %d blocks (%u)", PLACED_STACKS, pl.nr_stacks);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_place_direct(void)
{
	static struct placement pl;
	static uint64_t all[1000];
	uint64_t x = 5;
	unsigned int i, n = 0, sorted = 1;

	memset(&pl, 0, sizeof(pl));
	place_direct(&pl, 0x1000, 6);
	place_direct(&pl, 0x103f, 6);
	place_direct(&pl, 0x1040, 6);
	ok(pl.nr_sketch == 2 && pl.sketch[0] < pl.sketch[1] &&
	   (pl.sketch[0] == mix64(0x40) || pl.sketch[1] == mix64(0x40)) &&
	   (pl.sketch[0] == mix64(0x41) || pl.sketch[1] == mix64(0x41)),
	   "placement: the sketch holds each line's hash once, ascending");
	memset(&pl, 0, sizeof(pl));
	for (i = 0; i < 1000; i++) {
		uint64_t line = rnd(&x) % 5000;
		unsigned int j;

		place_direct(&pl, line << 6, 6);
		for (j = 0; j < n && all[j] != mix64(line); j++)
			;
		if (j == n)
			all[n++] = mix64(line);
	}
	qsort(all, n, sizeof(all[0]), cmp_u64);
	for (i = 1; i < pl.nr_sketch; i++)
		sorted &= pl.sketch[i - 1] < pl.sketch[i];
	ok(pl.nr_sketch == SKETCH_K && sorted && !memcmp(pl.sketch, all, sizeof(pl.sketch)),
	   "placement: the sketch is the %d smallest hashes of the %u lines touched",
	   SKETCH_K, n);
}

/* ---- hierarchy.c and run.c ---- */

static void test_phases(void)
{
	if (start("l1d=512:2 l2=4K:4", 1))
		return;
	dacc(0, 0, 8, 0);
	ok(!sim.counting && !sim.cur.c[C_L1D][R_DIRECT].accesses && !sim.nr_phases,
	   "phases: nothing counts outside a phase");
	phase_close();
	ok(!sim.nr_phases, "phases: a stop without a start keeps nothing");
	phase_open();
	dacc(0, 0, 8, 0);
	dacc(0, 64, 8, 0);
	ok(sim.counting && sim.cur.c[C_L1D][R_DIRECT].accesses == 2 &&
	   sim.cur.c[C_L1D][R_DIRECT].sa_miss == 1,
	   "phases: a start opens a phase; the caches ran before it (the warm line hits)");
	marker_store(KCOLOUR_MARKER_ADDR + KCOLOUR_MARKER_TOUCH);
	ok(sim.counting && sim.cur.c[C_L1D][R_DIRECT].accesses == 2,
	   "phases: other offsets of the marker page mean nothing");
	phase_open();
	ok(sim.counting && !sim.cur.c[C_L1D][R_DIRECT].accesses,
	   "phases: a start inside a phase restarts it with zeroed counters");
	dacc(0, 128, 8, 0);
	phase_close();
	ok(!sim.counting && sim.nr_phases == 1 &&
	   sim.phases[0].c[C_L1D][R_DIRECT].accesses == 1,
	   "phases: a stop keeps the phase's counts");
	phase_open();
	phase_close();
	ok(sim.nr_phases == 2 && !sim.phases[1].c[C_L1D][R_DIRECT].accesses &&
	   sim.phases[0].c[C_L1D][R_DIRECT].accesses == 1,
	   "phases: numbered in order, each with its own counts");
}

/*
 * between_phases=skip: the caches stand still between phases, and a phase
 * starts on what the one before left.
 */
static void test_between_phases_skip(void)
{
	struct fetch_run run = { .line_vaddr = 0xffffffff81000040ull, .accesses = 1,
				 .insns = 1, .nr_lines = 1, .region = R_KTEXT };

	if (start("l1d=512:2 l2=4K:4 between_phases=skip", 1))
		return;
	ok(opt.between_phases == BETWEEN_SKIP && !simulating(),
	   "between phases skip: nothing is simulated before the first phase");
	dacc(0, 0, 8, 0);
	fetch(0, &run);
	phase_open();
	ok(simulating(), "between phases skip: a phase is simulated");
	dacc(0, 0, 8, 0);
	dacc(0, 0, 8, 0);
	fetch_run_exec(&caches.cpu[0], &run, &sim.cur);
	ok(sim.cur.c[C_L1D][R_DIRECT].sa_miss == 1 && sim.cur.c[C_L2][R_DIRECT].accesses == 1 &&
	   sim.cur.c[C_L1I][R_KTEXT].sa_miss == 1,
	   "between phases skip: the line touched before the phase was never cached");
	phase_close();
	ok(!simulating(), "between phases skip: nothing is simulated after a phase");
	dacc(0, 64, 8, 0);
	phase_open();
	dacc(0, 0, 8, 0);
	dacc(0, 64, 8, 0);
	ok(sim.cur.c[C_L1D][R_DIRECT].accesses == 2 && sim.cur.c[C_L1D][R_DIRECT].sa_miss == 1,
	   "between phases skip: a phase starts on the caches the last one left (%llu misses)",
	   ULL(sim.cur.c[C_L1D][R_DIRECT].sa_miss));
	ok(!parse("between_phases=simulate") && opt.between_phases == BETWEEN_SIMULATE &&
	   simulating(), "between phases simulate: the caches run outside phases too");
}

static void test_levels(void)
{
	struct phase *ph = &sim.cur;
	struct cs_counts d, l2;
	struct fetch_run run = { 0 };
	unsigned int k;

	/* L1D 4 sets of 2 ways, L2 16 sets of 4 ways. */
	if (start("l1d=512:2 l2=4K:4", 1))
		return;
	phase_open();
	phys_calls = 0;
	acc(0, 0x1000, 8, 0, 0x5000);
	ok(ph->c[C_L1D][R_USER].sa_miss == 1 && ph->c[C_L2][R_USER].accesses == 1 &&
	   ph->c[C_L2][R_USER].sa_miss == 1 && phys_calls == 1,
	   "levels: an L1D miss goes on to L2, at its physical address");
	phys_calls = 0;
	acc(0, 0x1008, 8, 0, 0x5008);
	ok(ph->c[C_L1D][R_USER].accesses == 2 && ph->c[C_L1D][R_USER].sa_miss == 1 &&
	   ph->c[C_L2][R_USER].accesses == 1 && !phys_calls,
	   "levels: an L1D hit stops there, without asking for the physical address");
	acc(0, 0x1000 + 60, 8, 0, 0x5000 + 60);
	ok(ph->c[C_L1D][R_USER].accesses == 4 && ph->c[C_L1D][R_USER].sa_miss == 2 &&
	   ph->c[C_L2][R_USER].accesses == 2 && !ph->l2_unresolved,
	   "levels: an access across a line touches both lines");
	acc(0, 0x1ffc, 8, 0, 0x5ffc);
	ok(ph->c[C_L1D][R_USER].accesses == 6 && ph->c[C_L1D][R_USER].sa_miss == 4 &&
	   ph->c[C_L2][R_USER].accesses == 3 && ph->l2_unresolved == 1,
	   "levels: across a page, the next page's line misses L1D but not known to L2 (l2_unresolved)");

	/* No inclusion: an L1D eviction leaves L2 alone, and the other way round. */
	dacc(0, 0, 8, 0);
	dacc(0, 256, 8, 0);
	dacc(0, 512, 8, 0);	/* L1D set 0 now holds 256, 512 */
	d = ph->c[C_L1D][R_DIRECT];
	l2 = ph->c[C_L2][R_DIRECT];
	dacc(0, 0, 8, 0);
	ok(ph->c[C_L1D][R_DIRECT].sa_miss == d.sa_miss + 1 &&
	   ph->c[C_L2][R_DIRECT].accesses == l2.accesses + 1 &&
	   ph->c[C_L2][R_DIRECT].sa_miss == l2.sa_miss,
	   "levels: a line evicted from L1D still hits in L2 (no inclusion)");
	/* Four instruction lines on L2 set 0 push data line 0 out of L2. */
	caches.have_kimage_host = caches.have_kimage_ram = 1;
	for (k = 1; k <= 4; k++) {
		run.line_vaddr = 0xffffffff81000000ull + k * 4096;
		run.host[0] = 0x100000 + k * 1024;
		run.accesses = run.nr_lines = 1;
		run.insns = 1;
		run.region = R_KTEXT;
		fetch_run_exec(&caches.cpu[0], &run, ph);
	}
	l2 = ph->c[C_L2][R_DIRECT];
	d = ph->c[C_L1D][R_DIRECT];
	dacc(0, 0, 8, 0);
	ok(ph->c[C_L2][R_KTEXT].sa_miss == 4 && ph->c[C_L1D][R_DIRECT].sa_miss == d.sa_miss &&
	   ph->c[C_L2][R_DIRECT].accesses == l2.accesses,
	   "levels: a line evicted from L2 still hits in L1D (no back-invalidation)");
	dacc(0, 256, 8, 0);
	dacc(0, 512, 8, 0);
	dacc(0, 0, 8, 0);
	ok(ph->c[C_L2][R_DIRECT].sa_miss == l2.sa_miss + 1,
	   "levels: ... and misses L2 when L1D lets it go");
}

static void test_fetch(void)
{
	struct phase *ph = &sim.cur;
	struct fetch_run run = { 0 };

	if (start("l1i=1K:2 l2=4K:4", 1))
		return;
	phase_open();
	run.line_vaddr = 0xffffffff81000040ull;
	run.host[0] = 0x7f0000001040ull;
	run.accesses = 5;
	run.insns = 4;
	run.nr_lines = 1;
	run.region = R_KTEXT;
	fetch_run_exec(&caches.cpu[0], &run, ph);
	ok(ph->insns[R_KTEXT] == 4 && ph->c[C_L1I][R_KTEXT].accesses == 5 &&
	   ph->c[C_L1I][R_KTEXT].sa_miss == 1,
	   "fetch: a run counts its instructions, one line fetch each (the later ones MRU hits)");
	ok(!ph->c[C_L2][R_KTEXT].accesses && ph->l2_unresolved == 1,
	   "fetch: before the host-to-RAM offset is known, a miss cannot reach L2");
	caches.have_kimage_host = caches.have_kimage_ram = 1;
	caches.kimage_host = 0x7f0000000000ull;
	caches.kimage_ram = 0x1000000;
	run.line_vaddr += 64;
	run.host[0] += 64;
	run.host[1] = run.host[0] + 64;
	run.nr_lines = 2;
	fetch_run_exec(&caches.cpu[0], &run, ph);
	ok(ph->c[C_L1I][R_KTEXT].sa_miss == 3 && ph->c[C_L2][R_KTEXT].accesses == 2 &&
	   ph->l2_unresolved == 1 && ph->insns[R_KTEXT] == 8 &&
	   ph->c[C_L1I][R_KTEXT].accesses == 10,
	   "fetch: a run over two lines; once calibrated its misses reach L2");
	fetch_run_exec(&caches.cpu[0], &run, NULL);
	ok(ph->insns[R_KTEXT] == 8 && ph->c[C_L1I][R_KTEXT].accesses == 10,
	   "fetch: outside a phase nothing counts");
}

/*
 * Write-invalidate: a store by vCPU 1 removes its line from vCPU 0's L1D
 * (kernel addresses only), L2 and their extras.
 */
static void test_smp(void)
{
	struct phase *ph = &sim.cur;
	struct cs_counts l1, x1;

	if (start("l1d=512:2 l2=4K:4 l1d_extra=1K:2", 2))
		return;
	phase_open();
	dacc(0, 0x40, 8, 0);
	dacc(1, 0x40, 8, 1);
	ok(ph->c[C_L1D][R_DIRECT].inval == 1 && ph->c[C_L2][R_DIRECT].inval == 1 &&
	   ph->x[X_L1D][0][R_DIRECT].inval == 1,
	   "smp: a kernel store invalidates the other vCPU's L1D, L2 and extra (%llu %llu %llu)",
	   ULL(ph->c[C_L1D][R_DIRECT].inval), ULL(ph->c[C_L2][R_DIRECT].inval),
	   ULL(ph->x[X_L1D][0][R_DIRECT].inval));
	l1 = ph->c[C_L1D][R_DIRECT];
	x1 = ph->x[X_L1D][0][R_DIRECT];
	dacc(0, 0x40, 8, 0);
	ok(ph->c[C_L1D][R_DIRECT].sa_miss == l1.sa_miss + 1 &&
	   ph->x[X_L1D][0][R_DIRECT].sa_miss == x1.sa_miss + 1,
	   "smp: the invalidated line misses again, the extra's MRU line too");
	dacc(1, 0x40, 8, 1);
	dacc(1, 0x40, 8, 1);
	ok(ph->c[C_L1D][R_DIRECT].inval == 2 && ph->c[C_L2][R_DIRECT].inval == 2,
	   "smp: inval counts only lines a store actually removed (%llu)",
	   ULL(ph->c[C_L1D][R_DIRECT].inval));
	acc(0, 0x2000, 8, 0, 0x9000);
	acc(1, 0x2000, 8, 1, 0x9000);
	l1 = ph->c[C_L1D][R_USER];
	acc(0, 0x2000, 8, 0, 0x9000);
	ok(!ph->c[C_L1D][R_USER].inval && ph->c[C_L2][R_USER].inval == 1 &&
	   ph->c[C_L1D][R_USER].sa_miss == l1.sa_miss,
	   "smp: a user store invalidates the other L2s only (L1Ds are virtual)");
	dacc(0, 0x1000 - 4, 8, 0);
	dacc(0, 0x1000 + 4, 8, 0);
	l1 = ph->c[C_L2][R_DIRECT];
	dacc(1, 0x1000 - 4, 8, 1);
	ok(ph->c[C_L1D][R_DIRECT].inval == 4 && ph->c[C_L2][R_DIRECT].inval == l1.inval + 1,
	   "smp: across a page, both L1D lines go, the L2 line only on the first page");
	dacc(0, 0x40, 8, 0);
	l1 = ph->c[C_L1D][R_DIRECT];
	dacc(0, 0x40, 8, 1);	/* both vCPUs hold it */
	dacc(0, 0x40, 8, 0);
	ok(ph->c[C_L1D][R_DIRECT].inval == l1.inval + 1 &&
	   ph->c[C_L1D][R_DIRECT].sa_miss == l1.sa_miss,
	   "smp: a store invalidates the other vCPU's copy, not its own");
	phase_close();
}

/* A pseudo-random stream of data accesses and fetch runs on vCPU 0. */
static void stream(unsigned int n, uint64_t seed)
{
	struct fetch_run run = { 0 };
	uint64_t x = seed;
	unsigned int i;

	caches.have_kimage_host = caches.have_kimage_ram = 1;
	for (i = 0; i < n; i++) {
		uint64_t r = rnd(&x);

		if (r % 4 == 0) {
			run.line_vaddr = 0xffffffff81000000ull + (rnd(&x) % 4096) * 64;
			run.host[0] = run.line_vaddr - 0xffffffff81000000ull + 0x10000000;
			run.nr_lines = 1 + (r >> 8) % 2;
			run.host[1] = run.host[0] + 64;
			run.insns = 1 + (r >> 4) % 5;
			run.accesses = run.insns + run.nr_lines - 1;
			run.region = R_KTEXT;
			fetch_run_exec(&caches.cpu[0], &run, counting_phase());
		} else if (r % 4 == 1) {
			acc(0, 0x400000 + rnd(&x) % 65536, 1 + (r >> 4) % 16, 0,
			    0x2000000 + rnd(&x) % 65536);
		} else {
			dacc(0, rnd(&x) % (64 << 10), 1u << ((r >> 4) % 4), (r >> 8) % 2);
		}
	}
}

static void test_equal_extras(void)
{
	struct phase *ph;
	int same = 1, r;

	if (start("l1d=1K:2 l2=8K:4 l1d_extra=1K:2 l2_extra=8K:4 "
		  "cpus=1K:2-32K:8-8K:4", 1))
		return;
	stream(2000, 1);
	phase_open();
	stream(20000, 2);
	phase_close();
	ph = &sim.phases[0];
	for (r = 0; r < NR_REGIONS; r++)
		same &= same_counts(&ph->c[C_L1D][r], &ph->x[X_L1D][0][r]) &&
			same_counts(&ph->c[C_L2][r], &ph->x[X_L2][0][r]);
	ok(same && ph->c[C_L2][R_DIRECT].sa_miss,
	   "extras: an extra equal to the primary counts exactly what the primary counts");
	same = opt.hier[0].l1[C_L1D] == HL1_PRIMARY && opt.hier[0].l1[C_L1I] == HL1_PRIMARY;
	for (r = 0; r < NR_REGIONS; r++)
		same &= ph->hl2[0][r].accesses == ph->c[C_L2][r].accesses &&
			ph->hl2[0][r].sa_miss == ph->c[C_L2][r].sa_miss &&
			ph->hl2[0][r].fa_miss == ph->c[C_L2][r].fa_miss && !ph->hl2[0][r].plru_miss;
	ok(same, "cpus: the primary's own hierarchy's L2 counts what the primary L2 counts (no PLRU copy)");
}

/*
 * l2_extra=...@balanced and @random: 8 frames of one page colour, each
 * line read 10 times round, in the direct map and then 8 in the kernel
 * image (physical = virtual - __START_KERNEL_map).  A 64K 4-way L2 has 4 colours; the 8 lines share one set of 4
 * ways, where LRU misses every time, and the fully-associative copy only
 * the first round.
 */
static void test_recolour(void)
{
	static const char *const name[] = { "balanced", "random", "frames' own", "balanced-all" };
	const uint64_t text = 0xffffffff81000000ull;
	const struct cs_counts *k[2][4];
	struct phase *ph;
	int e, r, n, i;

	if (start("l1d=1K:1 l2=64K:4 "
		  "l2_extra=64K:4@balanced/64K:4@random/64K:4/64K:4@balanced-all", 1))
		return;
	/* The decompressor's first touch of the image, through an identity map. */
	for (i = 0; i < 8; i++)
		acc(0, text - KIMAGE_START + ((uint64_t)(4 * i) << 12), 8, 1,
		    text - KIMAGE_START + ((uint64_t)(4 * i) << 12));
	phase_open();
	for (n = 0; n < 10; n++)
		for (i = 0; i < 8; i++)
			dacc(0, (uint64_t)(4 * i) << 12, 8, 0);
	for (n = 0; n < 10; n++)
		for (i = 0; i < 8; i++)
			acc(0, text + ((uint64_t)(4 * i) << 12), 8, 0,
			    text - KIMAGE_START + ((uint64_t)(4 * i) << 12));
	phase_close();
	ph = &sim.phases[0];
	for (r = 0; r < 2; r++)
		for (e = 0; e < 4; e++)
			k[r][e] = &ph->x[X_L2][e][r ? R_KTEXT : R_DIRECT];
	ok(ph->c[C_L2][R_DIRECT].sa_miss == 80 && ph->c[C_L2][R_DIRECT].fa_miss == 8 &&
	   k[0][2]->sa_miss == 80,
	   "recolour: 8 lines of one colour miss every time in its 4 ways (%llu, %llu)",
	   ULL(ph->c[C_L2][R_DIRECT].sa_miss), ULL(k[0][2]->sa_miss));
	ok(k[0][0]->sa_miss == 8 && k[0][0]->accesses == 80,
	   "recolour: balanced deals the 8 frames 2 to a colour: only the first round misses (%llu)",
	   ULL(k[0][0]->sa_miss));
	ok(k[1][0]->sa_miss == 80 && k[1][1]->sa_miss == 80,
	   "recolour: the kernel image's frames keep their colour, first touched through an "
	   "identity map or not (%llu, %llu)",
	   ULL(k[1][0]->sa_miss), ULL(k[1][1]->sa_miss));
	ok(k[0][3]->sa_miss == 8 && k[1][3]->sa_miss == 0,
	   "recolour: balanced-all deals the kernel image's frames too: 4 lines a colour, "
	   "the image's stay from their first touch (%llu, %llu)",
	   ULL(k[0][3]->sa_miss), ULL(k[1][3]->sa_miss));
	for (e = 0, i = 1; e < 4; e++)
		for (r = 0; r < 2; r++)
			i &= k[r][e]->fa_miss == ph->c[C_L2][r ? R_KTEXT : R_DIRECT].fa_miss &&
			     k[r][e]->accesses == 80;
	ok(i && ph->c[C_L2][R_DIRECT].fa_miss == 8 && !ph->c[C_L2][R_KTEXT].fa_miss,
	   "recolour: a new frame for each frame: every fully-associative copy misses "
	   "what the primary's does (%s, %s, %s, %s)", name[0], name[1], name[2], name[3]);
	ok(k[0][1]->sa_miss >= 8 && k[0][1]->sa_miss <= 80,
	   "recolour: random colours land between the two (%llu)", ULL(k[0][1]->sa_miss));
}

static void test_shared_l1(void)
{
	struct phase *ph;
	struct cs_counts a, b, x, h;
	int r, same = 1;

	if (start("l1d=1K:2 l2=8K:4 l1d_extra=2K:4 "
		  "cpus=2K:4-32K:8-4K:4/2K:4-32K:8-4K:4/1K:2-32K:8-4K:4", 1))
		return;
	phase_open();
	stream(20000, 3);
	phase_close();
	ph = &sim.phases[0];
	ok(opt.nr_hl1[C_L1D] == 1 && !opt.nr_hl1[C_L1I],
	   "cpus: two hierarchies share one L1D, the third uses the primary's");
	for (r = 0; r < NR_REGIONS; r++)
		same &= same_counts(&ph->hl2[0][r], &ph->hl2[1][r]);
	x = sum_regions(ph->x[X_L1D][0]);
	h = sum_regions(ph->hl1[C_L1D][0]);
	ok(same && x.accesses == h.accesses && x.sa_miss == h.sa_miss && h.sa_miss &&
	   !h.fa_miss && !h.plru_miss,
	   "cpus: equal hierarchies count alike; a shared L1D misses as an extra of its geometry (LRU only)");
	a = sum_regions(ph->hl2[0]);
	b = sum_regions(ph->hl2[2]);
	ok(a.accesses < b.accesses && b.accesses == sum_regions(ph->c[C_L2]).accesses &&
	   a.accesses && a.fa_miss,
	   "cpus: a larger L1D sends its L2 fewer accesses (%llu < %llu)",
	   ULL(a.accesses), ULL(b.accesses));
}

static void test_min_bound(void)
{
	struct phase *ph;
	struct cs_counts k;
	int c, good = 1;

	if (start("l1d=1K:2 l2=8K:4 min_window=500", 1))
		return;
	phase_open();
	stream(20000, 4);
	phase_close();
	ph = &sim.phases[0];
	for (c = 0; c < NR_CACHES; c++) {
		k = sum_regions(ph->c[c]);
		good &= ph->min_bound[c] <= k.sa_miss && ph->min_bound[c] <= k.fa_miss &&
			ph->min_bound[c] <= k.plru_miss && k.min_miss;
	}
	ok(good && ph->min_bound[C_L1D],
	   "MIN: each primary's min_bound is at most its LRU, FA and PLRU misses (L1D: %llu)",
	   ULL(ph->min_bound[C_L1D]));
}

/* ---- conflicts.c ---- */

static void test_conflicts(void)
{
	const struct cs_geom g = { 128, 1, 64 };	/* direct-mapped, 2 sets */
	struct evict_slot *evict = calloc(1u << EVICT_BITS, sizeof(*evict));
	struct evict_slot *other = calloc(1u << EVICT_BITS, sizeof(*evict));
	struct cs_cache *c;
	struct conflict_table t = { 0 };
	const uint64_t A = DIRECT(0x1000) >> 6, B = DIRECT(0x1080) >> 6;
	uint64_t seq[] = { A, B, A, B, A };
	unsigned int i, res;
	char err[128];
	FILE *f;
	const char *s;

	parse("");
	c = cs_cache_new(&g, err, sizeof(err));
	if (!c || !evict || !other) {
		ok(0, "conflicts: setup (%s)", err);
		return;
	}
	for (i = 0; i < 5; i++) {
		res = cs_access(c, seq[i] << 6, NULL);
		note_conflict(evict, c, C_L1D, &t, res, seq[i], R_DIRECT);
	}
	ok(t.all == 3 && t.watched == 3 && !t.unknown && t.used == 2,
	   "conflicts: A B A B A in one direct-mapped set: 3 conflict misses, 2 pairs (%llu %llu %zu)",
	   ULL(t.all), ULL(t.watched), t.used);
	f = mem_open();
	print_conflicts(f, C_L1D, 6, 4, &t);
	s = mem_text(f);
	ok(!strncmp(s, "conflicts phase=4 all=3 direct=3 unknown=0 pairs=2\n", 51) &&
	   strstr(s, "\nconflict phase=4 victim=0x1000 evictor=0x1080 n=2\n") &&
	   strstr(s, "\nconflict phase=4 victim=0x1080 evictor=0x1000 n=1\n") &&
	   count_lines(s) == 3,
	   "conflicts: the file's lines, physical addresses in the direct map");
	if (count_lines(s) != 3)
		printf("# %s", s);

	/* Another region: counted in all, no pair; an unknown evictor. */
	note_conflict(evict, c, C_L1D, &t, CS_SA_MISS, 0x100 >> 6, R_USER);
	note_conflict(other, c, C_L1D, &t, CS_SA_MISS, B, R_DIRECT);
	ok(t.all == 5 && t.watched == 4 && t.unknown == 1 && t.used == 3,
	   "conflicts: outside the watched region no pair; a lost evictor is unknown (%llu %llu %llu)",
	   ULL(t.all), ULL(t.watched), ULL(t.unknown));
	f = mem_open();
	print_conflicts(f, C_L1D, 6, 0, &t);
	s = mem_text(f);
	ok(strstr(s, "conflict phase=0 victim=0x1080 evictor=? n=1\n") != NULL,
	   "conflicts: an unknown evictor prints as ?");
	note_conflict(evict, c, C_L1D, NULL, CS_SA_MISS, A, R_DIRECT);
	ok(t.all == 5 && t.watched == 4, "conflicts: outside a phase nothing counts");
	cs_cache_free(c);
	free(t.slot);
	free(evict);
	free(other);
}

/* Many lines through a small cache: the pairs add up to the counts. */
static void test_conflicts_add_up(void)
{
	const struct cs_geom g = { 2048, 2, 64 };	/* 16 sets */
	struct evict_slot *evict = calloc(1u << EVICT_BITS, sizeof(*evict));
	struct conflict_table t = { 0 };
	uint64_t x = 7, sum = 0, unknown = 0, conflicts = 0, watched = 0;
	struct cs_cache *c;
	char err[128];
	unsigned int i;
	size_t used = 0;

	parse("");
	c = cs_cache_new(&g, err, sizeof(err));
	if (!c || !evict) {
		ok(0, "conflicts: setup (%s)", err);
		return;
	}
	for (i = 0; i < 200000; i++) {
		uint64_t line = (DIRECT(0) >> 6) + rnd(&x) % 96;
		enum region r = rnd(&x) % 5 ? R_DIRECT : R_KDATA;
		unsigned int res;

		if (r == R_KDATA)
			line = (0xffffffff82000000ull >> 6) + line % 64;
		res = cs_access(c, line << 6, NULL);
		if ((res & CS_SA_MISS) && !(res & CS_FA_MISS)) {
			conflicts++;
			watched += r == R_DIRECT;
		}
		note_conflict(evict, c, C_L1D, &t, res, line, r);
	}
	for (i = 0; i < t.size; i++) {
		if (!t.slot[i].victim)
			continue;
		used++;
		sum += t.slot[i].n;
		if (t.slot[i].evictor == CS_NO_LINE)
			unknown += t.slot[i].n;
	}
	ok(t.all == conflicts && t.watched == watched && conflicts > watched,
	   "conflicts: every SA-miss FA-hit counts, in all and (direct map) in direct (%llu, %llu)",
	   ULL(t.all), ULL(t.watched));
	ok(sum == t.watched && unknown == t.unknown && used == t.used && t.size > 1024,
	   "conflicts: the pairs add up to direct, the unknown ones to unknown, after the table grew (%zu pairs)",
	   t.used);
	cs_cache_free(c);
	free(t.slot);
	free(evict);
}

static void test_text_conflicts(void)
{
	struct conflict_table t = { 0 };
	struct evict_slot *evict = calloc(1u << EVICT_BITS, sizeof(*evict));
	const struct cs_geom g = { 128, 1, 64 };	/* direct-mapped, 2 sets */
	const uint64_t A = 0xffffffff81000040ull >> 6, U = 0x400040 >> 6;
	struct cs_cache *c;
	char err[128];
	FILE *f;
	const char *s;

	parse("text=ffffffff81000000-ffffffff81600000");
	c = cs_cache_new(&g, err, sizeof(err));
	if (!c || !evict) {
		ok(0, "text conflicts: setup");
		return;
	}
	note_conflict(evict, c, C_L1I, &t, cs_access(c, A << 6, NULL), A, R_KTEXT);
	note_conflict(evict, c, C_L1I, &t, cs_access(c, U << 6, NULL), U, R_USER);
	note_conflict(evict, c, C_L1I, &t, cs_access(c, A << 6, NULL), A, R_KTEXT);
	f = mem_open();
	print_conflicts(f, C_L1I, 6, 1, &t);
	s = mem_text(f);
	ok(!strcmp(s, "text-conflicts phase=1 all=1 ktext=1 unknown=0 pairs=1\n"
		   "text-conflict phase=1 victim=0xffffffff81000040 evictor=user n=1\n"),
	   "text conflicts: virtual addresses, an evictor outside the text by its region");
	if (strncmp(s, "text-conflicts phase=1 all=1", 28))
		printf("# %s", s);
	cs_cache_free(c);
	free(t.slot);
	free(evict);
}

/*
 * l2_conflicts=: physical lines, every region watched, the evictor an
 * address whatever region its access came from.
 */
static void test_l2_conflicts(void)
{
	struct conflict_table t = { 0 };
	struct evict_slot *evict = calloc(1u << EVICT_BITS, sizeof(*evict));
	const struct cs_geom g = { 128, 1, 64 };	/* direct-mapped, 2 sets */
	const uint64_t P = 0x12340040ull >> 6, Q = 0x5670040ull >> 6;
	const enum region from[] = { R_USER, R_KTEXT, R_USER, R_DIRECT };
	const uint64_t seq[] = { P, Q, P, Q };
	struct cs_cache *c;
	unsigned int i;
	char err[128];
	FILE *f;
	const char *s;

	parse("");
	c = cs_cache_new(&g, err, sizeof(err));
	if (!c || !evict) {
		ok(0, "l2 conflicts: setup");
		return;
	}
	for (i = 0; i < 4; i++)
		note_conflict(evict, c, C_L2, &t, cs_access(c, seq[i] << 6, NULL), seq[i], from[i]);
	f = mem_open();
	print_conflicts(f, C_L2, 6, 2, &t);
	s = mem_text(f);
	ok(t.all == 2 && t.watched == 2 && t.used == 2 &&
	   !strncmp(s, "l2-conflicts phase=2 all=2 watched=2 unknown=0 pairs=2\n", 55) &&
	   strstr(s, "\nl2-conflict phase=2 victim=0x12340040 evictor=0x5670040 n=1 "
		  "victim_region=user evictor_region=ktext\n") &&
	   strstr(s, "\nl2-conflict phase=2 victim=0x5670040 evictor=0x12340040 n=1 "
		  "victim_region=direct evictor_region=user\n"),
	   "l2 conflicts: user and kernel lines alike, physical addresses on both sides, "
	   "the regions of the accesses on both sides");
	if (t.used != 2 || count_lines(s) != 3)
		printf("# %s", s);
	cs_cache_free(c);
	free(t.slot);
	free(evict);
}

/* ---- profile.c ---- */

static void test_profile(void)
{
	struct tb_prof a = { .pc = 0x20 }, b = { .pc = 0x10 }, c = { .pc = 0x20 };
	struct prof_phase p = { 0 };
	FILE *f;
	const char *s;

	prof_discard();
	prof_flush(&p);
	ok(!p.rec && !p.nr && !p.entry && !p.nr_entries, "profile: nothing touched, no records");
	prof_add(&a, 5, 1);
	prof_add(&b, 3, 1);
	prof_add(&a, 2, 0);
	prof_add(&c, 7, 0);
	prof_flush(&p);
	ok(p.nr == 3 && !p.nr_entries && !a.touched && !a.insns && !b.insns && !c.execs,
	   "profile: one record a touched TB; the flush zeroes the TBs (%zu)", p.nr);
	f = mem_open();
	print_profile(f, 2, &p);
	s = mem_text(f);
	ok(!strcmp(s, "profile phase=2 pc=0x0000000000000010 insns=3 execs=1\n"
		   "profile phase=2 pc=0x0000000000000020 insns=14 execs=1\n"),
	   "profile: by pc, translations of one pc summed");
	if (strncmp(s, "profile phase=2 pc=0x0000000000000010", 37))
		printf("# %s", s);
	prof_phase_free(&p);
	prof_add(&a, 1, 1);
	prof_discard();
	prof_flush(&p);
	ok(!p.nr && !a.insns && !a.touched, "profile: a discarded phase keeps nothing");
}

/*
 * Entries: a caller's TB, then its callee's, as a vCPU runs them
 * (prof_exec(), as fetch_exec_prof() calls it); only kernel text.
 */
static void test_profile_entries(void)
{
	struct tb_prof caller = { .pc = 0x100, .text = 1 }, callee = { .pc = 0x200, .text = 1 };
	struct tb_prof again = { .pc = 0x200, .text = 1 }, other = { .pc = 0x300, .text = 1 };
	struct tb_prof user = { .pc = 0x40 }, *last = NULL;
	struct prof_phase p = { 0 };
	FILE *f;
	const char *s;
	int i;

	prof_discard();
	prof_exec(&callee, &last, 4, 1, 0);		/* before the phase */
	prof_exec(&caller, &last, 3, 1, 1);		/* entered from callee: kept */
	for (i = 0; i < 5; i++) {
		prof_exec(&callee, &last, 2, 1, 1);
		prof_exec(&callee, &last, 1, 0, 1);	/* a run inside the TB */
		prof_exec(&caller, &last, 3, 1, 1);
	}
	prof_exec(&other, &last, 1, 1, 1);
	prof_exec(&again, &last, 2, 1, 1);		/* 0x200 retranslated */
	prof_exec(&user, &last, 9, 1, 1);		/* user space: no entry */
	prof_exec(&callee, &last, 2, 1, 1);
	prof_flush(&p);
	f = mem_open();
	print_profile(f, 0, &p);
	s = mem_text(f);
	ok(!strcmp(s, "profile phase=0 pc=0x0000000000000040 insns=9 execs=1\n"
		   "profile phase=0 pc=0x0000000000000100 insns=18 execs=6\n"
		   "profile phase=0 pc=0x0000000000000200 insns=19 execs=7\n"
		   "profile phase=0 pc=0x0000000000000300 insns=1 execs=1\n"
		   "entry phase=0 from=0x0000000000000200 to=0x0000000000000100 count=6\n"
		   "entry phase=0 from=0x0000000000000100 to=0x0000000000000200 count=5\n"
		   "entry phase=0 from=0x0000000000000300 to=0x0000000000000200 count=1\n"
		   "entry phase=0 from=0x0000000000000100 to=0x0000000000000300 count=1\n"),
	   "profile entries: counted at a TB's start from the vCPU's TB before, in the phase, "
	   "kernel text to kernel text only; by target, translations summed");
	if (strncmp(s, "profile phase=0 pc=0x0000000000000040", 37))
		printf("# %s", s);
	ok(!caller.touched && !caller.entries->count && !callee.entries->count,
	   "profile entries: the flush zeroes them and keeps the nodes");
	prof_phase_free(&p);
	prof_exec(&caller, &last, 1, 1, 1);
	prof_discard();
	prof_flush(&p);
	ok(!p.nr_entries && !caller.entries->count, "profile entries: a discarded phase keeps none");
	prof_phase_free(&p);
}

/* ---- output.c ---- */

static void test_print_cache(void)
{
	struct cs_counts k[NR_REGIONS] = { 0 };
	uint64_t bound = 17;
	FILE *f;
	const char *s;

	k[R_USER] = (struct cs_counts){ 10, 5, 4, 6, 3, 1 };
	k[R_OTHER] = (struct cs_counts){ 20, 2, 2, 2, 1, 0 };
	f = mem_open();
	print_cache(f, 3, "L1D", k, &bound);
	s = mem_text(f);
	ok(count_lines(s) == NR_REGIONS + 1 &&
	   starts(s, "cachesim phase=3 cache=L1D region=user accesses=10 sa_miss=5 fa_miss=4 plru_miss=6 min_miss=3 inval=1\n"
		  "cachesim phase=3 cache=L1D region=stack-top accesses=0 ") &&
	   strstr(s, "\ncachesim phase=3 cache=L1D region=other accesses=20 sa_miss=2 fa_miss=2 plru_miss=2 min_miss=1 inval=0\n"
		  "cachesim phase=3 cache=L1D region=all accesses=30 sa_miss=7 fa_miss=6 plru_miss=8 min_miss=4 inval=1 min_bound=17\n"),
	   "output: a primary's lines, every region then all, min_bound on all only");
	f = mem_open();
	print_cache(f, 0, "L2-256K-4w", k, NULL);
	s = mem_text(f);
	ok(starts(s, "cachesim phase=0 cache=L2-256K-4w region=user accesses=10 sa_miss=5 fa_miss=4 plru_miss=6 inval=1\n") &&
	   strstr(s, "region=all accesses=30 sa_miss=7 fa_miss=6 plru_miss=8 inval=1\n") &&
	   !strstr(s, "min_"),
	   "output: an extra's lines have no min_miss or min_bound");
}

static void test_print_placement(void)
{
	static struct placement pl;
	FILE *f;
	const char *s;

	memset(&pl, 0, sizeof(pl));
	f = mem_open();
	print_placement(f, 5, &pl);
	s = mem_text(f);
	ok(!strcmp(s, "cachesim phase=5 stacks=0 stack_l2_sets=- direct_sketch=-\n"),
	   "output: an empty placement line ('-' for empty lists)");
	pl.nr_stacks = 3;
	pl.stack_set[0] = 301;
	pl.stack_set[1] = 77;
	pl.stack_set[2] = 0;
	pl.nr_sketch = 2;
	pl.sketch[0] = 0xa1;
	pl.sketch[1] = 0xfedcba9876543210ull;
	f = mem_open();
	print_placement(f, 0, &pl);
	s = mem_text(f);
	ok(!strcmp(s, "cachesim phase=0 stacks=3 stack_l2_sets=301,77,0 "
		   "direct_sketch=00000000000000a1,fedcba9876543210\n"),
	   "output: the placement line, hashes as 16 hex digits");
}

static void test_print_config_phase(void)
{
	FILE *f;
	const char *s;
	int n;

	if (start("l1d=48K:12 l2=1280K:20 "
		  "text=ffffffff81000000-ffffffff81600000 data=ffffffff81600000-ffffffff81c16000 "
		  "l1d_extra=32K:8/64K:2:128 l2_extra=256K:4 cpus=32K:8-32K:8-1M:16/48K:12-64K:4-2M:16 "
		  "min_window=1M", 1))
		return;
	snprintf(sim.target, sizeof(sim.target), "x86_64");
	sim.api_min = 0;
	sim.api_cur = 1;
	sim.vcpus = 1;
	f = mem_open();
	print_config(f);
	s = mem_text(f);
	ok(!strcmp(s, "cachesim config target=x86_64 api=0..1 vcpus=1 L1D=49152:12:64 "
		   "L1I=32768:8:64 L2=1310720:20:64 L1D_extra=32768:8:64+65536:2:128 "
		   "L2_extra=262144:4:64 cpus=32768:8:64-32768:8:64-1048576:16:64+"
		   "49152:12:64-65536:4:64-2097152:16:64 stack_top=2048 "
		   "text=0xffffffff81000000-0xffffffff81600000 "
		   "data=0xffffffff81600000-0xffffffff81c16000 phases=0 ram_calibrated=0 "
		   "min_window=1048576 plru=bit/tree/bit between_phases=simulate\n"),
	   "output: the config line, extras and hierarchies included");
	if (strncmp(s, "cachesim config target=x86_64", 29))
		printf("# %s", s);
	sim.cur.insns[R_USER] = 5;
	sim.cur.insns[R_KTEXT] = 7;
	sim.cur.insns[R_OTHER] = 1;
	sim.cur.insns[R_STACK_TOP] = 2;
	sim.cur.l2_unresolved = 4;
	f = mem_open();
	print_phase(f, 1, &sim.cur, 0);
	s = mem_text(f);
	n = count_lines(s);
	ok(starts(s, "cachesim phase=1 complete=0 insns=15 insns_user=5 insns_ktext=7 "
		  "insns_other=3 l2_unresolved=4\ncachesim phase=1 cache=L1D region=user "),
	   "output: a phase's head line, insns_other the rest");
	ok(n == 1 + 3 * 8 + 1 + 3 * 8 + 2 * 3 * 8 &&
	   strstr(s, "\ncachesim phase=1 stacks=0 ") && strstr(s, " cache=L1D-64K-2w-128B region=all ") &&
	   strstr(s, " cache=cpu1-L1D region=user ") && strstr(s, " cache=cpu2-L2 region=all "),
	   "output: a phase's lines: head, primaries, placement, extras, hierarchies (%d)", n);
}

/*
 * The whole exit path: a closed and an open phase in the report, the
 * profile and the conflicts file; the profile adds up to the phases' insns.
 */
static void test_write_results(void)
{
	char dir[] = "/tmp/test-plugin-XXXXXX", args[512], path[600], line[512];
	uint64_t insns[2] = { 0, 0 }, prof[2] = { 0, 0 };
	struct tb_prof tb[8];
	struct fetch_run run = { 0 };
	uint64_t x = 11;
	unsigned int i, ph_n = 0;
	int heads = 0, complete0 = 0, conf_heads = 0;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "write_results: mkdtemp");
		return;
	}
	snprintf(args, sizeof(args), "l1d=1K:2 l2=8K:4 "
		 "out=%s/out profile=%s/prof conflicts=%s/conf text_conflicts=%s/tconf",
		 dir, dir, dir, dir);
	if (start(args, 1))
		return;
	if (open_outputs()) {
		ok(0, "write_results: open_outputs");
		return;
	}
	memset(tb, 0, sizeof(tb));
	snprintf(sim.target, sizeof(sim.target), "x86_64");
	for (i = 0; i < 3000; i++) {
		struct tb_prof *t = &tb[rnd(&x) % 8];

		if (i == 100 || i == 2000)
			phase_open();
		if (i == 1500)
			phase_close();
		t->pc = 0xffffffff81000000ull + (t - tb) * 64;
		run.line_vaddr = t->pc;
		run.nr_lines = 1;
		run.insns = 1 + rnd(&x) % 5;
		run.accesses = run.insns;
		run.region = R_KTEXT;
		run.tb_start = 1;
		/* As fetch_exec_prof() does. */
		fetch_run_exec(&caches.cpu[0], &run, counting_phase());
		prof_exec(t, &caches.cpu[0].last_tb, run.insns, run.tb_start, !!counting_phase());
		dacc(0, rnd(&x) % 8192, 8, 0);
	}
	write_results();
	snprintf(path, sizeof(path), "%s/out", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long ph, c, n;

		if (sscanf(line, "cachesim phase=%llu complete=%llu insns=%llu", &ph, &c, &n) == 3 &&
		    ph < 2) {
			heads++;
			complete0 += !c && ph == 1;
			insns[ph] = n;
		}
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/prof", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long ph, pc, n, e;

		if (sscanf(line, "profile phase=%llu pc=%llx insns=%llu execs=%llu", &ph, &pc, &n,
			   &e) == 4 && ph < 2) {
			prof[ph] += n;
			ph_n++;
		}
	}
	if (f)
		fclose(f);
	ok(heads == 2 && complete0 == 1 && insns[0] && insns[1],
	   "write_results: the report has the closed phase and the open one (complete=0)");
	ok(prof[0] == insns[0] && prof[1] == insns[1] && ph_n >= 2 && ph_n <= 16,
	   "write_results: each phase's profile adds up to its insns (%llu/%llu, %llu/%llu)",
	   ULL(prof[0]), ULL(insns[0]), ULL(prof[1]), ULL(insns[1]));
	snprintf(path, sizeof(path), "%s/conf", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		conf_heads += !strncmp(line, "conflicts phase=", 16);
	if (f)
		fclose(f);
	ok(conf_heads == 2, "write_results: the conflicts file has a head per phase (%d)", conf_heads);
	for (i = 0; i < 4; i++) {
		static const char *const name[] = { "out", "prof", "conf", "tconf" };

		snprintf(path, sizeof(path), "%s/%s", dir, name[i]);
		unlink(path);
	}
	rmdir(dir);
	sim.out = NULL;
	sim.prof_out = NULL;
	sim.conflicts_out[C_L1D] = sim.conflicts_out[C_L1I] = NULL;
}

static void test_no_out(void)
{
	if (start("", 1) || open_outputs()) {
		ok(0, "write_results: without out=");
		return;
	}
	snprintf(sim.target, sizeof(sim.target), "x86_64");
	phase_open();
	dacc(0, 0, 8, 0);
	phase_close();
	write_results();
	ok(sim.outs_buf && !strncmp(sim.outs_buf, "cachesim config target=x86_64 ", 30) &&
	   strstr(sim.outs_buf, "\ncachesim phase=0 complete=1 ") &&
	   strlen(sim.outs_buf) == sim.outs_len,
	   "write_results: without out= the report is left in memory for QEMU's log");
	free(sim.outs_buf);
	sim.outs_buf = NULL;
}

int main(void)
{
	defaults = opt;
	test_options_defaults();
	test_options_values();
	test_options_rejected();
	test_options_extras();
	test_options_hiers();
	test_regions();
	test_place_stack();
	test_place_direct();
	test_phases();
	test_between_phases_skip();
	test_levels();
	test_fetch();
	test_smp();
	test_equal_extras();
	test_recolour();
	test_shared_l1();
	test_min_bound();
	test_conflicts();
	test_conflicts_add_up();
	test_text_conflicts();
	test_l2_conflicts();
	test_profile();
	test_profile_entries();
	test_print_cache();
	test_print_placement();
	test_print_config_phase();
	test_write_results();
	test_no_out();
	reset();
	return tap_end();
}
