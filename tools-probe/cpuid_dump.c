// SPDX-License-Identifier: GPL-2.0
/*
 * CPUID dump files: `cpuid -r` raw text and AIDA64 CPUID text.
 *
 * `cpuid -r` (Todd Allen's cpuid):
 *	CPU 0:
 *	   0x00000004 0x01: eax=0x1c004122 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000
 *   `cpuid -1 -r` writes "CPU:" with no number; a file with no header at all
 *   is taken as one CPU.
 *
 * AIDA64 (and its predecessor EVEREST), as in the InstLatx64 collection:
 *	------[ CPUID Registers / Logical CPU #0 ]------
 *	CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00] [L1D: 32 KB]
 *
 * Variants seen in the 58 InstLatx64 fixtures (and handled here):
 *  - Two CPU block headers: "------[ Logical CPU #N ]------" (EVEREST and
 *    older AIDA64, 24 files) and "------[ CPUID Registers / Logical CPU #N
 *    ]------" (newer AIDA64).  Newer files interleave "------[ MSR Registers
 *    / Logical CPU #N ]------" blocks: those are not CPUID blocks, and like
 *    any other "------[" header (Versions, CPU Info, Motherboard Info, All
 *    CPUs, APIC Base at ..., OC MailBox) they end the current block.
 *  - The "CPU Info" preamble has "CPUID Manufacturer : ..." lines; only
 *    "CPUID" lines inside a CPU block are entries.
 *  - The subleaf tag is hex ("[SL 0B]", "[SL 3E]").  After the registers
 *    come free-form annotations, with or without [SL nn]: "[GenuineIntel]",
 *    brand-string pieces, "[]", even unbalanced ones ("[L2: 1024 KB] / L3:
 *    98304 KB]"); anything after the [SL nn] tag is ignored.
 *  - 11 files have no [SL nn] tags (EVEREST, early AIDA64): repeated leaf 4
 *    (Yonah, Clovertown, Prescott, Penryn, Diamondville, Clarkdale,
 *    Cedarview), leaf 0xB (Clarkdale), leaf 0xD and 0x8000001D (Interlagos).
 *    Repeated entries of one leaf are then numbered 0, 1, 2... in order.
 *    That is right for the cache leaves, which AIDA lists densely from
 *    subleaf 0, but Interlagos' two untagged leaf 0xD lines are subleafs 0
 *    and 2 (AIDA skipped the empty subleaf 1): the second reads as 1.
 *  - Untagged leaf 4 lists stop at the last cache, without the type-0
 *    terminator; a query for the next subleaf gets zeros, which is one.
 *  - Every file has the colon after the leaf (it is optional here anyway).
 *  - K8 Sledgehammer, P3 Coppermine and P4 Northwood (EVEREST 4.60/5.00)
 *    have bare "allcpu: Valid" lines and no decoded cache summary.
 *  - Godavari has no newline after its last line.
 *  - CPU blocks are numbered 0..N-1 in file order in every file; the block
 *    wanted is picked by position, so the numbers are not trusted.
 *  - At most 84 entries per block (Arrow Lake U, Panther Lake); the largest
 *    file is 1.7 MB (Bergamo, 256 logical CPUs).
 *
 * The text comes from arbitrary files (and a fuzzer): every read is bounded
 * by the line's end pointer, nothing assumes a terminating NUL, and only the
 * wanted block is parsed in full.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuid_dump.h"

/* One line, or what is left of it: [p, end). */
struct span {
	const char *p, *end;
};

enum scan_err {
	SCAN_OK = 0,
	SCAN_TRUNC,
	SCAN_SYNTAX,
	SCAN_HEX_LEAF,
	SCAN_HEX_SUBLEAF,
	SCAN_HEX_REG,
};

static const char *const scan_msg[] = {
	[SCAN_TRUNC]		= "truncated line",
	[SCAN_SYNTAX]		= "malformed CPUID entry",
	[SCAN_HEX_LEAF]		= "bad hex in leaf field",
	[SCAN_HEX_SUBLEAF]	= "bad hex in subleaf field",
	[SCAN_HEX_REG]		= "bad hex in register field",
};

enum line_kind {
	LINE_OTHER,	/* ignored */
	LINE_BLOCK,	/* starts a logical-CPU block */
	LINE_END,	/* ends the current block (another AIDA64 section) */
	LINE_ENTRY,	/* a CPUID entry, if inside a block */
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- scanning helpers (ASCII only: no <ctype.h>, no locale) ---- */

static bool at_end(const struct span *s)
{
	return s->p >= s->end;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int hex_val(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void skip_blanks(struct span *s)
{
	while (!at_end(s) && is_blank(*s->p))
		s->p++;
}

static void skip_digits(struct span *s)
{
	while (!at_end(s) && is_digit(*s->p))
		s->p++;
}

static bool starts_with(const struct span *s, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(s->end - s->p) >= n && !memcmp(s->p, lit, n);
}

/* Consume @lit; a line that ends inside it is truncated. */
static int expect(struct span *s, const char *lit)
{
	for (; *lit; lit++, s->p++) {
		if (at_end(s))
			return SCAN_TRUNC;
		if (*s->p != *lit)
			return SCAN_SYNTAX;
	}
	return SCAN_OK;
}

/*
 * @tag, then a hex number: exactly 8 digits for a leaf or a register (both
 * formats print them so, and a short one is a line cut short), 1..8 for a
 * subleaf (@full false).  The number ends at the end of the line or at a
 * character that cannot continue it: "1C00412G" and nine-digit fields are
 * bad hex (error @bad), not a number followed by junk.
 */
static int tagged_hex(struct span *s, const char *tag, u32 *val, bool full,
		      int bad)
{
	unsigned int digits = 0;
	u32 v = 0;
	int r, h = 0;

	r = expect(s, tag);
	if (r)
		return r;
	while (!at_end(s) && (h = hex_val(*s->p)) >= 0) {
		if (++digits > 8)
			return bad;
		v = v << 4 | (u32)h;
		s->p++;
	}
	if (!digits || (full && digits < 8))
		return at_end(s) ? SCAN_TRUNC : bad;
	if (!at_end(s) && is_alnum(*s->p))
		return bad;
	*val = v;
	return SCAN_OK;
}

/* ---- `cpuid -r` ---- */

/* "CPU 0:", "CPU:" (cpuid -1) */
static bool raw_is_header(struct span s)
{
	if (expect(&s, "CPU"))
		return false;
	skip_blanks(&s);
	skip_digits(&s);
	if (expect(&s, ":"))
		return false;
	skip_blanks(&s);
	return at_end(&s);
}

static bool raw_sniff(struct span s)
{
	if (raw_is_header(s))
		return true;
	skip_blanks(&s);
	return starts_with(&s, "0x");
}

static enum line_kind raw_classify(struct span s)
{
	if (raw_is_header(s))
		return LINE_BLOCK;
	skip_blanks(&s);
	return at_end(&s) ? LINE_OTHER : LINE_ENTRY;
}

static int raw_entry(struct span *s, struct cpuid_entry *e, bool *has_sub)
{
	static const char *const reg_tag[4] = {
		"eax=0x", "ebx=0x", "ecx=0x", "edx=0x",
	};
	int i, r;

	skip_blanks(s);
	r = tagged_hex(s, "0x", &e->leaf, true, SCAN_HEX_LEAF);
	if (r)
		return r;
	skip_blanks(s);
	/* cpuid has printed the subleaf for years; tolerate its absence. */
	*has_sub = !at_end(s) && *s->p != ':';
	if (*has_sub) {
		r = tagged_hex(s, "0x", &e->subleaf, false,
			       SCAN_HEX_SUBLEAF);
		if (r)
			return r;
	}
	r = expect(s, ":");
	for (i = 0; i < 4 && !r; i++) {
		skip_blanks(s);
		r = tagged_hex(s, reg_tag[i], &e->regs[i], true,
			       SCAN_HEX_REG);
	}
	return r;
}

/* ---- AIDA64 ---- */

static const char *const aida_cpu_header[] = {
	"------[ Logical CPU #",
	"------[ CPUID Registers / Logical CPU #",
};

static bool aida_is_cpu_header(struct span s)
{
	struct span t;
	size_t i;

	for (i = 0; i < sizeof(aida_cpu_header) / sizeof(*aida_cpu_header); i++) {
		t = s;
		if (expect(&t, aida_cpu_header[i]) || at_end(&t) || !is_digit(*t.p))
			continue;
		skip_digits(&t);
		if (starts_with(&t, " ]"))
			return true;
	}
	return false;
}

static bool aida_sniff(struct span s)
{
	return starts_with(&s, "------[") || starts_with(&s, "CPUID ");
}

static enum line_kind aida_classify(struct span s)
{
	if (starts_with(&s, "------["))
		return aida_is_cpu_header(s) ? LINE_BLOCK : LINE_END;
	return starts_with(&s, "CPUID") ? LINE_ENTRY : LINE_OTHER;
}

static int aida_entry(struct span *s, struct cpuid_entry *e, bool *has_sub)
{
	static const char *const reg_sep[4] = { "", "-", "-", "-" };
	int i, r;

	r = expect(s, "CPUID");
	if (r)
		return r;
	skip_blanks(s);
	r = tagged_hex(s, "", &e->leaf, true, SCAN_HEX_LEAF);
	if (r)
		return r;
	if (!at_end(s) && *s->p == ':')		/* old dumps may lack it */
		s->p++;
	skip_blanks(s);
	for (i = 0; i < 4 && !r; i++)
		r = tagged_hex(s, reg_sep[i], &e->regs[i], true,
			       SCAN_HEX_REG);
	if (r)
		return r;
	skip_blanks(s);
	*has_sub = starts_with(s, "[SL ");
	if (*has_sub) {
		s->p += 4;
		r = tagged_hex(s, "", &e->subleaf, false,
			       SCAN_HEX_SUBLEAF);
		if (!r)
			r = expect(s, "]");
	}
	return r;
}

/* ---- formats ---- */

struct dump_format {
	int id;
	bool (*sniff)(struct span line);	/* typical of this format? */
	enum line_kind (*classify)(struct span line);
	int (*entry)(struct span *line, struct cpuid_entry *e, bool *has_sub);
};

static const struct dump_format formats[] = {
	{ CPUID_FMT_RAW,    raw_sniff,  raw_classify,  raw_entry  },
	{ CPUID_FMT_AIDA64, aida_sniff, aida_classify, aida_entry },
};

struct lines {
	const char *p, *end;
	unsigned int no;
};

static bool next_line(struct lines *it, struct span *l)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	l->p = it->p;
	l->end = nl ? nl : it->end;
	it->p = nl ? nl + 1 : it->end;
	if (l->end > l->p && l->end[-1] == '\r')
		l->end--;
	it->no++;
	return true;
}

static bool all_blank(struct lines it)
{
	struct span l;

	while (next_line(&it, &l)) {
		skip_blanks(&l);
		if (!at_end(&l))
			return false;
	}
	return true;
}

/* The first line that either format recognises decides. */
static const struct dump_format *sniff_format(struct lines it)
{
	struct span l;
	size_t i;

	while (next_line(&it, &l))
		for (i = 0; i < sizeof(formats) / sizeof(*formats); i++)
			if (formats[i].sniff(l))
				return &formats[i];
	return NULL;
}

/* ---- entries ---- */

/* The entry for (@leaf, @subleaf); *@leaf_seen tells whether @leaf is. */
static const struct cpuid_entry *lookup(const struct cpuid_dump *d, u32 leaf,
					u32 subleaf, bool *leaf_seen)
{
	unsigned int i;

	*leaf_seen = false;
	for (i = 0; i < d->n; i++) {
		if (d->e[i].leaf != leaf)
			continue;
		*leaf_seen = true;
		if (d->e[i].subleaf == subleaf)
			return &d->e[i];
	}
	return NULL;
}

static u32 count_leaf(const struct cpuid_dump *d, u32 leaf)
{
	unsigned int i;
	u32 n = 0;

	for (i = 0; i < d->n; i++)
		n += d->e[i].leaf == leaf;
	return n;
}

struct parse_ctx {
	const char *name;
	struct cpuid_dump *d;
	char *err;
	size_t errlen;
};

/* A duplicate (leaf, subleaf) is kept but never returned: the first wins. */
static int add_entry(const struct parse_ctx *c, const struct dump_format *fmt,
		     struct span l, unsigned int no)
{
	struct cpuid_entry e = { 0 };
	bool has_sub = false;
	int r;

	r = fmt->entry(&l, &e, &has_sub);
	if (r)
		return fail(c->err, c->errlen, "%s:%u: %s", c->name, no,
			    scan_msg[r]);
	if (c->d->n >= CPUID_DUMP_MAX_ENTRIES)
		return fail(c->err, c->errlen,
			    "%s:%u: too many CPUID entries in one CPU block (max %u)",
			    c->name, no, (unsigned int)CPUID_DUMP_MAX_ENTRIES);
	/* Untagged repeats of a leaf are its subleafs 0, 1, 2... */
	if (!has_sub)
		e.subleaf = count_leaf(c->d, e.leaf);
	c->d->e[c->d->n++] = e;
	return 0;
}

/*
 * Walk the blocks up to the @cpu'th and keep its entries.  Entries before
 * any header form an implicit block (a header-less `cpuid -r` file);
 * entries after a non-CPU AIDA64 section header belong to no block.
 */
static int read_block(const struct parse_ctx *c, const struct dump_format *fmt,
		      struct lines it, unsigned int cpu)
{
	bool open = false, headed = false, wanted = false, found = false;
	unsigned int blocks = 0;
	struct span l;
	bool leaf_seen;

	while (next_line(&it, &l)) {
		enum line_kind kind = fmt->classify(l);

		if (found && !wanted) {		/* past it: only count the rest */
			blocks += kind == LINE_BLOCK;
			continue;
		}
		if (kind == LINE_BLOCK || kind == LINE_END) {
			wanted = false;
			headed = true;
			open = kind == LINE_BLOCK;
			if (open) {
				wanted = blocks++ == cpu;
				found |= wanted;
			}
			continue;
		}
		if (kind != LINE_ENTRY)
			continue;
		if (!open && !headed) {
			open = headed = true;
			wanted = blocks++ == cpu;
			found |= wanted;
		}
		if (wanted && add_entry(c, fmt, l, it.no))
			return -1;
	}
	c->d->cpus = blocks;
	if (!found)
		return fail(c->err, c->errlen, "no CPU %u in %s (%u CPU%s)",
			    cpu, c->name, blocks, blocks == 1 ? "" : "s");
	if (!lookup(c->d, 0, 0, &leaf_seen))
		return fail(c->err, c->errlen, "%s: CPU %u block has no leaf 0",
			    c->name, cpu);
	return 0;
}

static int parse_named(const char *name, const char *text, size_t len,
		       unsigned int cpu, struct cpuid_dump *d,
		       char *err, size_t errlen)
{
	static const char bom[] = "\xef\xbb\xbf";
	const struct parse_ctx c = { name, d, err, errlen };
	struct lines it = { text, text + len, 0 };
	const struct dump_format *fmt;

	d->n = 0;
	d->cpus = 0;
	d->format = CPUID_FMT_NONE;
	if (len >= 3 && !memcmp(text, bom, 3))
		it.p += 3;
	if (all_blank(it))
		return fail(err, errlen, "%s: empty file", name);
	fmt = sniff_format(it);
	if (!fmt)
		return fail(err, errlen,
			    "%s: unknown format: neither `cpuid -r` nor AIDA64 CPUID text",
			    name);
	d->format = fmt->id;
	return read_block(&c, fmt, it, cpu);
}

int cpuid_dump_parse(const char *text, size_t len, unsigned int cpu,
		     struct cpuid_dump *d, char *err, size_t errlen)
{
	return parse_named("<input>", text ? text : "", text ? len : 0, cpu,
			   d, err, errlen);
}

/* Map @fd's file after checking it is a regular file of bounded size. */
static int map_file(int fd, const char *path, const void **map, size_t *len,
		    char *err, size_t errlen)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		return fail(err, errlen, "%s: cannot stat: %s", path,
			    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, "%s: not a regular file", path);
	if (st.st_size > (off_t)CPUID_DUMP_MAX_FILE)
		return fail(err, errlen, "%s: larger than %u MiB", path,
			    CPUID_DUMP_MAX_FILE >> 20);
	*len = (size_t)st.st_size;
	*map = "";
	if (!*len)	/* mmap() refuses length 0 */
		return 0;
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return fail(err, errlen, "%s: cannot read: %s", path,
			    strerror(errno));
	*map = p;
	return 0;
}

int cpuid_dump_load(const char *path, unsigned int cpu,
		    struct cpuid_dump *d, char *err, size_t errlen)
{
	const void *map = "";
	size_t len = 0;
	int fd, ret;

	d->n = 0;
	d->cpus = 0;
	d->format = CPUID_FMT_NONE;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "%s: cannot open: %s", path,
			    strerror(errno));
	/* Mapped, not read into a buffer: the caller's struct is all we own. */
	ret = map_file(fd, path, &map, &len, err, errlen);
	close(fd);
	if (ret)
		return ret;
	ret = parse_named(path, map, len, cpu, d, err, errlen);
	if (len)
		munmap((void *)map, len);
	return ret;
}

/* ---- completeness ---- */

/* Leaf 0's vendor string, in the order the CPU spells it. */
static void dump_vendor(const struct cpuid_entry *e0, char vendor[12])
{
	static const int vendor_reg[3] = { 1, 3, 2 };	/* ebx edx ecx */
	size_t i;

	for (i = 0; i < 12; i++)
		vendor[i] = (char)(e0->regs[vendor_reg[i / 4]] >> (8 * (i % 4)));
}

static bool has_leaf(const struct cpuid_dump *d, u32 leaf)
{
	bool leaf_seen;

	lookup(d, leaf, 0, &leaf_seen);
	return leaf_seen;
}

/* The first leaf of @want[] (0: none) that is due up to @max and absent. */
static u32 first_missing(const struct cpuid_dump *d, const u32 *want,
			 size_t n, u32 max)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (want[i] && want[i] <= max && !has_leaf(d, want[i]))
			return want[i];
	return 0;
}

/*
 * The highest leaf @max that leaf 0 or 0x80000000 names, where a dump lacks
 * it although it holds every leaf the decoder reads: a warning in @err, 1.
 */
static int highest_missing(char *err, size_t errlen, const char *name,
			   unsigned int cpu, u32 max, const char *by)
{
	fail(err, errlen,
	     "%s: CPU %u block lacks leaf 0x%x, the highest that %s names (a tool that leaves leaves out, or cut short?); decoded anyway: the cache decoder reads none of the leaves it lacks",
	     name, cpu, max, by);
	return 1;
}

int cpuid_dump_check(const struct cpuid_dump *d, const char *name,
		     unsigned int cpu, char *err, size_t errlen)
{
	const struct cpuid_entry *e0, *ext, *e;
	u32 max, max_ext, miss, want[4];
	bool leaf_seen, amd, basic_whole;
	char vendor[12];

	e0 = lookup(d, 0, 0, &leaf_seen);
	if (!e0)
		return fail(err, errlen, "%s: CPU %u block has no leaf 0",
			    name, cpu);
	max = e0->regs[0];
	dump_vendor(e0, vendor);
	amd = !memcmp(vendor, "AuthenticAMD", 12) ||
	      !memcmp(vendor, "HygonGenuine", 12);
	want[0] = 1;
	want[1] = amd ? 0 : 2;
	want[2] = amd ? 0 : 4;
	miss = first_missing(d, want, 3, max);
	if (miss)
		return fail(err, errlen,
			    "%s: CPU %u block is incomplete (cut short?): no leaf 0x%x, which leaf 0 promises (highest basic leaf 0x%x)",
			    name, cpu, miss, max);
	basic_whole = has_leaf(d, max);

	ext = lookup(d, 0x80000000u, 0, &leaf_seen);
	if (!ext) {
		if (amd || max >= 4)
			return fail(err, errlen,
				    "%s: CPU %u block is incomplete (cut short?): no leaf 0x80000000, which every %s has",
				    name, cpu, amd ? "AMD and Hygon CPU" :
				    "CPU with leaf 4");
		return basic_whole ? 0 : highest_missing(err, errlen, name, cpu, max, "leaf 0");
	}
	max_ext = ext->regs[0];
	if ((max_ext & 0xffff0000u) != 0x80000000u)	/* no extended leaves */
		return basic_whole ? 0 : highest_missing(err, errlen, name, cpu, max, "leaf 0");
	e = lookup(d, 0x80000001u, 0, &leaf_seen);
	want[0] = 0x80000001u;
	want[1] = 0x80000005u;
	want[2] = 0x80000006u;
	want[3] = amd && e && (e->regs[2] & (1u << 22)) ?	/* TOPOEXT */
		  0x8000001du : 0;
	miss = first_missing(d, want, 4, max_ext);
	if (miss)
		return fail(err, errlen,
			    "%s: CPU %u block is incomplete (cut short?): no leaf 0x%x, which leaf 0x80000000 promises (highest extended leaf 0x%x)",
			    name, cpu, miss, max_ext);
	if (!basic_whole)
		return highest_missing(err, errlen, name, cpu, max, "leaf 0");
	if (!has_leaf(d, max_ext))
		return highest_missing(err, errlen, name, cpu, max_ext, "leaf 0x80000000");
	return 0;
}

/* ---- queries ---- */

/* Vendors whose CPUs answer an out-of-range basic leaf with the highest. */
static const char *const echo_vendors[] = { "GenuineIntel" };

static bool echoes_highest_basic(const struct cpuid_dump *d, u32 leaf,
				 u32 *max)
{
	const struct cpuid_entry *e0;
	char vendor[12];
	bool leaf_seen;
	size_t i;

	e0 = lookup(d, 0, 0, &leaf_seen);
	if (!e0 || leaf >= 0x80000000u || leaf <= e0->regs[0])
		return false;
	dump_vendor(e0, vendor);
	*max = e0->regs[0];
	for (i = 0; i < sizeof(echo_vendors) / sizeof(*echo_vendors); i++)
		if (!memcmp(vendor, echo_vendors[i], sizeof(vendor)))
			return true;
	return false;
}

/*
 * Answer like the CPU: a listed (leaf, subleaf) gives its registers, an
 * unlisted subleaf of a listed leaf gives zeros (dumps stop at the last
 * valid subleaf), and an unlisted basic leaf above the maximum gives, on
 * Intel, the highest basic leaf's registers (SDM vol. 2A, CPUID: "If a
 * value entered for CPUID.EAX is higher than the maximum input value for
 * basic or extended function for that processor then the data for the
 * highest basic information leaf is returned").  Leaf-2-only Intel parts
 * thus answer leaf 4 with leaf 2 data, as QEMU's Conroe,level=2 does.
 * Everything else unlisted gives zeros.
 */
void cpuid_dump_query(const struct cpuid_dump *d, u32 leaf, u32 subleaf,
		      u32 regs[4])
{
	const struct cpuid_entry *e;
	bool leaf_seen;
	u32 max;

	e = lookup(d, leaf, subleaf, &leaf_seen);
	if (!e && !leaf_seen && echoes_highest_basic(d, leaf, &max))
		e = lookup(d, max, subleaf, &leaf_seen);
	if (e)
		memcpy(regs, e->regs, sizeof(e->regs));
	else
		memset(regs, 0, 4 * sizeof(*regs));
}
