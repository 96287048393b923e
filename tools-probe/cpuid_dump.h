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

/* What CPUID(@leaf, @subleaf) returns on the dumped CPU. */
void cpuid_dump_query(const struct cpuid_dump *d, u32 leaf, u32 subleaf,
		      u32 regs[4]);

#endif
