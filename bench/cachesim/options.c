// SPDX-License-Identifier: GPL-2.0
/*
 * kcolour-cachesim's arguments: parsing, checks, and the tables derived
 * from them.  See options.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

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
	.map = {
		.stack_top = 2048,
		.text_start = 0xffffffff81000000ull,
		.text_end = 0xffffffff82200000ull,
		.data_end = MODULES_START,
	},
	.min_window = DEFAULT_MIN_WINDOW,
};

/* A number with an optional K or M suffix (binary). */
static int parse_size(const char *s, uint64_t *val)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	if (*s == '-' || !*s)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k') {
		shift = 10;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		shift = 20;
		end++;
	}
	/* Nothing after the suffix, and no bit shifted out. */
	if (*end || v > ULLONG_MAX >> shift)
		return -1;
	v <<= shift;
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

/* How a key's value is read, and where it goes. */
enum key_kind {
	K_GEOM,		/* SIZE:WAYS[:LINE] (parse_geom()) into *geom; no LINE: its line */
	K_U64,		/* a size (parse_size()) in [min, max] into *u64 */
	K_RANGE,	/* START-END in hex (parse_range()) into *u64 and *u64_end */
	K_PATH,		/* a path, not empty, into *path */
	K_BETWEEN,	/* a between_phases_name[] into opt.between_phases */
	K_LIST,		/* items parse_list() hands to item(), at most list_max */
};

struct key {
	const char *name;
	enum key_kind kind;
	struct cs_geom *geom;
	uint64_t *u64, *u64_end;
	const char **path;
	uint64_t min, max;
	unsigned int list_max, *nr;
	const char *want;	/* K_LIST: the items' form, for the message */
	int (*item)(const char *p, size_t len, unsigned int i);
};

/* Every key=value the plugin takes; a key matches whole, so order is free. */
static const struct key keys[] = {
	{ "l1d", K_GEOM, .geom = &opt.geom[C_L1D] },
	{ "l1i", K_GEOM, .geom = &opt.geom[C_L1I] },
	{ "l2", K_GEOM, .geom = &opt.geom[C_L2] },
	{ "l1d_extra", K_LIST, .list_max = MAX_EXTRA, .nr = &opt.nr_extra[X_L1D],
	  .want = "SIZE:WAYS[:LINE]", .item = parse_l1d_extra },
	{ "l2_extra", K_LIST, .list_max = MAX_EXTRA, .nr = &opt.nr_extra[X_L2],
	  .want = "SIZE:WAYS[:LINE][@balanced|@random|@balanced-all]", .item = parse_l2_extra },
	{ "cpus", K_LIST, .list_max = MAX_HIER, .nr = &opt.nr_hier,
	  .want = "L1D-L1I-L2, each SIZE:WAYS[:LINE]", .item = parse_hier },
	{ "min_window", K_U64, .u64 = &opt.min_window, .min = 1, .max = MAX_MIN_WINDOW },
	{ .name = "between_phases", .kind = K_BETWEEN },
	{ "stack_top", K_U64, .u64 = &opt.map.stack_top, .min = 1, .max = THREAD_SIZE },
	{ "text", K_RANGE, .u64 = &opt.map.text_start, .u64_end = &opt.map.text_end },
	{ "data", K_RANGE, .u64 = &opt.map.data_start, .u64_end = &opt.map.data_end },
	{ "out", K_PATH, .path = &opt.out_path },
	{ "profile", K_PATH, .path = &opt.prof_path },
	{ "conflicts", K_PATH, .path = &opt.conflicts_path[C_L1D] },
	{ "text_conflicts", K_PATH, .path = &opt.conflicts_path[C_L1I] },
	{ "l2_conflicts", K_PATH, .path = &opt.conflicts_path[C_L2] },
};

/* One key=value: 0; -1 for an unknown key or a bad value; -2 after a message. */
static int parse_arg(const char *arg)
{
	const struct key *k, *end = keys + sizeof(keys) / sizeof(keys[0]);
	const char *eq = strchr(arg, '=');
	struct cs_geom g;
	const char *val;
	int b;

	if (!eq)
		return -1;
	for (k = keys; k < end; k++)
		if (strlen(k->name) == (size_t)(eq - arg) && !strncmp(arg, k->name, eq - arg))
			break;
	if (k == end)
		return -1;
	val = eq + 1;
	switch (k->kind) {
	case K_GEOM:
		if (parse_geom(val, strlen(val), &g))
			return -1;
		if (!g.line)
			g.line = k->geom->line;
		*k->geom = g;
		return 0;
	case K_U64:
		if (parse_size(val, k->u64) || *k->u64 < k->min || *k->u64 > k->max)
			return -1;
		return 0;
	case K_RANGE:
		return parse_range(val, k->u64, k->u64_end);
	case K_PATH:
		if (!*val)
			return -1;
		*k->path = val;
		return 0;
	case K_BETWEEN:
		for (b = 0; b < NR_BETWEEN; b++) {
			if (!strcmp(val, between_phases_name[b])) {
				opt.between_phases = b;
				return 0;
			}
		}
		return -1;
	case K_LIST:
		return parse_list(k->name, val, k->list_max, k->nr, k->want, k->item);
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
	"  -plugin kcolour-cachesim.so,l1d=32K:8:64,l1i=32K:8:64,l2=4M:16:64,"
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
	if (!opt.map.data_start)
		opt.map.data_start = opt.map.text_end;
	if (opt.map.data_start >= opt.map.data_end) {
		fprintf(stderr, "kcolour-cachesim: empty data range (text ends at 0x%" PRIx64 ")\n",
			opt.map.text_end);
		return -1;
	}
	/* Fetch runs assume an instruction (<= 15 bytes) touches at most 2 lines. */
	if (opt.geom[C_L1I].line < 16) {
		fprintf(stderr, "kcolour-cachesim: the L1I line must be at least 16\n");
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
