// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-probe: decode this CPU's (or a dump's) cache geometry with the
 * probe's own decoder (lib/kcolour_decode.c), and say how kernel stack
 * colouring should be tuned for it with the very derivation the kernel
 * carries (lib/kcolour_geom.c).  kcolour-probe.1 is its manual page.
 *
 * Exit status: 0 success, 1 sysfs disagrees (with --strict only), 2 bad
 * input or usage.
 */
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/bits.h>
#include <asm/kcolour_geom.h>
#include <kcolour_decode.h>
#include "cpuid_dump.h"
#include "sysfs_check.h"

/* kcolour-probe.1's .TH line carries the same version (test-cli.sh checks). */
#define PROBE_VERSION	"1.0"

#define EXIT_BAD_INPUT	2
#define BAD_GEOMETRY	(BIT(KCOLOUR_NOTE_BAD_ENTRY) | BIT(KCOLOUR_NOTE_RESERVED_TYPE))

/* Intel's hybrid parts: CPUID 7.0 EDX bit 15, and the core type in 0x1A EAX[31:24]. */
#define LEAF7_EDX_HYBRID	BIT(15)
#define LEAF_HYBRID		0x1a

enum output { OUT_TABLE, OUT_JSON, OUT_KCONFIG, OUT_CMDLINE };

struct options {
	const char *cpuid_file;
	const char *sysfs_root;	/* NULL: /sys on a live CPU, none for a file */
	unsigned int cpu;
	int cpu_given;		/* --cpu: read that CPU or nothing */
	int all_cpus;
	enum output output;
	int strict;
	struct kcolour_params req;	/* the user's requests, 0 = auto */
};

struct probe {
	struct kcolour_cpu cpu;
	struct kcolour_params req;	/* what was asked (the options) */
	struct kcolour_params rec;
	int fallback;
	char vendor[13];
	char brand[49];		/* CPUID 0x80000002-4, "" when there is none */
	u8 core_type;		/* leaf 0x1A EAX[31:24] on a hybrid part, else 0 */
	unsigned int cpu_read;	/* the logical CPU, or the dump's block */
	int pinned;		/* 1 pinned, 0 could not pin, -1 a dump */
	char pin_note[160];	/* why the CPU read is not the one asked for */
	struct sysfs_report sysfs;
	int sysfs_checked;
};

/* --all-cpus: the CPUs of one core type and geometry. */
struct cpu_group {
	struct probe p;		/* its first CPU's */
	unsigned int *cpus, n;
};

static struct cpuid_dump dump;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fputs("kcolour-probe: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BAD_INPUT);
}

static void cpuid_live(void *ctx, u32 leaf, u32 subleaf, u32 *r)
{
	(void)ctx;
	__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
}

static void cpuid_from_dump(void *ctx, u32 leaf, u32 subleaf, u32 *r)
{
	cpuid_dump_query(ctx, leaf, subleaf, r);
}

static unsigned long parse_range(const char *opt, const char *s, unsigned long min,
				 unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);	/* decimal: "010" is ten, not eight */
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max)
		die("%s: '%s' is not a number from %lu to %lu", opt, s, min, max);
	return v;
}

static unsigned long parse_ulong(const char *opt, const char *s, unsigned long max)
{
	return parse_range(opt, s, 0, max);
}

/* What the probe assumes without options: the kernel's own defaults. */
static const struct kcolour_params probe_defaults = {
	.level = 0,			/* auto */
	.policy = KCOLOUR_DEFAULT_POLICY,
	.step = KCOLOUR_DEFAULT_STEP,
	.max_offset = KCOLOUR_DEFAULT_MAX_OFFSET,
};

/* --level as the user writes it: 0 is "auto". */
static const char *level_name(u8 level)
{
	static const char * const names[] = { "auto", "1", "2" };

	return level < 3 ? names[level] : "unknown";
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: kcolour-probe [options]\n"
		"Decode this CPU's cache geometry (or a CPUID dump's) and say how kernel stack\n"
		"colouring should be tuned for it.\n"
		"\n"
		"  --cpuid-file FILE  decode a dump (`cpuid -r` or AIDA64 text) instead of this CPU\n"
		"  --cpu N            the dump's logical-CPU block N, or this machine's CPU N\n"
		"                     (default 0: the boot CPU, where the kernel derives)\n"
		"  --all-cpus         every CPU: each core type's caches and what the kernel\n"
		"                     would derive on it\n"
		"  --json             machine-readable output\n"
		"  --kconfig          print a distribution's Kconfig fragment: colouring built in,\n"
		"                     off at boot, derived at boot\n"
		"  --cmdline          print the kstack_colour= boot parameter for it\n"
		"  --max-offset BYTES stack budget (default %u, at most %u)\n"
		"  --step BYTES       colour step, a multiple of %u (default %u: the hot\n"
		"                     top of a stack)\n"
		"  --policy P         addr, mod, rr or balanced (default %s)\n"
		"  --level L          auto, 1 or 2 (default %s)\n"
		"  --sysfs-root DIR   cross-check against DIR/devices/system/cpu/cpuN/cache\n"
		"                     (default /sys for this CPU; no check for a dump)\n"
		"  --no-sysfs         skip the sysfs cross-check\n"
		"  --strict           exit 1 when sysfs disagrees (2 when there is none to check)\n"
		"  -h, --help         print this help and exit\n"
		"  -V, --version      print the version and exit\n"
		"\n"
		"Exit status: 0 success, 1 sysfs disagrees (--strict only), 2 bad input or\n"
		"usage.  See kcolour-probe(1).\n",
		probe_defaults.max_offset, KCOLOUR_MAX_OFFSET_LIMIT, KCOLOUR_MIN_STEP,
		probe_defaults.step, kcolour_policy_name(probe_defaults.policy),
		level_name(probe_defaults.level));
}

/*
 * getopt_long()'s own messages are two lines and end in exit 1; here a bad
 * option is one line and exit 2, like every other usage error.  @arg is the
 * word getopt stopped at.
 */
static void __attribute__((noreturn)) bad_option(const struct option *longopts,
						 const char *arg, int c)
{
	const char *name, *hit = NULL, *eq;
	size_t len;
	int i, hits = 0;

	/* A long option's optopt is its val (0 when unknown), a short one's its letter. */
	if (c == '?' && optopt > 0 && optopt < 256 && !strchr("hV", optopt))
		die("unknown option '-%c' (see --help)", optopt);
	if (c == ':')
		die("option '%s' needs an argument (see --help)", arg);
	if (strncmp(arg, "--", 2))
		die("unknown option '%s' (see --help)", arg);
	name = arg + 2;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	for (i = 0; longopts[i].name; i++) {
		if (strncmp(longopts[i].name, name, len))
			continue;
		if (strlen(longopts[i].name) == len) {	/* exact: the argument was wrong */
			hit = longopts[i].name, hits = 1;
			break;
		}
		hit = longopts[i].name, hits++;
	}
	if (!hits)
		die("unknown option '%.*s' (see --help)", (int)len + 2, arg);
	if (hits > 1)
		die("ambiguous option '%.*s' (see --help)", (int)len + 2, arg);
	die("option '--%s' takes no argument (see --help)", hit);
}

/* --json, --kconfig and --cmdline are outputs: one of them at most. */
static void one_output(const char **mode, const char *name)
{
	if (*mode && strcmp(*mode, name))
		die("%s and %s are different outputs: give one", *mode, name);
	*mode = name;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { O_FILE = 256, O_CPU, O_ALL, O_JSON, O_KCONFIG, O_CMDLINE, O_MAXOFF, O_STEP,
	       O_POLICY, O_LEVEL, O_SYSFS, O_NOSYSFS, O_STRICT };
	static const struct option longopts[] = {
		{ "cpuid-file", required_argument, NULL, O_FILE },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "all-cpus", no_argument, NULL, O_ALL },
		{ "json", no_argument, NULL, O_JSON },
		{ "kconfig", optional_argument, NULL, O_KCONFIG },
		{ "cmdline", no_argument, NULL, O_CMDLINE },
		{ "max-offset", required_argument, NULL, O_MAXOFF },
		{ "step", required_argument, NULL, O_STEP },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "sysfs-root", required_argument, NULL, O_SYSFS },
		{ "no-sysfs", no_argument, NULL, O_NOSYSFS },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, no_sysfs = 0, policy;
	const char *mode = NULL;
	unsigned long v;
	struct stat st;
	char dir[600];

	o->req = probe_defaults;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
		switch (c) {
		case O_FILE: o->cpuid_file = optarg; break;
		case O_CPU:
			o->cpu = parse_ulong("--cpu", optarg, 65535);
			o->cpu_given = 1;
			break;
		case O_ALL: o->all_cpus = 1; break;
		case O_JSON:
			one_output(&mode, "--json");
			o->output = OUT_JSON;
			break;
		case O_KCONFIG:
			if (optarg && !strcmp(optarg, "frozen"))
				die("--kconfig=frozen: the kernel has no Kconfig overrides to fix "
				    "since series v6; --cmdline prints this CPU's parameters as "
				    "kstack_colour=");
			if (optarg)
				die("--kconfig takes no value (got '%s')", optarg);
			one_output(&mode, "--kconfig");
			o->output = OUT_KCONFIG;
			break;
		case O_CMDLINE:
			one_output(&mode, "--cmdline");
			o->output = OUT_CMDLINE;
			break;
		case O_MAXOFF:
			o->req.max_offset = parse_ulong("--max-offset", optarg,
							KCOLOUR_MAX_OFFSET_LIMIT);
			break;
		case O_STEP:
			v = parse_range("--step", optarg, KCOLOUR_MIN_STEP, KCOLOUR_MAX_STEP);
			if (v % KCOLOUR_MIN_STEP)
				die("--step: %lu is not a multiple of %d", v, KCOLOUR_MIN_STEP);
			o->req.step = v;
			break;
		case O_POLICY:
			policy = kcolour_policy_parse(optarg);
			if (policy < 0)
				die("--policy: '%s' is not addr, mod, rr or balanced", optarg);
			o->req.policy = policy;
			break;
		case O_LEVEL:
			if (strcmp(optarg, "auto") && strcmp(optarg, "1") && strcmp(optarg, "2"))
				die("--level: '%s' is not auto, 1 or 2", optarg);
			o->req.level = strcmp(optarg, "auto") ? optarg[0] - '0' : 0;
			break;
		case O_SYSFS: o->sysfs_root = optarg; break;
		case O_NOSYSFS: no_sysfs = 1; break;
		case O_STRICT: o->strict = 1; break;
		case 'h': print_usage(stdout); exit(0);
		case 'V': printf("kcolour-probe %s\n", PROBE_VERSION); exit(0);
		default: bad_option(longopts, argv[optind - 1], c);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
	if (o->all_cpus && (o->output == OUT_KCONFIG || o->output == OUT_CMDLINE))
		die("--all-cpus goes with the table or --json: the kernel derives on the boot "
		    "CPU only, so --kconfig and --cmdline describe that one");
	if (o->sysfs_root && !no_sysfs) {
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu", o->sysfs_root);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			die("--sysfs-root: no directory %s", dir);
	}
	if (!o->sysfs_root && !o->cpuid_file)
		o->sysfs_root = "/sys";
	if (no_sysfs)
		o->sysfs_root = NULL;
	if (o->strict && !o->sysfs_root)
		die("--strict: no sysfs cross-check to be strict about (%s)",
		    no_sysfs ? "--no-sysfs" : "a dump is checked only with --sysfs-root DIR");
}

/* ---- which CPU the live probe reads -------------------------------------- */

/*
 * The CPU numbers to try: the configured CPUs (pinning tells which are
 * online and allowed: a process started under taskset may still move).
 */
static unsigned int nr_cpu_numbers(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 1 : n > 65536 ? 65536 : (unsigned int)n;
}

/* Run on @cpu only; 0, or -1 with errno. */
static int pin_to(unsigned int cpu)
{
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	int ret;

	if (!set)
		die("out of memory");
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	ret = sched_setaffinity(0, size, set);
	CPU_FREE(set);
	return ret;
}

/*
 * CPUID answers for the CPU it runs on, and leaves 4, 0x8000001D and 0x1A
 * differ between the core types of a hybrid part: read one named CPU.  The
 * default is CPU 0, the boot CPU, where the kernel derives its parameters.
 */
static void pin_live(const struct options *o, struct probe *p)
{
	unsigned int cpu;
	int e;

	if (!pin_to(o->cpu)) {
		p->cpu_read = o->cpu;
		p->pinned = 1;
		return;
	}
	e = errno;
	if (o->cpu_given)
		die("--cpu %u: cannot run on that CPU (%s): not online, or outside this "
		    "process's cpuset", o->cpu, strerror(e));
	for (cpu = 0; cpu < nr_cpu_numbers(); cpu++) {
		if (!pin_to(cpu)) {
			p->cpu_read = cpu;
			p->pinned = 1;
			snprintf(p->pin_note, sizeof(p->pin_note),
				 "CPU %u, the boot CPU, is not one this process may run on "
				 "(%s): read CPU %u instead", o->cpu, strerror(e), cpu);
			return;
		}
	}
	e = sched_getcpu();
	p->cpu_read = e < 0 ? 0 : (unsigned int)e;
	p->pinned = 0;
	snprintf(p->pin_note, sizeof(p->pin_note),
		 "could not pin to a CPU: read CPU %u, and the reads may mix CPUs", p->cpu_read);
}

/* ---- probing ---------------------------------------------------------------- */

static void vendor_string(struct probe *p, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4];

	cpuid(ctx, 0, 0, r);
	memcpy(p->vendor, &r[1], 4);
	memcpy(p->vendor + 4, &r[3], 4);
	memcpy(p->vendor + 8, &r[2], 4);
	p->vendor[12] = '\0';
}

/* The brand string, trimmed, anything unprintable shown as '?'. */
static void brand_string(struct probe *p, kcolour_cpuid_fn cpuid, void *ctx)
{
	char raw[49] = "", *s = raw;
	size_t len;
	u32 i, r[4];

	p->brand[0] = '\0';
	if (p->cpu.max_ext_leaf < 0x80000004u)
		return;
	for (i = 0; i < 3; i++) {
		cpuid(ctx, 0x80000002u + i, 0, r);
		memcpy(raw + 16 * i, r, 16);
	}
	raw[48] = '\0';
	while (*s == ' ')
		s++;
	len = strlen(s);
	while (len && s[len - 1] == ' ')
		len--;
	for (i = 0; i < len; i++)
		p->brand[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ?
			      '?' : s[i];
	p->brand[len] = '\0';
}

static void core_type(struct probe *p, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4];

	p->core_type = 0;
	if (p->cpu.vendor != KCOLOUR_VENDOR_INTEL || p->cpu.max_leaf < LEAF_HYBRID)
		return;
	cpuid(ctx, 7, 0, r);
	if (!(r[3] & LEAF7_EDX_HYBRID))
		return;
	cpuid(ctx, LEAF_HYBRID, 0, r);
	p->core_type = r[0] >> 24;
}

static const char *core_type_name(u8 type, char *buf, size_t len)
{
	if (type == 0x20)
		return "Atom";
	if (type == 0x40)
		return "Core";
	snprintf(buf, len, "0x%02x", type);
	return buf;
}

static void load_block(const char *file, unsigned int cpu)
{
	static bool warned;	/* once: every block of a dump is loaded this way */
	char err[512];
	int ret;

	if (cpuid_dump_load(file, cpu, &dump, err, sizeof(err)))
		die("%s", err);
	ret = cpuid_dump_check(&dump, file, cpu, err, sizeof(err));
	if (ret < 0)
		die("%s", err);
	if (ret && !warned)
		fprintf(stderr, "kcolour-probe: warning: %s\n", err);
	warned |= ret > 0;
}

/* Decode what @cpuid answers and derive for it what @req asks. */
static void decode(const char *file, struct probe *p, kcolour_cpuid_fn cpuid, void *ctx)
{
	vendor_string(p, cpuid, ctx);
	kcolour_decode(&p->cpu, cpuid, ctx);
	/* A dump can be fixed, the running CPU cannot: refuse only the former. */
	if (file && (p->cpu.notes & BAD_GEOMETRY))
		die("%s: CPU %u: impossible cache geometry (%s)", file, p->cpu_read,
		    kcolour_note_text(p->cpu.notes & BIT(KCOLOUR_NOTE_BAD_ENTRY) ?
				      KCOLOUR_NOTE_BAD_ENTRY : KCOLOUR_NOTE_RESERVED_TYPE));
	brand_string(p, cpuid, ctx);
	core_type(p, cpuid, ctx);
	p->rec = p->req;
	p->fallback = kcolour_recommend(&p->cpu.geom, &p->rec);
}

static void run_probe(const struct options *o, struct probe *p)
{
	char err[512];

	p->req = o->req;
	if (o->cpuid_file) {
		load_block(o->cpuid_file, o->cpu);
		p->cpu_read = o->cpu;
		p->pinned = -1;
		decode(o->cpuid_file, p, cpuid_from_dump, &dump);
	} else {
		pin_live(o, p);
		decode(NULL, p, cpuid_live, NULL);
	}
	if (o->sysfs_root) {
		if (sysfs_check(o->sysfs_root, p->cpu_read, &p->cpu.geom, &p->sysfs, err,
				sizeof(err)))
			die("%s", err);
		p->sysfs_checked = 1;
		if (o->strict && (!p->sysfs.available || !p->sysfs.indexes))
			die("--strict: nothing to check against in %s (%s)", p->sysfs.dir,
			    p->sysfs.available ? "no index entries" : "cannot open it");
	}
}

static bool same_kind(const struct probe *a, const struct probe *b)
{
	return a->core_type == b->core_type && a->cpu.geom.nr == b->cpu.geom.nr &&
	       !memcmp(a->cpu.geom.cache, b->cpu.geom.cache,
		       a->cpu.geom.nr * sizeof(a->cpu.geom.cache[0]));
}

static void add_to_groups(struct cpu_group **groups, unsigned int *nr, const struct probe *p)
{
	struct cpu_group *g = NULL;
	unsigned int i;

	for (i = 0; i < *nr && !g; i++)
		if (same_kind(&(*groups)[i].p, p))
			g = &(*groups)[i];
	if (!g) {
		*groups = realloc(*groups, (*nr + 1) * sizeof(**groups));
		if (!*groups)
			die("out of memory");
		g = &(*groups)[(*nr)++];
		memset(g, 0, sizeof(*g));
		g->p = *p;
	}
	g->cpus = realloc(g->cpus, (g->n + 1) * sizeof(*g->cpus));
	if (!g->cpus)
		die("out of memory");
	g->cpus[g->n++] = p->cpu_read;
}

/*
 * --all-cpus: every CPU this process may run on (or every block of the
 * dump), grouped by core type and cache geometry.  Returns the group count.
 */
static unsigned int probe_all(const struct options *o, struct cpu_group **groups)
{
	static struct probe q;
	unsigned int cpu, nr = 0, blocks;

	*groups = NULL;
	if (o->cpuid_file) {
		load_block(o->cpuid_file, 0);
		blocks = dump.cpus;
		for (cpu = 0; cpu < blocks; cpu++) {
			memset(&q, 0, sizeof(q));
			load_block(o->cpuid_file, cpu);
			q.req = o->req;
			q.cpu_read = cpu;
			q.pinned = -1;
			decode(o->cpuid_file, &q, cpuid_from_dump, &dump);
			add_to_groups(groups, &nr, &q);
		}
		return nr;
	}
	for (cpu = 0; cpu < nr_cpu_numbers(); cpu++) {
		if (pin_to(cpu))
			continue;
		memset(&q, 0, sizeof(q));
		q.req = o->req;
		q.cpu_read = cpu;
		q.pinned = 1;
		decode(NULL, &q, cpuid_live, NULL);
		add_to_groups(groups, &nr, &q);
	}
	return nr;
}

/* ---- what the recommendation means ---------------------------------------- */

/* One colour is no colouring, whatever else the parameters say. */
static bool is_off(const struct kcolour_params *r)
{
	return r->colours <= 1;
}

/* The recommendation leaves the target cache uncoloured: no gain measured. */
static bool no_gain(const struct probe *p)
{
	const struct kcolour_cache *c = kcolour_find(&p->cpu.geom, p->rec.level);

	return !p->fallback && c && kcolour_way_size(c) && !kcolour_gains(c);
}

/* "32K", "1.5M": sizes the way people write them. */
static const char *human_size(u32 bytes, char *buf, size_t len)
{
	if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%uM", bytes >> 20);
	else if (bytes >= 1024 * 1024 && bytes % (512 * 1024) == 0)
		snprintf(buf, len, "%u.5M", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%uK", bytes >> 10);
	else
		snprintf(buf, len, "%uB", bytes);
	return buf;
}

/* The colour count colours= would give where colouring gains nothing. */
static u16 forced_colours(const struct probe *p)
{
	struct kcolour_params q = p->rec;

	q.colours = 0;		/* the shift stays given: "asked" */
	kcolour_derive(kcolour_find(&p->cpu.geom, q.level), &q);
	return q.colours;
}

/* Why the recommendation is one colour, that is off; "" when it is not. */
static const char *off_reason(const struct probe *p, char *buf, size_t len)
{
	const struct kcolour_params *r = &p->rec;
	const struct kcolour_cache *c = kcolour_find(&p->cpu.geom, r->level);
	u32 spread = r->shift < 31 ? 1U << r->shift : 1U << 31;
	char size[16];
	u16 n;

	buf[0] = '\0';
	if (!is_off(r))
		return buf;
	if (no_gain(p)) {
		n = forced_colours(p);
		snprintf(buf, len, "colouring stack tops measured no gain on an L%u of this "
			 "geometry (%u-way, %s way)", r->level, c->ways,
			 human_size(kcolour_way_size(c), size, sizeof(size)));
		if (n > 1)
			snprintf(buf + strlen(buf), len - strlen(buf),
				 "; kstack_colour=on,colours=%u colours it anyway", n);
	} else if (r->max_offset < r->step) {
		snprintf(buf, len, "a max offset of %u B leaves no room for a second colour "
			 "%u B down", r->max_offset, r->step);
	} else if (spread / r->step <= 1) {
		snprintf(buf, len, "a step of %u B spans the whole %s way: no second colour",
			 r->step, human_size(spread, size, sizeof(size)));
	} else if (r->policy == KCOLOUR_POLICY_MOD) {
		snprintf(buf, len, "policy mod takes an odd colour count: 2 rounds down to 1");
	} else {
		snprintf(buf, len, "the parameters leave one colour");
	}
	return buf;
}

/* ---- output ------------------------------------------------------------------ */

static void print_cache_row(const struct kcolour_cache *c)
{
	char size[16], way[16], waysize[16];

	if (c->type == KCOLOUR_CACHE_TRACE) {
		printf("L%u  %-11s %7uK-uops %3u-way %6s %8s %7s %6s  %s\n", c->level,
		       kcolour_type_name(c->type), c->size / 1024, c->ways, "", "", "", "",
		       kcolour_source_name(c->source));
		return;
	}
	if (c->ways)
		snprintf(way, sizeof(way), "%u-way", c->ways);
	else
		snprintf(way, sizeof(way), "full");
	printf("L%u  %-11s %12s %7s %5uB %8u %7s %6u  %s", c->level, kcolour_type_name(c->type),
	       human_size(c->size, size, sizeof(size)), way, c->line, c->sets,
	       c->ways ? human_size(kcolour_way_size(c), waysize, sizeof(waysize)) : "-",
	       kcolour_shift_bits(c), kcolour_source_name(c->source));
	if (c->descriptor)
		printf(" 0x%02x", c->descriptor);
	putchar('\n');
}

static void print_caches(const struct kcolour_geom *g)
{
	int i;

	printf("lvl type                size    ways   line     sets waysize  shift  source\n");
	for (i = 0; i < g->nr; i++)
		print_cache_row(&g->cache[i]);
}

/* The decoder's notes: the table's, or on stderr beside --kconfig and --cmdline. */
static void print_notes(const struct probe *p, FILE *out)
{
	const struct kcolour_cpu *cpu = &p->cpu;
	const struct kcolour_geom *g = &cpu->geom;
	char size[16];
	int i;

	if (p->pin_note[0])
		fprintf(out, "note: %s\n", p->pin_note);
	for (i = 0; i < KCOLOUR_NR_NOTES; i++) {
		if (!(cpu->notes & BIT(i)))
			continue;
		fprintf(out, "note: %s", kcolour_note_text(i));
		if (i == KCOLOUR_NOTE_LEAF2_UNKNOWN)
			fprintf(out, " (0x%02x)", cpu->unknown_descriptor);
		fputc('\n', out);
	}
	for (i = 0; i < cpu->nr_disagree; i++) {
		const struct kcolour_cache *d = &cpu->disagree[i];
		const struct kcolour_cache *k = kcolour_find(g, d->level);

		fprintf(out, "note: %s says L%u %s %s %u-way %uB, not used",
			kcolour_source_name(d->source), d->level, kcolour_type_name(d->type),
			human_size(d->size, size, sizeof(size)), d->ways, d->line);
		if (k)
			fprintf(out, " (%s is trusted first)", kcolour_source_name(k->source));
		fputc('\n', out);
	}
	if (p->fallback)
		fprintf(out, "note: no cache to colour: safe default shift %u\n", p->rec.shift);
}

static void print_off_note(const struct probe *p, FILE *out)
{
	char why[256];

	if (is_off(&p->rec))
		fprintf(out, "note: 1 colour is no colouring: %s\n",
			off_reason(p, why, sizeof(why)));
}

static void print_sysfs(const struct probe *p)
{
	const struct sysfs_report *s = &p->sysfs;
	unsigned int i;

	if (!p->sysfs_checked)
		return;
	if (!s->available) {
		printf("sysfs: %s not available: not cross-checked\n", s->dir);
		return;
	}
	if (!s->nr)
		printf("sysfs: agrees with %s (%u caches)\n", s->dir, s->indexes);
	for (i = 0; i < s->nr; i++)
		printf("sysfs: disagrees: %s\n", s->mismatch[i]);
}

/* What the kernel derives with @policy instead of the one asked for. */
static struct kcolour_params with_policy(const struct probe *p, int policy)
{
	struct kcolour_params q = p->req;

	q.policy = policy;
	kcolour_recommend(&p->cpu.geom, &q);
	return q;
}

static void print_policies(const struct probe *p)
{
	int policy;

	for (policy = 0; policy < KCOLOUR_NR_POLICIES; policy++) {
		struct kcolour_params q = with_policy(p, policy);

		if (is_off(&q)) {
			printf("  %-9s  off: 1 colour\n", kcolour_policy_name(policy));
			continue;
		}
		printf("  %-9s %4u colours", kcolour_policy_name(policy), q.colours);
		if (policy == KCOLOUR_POLICY_ADDR)
			printf(": colour = (stack address >> %u) & %u\n", q.shift, q.colours - 1);
		else if (policy == KCOLOUR_POLICY_MOD)
			printf(": colour = (stack address >> %u) %% %u\n", q.shift, q.colours);
		else if (policy == KCOLOUR_POLICY_RR)
			printf(": one after the other, task by task\n");
		else
			printf(": the least-used colour among live tasks\n");
	}
}

/* The kstack_colour= line for @r: one colour is "off", not "on,...,colours=1". */
static const char *cmdline(const struct kcolour_params *r, char *buf, size_t len)
{
	if (is_off(r))
		snprintf(buf, len, "kstack_colour=off");
	else
		snprintf(buf, len, "kstack_colour=on,level=%s,shift=%u,colours=%u,step=%u,"
			 "max_offset=%u,policy=%s", level_name(r->level), r->shift, r->colours,
			 r->step, r->max_offset, kcolour_policy_name(r->policy));
	return buf;
}

/* "level 1, shift 12 (STACK_SHIFT_BITS), 3 colours x 1024 B, ...", or off. */
static void print_params(const struct kcolour_params *r)
{
	if (is_off(r))
		printf("off, 1 colour (level %s, shift %u, max offset %u B, policy %s)\n",
		       level_name(r->level), r->shift, r->max_offset,
		       kcolour_policy_name(r->policy));
	else
		printf("level %s, shift %u (STACK_SHIFT_BITS), %u colours x %u B, "
		       "max offset %u B, policy %s\n", level_name(r->level), r->shift,
		       r->colours, r->step, r->max_offset, kcolour_policy_name(r->policy));
}

static void print_header(const struct options *o, const struct probe *p)
{
	char buf[16];

	printf("CPU: ");
	if (p->brand[0])
		printf("%s (", p->brand);
	printf("%s family 0x%x model 0x%x", kcolour_vendor_name(p->cpu.vendor), p->cpu.family,
	       p->cpu.model);
	printf("%s, max leaf 0x%x, max extended leaf 0x%x\n", p->brand[0] ? ")" : "",
	       p->cpu.max_leaf, p->cpu.max_ext_leaf);
	if (o->cpuid_file)
		printf("read from %s, CPU block %u", o->cpuid_file, p->cpu_read);
	else
		printf("read on CPU %u%s", p->cpu_read, p->pinned ? " (pinned)" : " (not pinned)");
	if (p->core_type)
		printf(", core type %s", core_type_name(p->core_type, buf, sizeof(buf)));
	putchar('\n');
}

static void print_table(const struct options *o, const struct probe *p)
{
	char line[160];

	print_header(o, p);
	print_caches(&p->cpu.geom);
	print_notes(p, stdout);
	print_sysfs(p);
	printf("\nrecommendation: ");
	print_params(&p->rec);
	print_off_note(p, stdout);
	print_policies(p);
	printf("boot parameter: %s\n", cmdline(&p->rec, line, sizeof(line)));
}

/* "0-11,16,18-19" */
static void print_cpu_list(const unsigned int *cpus, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && cpus[j] == cpus[j - 1] + 1; j++)
			;
		printf("%s%u", i ? "," : "", cpus[i]);
		if (j - i > 1)
			printf("-%u", cpus[j - 1]);
	}
}

static const struct cpu_group *boot_group(const struct cpu_group *g, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (g[i].n && g[i].cpus[0] == 0)
			return &g[i];
	return NULL;
}

static void print_all(const struct options *o, const struct cpu_group *g, unsigned int nr)
{
	const struct cpu_group *boot = boot_group(g, nr);
	char buf[16], line[160];
	unsigned int i;

	printf("\nall CPUs%s: %u kind%s of core\n", o->cpuid_file ? " of the dump" : "", nr,
	       nr == 1 ? "" : "s");
	for (i = 0; i < nr; i++) {
		const struct probe *p = &g[i].p;

		if (p->core_type)
			printf("\ncore type %s: ", core_type_name(p->core_type, buf, sizeof(buf)));
		else
			printf("\n");
		printf("CPU%s ", g[i].n == 1 ? "" : "s");
		print_cpu_list(g[i].cpus, g[i].n);
		printf(" (%u)\n", g[i].n);
		print_caches(&p->cpu.geom);
		printf("the kernel would derive here: ");
		print_params(&p->rec);
		print_off_note(p, stdout);
	}
	if (!boot) {
		printf("\nnote: the kernel derives once, on the boot CPU (CPU 0), which %s\n",
		       o->cpuid_file ? "the dump lacks" : "this process may not run on");
		return;
	}
	if (nr == 1)
		printf("\nnote: every CPU has the same caches: what the kernel derives once, on "
		       "the boot CPU (CPU 0), fits them all: %s\n",
		       cmdline(&boot->p.rec, line, sizeof(line)));
	else
		printf("\nnote: the kernel derives once, on the boot CPU (CPU 0), and every CPU "
		       "runs with that: %s\n", cmdline(&boot->p.rec, line, sizeof(line)));
	for (i = 0; nr > 1 && i < nr; i++) {
		const struct probe *p = &g[i].p;
		char other[160];

		if (&g[i] == boot || !strcmp(cmdline(&p->rec, other, sizeof(other)), line))
			continue;
		printf("note: CPU%s ", g[i].n == 1 ? "" : "s");
		print_cpu_list(g[i].cpus, g[i].n);
		if (p->core_type)
			printf(" (%s)", core_type_name(p->core_type, buf, sizeof(buf)));
		printf(" would derive %s on their own\n", other);
	}
}

/*
 * The Kconfig fragment a distribution wants: colouring built in but off at
 * boot (no measured gain: README.md), so that kstack_colour=on or the
 * sysctl turns it on for an A/B without a rebuild.  Kconfig has no
 * parameters to fix: the kernel derives them at boot, and kstack_colour=
 * (--cmdline) sets them.  A comment says what this CPU would get.
 */
static void print_kconfig(const struct probe *p)
{
	char why[256], line[160];

	printf("# kcolour-probe %s: kernel stack colouring built in, every parameter\n"
	       "# derived at boot from the boot CPU's caches (kstack_colour= overrides them)\n"
	       "CONFIG_KSTACK_COLOUR=y\n"
	       "# off at boot (no measured gain): kstack_colour=on or the sysctl\n"
	       "# kernel.kstack_colour=1 turns it on, for an A/B on this machine\n"
	       "# CONFIG_KSTACK_COLOUR_DEFAULT_ON is not set\n", PROBE_VERSION);
	printf("# this CPU%s%s%s would get %s%s%s\n", p->brand[0] ? " (" : "", p->brand,
	       p->brand[0] ? ")" : "", cmdline(&p->rec, line, sizeof(line)),
	       is_off(&p->rec) ? ": " : "", off_reason(p, why, sizeof(why)));
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_cache(const struct kcolour_cache *c)
{
	printf("{\"level\": %u, \"type\": \"%s\", ", c->level, kcolour_type_name(c->type));
	if (c->type == KCOLOUR_CACHE_TRACE)
		printf("\"uops\": %u, \"ways\": %u", c->size, c->ways);
	else
		printf("\"size\": %u, \"ways\": %u, \"line\": %u, \"sets\": %u, "
		       "\"way_size\": %u, \"shift\": %u", c->size, c->ways, c->line, c->sets,
		       kcolour_way_size(c), kcolour_shift_bits(c));
	printf(", \"source\": \"%s\"", kcolour_source_name(c->source));
	if (c->descriptor)
		printf(", \"descriptor\": \"0x%02x\"", c->descriptor);
	putchar('}');
}

static void json_list_caches(const char *indent, const char *name,
			     const struct kcolour_cache *c, int n)
{
	int i;

	printf("%s\"%s\": [", indent, name);
	for (i = 0; i < n; i++) {
		printf("%s\n%s  ", i ? "," : "", indent);
		json_cache(&c[i]);
	}
	printf("%s%s],\n", n ? "\n" : "", n ? indent : "");
}

static void json_notes(const struct probe *p)
{
	const char *sep = "";
	int i;

	printf("  \"notes\": [");
	if (p->pin_note[0]) {
		json_string(p->pin_note);
		sep = ", ";
	}
	for (i = 0; i < KCOLOUR_NR_NOTES; i++) {
		if (p->cpu.notes & BIT(i)) {
			printf("%s", sep);
			json_string(kcolour_note_text(i));
			sep = ", ";
		}
	}
	printf("],\n");
}

static void json_sysfs(const struct probe *p)
{
	unsigned int i;

	if (!p->sysfs_checked) {
		printf("  \"sysfs\": null,\n");
		return;
	}
	printf("  \"sysfs\": {\"dir\": ");
	json_string(p->sysfs.dir);
	printf(", \"available\": %s, \"caches\": %u, \"mismatches\": [",
	       p->sysfs.available ? "true" : "false", p->sysfs.indexes);
	for (i = 0; i < p->sysfs.nr; i++) {
		printf("%s", i ? ", " : "");
		json_string(p->sysfs.mismatch[i]);
	}
	printf("]},\n");
}

/* The values the probe assumes without options, and the limits on them. */
static void json_defaults(void)
{
	const struct kcolour_params *d = &probe_defaults;

	printf("  \"defaults\": {\"step\": %u, \"max_offset\": %u, \"max_offset_limit\": %u, ",
	       d->step, d->max_offset, KCOLOUR_MAX_OFFSET_LIMIT);
	printf("\"min_step\": %u, \"policy\": \"%s\", \"level\": \"%s\", ",
	       KCOLOUR_MIN_STEP, kcolour_policy_name(d->policy), level_name(d->level));
	printf("\"fallback_shift\": %u},\n", KCOLOUR_FALLBACK_SHIFT);
}

static void json_core_type(const struct probe *p)
{
	char buf[16];

	if (p->core_type)
		json_string(core_type_name(p->core_type, buf, sizeof(buf)));
	else
		printf("null");
}

/* "recommendation": {...} and "policies": {...}, at @indent. */
static void json_recommendation(const char *indent, const struct probe *p)
{
	const struct kcolour_params *r = &p->rec;
	char why[256], line[160];
	int policy;

	printf("%s\"recommendation\": {\"level\": %u, \"shift\": %u, \"colours\": %u, "
	       "\"step\": %u, \"max_offset\": %u, \"policy\": \"%s\", \"fallback\": %s, "
	       "\"no_gain\": %s,\n%s                   \"off\": %s, \"off_reason\": ", indent,
	       r->level, r->shift, r->colours, r->step, r->max_offset,
	       kcolour_policy_name(r->policy), p->fallback ? "true" : "false",
	       no_gain(p) ? "true" : "false", indent, is_off(r) ? "true" : "false");
	if (is_off(r))
		json_string(off_reason(p, why, sizeof(why)));
	else
		printf("null");
	printf(",\n%s                   \"cmdline\": ", indent);
	json_string(cmdline(r, line, sizeof(line)));
	printf("},\n%s\"policies\": {", indent);
	for (policy = 0; policy < KCOLOUR_NR_POLICIES; policy++)
		printf("%s\"%s\": %u", policy ? ", " : "", kcolour_policy_name(policy),
		       with_policy(p, policy).colours);
	printf("}");
}

static void json_groups(const struct cpu_group *g, unsigned int nr)
{
	unsigned int i, j;

	printf(",\n  \"core_types\": [");
	for (i = 0; i < nr; i++) {
		printf("%s\n    {\"core_type\": ", i ? "," : "");
		json_core_type(&g[i].p);
		printf(", \"cpus\": [");
		for (j = 0; j < g[i].n; j++)
			printf("%s%u", j ? ", " : "", g[i].cpus[j]);
		printf("],\n");
		json_list_caches("     ", "caches", g[i].p.cpu.geom.cache, g[i].p.cpu.geom.nr);
		json_recommendation("     ", &g[i].p);
		printf("}");
	}
	printf("%s]", nr ? "\n  " : "");
}

static void print_json(const struct probe *p, const struct cpu_group *g, unsigned int nr)
{
	printf("{\n  \"vendor\": ");
	json_string(p->vendor);
	printf(",\n  \"brand\": ");
	if (p->brand[0])
		json_string(p->brand);
	else
		printf("null");
	printf(",\n  \"family\": %u,\n  \"model\": %u,\n", p->cpu.family, p->cpu.model);
	printf("  \"cpu\": %u,\n  \"pinned\": %s,\n  \"core_type\": ", p->cpu_read,
	       p->pinned < 0 ? "null" : p->pinned ? "true" : "false");
	json_core_type(p);
	printf(",\n");
	json_list_caches("  ", "caches", p->cpu.geom.cache, p->cpu.geom.nr);
	json_list_caches("  ", "disagreements", p->cpu.disagree, p->cpu.nr_disagree);
	json_notes(p);
	json_sysfs(p);
	json_defaults();
	json_recommendation("  ", p);
	if (g)
		json_groups(g, nr);
	printf("\n}\n");
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	static struct probe p;
	struct cpu_group *groups = NULL;
	unsigned int nr = 0;
	char line[160];

	parse_options(argc, argv, &o);
	if (o.all_cpus)
		nr = probe_all(&o, &groups);
	run_probe(&o, &p);
	switch (o.output) {
	case OUT_JSON: print_json(&p, groups, nr); break;
	case OUT_KCONFIG: print_kconfig(&p); break;
	case OUT_CMDLINE: printf("%s\n", cmdline(&p.rec, line, sizeof(line))); break;
	default:
		print_table(&o, &p);
		if (groups)
			print_all(&o, groups, nr);
		break;
	}
	/* --kconfig and --cmdline print what a file or a command line takes. */
	if (o.output == OUT_KCONFIG || o.output == OUT_CMDLINE) {
		print_notes(&p, stderr);
		if (o.output == OUT_CMDLINE)
			print_off_note(&p, stderr);
	}
	for (; nr; nr--)
		free(groups[nr - 1].cpus);
	free(groups);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write output");
	return o.strict && p.sysfs.nr ? 1 : 0;
}
