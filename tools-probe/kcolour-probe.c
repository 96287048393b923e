// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-probe: decode this CPU's (or a dump's) cache geometry with the
 * probe's own decoder (lib/kcolour_decode.c), and say how kernel stack
 * colouring should be tuned for it with the very derivation the kernel
 * carries (lib/kcolour_geom.c).
 *
 * Exit status: 0 success, 1 sysfs disagrees (with --strict only), 2 bad
 * input or usage.
 */
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bits.h>
#include <asm/kcolour_geom.h>
#include <kcolour_decode.h>
#include "cpuid_dump.h"
#include "sysfs_check.h"

#define EXIT_BAD_INPUT	2
#define BAD_GEOMETRY	(BIT(KCOLOUR_NOTE_BAD_ENTRY) | BIT(KCOLOUR_NOTE_RESERVED_TYPE))

enum output { OUT_TABLE, OUT_JSON, OUT_KCONFIG, OUT_CMDLINE };

struct options {
	const char *cpuid_file;
	const char *sysfs_root;	/* NULL: /sys on a live CPU, none for a file */
	unsigned int cpu;
	enum output output;
	int strict;
	struct kcolour_params req;	/* the user's requests, 0 = auto */
};

struct probe {
	struct kcolour_cpu cpu;
	struct kcolour_params rec;
	int fallback;
	char vendor[13];
	struct sysfs_report sysfs;
	int sysfs_checked;
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

static unsigned long parse_ulong(const char *opt, const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v > max)
		die("%s: '%s' is not a number from 0 to %lu", opt, s, max);
	return v;
}

/* What the probe assumes without options: the kernel's own defaults. */
static const struct kcolour_params probe_defaults = {
	.level = 0,			/* auto */
	.policy = KCOLOUR_POLICY_BALANCED,
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
		"  --cpuid-file FILE  decode a dump (`cpuid -r` or AIDA64 text) instead of this CPU\n"
		"  --cpu N            logical-CPU block of the dump (default 0)\n"
		"  --json             machine-readable output\n"
		"  --kconfig          print a Kconfig fragment for the recommendation\n"
		"  --cmdline          print the kstack_colour= boot parameter for it\n"
		"  --max-offset BYTES stack budget (default %u, at most %u)\n"
		"  --step BYTES       colour step, a multiple of %u (default %u: the hot\n"
		"                     top of a stack)\n"
		"  --policy P         addr, mod, rr or balanced (default %s)\n"
		"  --level L          auto, 1 or 2 (default %s)\n"
		"  --sysfs-root DIR   cross-check against DIR/devices/system/cpu/cpu0/cache\n"
		"                     (default /sys for this CPU; no check for a dump)\n"
		"  --no-sysfs         skip the sysfs cross-check\n"
		"  --strict           exit 1 when sysfs disagrees\n",
		probe_defaults.max_offset, KCOLOUR_MAX_OFFSET_LIMIT, KCOLOUR_MIN_STEP,
		probe_defaults.step, kcolour_policy_name(probe_defaults.policy),
		level_name(probe_defaults.level));
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { O_FILE = 256, O_CPU, O_JSON, O_KCONFIG, O_CMDLINE, O_MAXOFF, O_STEP,
	       O_POLICY, O_LEVEL, O_SYSFS, O_NOSYSFS, O_STRICT, O_HELP };
	static const struct option longopts[] = {
		{ "cpuid-file", required_argument, NULL, O_FILE },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "json", no_argument, NULL, O_JSON },
		{ "kconfig", no_argument, NULL, O_KCONFIG },
		{ "cmdline", no_argument, NULL, O_CMDLINE },
		{ "max-offset", required_argument, NULL, O_MAXOFF },
		{ "step", required_argument, NULL, O_STEP },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "sysfs-root", required_argument, NULL, O_SYSFS },
		{ "no-sysfs", no_argument, NULL, O_NOSYSFS },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c, no_sysfs = 0, policy;
	unsigned long v;

	o->req = probe_defaults;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_FILE: o->cpuid_file = optarg; break;
		case O_CPU: o->cpu = parse_ulong("--cpu", optarg, 65535); break;
		case O_JSON: o->output = OUT_JSON; break;
		case O_KCONFIG: o->output = OUT_KCONFIG; break;
		case O_CMDLINE: o->output = OUT_CMDLINE; break;
		case O_MAXOFF:
			o->req.max_offset = parse_ulong("--max-offset", optarg,
							KCOLOUR_MAX_OFFSET_LIMIT);
			break;
		case O_STEP:
			v = parse_ulong("--step", optarg, KCOLOUR_MAX_STEP);
			if (!v || v % KCOLOUR_MIN_STEP)
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
			o->req.level = strcmp(optarg, "auto") ? parse_ulong("--level", optarg, 2) : 0;
			break;
		case O_SYSFS: o->sysfs_root = optarg; break;
		case O_NOSYSFS: no_sysfs = 1; break;
		case O_STRICT: o->strict = 1; break;
		case O_HELP: print_usage(stdout); exit(0);
		default: print_usage(stderr); exit(EXIT_BAD_INPUT);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (see --help)", argv[optind]);
	if (!o->sysfs_root && !o->cpuid_file)
		o->sysfs_root = "/sys";
	if (no_sysfs)
		o->sysfs_root = NULL;
}

static void vendor_string(struct probe *p, kcolour_cpuid_fn cpuid, void *ctx)
{
	u32 r[4];

	cpuid(ctx, 0, 0, r);
	memcpy(p->vendor, &r[1], 4);
	memcpy(p->vendor + 4, &r[3], 4);
	memcpy(p->vendor + 8, &r[2], 4);
	p->vendor[12] = '\0';
}

static void run_probe(const struct options *o, struct probe *p)
{
	kcolour_cpuid_fn cpuid = cpuid_live;
	void *ctx = NULL;
	char err[512];

	if (o->cpuid_file) {
		if (cpuid_dump_load(o->cpuid_file, o->cpu, &dump, err, sizeof(err)))
			die("%s", err);
		cpuid = cpuid_from_dump;
		ctx = &dump;
	} else if (o->cpu) {
		die("--cpu needs --cpuid-file (the live probe reads the CPU it runs on)");
	}
	vendor_string(p, cpuid, ctx);
	kcolour_decode(&p->cpu, cpuid, ctx);
	/* A dump can be fixed, the running CPU cannot: refuse only the former. */
	if (o->cpuid_file && (p->cpu.notes & BAD_GEOMETRY))
		die("%s: CPU %u: impossible cache geometry (%s)", o->cpuid_file, o->cpu,
		    kcolour_note_text(p->cpu.notes & BIT(KCOLOUR_NOTE_BAD_ENTRY) ?
				      KCOLOUR_NOTE_BAD_ENTRY : KCOLOUR_NOTE_RESERVED_TYPE));
	p->rec = o->req;
	p->fallback = kcolour_recommend(&p->cpu.geom, &p->rec);
	if (o->sysfs_root) {
		if (sysfs_check(o->sysfs_root, &p->cpu.geom, &p->sysfs, err, sizeof(err)))
			die("%s", err);
		p->sysfs_checked = 1;
	}
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

/* The recommendation leaves the target cache uncoloured: no gain measured. */
static bool no_gain(const struct probe *p)
{
	const struct kcolour_cache *c = kcolour_find(&p->cpu.geom, p->rec.level);

	return !p->fallback && c && kcolour_way_size(c) && !kcolour_gains(c);
}

static void print_notes(const struct probe *p, FILE *out)
{
	const struct kcolour_cpu *cpu = &p->cpu;
	const struct kcolour_geom *g = &cpu->geom;
	char size[16];
	int i;

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
	if (no_gain(p))
		fprintf(out, "note: colouring stack tops measured no gain on an L%u of this "
			"geometry: 1 colour (colours= colours it anyway)\n", p->rec.level);
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

static void print_policies(const struct probe *p)
{
	int policy;

	for (policy = 0; policy < KCOLOUR_NR_POLICIES; policy++) {
		struct kcolour_params q = p->rec;

		q.policy = policy;
		q.colours = 0;
		kcolour_derive(kcolour_find(&p->cpu.geom, q.level), &q);
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

static void print_cmdline(const struct kcolour_params *r)
{
	printf("kstack_colour=on,level=%u,shift=%u,colours=%u,step=%u,max_offset=%u,policy=%s\n",
	       r->level ? r->level : 1, r->shift, r->colours, r->step, r->max_offset,
	       kcolour_policy_name(r->policy));
}

static void print_table(const struct probe *p)
{
	const struct kcolour_params *r = &p->rec;
	int i;

	printf("CPU: %s family 0x%x model 0x%x, max leaf 0x%x, max extended leaf 0x%x\n",
	       kcolour_vendor_name(p->cpu.vendor), p->cpu.family, p->cpu.model,
	       p->cpu.max_leaf, p->cpu.max_ext_leaf);
	printf("lvl type                size    ways   line     sets waysize  shift  source\n");
	for (i = 0; i < p->cpu.geom.nr; i++)
		print_cache_row(&p->cpu.geom.cache[i]);
	print_notes(p, stdout);
	print_sysfs(p);
	printf("\nrecommendation: level %u, shift %u (STACK_SHIFT_BITS), %u colours x %u B, "
	       "max offset %u B, policy %s\n", r->level, r->shift, r->colours, r->step,
	       r->max_offset, kcolour_policy_name(r->policy));
	print_policies(p);
	printf("boot parameter: ");
	print_cmdline(r);
}

static void print_kconfig(const struct kcolour_params *r)
{
	static const char * const level_sym[] = { "AUTO", "L1D", "L2" };
	char policy[16];
	int i;

	for (i = 0; kcolour_policy_name(r->policy)[i] && i < 15; i++)
		policy[i] = kcolour_policy_name(r->policy)[i] - 'a' + 'A';
	policy[i] = '\0';
	printf("# kcolour-probe recommendation\n"
	       "CONFIG_KSTACK_COLOUR=y\nCONFIG_KSTACK_COLOUR_DEFAULT_ON=y\n"
	       "CONFIG_KSTACK_COLOUR_SHIFT=%u\nCONFIG_KSTACK_COLOURS=%u\n"
	       "CONFIG_KSTACK_COLOUR_STEP=%u\nCONFIG_KSTACK_COLOUR_MAX_OFFSET=%u\n"
	       "CONFIG_KSTACK_COLOUR_POLICY_%s=y\nCONFIG_KSTACK_COLOUR_LEVEL_%s=y\n",
	       r->shift, r->colours, r->step, r->max_offset, policy,
	       level_sym[r->level < 3 ? r->level : 0]);
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

static void json_list_caches(const char *name, const struct kcolour_cache *c, int n)
{
	int i;

	printf("  \"%s\": [", name);
	for (i = 0; i < n; i++) {
		printf("%s\n    ", i ? "," : "");
		json_cache(&c[i]);
	}
	printf("%s],\n", n ? "\n  " : "");
}

static void json_notes(const struct probe *p)
{
	const char *sep = "";
	int i;

	printf("  \"notes\": [");
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

static void print_json(const struct probe *p)
{
	const struct kcolour_params *r = &p->rec;
	int policy;

	printf("{\n  \"vendor\": ");
	json_string(p->vendor);
	printf(",\n  \"family\": %u,\n  \"model\": %u,\n", p->cpu.family, p->cpu.model);
	json_list_caches("caches", p->cpu.geom.cache, p->cpu.geom.nr);
	json_list_caches("disagreements", p->cpu.disagree, p->cpu.nr_disagree);
	json_notes(p);
	json_sysfs(p);
	json_defaults();
	printf("  \"recommendation\": {\"level\": %u, \"shift\": %u, \"colours\": %u, "
	       "\"step\": %u, \"max_offset\": %u, \"policy\": \"%s\", \"fallback\": %s, "
	       "\"no_gain\": %s},\n", r->level, r->shift, r->colours, r->step, r->max_offset,
	       kcolour_policy_name(r->policy), p->fallback ? "true" : "false",
	       no_gain(p) ? "true" : "false");
	printf("  \"policies\": {");
	for (policy = 0; policy < KCOLOUR_NR_POLICIES; policy++) {
		struct kcolour_params q = *r;

		q.policy = policy;
		q.colours = 0;
		kcolour_derive(kcolour_find(&p->cpu.geom, q.level), &q);
		printf("%s\"%s\": %u", policy ? ", " : "", kcolour_policy_name(policy), q.colours);
	}
	printf("}\n}\n");
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	static struct probe p;

	parse_options(argc, argv, &o);
	run_probe(&o, &p);
	switch (o.output) {
	case OUT_JSON: print_json(&p); break;
	case OUT_KCONFIG: print_kconfig(&p.rec); break;
	case OUT_CMDLINE: print_cmdline(&p.rec); break;
	default: print_table(&p); break;
	}
	if (o.output != OUT_TABLE && o.output != OUT_JSON)
		print_notes(&p, stderr);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write output");
	return o.strict && p.sysfs.nr ? 1 : 0;
}
