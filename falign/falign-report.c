// SPDX-License-Identifier: GPL-2.0
/*
 * falign-report: how the functions of a vmlinux or of object files sit on
 * cache lines.  It reads the sized FUNC symbols of the executable sections
 * and reports the padding between them, their size classes, how many short
 * ones straddle a line, the lines all of them touch against the fewest they
 * could touch, and the text size two other layouts of the same functions in
 * the same order would need: one that touches the fewest lines, and one
 * packed as tightly as the minimum function alignment allows.
 *
 * Exit status: 0 success, 2 bad usage or input.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_BAD_INPUT	2
#define MAX_ALIGN	4096	/* the largest --line and --min-align */
/* Start alignments are counted from 16 bytes (the x86 default) up to the line. */
#define MIN_COUNTED_ALIGN	16
#define NR_ALIGNS	9	/* 16, 32, ..., MAX_ALIGN */

/* Size classes by their largest size in bytes; one more open class follows. */
static const uint64_t class_max[] = { 0, 16, 32, 64, 128, 256, 512, 1024 };
#define NR_BOUNDED_CLASSES	(sizeof(class_max) / sizeof(class_max[0]))
#define NR_CLASSES		(NR_BOUNDED_CLASSES + 1)

struct options {
	uint64_t line;
	uint64_t min_align;
	int json;
	int list_crossing;	/* name each short function that crosses a line */
};

struct section {
	size_t name;		/* in the section header string table */
	int exec;
	uint64_t start;		/* 0 in a relocatable object: its symbols are offsets */
	uint64_t size;
	uint64_t addralign;
};

struct func {
	size_t name;		/* in .symtab's string table */
	size_t shndx;
	uint64_t start;
	uint64_t size;
};

struct layout {
	uint64_t bytes;
	uint64_t lines;
};

struct report {
	const char *path;
	const char *type;
	size_t exec_sections;
	uint64_t text_bytes;
	uint64_t span;
	size_t funcs;
	size_t aliases;
	uint64_t func_bytes;
	uint64_t padding;
	size_t gaps;
	uint64_t largest_gap;
	uint64_t small_padding;	/* in gaps below MAX_ALIGN: function alignment */
	size_t by_class[NR_CLASSES];
	size_t short_funcs;
	size_t crossing;
	size_t over_lines;	/* touch more lines than their size needs */
	size_t aligned[NR_ALIGNS];
	uint64_t lines;
	uint64_t lines_bound;
	struct layout minimal;
	struct layout packed;
	size_t underaligned;	/* in object sections aligned below the line */
};

/* "falign-report: PATH: message" on stderr; -1, for the caller to return. */
static int __attribute__((format(printf, 2, 3))) complain(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "falign-report: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int malformed(const char *path)
{
	return complain(path, "malformed ELF: %s", elf_errmsg(-1));
}

/* A malformed size must not wrap an end address around to below its start. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t align_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

static uint64_t lines_touched(uint64_t start, uint64_t size, uint64_t line)
{
	if (!size)
		return 0;
	return add_sat(start, size - 1) / line - start / line + 1;
}

static uint64_t lines_needed(uint64_t size, uint64_t line)
{
	return size / line + (size % line != 0);
}

static size_t size_class(uint64_t size)
{
	size_t k;

	for (k = 0; k < NR_BOUNDED_CLASSES; k++)
		if (size <= class_max[k])
			break;
	return k;
}

static void class_label(size_t k, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "0");
	else if (k == NR_BOUNDED_CLASSES)
		snprintf(buf, len, ">%" PRIu64, class_max[k - 1]);
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, class_max[k - 1] + 1, class_max[k]);
}

static const char *elf_type_name(GElf_Half type)
{
	switch (type) {
	case ET_REL:
		return "relocatable";
	case ET_EXEC:
		return "executable";
	case ET_DYN:
		return "shared";
	default:
		return "other";
	}
}

/*
 * Index the section headers, so each symbol finds its section in O(1), and
 * find .symtab and its extended section index table (objects with more than
 * 65279 sections, e.g. -ffunction-sections builds, need it).
 */
static int read_sections(Elf *elf, const char *path, const GElf_Ehdr *eh, struct section **secsp,
			 size_t *nsecsp, Elf_Scn **symtab, Elf_Scn **xindex)
{
	Elf_Scn *scn = NULL, *xscn = NULL;
	size_t n, idx, xlink = 0;
	struct section *secs;
	GElf_Shdr sh;

	*secsp = NULL;
	*nsecsp = 0;
	*symtab = *xindex = NULL;
	if (elf_getshdrnum(elf, &n))
		return malformed(path);
	/* libelf reports no sections when their headers lie past the end of the file. */
	if (!n && eh->e_shoff)
		return complain(path, "malformed ELF: section headers past its end (truncated?)");
	secs = calloc(n ? n : 1, sizeof(*secs));
	if (!secs)
		return complain(path, "out of memory");
	while ((scn = elf_nextscn(elf, scn))) {
		idx = elf_ndxscn(scn);
		if (idx >= n || !gelf_getshdr(scn, &sh)) {
			free(secs);
			return malformed(path);
		}
		secs[idx].name = sh.sh_name;
		secs[idx].exec = sh.sh_type != SHT_NULL && (sh.sh_flags & SHF_EXECINSTR);
		secs[idx].start = eh->e_type == ET_REL ? 0 : sh.sh_addr;
		secs[idx].size = sh.sh_size;
		secs[idx].addralign = sh.sh_addralign;
		if (sh.sh_type == SHT_SYMTAB) {
			*symtab = scn;
		} else if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			xscn = scn;
			xlink = sh.sh_link;
		}
	}
	*xindex = *symtab && xscn && xlink == elf_ndxscn(*symtab) ? xscn : NULL;
	*secsp = secs;
	*nsecsp = n;
	return 0;
}

/* Sort by section and address; of aliases, the largest size comes first. */
static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

/* Keep one function per address: the one with the largest size. */
static size_t drop_aliases(struct func *f, size_t n)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (kept && f[kept - 1].shndx == f[i].shndx && f[kept - 1].start == f[i].start)
			continue;
		f[kept++] = f[i];
	}
	return kept;
}

/* The FUNC symbols of executable sections, sorted and without aliases. */
static int read_funcs(Elf *elf, const char *path, Elf_Scn *symtab, Elf_Scn *xindex,
		      const struct section *secs, size_t nsecs, struct func **fp, size_t *np,
		      size_t *aliases)
{
	Elf_Data *data, *xdata = NULL;
	size_t symsz, nsyms, i, n = 0, shndx;
	Elf32_Word xndx;
	struct func *f;
	GElf_Sym sym;

	*fp = NULL;
	*np = *aliases = 0;
	data = elf_getdata(symtab, NULL);
	if (!data)
		return malformed(path);
	if (xindex && !(xdata = elf_getdata(xindex, NULL)))
		return malformed(path);
	symsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!symsz)
		return malformed(path);
	nsyms = data->d_size / symsz;
	if (nsyms > INT_MAX)
		return complain(path, "malformed ELF: %zu symbols", nsyms);
	f = calloc(nsyms ? nsyms : 1, sizeof(*f));
	if (!f)
		return complain(path, "out of memory");
	for (i = 1; i < nsyms; i++) {
		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx)) {
			free(f);
			return malformed(path);
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		if (sym.st_shndx == SHN_XINDEX)
			shndx = xndx;
		else if (sym.st_shndx >= SHN_LORESERVE)
			continue;	/* absolute or common: in no section */
		else
			shndx = sym.st_shndx;
		if (shndx >= nsecs || !secs[shndx].exec)
			continue;
		f[n].name = sym.st_name;
		f[n].shndx = shndx;
		f[n].start = sym.st_value;
		f[n].size = sym.st_size;
		n++;
	}
	qsort(f, n, sizeof(*f), func_cmp);
	*np = drop_aliases(f, n);
	*aliases = n - *np;
	*fp = f;
	return 0;
}

static void add_gap(struct report *r, uint64_t bytes)
{
	r->padding += bytes;
	r->gaps++;
	if (bytes > r->largest_gap)
		r->largest_gap = bytes;
	/* Larger gaps are section or page alignment, not function alignment. */
	if (bytes < MAX_ALIGN)
		r->small_padding += bytes;
}

static uint64_t clamp(uint64_t x, uint64_t lo, uint64_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * Walk each executable section with its functions (both sorted by section
 * index) and count the bytes no function covers: the gaps before, between
 * and after them.  Functions may overlap, and a malformed one may reach out
 * of its section, so coverage is clamped and tracked as a running end.
 */
static void scan_sections(struct report *r, const struct section *secs, size_t nsecs,
			  const struct func *f, size_t n)
{
	uint64_t end, cursor;
	size_t s, i = 0, first;

	for (s = 0; s < nsecs; s++) {
		if (!secs[s].exec)
			continue;
		r->exec_sections++;
		r->text_bytes += secs[s].size;
		end = add_sat(secs[s].start, secs[s].size);
		cursor = secs[s].start;
		for (first = i; i < n && f[i].shndx == s; i++) {
			uint64_t from = clamp(f[i].start, secs[s].start, end);
			uint64_t to = clamp(add_sat(f[i].start, f[i].size), secs[s].start, end);

			if (from > cursor)
				add_gap(r, from - cursor);
			if (to > cursor)
				cursor = to;
		}
		if (i > first)
			r->span += cursor - clamp(f[first].start, secs[s].start, end);
		if (end > cursor)
			add_gap(r, end - cursor);
	}
}

static void count_function(struct report *r, const struct func *f, const struct section *sec,
			   int relocatable, const struct options *o)
{
	uint64_t touched = lines_touched(f->start, f->size, o->line);
	uint64_t needed = lines_needed(f->size, o->line);
	uint64_t align;
	size_t k;

	r->func_bytes += f->size;
	r->by_class[size_class(f->size)]++;
	r->lines += touched;
	r->lines_bound += needed;
	r->over_lines += touched > needed;
	if (f->size && f->size < o->line) {
		r->short_funcs++;
		r->crossing += touched > 1;
	}
	for (align = MIN_COUNTED_ALIGN, k = 0; align <= o->line; align <<= 1, k++)
		r->aligned[k] += f->start % align == 0;
	r->underaligned += relocatable && sec->addralign < o->line;
}

/*
 * Lay the functions out again in the same order from a line-aligned start,
 * each start aligned to min_align.  With pad_lines a function that would
 * touch more lines than its size needs moves on to the next line, so the
 * layout touches exactly the lower bound.  Functions of size 0 take no room
 * and touch no line, so they are not aligned either.
 */
static struct layout lay_out(const struct func *f, size_t n, const struct options *o,
			     int pad_lines)
{
	struct layout l = { 0, 0 };
	uint64_t pos = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!f[i].size)
			continue;
		pos = align_up(pos, o->min_align);
		if (pad_lines && lines_touched(pos, f[i].size, o->line) >
				 lines_needed(f[i].size, o->line))
			pos = align_up(pos, o->line);
		l.lines += lines_touched(pos, f[i].size, o->line);
		pos = add_sat(pos, f[i].size);
	}
	l.bytes = pos;
	return l;
}

/* "crossing FILE SECTION FUNCTION OFFSET SIZE" for each short function across a line. */
static void list_crossing(Elf *elf, const char *path, Elf_Scn *symtab, const struct section *secs,
			  const struct func *f, size_t n, uint64_t line)
{
	const char *sec_name, *func_name;
	size_t shstrndx, i;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) || !gelf_getshdr(symtab, &sh))
		shstrndx = sh.sh_link = 0;
	for (i = 0; i < n; i++) {
		if (!f[i].size || f[i].size >= line || lines_touched(f[i].start, f[i].size, line) < 2)
			continue;
		sec_name = shstrndx ? elf_strptr(elf, shstrndx, secs[f[i].shndx].name) : NULL;
		func_name = sh.sh_link ? elf_strptr(elf, sh.sh_link, f[i].name) : NULL;
		printf("crossing %s %s %s %#" PRIx64 " %" PRIu64 "\n", path,
		       sec_name ? sec_name : "?", func_name ? func_name : "?", f[i].start, f[i].size);
	}
}

static int analyse_elf(Elf *elf, const char *path, const struct options *o, struct report *r)
{
	Elf_Scn *symtab, *xindex;
	struct section *secs;
	struct func *f;
	size_t nsecs, n, i;
	GElf_Ehdr eh;
	int relocatable;

	if (!gelf_getehdr(elf, &eh))
		return malformed(path);
	relocatable = eh.e_type == ET_REL;
	r->type = elf_type_name(eh.e_type);
	if (read_sections(elf, path, &eh, &secs, &nsecs, &symtab, &xindex))
		return -1;
	if (!symtab) {
		free(secs);
		return complain(path, "no .symtab (stripped?)");
	}
	if (read_funcs(elf, path, symtab, xindex, secs, nsecs, &f, &n, &r->aliases)) {
		free(secs);
		return -1;
	}
	r->funcs = n;
	scan_sections(r, secs, nsecs, f, n);
	for (i = 0; i < n; i++)
		count_function(r, &f[i], &secs[f[i].shndx], relocatable, o);
	if (o->list_crossing)
		list_crossing(elf, path, symtab, secs, f, n, o->line);
	r->minimal = lay_out(f, n, o, 1);
	r->packed = lay_out(f, n, o, 0);
	free(f);
	free(secs);
	return 0;
}

static int analyse_file(const char *path, const struct options *o, struct report *r)
{
	struct stat st;
	Elf *elf;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->path = path;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return complain(path, "%s", strerror(errno));
	/* libelf would only say "invalid file descriptor" for a directory. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return complain(path, "not a regular file");
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		ret = complain(path, "not an ELF file (%s)", elf_errmsg(-1));
	else if (elf_kind(elf) != ELF_K_ELF)
		ret = complain(path, "not an ELF file");
	else
		ret = analyse_elf(elf, path, o, r);
	elf_end(elf);
	close(fd);
	return ret;
}

static double percent_over(uint64_t x, uint64_t base)
{
	return base ? 100.0 * ((double)x - (double)base) / (double)base : 0.0;
}

static void print_layout_row(const char *name, uint64_t bytes, uint64_t lines)
{
	printf("    %-26s %12" PRIu64 " %14" PRIu64 "\n", name, bytes, lines);
}

static void print_text(const struct report *r, const struct options *o)
{
	char label[32];
	uint64_t align;
	size_t k;

	printf("%s: %s ELF, %zu executable sections\n", r->path, r->type, r->exec_sections);
	printf("  text bytes       %" PRIu64 " in executable sections; functions span %" PRIu64
	       " (per section, first start to last end)\n", r->text_bytes, r->span);
	printf("  functions        %zu (%zu aliases dropped), %" PRIu64 " bytes\n",
	       r->funcs, r->aliases, r->func_bytes);
	printf("  padding          %" PRIu64 " bytes in %zu gaps, the largest %" PRIu64
	       "; %" PRIu64 " in gaps below %d bytes\n",
	       r->padding, r->gaps, r->largest_gap, r->small_padding, MAX_ALIGN);
	printf("  size class       functions\n");
	for (k = 0; k < NR_CLASSES; k++) {
		class_label(k, label, sizeof(label));
		printf("    %-12s %12zu\n", label, r->by_class[k]);
	}
	printf("  line size %" PRIu64 "\n", o->line);
	printf("    crossing       %zu of %zu functions shorter than a line cross a line\n",
	       r->crossing, r->short_funcs);
	printf("    over           %zu functions touch more lines than their size needs\n",
	       r->over_lines);
	printf("    starts aligned");
	for (align = MIN_COUNTED_ALIGN, k = 0; align <= o->line; align <<= 1, k++)
		printf(" %" PRIu64 "B: %zu", align, r->aligned[k]);
	printf(" (of %zu)\n", r->funcs);
	printf("    lines touched  %" PRIu64 " (lower bound %" PRIu64 ", +%.1f%%)\n",
	       r->lines, r->lines_bound, percent_over(r->lines, r->lines_bound));
	printf("  layout, same order                  bytes  lines touched\n");
	print_layout_row("as linked (text bytes)", r->text_bytes, r->lines);
	snprintf(label, sizeof(label), "minimal lines, %" PRIu64 "B starts", o->min_align);
	print_layout_row(label, r->minimal.bytes, r->minimal.lines);
	snprintf(label, sizeof(label), "packed, %" PRIu64 "B starts", o->min_align);
	print_layout_row(label, r->packed.bytes, r->packed.lines);
	if (r->underaligned)
		printf("  note: %zu functions are in sections aligned to less than %" PRIu64
		       " bytes; their line figures assume each section starts on a line\n",
		       r->underaligned, o->line);
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* A member after the first: every field but "path" is printed with these. */
static void json_num(const char *key, uint64_t v)
{
	printf(",\"%s\":%" PRIu64, key, v);
}

static void json_layout(const char *key, const struct layout *l)
{
	printf(",\"%s\":{\"bytes\":%" PRIu64, key, l->bytes);
	json_num("lines_touched", l->lines);
	putchar('}');
}

static void print_json(const struct report *r, const struct options *o)
{
	char label[32];
	uint64_t align;
	size_t k;

	printf("{\"path\":");
	print_json_string(r->path);
	printf(",\"type\":\"%s\"", r->type);
	json_num("executable_sections", r->exec_sections);
	json_num("text_bytes", r->text_bytes);
	json_num("function_span", r->span);
	json_num("functions", r->funcs);
	json_num("aliases_dropped", r->aliases);
	json_num("function_bytes", r->func_bytes);
	json_num("padding_bytes", r->padding);
	json_num("padding_gaps", r->gaps);
	json_num("largest_gap", r->largest_gap);
	json_num("small_padding_bytes", r->small_padding);
	printf(",\"size_classes\":{");
	for (k = 0; k < NR_CLASSES; k++) {
		class_label(k, label, sizeof(label));
		printf("%s\"%s\":%zu", k ? "," : "", label, r->by_class[k]);
	}
	putchar('}');
	json_num("short_functions", r->short_funcs);
	json_num("crossing", r->crossing);
	json_num("over_lines", r->over_lines);
	printf(",\"aligned\":{");
	for (align = MIN_COUNTED_ALIGN, k = 0; align <= o->line; align <<= 1, k++)
		printf("%s\"%" PRIu64 "\":%zu", k ? "," : "", align, r->aligned[k]);
	putchar('}');
	json_num("lines_touched", r->lines);
	json_num("lines_lower_bound", r->lines_bound);
	json_layout("minimal_lines_layout", &r->minimal);
	json_layout("packed_layout", &r->packed);
	json_num("underaligned_functions", r->underaligned);
	putchar('}');
}

static const char usage[] =
	"usage: falign-report [--line=64] [--min-align=16] [--json] [--list-crossing]\n"
	"                     VMLINUX-or-object...\n";

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("falign-report: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage, stderr);
	exit(EXIT_BAD_INPUT);
}

static uint64_t parse_power_of_two(const char *opt, const char *s, unsigned long long min)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > MAX_ALIGN || (v & (v - 1)))
		usage_error("%s: '%s' is not a power of two from %llu to %d",
			    opt, s, min, MAX_ALIGN);
	return v;
}

static const char options_help[] =
	"  --line=BYTES       cache line size (default 64; a power of two, 16 to 4096)\n"
	"  --min-align=BYTES  function alignment of the alternative layouts (default 16)\n"
	"  --json             one JSON object for all files\n"
	"  --list-crossing    first, a line \"crossing FILE SECTION FUNCTION OFFSET SIZE\"\n"
	"                     for each function shorter than a line that crosses one\n";

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { O_LINE = 256, O_MIN_ALIGN, O_JSON, O_LIST_CROSSING, O_HELP };
	static const struct option longopts[] = {
		{ "line", required_argument, NULL, O_LINE },
		{ "min-align", required_argument, NULL, O_MIN_ALIGN },
		{ "json", no_argument, NULL, O_JSON },
		{ "list-crossing", no_argument, NULL, O_LIST_CROSSING },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->line = 64;
	o->min_align = 16;
	o->json = 0;
	o->list_crossing = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_LINE:
			o->line = parse_power_of_two("--line", optarg, MIN_COUNTED_ALIGN);
			break;
		case O_MIN_ALIGN:
			o->min_align = parse_power_of_two("--min-align", optarg, 1);
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_LIST_CROSSING:
			o->list_crossing = 1;
			break;
		case O_HELP:
			fputs(usage, stdout);
			fputs(options_help, stdout);
			exit(0);
		default:
			usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		usage_error("no file given");
}

int main(int argc, char **argv)
{
	struct report *reports;
	struct options o;
	int i, nfiles, failed = 0;

	parse_options(argc, argv, &o);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "falign-report: libelf: %s\n", elf_errmsg(-1));
		return EXIT_BAD_INPUT;
	}
	nfiles = argc - optind;
	reports = calloc((size_t)nfiles, sizeof(*reports));
	if (!reports) {
		fputs("falign-report: out of memory\n", stderr);
		return EXIT_BAD_INPUT;
	}
	/* Read every file first: a bad one prints a message and no report at all. */
	for (i = 0; i < nfiles; i++)
		failed |= analyse_file(argv[optind + i], &o, &reports[i]) != 0;
	if (failed) {
		free(reports);
		return EXIT_BAD_INPUT;
	}
	if (o.json)
		printf("{\"line\":%" PRIu64 ",\"min_align\":%" PRIu64 ",\"files\":[",
		       o.line, o.min_align);
	for (i = 0; i < nfiles; i++) {
		if (o.json) {
			printf("%s", i ? "," : "");
			print_json(&reports[i], &o);
		} else {
			printf("%s", i ? "\n" : "");
			print_text(&reports[i], &o);
		}
	}
	if (o.json)
		printf("]}\n");
	free(reports);
	return 0;
}
