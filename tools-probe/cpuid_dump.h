/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUID register dumps read from text files, so that kcolour-probe can
 * decode a machine it does not run on.  Two formats, detected from the text:
 *
 *   CPUID_FMT_RAW     Todd Allen's `cpuid -r` (Debian package "cpuid")
 *   CPUID_FMT_AIDA64  AIDA64 / EVEREST CPUID dumps (the InstLatx64 collection)
 *
 * One logical-CPU block is loaded at a time; cpuid_dump_query() then answers
 * like the CPUID instruction of that CPU would (see cpuid_dump.c).
 */
#ifndef KCOLOUR_CPUID_DUMP_H
#define KCOLOUR_CPUID_DUMP_H

#include <stddef.h>
#include <linux/types.h>

/* The largest block seen in the fixtures has 84 entries. */
#define CPUID_DUMP_MAX_ENTRIES	1024

/* Files larger than this are refused by cpuid_dump_load(). */
#define CPUID_DUMP_MAX_FILE	(16u << 20)

enum cpuid_dump_format {
	CPUID_FMT_NONE = 0,
	CPUID_FMT_RAW,
	CPUID_FMT_AIDA64,
};

struct cpuid_entry {
	u32 leaf, subleaf;
	u32 regs[4];		/* eax ebx ecx edx */
};

struct cpuid_dump {
	unsigned int n;		/* entries used in e[] */
	unsigned int cpus;	/* logical-CPU blocks in the whole file */
	int format;		/* enum cpuid_dump_format */
	struct cpuid_entry e[CPUID_DUMP_MAX_ENTRIES];
};

/*
 * Parse @len bytes of @text (need not be NUL-terminated) and keep the
 * @cpu'th logical-CPU block (0-based, in file order) in @d.
 * Return 0, or -1 with a one-line message in @err.
 */
int cpuid_dump_parse(const char *text, size_t len, unsigned int cpu,
		     struct cpuid_dump *d, char *err, size_t errlen);

/* Read @path (at most CPUID_DUMP_MAX_FILE bytes) and parse it. */
int cpuid_dump_load(const char *path, unsigned int cpu,
		    struct cpuid_dump *d, char *err, size_t errlen);

/*
 * Whether the loaded block is complete enough to decode: a file cut short
 * (or a block cut by hand) parses, but decodes as a CPU without caches.
 * The block must hold what its own leaf 0 and 0x80000000 promise:
 *
 *   - the highest basic leaf (leaf 0 EAX), and leaf 1 when that is >= 1;
 *   - on vendors other than AMD and Hygon, leaf 2 and leaf 4 when the
 *     highest basic leaf reaches them (the probe decodes them there);
 *   - leaf 0x80000000 on AMD and Hygon (every one has extended leaves) and
 *     on any CPU whose highest basic leaf is 4 or more (every CPU with leaf
 *     4 has them; a P6 Pentium III, highest leaf 3, has none);
 *   - then 0x80000001, 0x80000005 and 0x80000006 up to the highest
 *     extended leaf (0x80000000 EAX), and on AMD and Hygon with TOPOEXT
 *     0x8000001D.
 *
 * Other leaves may be missing: AIDA64 leaves out leaves that read as zeros
 * (AMD's leaf 4 and 0xB), and `cpuid -r` dumps of VMs lack some.  A block
 * that lacks the highest basic or extended leaf but holds every leaf above
 * is decoded, with a warning: tools leave out leaves they do not know, and
 * the decoder reads none of them.  Every block of every fixture passes.
 * @name is the file name for the message.  Return 0; 1 with a one-line
 * warning in @err; or -1 with a one-line message in @err.
 */
int cpuid_dump_check(const struct cpuid_dump *d, const char *name,
		     unsigned int cpu, char *err, size_t errlen);

/* What CPUID(@leaf, @subleaf) returns on the dumped CPU. */
void cpuid_dump_query(const struct cpuid_dump *d, u32 leaf, u32 subleaf,
		      u32 regs[4]);

#endif
