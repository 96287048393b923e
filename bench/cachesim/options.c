// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-cachesim's arguments: parsing, checks, and the tables derived
 * from them.  See options.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "placement.h"

const char *const cache_name[NR_CACHES] = { "L1D", "L1I", "L2" };

const char *const recolour_name[NR_RECOLOURS] = {
	[RECOLOUR_NONE] = "",
	[RECOLOUR_BALANCED] = "balanced",
	[RECOLOUR_RANDOM] = "random",
	[RECOLOUR_BALANCED_ALL] = "balanced-all",
};

const char *const between_phases_name[NR_BETWEEN] = {
	[BETWEEN_SIMULATE] = "simulate",
	[BETWEEN_SKIP] = "skip",
};

static const enum cache_id xlevel_cache[NR_XLEVELS] = { C_L1D, C_L2 };

struct options opt = {
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
	return parse_geom(p, len, &opt.extra[X_L1D][i].geom);
}

/* SIZE:WAYS[:LINE][@POLICY], POLICY a page colouring (recolour.h). */
static int parse_l2_extra(const char *p, size_t len, unsigned int i)
{
	const char *at = memchr(p, '@', len);
	struct extra *x = &opt.extra[X_L2][i];
	size_t plen;

	x->recolour = RECOLOUR_NONE;
	if (at) {
		plen = len - (at - p) - 1;
		for (x->recolour = RECOLOUR_BALANCED; x->recolour < NR_RECOLOURS; x->recolour++)
			if (strlen(recolour_name[x->recolour]) == plen &&
			    !memcmp(at + 1, recolour_name[x->recolour], plen))
				break;
		if (x->recolour == NR_RECOLOURS)
			return -1;
		len = at - p;
	}
	return parse_geom(p, len, &x->geom);
}

/* A hierarchy L1D-L1I-L2, each SIZE:WAYS[:LINE]. */
static int parse_hier(const char *p, size_t len, unsigned int i)
{
	const char *end = p + len;
	int c;

	for (c = 0; c < NR_CACHES; c++) {
		const char *dash = memchr(p, '-', end - p);
		size_t n = (dash ? dash : end) - p;

		if ((c < NR_CACHES - 1) != !!dash || parse_geom(p, n, &opt.hier[i].geom[c]))
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
		return parse_list("l1d_extra", val, MAX_EXTRA, &opt.nr_extra[X_L1D],
				  "SIZE:WAYS[:LINE]", parse_l1d_extra);
	if (!strncmp(arg, "l2_extra=", klen + 1))
		return parse_list("l2_extra", val, MAX_EXTRA, &opt.nr_extra[X_L2],
				  "SIZE:WAYS[:LINE][@balanced|@random|@balanced-all]", parse_l2_extra);
	/* Before the geometry keys, whose l2_ prefix it shares. */
	if (!strncmp(arg, "l2_conflicts=", klen + 1) && *val) {
		opt.conflicts_path[C_L2] = val;
		return 0;
	}
	if (!strncmp(arg, "cpus=", klen + 1))
		return parse_list("cpus", val, MAX_HIER, &opt.nr_hier,
				  "L1D-L1I-L2, each SIZE:WAYS[:LINE]", parse_hier);
	for (c = 0; c < NR_CACHES; c++) {
		size_t plen = strlen(prefix[c]);
		const char *k = arg + plen;

		if (klen <= plen || strncmp(arg, prefix[c], plen))
			continue;
		if (parse_size(val, &v))
			return -1;
		if (!strncmp(k, "size=", 5))
			opt.geom[c].size = v;
		else if (!strncmp(k, "ways=", 5) && v <= 1024)
			opt.geom[c].ways = (unsigned int)v;
		else if (!strncmp(k, "line=", 5) && v <= 4096)
			opt.geom[c].line = (unsigned int)v;
		else
			return -1;
		return 0;
	}
	if (!strncmp(arg, "min_window=", klen + 1))
		return parse_size(val, &opt.min_window) || !opt.min_window ||
		       opt.min_window > MAX_MIN_WINDOW ? -1 : 0;
	if (!strncmp(arg, "between_phases=", klen + 1)) {
		for (c = 0; c < NR_BETWEEN; c++) {
			if (!strcmp(val, between_phases_name[c])) {
				opt.between_phases = c;
				return 0;
			}
		}
		return -1;
	}
	if (!strncmp(arg, "stack_top=", klen + 1))
		return parse_size(val, &opt.stack_top) || !opt.stack_top ||
		       opt.stack_top > THREAD_SIZE ? -1 : 0;
	if (!strncmp(arg, "text=", klen + 1))
		return parse_range(val, &opt.text_start, &opt.text_end);
	if (!strncmp(arg, "data=", klen + 1))
		return parse_range(val, &opt.data_start, &opt.data_end);
	if (!strncmp(arg, "out=", klen + 1) && *val) {
		opt.out_path = val;
		return 0;
	}
	if (!strncmp(arg, "profile=", klen + 1) && *val) {
		opt.prof_path = val;
		return 0;
	}
	if (!strncmp(arg, "conflicts=", klen + 1) && *val) {
		opt.conflicts_path[C_L1D] = val;
		return 0;
	}
	if (!strncmp(arg, "text_conflicts=", klen + 1) && *val) {
		opt.conflicts_path[C_L1I] = val;
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

	for (i = 0; i < opt.nr_extra[l]; i++) {
		struct extra *x = &opt.extra[l][i];
		struct cs_geom *g = &x->geom;
		int n;

		if (!g->line)
			g->line = opt.geom[xlevel_cache[l]].line;
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
			n += snprintf(x->name + n, sizeof(x->name) - n, "-%uB", g->line);
		if (x->recolour && n > 0 && (size_t)n < sizeof(x->name))
			snprintf(x->name + n, sizeof(x->name) - n, "-%s", recolour_name[x->recolour]);
		for (j = 0; j < i; j++) {
			if (!strcmp(opt.extra[l][j].name, x->name)) {
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

	if (!memcmp(&opt.geom[c], g, sizeof(*g)))
		return HL1_PRIMARY;
	for (i = 0; i < opt.nr_hl1[c]; i++)
		if (!memcmp(&opt.hl1[c][i].geom, g, sizeof(*g)))
			return i;
	opt.hl1[c][i].geom = *g;
	opt.hl1[c][i].shift = __builtin_ctz(g->line);
	opt.nr_hl1[c]++;
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

	for (i = 0; i < opt.nr_hier; i++) {
		struct hier *h = &opt.hier[i];

		for (c = 0; c < NR_CACHES; c++) {
			struct cs_geom *g = &h->geom[c];

			if (!g->line)
				g->line = opt.geom[c].line;
			if (c == C_L1I && g->line != opt.geom[C_L1I].line)
				snprintf(err, sizeof(err), "line %u, not the primary's %u",
					 g->line, opt.geom[C_L1I].line);
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
			l1 = &opt.hl1[c][h->l1[c]];
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
	"l1d_extra=48K:12/64K:2,l2_extra=256K:4/1M:16:64/256K:4@balanced,"
	"cpus=48K:12-32K:8-1280K:20/64K:2-64K:2-1M:16,profile=PATH,min_window=2M,"
	"conflicts=PATH,text_conflicts=PATH,l2_conflicts=PATH,"
	"between_phases=simulate|skip\n";

int options_parse(int argc, char **argv)
{
	char err[256];
	int i, c, rc;

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
	if (!opt.data_start)
		opt.data_start = opt.text_end;
	if (opt.data_start >= opt.data_end) {
		fprintf(stderr, "kcolour-cachesim: empty data range (text ends at 0x%" PRIx64 ")\n",
			opt.text_end);
		return -1;
	}
	/* Fetch runs assume an instruction (<= 15 bytes) touches at most 2 lines. */
	if (opt.geom[C_L1I].line < 16) {
		fprintf(stderr, "kcolour-cachesim: l1i_line must be at least 16\n");
		return -1;
	}
	for (c = 0; c < NR_CACHES; c++) {
		if (cs_geom_check(&opt.geom[c], err, sizeof(err))) {
			fprintf(stderr, "kcolour-cachesim: %s: %s\n", cache_name[c], err);
			return -1;
		}
	}
	if (setup_extras(X_L1D) || setup_extras(X_L2) || setup_hiers())
		return -1;
	return 0;
}
