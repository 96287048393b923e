// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CPUID dump-file layer (cpuid_dump.c), TAP output.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -Itools-probe/include -Itools-probe \
 *      tools-probe/tests/test-dump.c tools-probe/cpuid_dump.c -o test-dump
 *   FIXTURES=/path/to/fixtures/cpuid ./test-dump
 *
 * FIXTURES is required (make check passes facts.tsv's fixtures path).
 * Every *.txt dump there and in instlatx64/ must load for CPU 0.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuid_dump.h"
#include "../../harness/tap.h"

static struct cpuid_dump dump, dump2;	/* 24 KiB each: not on the stack */
static char err[512];

static int parse(const char *text, unsigned int cpu, struct cpuid_dump *d)
{
	err[0] = '\0';
	return cpuid_dump_parse(text, strlen(text), cpu, d, err, sizeof(err));
}

static bool regs_are(const struct cpuid_dump *d, u32 leaf, u32 sub,
		     u32 a, u32 b, u32 c, u32 dx)
{
	u32 r[4];

	cpuid_dump_query(d, leaf, sub, r);
	if (r[0] == a && r[1] == b && r[2] == c && r[3] == dx)
		return true;
	printf("# CPUID(%#x, %#x) = %08x %08x %08x %08x\n",
	       leaf, sub, r[0], r[1], r[2], r[3]);
	return false;
}

/* ---- positive cases ---- */

#define RAW_L0_INTEL(max) \
	"   0x00000000 0x00: eax=" max " ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
#define Z3 "ebx=0x00000000 ecx=0x00000000 edx=0x00000000"
#define Z4 "eax=0x00000000 " Z3
#define RAW_L0_AMD \
	"   0x00000000 0x00: eax=0x00000001 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n"

static const char raw_two_cpus[] =
	"CPU 0:\n"
	RAW_L0_INTEL("0x00000004")
	"   0x00000004 0x00: eax=0x1c004121 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000\n"
	"   0x00000004 0x01: eax=0x1c004122 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000\n"
	"CPU 1:\n"
	RAW_L0_INTEL("0x00000004")
	"   0x00000004 0x00: eax=0x1c004121 ebx=0x02c0003f ecx=0x0000003f edx=0x00000000\n";

static void test_raw(void)
{
	ok(!parse(raw_two_cpus, 0, &dump) && dump.format == CPUID_FMT_RAW &&
	   dump.n == 3 && dump.cpus == 2, "raw: CPU 0 block, 3 entries, 2 CPUs in the file");
	ok(regs_are(&dump, 4, 1, 0x1c004122, 0x01c0003f, 0x3f, 0),
	   "raw: exact (leaf, subleaf)");
	ok(regs_are(&dump, 4, 2, 0, 0, 0, 0),
	   "raw: missing subleaf of a listed leaf reads as zeros");
	ok(!parse(raw_two_cpus, 1, &dump) && dump.n == 2 &&
	   regs_are(&dump, 4, 0, 0x1c004121, 0x02c0003f, 0x3f, 0),
	   "raw: --cpu 1 picks the second block");
	ok(!parse("CPU:\n" RAW_L0_AMD, 0, &dump) && dump.n == 1,
	   "raw: `cpuid -1 -r` header \"CPU:\"");
	ok(!parse(RAW_L0_AMD
		  "   0x80000005 0x00: eax=0xff08ff08 ebx=0xff20ff20 ecx=0x40020140 edx=0x40020140\n",
		  0, &dump) && dump.format == CPUID_FMT_RAW &&
	   regs_are(&dump, 0x80000005, 0, 0xff08ff08, 0xff20ff20,
		    0x40020140, 0x40020140),
	   "raw: no header at all is one CPU 0");
	ok(!parse("CPU 0:\n" RAW_L0_INTEL("0x00000004")
		  "   0x00000004: eax=0x00000121 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
		  "   0x00000004: eax=0x00000122 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n",
		  0, &dump) && regs_are(&dump, 4, 1, 0x122, 0, 0, 0),
	   "raw: entries without a subleaf field are subleafs 0, 1, ...");
	ok(!parse("CPU 0:\r\n" RAW_L0_AMD, 0, &dump) && dump.n == 1,
	   "raw: CRLF line ends");
}

static const char aida_tagged[] =
	"------[ Versions ]------\n"
	"\n"
	"Program Version : AIDA64 v6.00\n"
	"------[ CPU Info ]------\n"
	"CPUID Manufacturer : GenuineIntel\n"
	"CPU Type          : QuadCore\n"
	"------[ CPUID Registers / Logical CPU #0 ]------\n"
	"\n"
	"allcpu: Package 0 / Core 0 / Thread 0: Valid\n"
	"\n"
	"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69 [GenuineIntel]\n"
	"CPUID 00000004: 1C004121-01C0003F-0000003F-00000000 [SL 00] [L1D: 32 KB]\n"
	"CPUID 00000004: 1C004122-01C0003F-0000003F-00000000 [SL 01]\n"
	"CPUID 0000000D: 00000010-00000000-00000001-00000000 [SL 0B] [CET_U]\n"
	"CPUID 80000006: 5C002200-6C004200-04006140-03009140 [L2: 1024 KB] / L3: 98304 KB]\n"
	"CPUID 80000004: 726F7373-20202020-20202020-00202020 []\n"
	"\n"
	"L1    Data Cache:    32 KB,  8-way Associative, 64-byte Line\n"
	"\n"
	"------[ MSR Registers / Logical CPU #0 ]------\n"
	"\n"
	"CPUID 00000000: 00000001-00000000-00000000-00000000\n"
	"MSR 0000001B: 0000-0000-FEE0-0900\n"
	"------[ CPUID Registers / Logical CPU #1 ]------\n"
	"CPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n"
	"CPUID 00000004: 1C004121-02C0003F-0000003F-00000000 [SL 00]";	/* no final newline */

static const char aida_untagged[] =
	"------[ Logical CPU #0 ]------\r\n"
	"\r\n"
	"allcpu: Valid\r\n"
	"\r\n"
	"CPUID 00000000: 0000000A-756E6547-6C65746E-49656E69\r\n"
	"CPUID 00000004: 0C000121-01C0003F-0000003F-00000001\r\n"
	"CPUID 00000004: 0C000122-01C0003F-0000003F-00000001\r\n"
	"CPUID 00000004 0C004143-03C0003F-00000FFF-00000001\r\n"	/* no colon */
	"CPUID 80000006: 00000000-00000000-10008040-00000000\r\n";

static void test_aida(void)
{
	ok(!parse(aida_tagged, 0, &dump) && dump.format == CPUID_FMT_AIDA64 &&
	   dump.n == 6, "AIDA64: CPU 0 block, preamble and MSR block ignored");
	ok(regs_are(&dump, 4, 1, 0x1c004122, 0x01c0003f, 0x3f, 0) &&
	   regs_are(&dump, 4, 2, 0, 0, 0, 0), "AIDA64: [SL nn] tags");
	ok(regs_are(&dump, 0xd, 0xb, 0x10, 0, 1, 0),
	   "AIDA64: [SL 0B] is hex");
	ok(regs_are(&dump, 0x80000006, 0, 0x5c002200, 0x6c004200,
		    0x04006140, 0x03009140),
	   "AIDA64: unbalanced annotation after the registers");
	ok(!parse(aida_tagged, 1, &dump) && dump.n == 2 &&
	   regs_are(&dump, 4, 0, 0x1c004121, 0x02c0003f, 0x3f, 0),
	   "AIDA64: --cpu 1, MSR block not counted, no final newline");
	ok(!parse(aida_untagged, 0, &dump) && dump.n == 5 &&
	   regs_are(&dump, 4, 2, 0x0c004143, 0x03c0003f, 0xfff, 1) &&
	   regs_are(&dump, 4, 3, 0, 0, 0, 0),
	   "AIDA64: untagged repeats are subleafs 0, 1, 2; CRLF; no colon");
	ok(!parse("\xef\xbb\xbf" "CPUID 00000000: 00000001-68747541-444D4163-69746E65\n",
		  0, &dump) && dump.format == CPUID_FMT_AIDA64 && dump.n == 1,
	   "AIDA64: header-less entries are CPU 0; UTF-8 BOM skipped");
}

/* Intel answers an out-of-range basic leaf with the highest basic leaf. */
static void test_query(void)
{
	static const char intel_l2[] =
		"CPU 0:\n" RAW_L0_INTEL("0x00000002")
		"   0x00000002 0x00: eax=0x665b5001 ebx=0x00000000 ecx=0x00000000 edx=0x007b7040\n"
		"   0x80000000 0x00: eax=0x80000004 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n";
	static const char intel_sub[] =
		"CPU 0:\n" RAW_L0_INTEL("0x0000000b")
		"   0x0000000b 0x00: eax=0x00000001 ebx=0x00000002 ecx=0x00000100 edx=0x00000000\n"
		"   0x0000000b 0x01: eax=0x00000004 ebx=0x00000008 ecx=0x00000201 edx=0x00000000\n";
	static const char amd[] = "CPU 0:\n" RAW_L0_AMD;

	parse(intel_l2, 0, &dump);
	ok(regs_are(&dump, 4, 0, 0x665b5001, 0, 0, 0x007b7040),
	   "query: Intel leaf 4 above max basic leaf 2 echoes leaf 2");
	ok(regs_are(&dump, 0x3fffffff, 0, 0x665b5001, 0, 0, 0x007b7040),
	   "query: Intel echo up to 0x7fffffff");
	ok(regs_are(&dump, 1, 0, 0, 0, 0, 0),
	   "query: Intel unlisted leaf below max reads as zeros");
	ok(regs_are(&dump, 0x80000006, 0, 0, 0, 0, 0),
	   "query: unlisted extended leaf reads as zeros");
	parse(intel_sub, 0, &dump);
	ok(regs_are(&dump, 0x1f, 1, 4, 8, 0x201, 0) &&
	   regs_are(&dump, 0x1f, 2, 0, 0, 0, 0),
	   "query: Intel echo keeps the subleaf");
	parse(amd, 0, &dump);
	ok(regs_are(&dump, 4, 0, 0, 0, 0, 0),
	   "query: AMD leaf above max basic leaf reads as zeros");
}

/* ---- error cases: each must fail with the message fragment ---- */

struct err_case {
	const char *what;
	const char *text;
	unsigned int cpu;
	const char *want;
};

#define AIDA_HDR "------[ Logical CPU #0 ]------\n"
#define AIDA_L0  "CPUID 00000000: 00000001-68747541-444D4163-69746E65\n"

static const struct err_case err_cases[] = {
	{ "empty text", "", 0, "<input>: empty file" },
	{ "blank text", " \r\n\t\n\n", 0, "<input>: empty file" },
	{ "unknown format", "hello\nworld\nCPU Type : x\n", 0,
	  "<input>: unknown format: neither `cpuid -r` nor AIDA64 CPUID text" },
	{ "raw truncated", "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x756e",
	  0, "<input>:2: truncated line" },
	{ "raw truncated in a tag", "CPU 0:\n   0x00000000 0x00: eax=0x00000001 eb\n",
	  0, "<input>:2: truncated line" },
	{ "raw truncated after leaf", "CPU 0:\n   0x00000000\n",
	  0, "<input>:2: truncated line" },
	{ "raw bad hex (register)",
	  "CPU 0:\n   0x00000000 0x00: eax=0x0000000g " Z3 "\n",
	  0, "<input>:2: bad hex in register field" },
	{ "raw bad hex (9 digits)",
	  "CPU 0:\n   0x00000000 0x00: eax=0x000000001 " Z3 "\n",
	  0, "<input>:2: bad hex in register field" },
	{ "raw bad hex (leaf)", "CPU 0:\n   0xz0000000 0x00: " Z4 "\n",
	  0, "<input>:2: bad hex in leaf field" },
	{ "raw bad hex (subleaf)", "CPU 0:\n   0x00000000 0xq0: " Z4 "\n",
	  0, "<input>:2: bad hex in subleaf field" },
	{ "raw wrong register tag", "CPU 0:\n   0x00000000 0x00: eax=0x00000000 "
	  "ecx=0x00000000 ebx=0x00000000 edx=0x00000000\n",
	  0, "<input>:2: malformed CPUID entry" },
	{ "AIDA64 truncated", AIDA_HDR "CPUID 00000000: 00000001-68747541-444D",
	  0, "<input>:2: truncated line" },
	{ "AIDA64 truncated SL tag", AIDA_HDR
	  "CPUID 00000000: 00000001-68747541-444D4163-69746E65 [SL 0",
	  0, "<input>:2: truncated line" },
	{ "AIDA64 bad hex (register)", AIDA_HDR
	  "CPUID 00000000: 00000001-6874754X-444D4163-69746E65\n",
	  0, "<input>:2: bad hex in register field" },
	{ "AIDA64 short register", AIDA_HDR
	  "CPUID 00000000: 00000001-6874-444D4163-69746E65\n",
	  0, "<input>:2: bad hex in register field" },
	{ "AIDA64 bad hex (leaf)", AIDA_HDR
	  "CPUID 0000000Z: 00000001-68747541-444D4163-69746E65\n",
	  0, "<input>:2: bad hex in leaf field" },
	{ "AIDA64 bad hex (SL tag)", AIDA_HDR
	  "CPUID 00000000: 00000001-68747541-444D4163-69746E65 [SL 0Q]\n",
	  0, "<input>:2: bad hex in subleaf field" },
	{ "AIDA64 wrong separator", AIDA_HDR
	  "CPUID 00000000: 00000001 68747541-444D4163-69746E65\n",
	  0, "<input>:2: malformed CPUID entry" },
	{ "CPU block absent (raw)", "CPU 0:\n" RAW_L0_AMD "CPU 1:\n" RAW_L0_AMD,
	  3, "no CPU 3 in <input> (2 CPUs)" },
	{ "CPU block absent (AIDA64)", AIDA_HDR AIDA_L0, 1,
	  "no CPU 1 in <input> (1 CPU)" },
	{ "CPU block absent (no block)", "------[ Versions ]------\nCPUID 00000000: 1-2-3-4\n",
	  0, "no CPU 0 in <input> (0 CPUs)" },
	{ "block without leaf 0", "CPU 0:\n"
	  "   0x00000001 0x00: eax=0x00000f51 " Z3 "\n",
	  0, "<input>: CPU 0 block has no leaf 0" },
	{ "empty block", AIDA_HDR "\n------[ Logical CPU #1 ]------\n" AIDA_L0,
	  0, "<input>: CPU 0 block has no leaf 0" },
};

static void expect_error(const char *what, int ret, const char *want)
{
	if (!ok(ret == -1 && strstr(err, want), "error: %s", what))
		printf("# returned %d, message \"%s\", want \"%s\"\n",
		       ret, err, want);
}

static void test_errors(void)
{
	const struct err_case *c;

	for (c = err_cases; c < err_cases + sizeof(err_cases) / sizeof(*c); c++)
		expect_error(c->what, parse(c->text, c->cpu, &dump), c->want);
}

/* Leaf 0 and 1024 more entries in one block: one too many. */
static void test_too_many(void)
{
	static char text[(CPUID_DUMP_MAX_ENTRIES + 2) * 128];
	size_t len, fit = 0;
	unsigned int i;

	len = (size_t)snprintf(text, sizeof(text), "CPU 0:\n%s", RAW_L0_AMD);
	for (i = 0; i < CPUID_DUMP_MAX_ENTRIES; i++) {
		fit = len;
		len += (size_t)snprintf(text + len, sizeof(text) - len,
			"   0x80000000 0x%02x: " Z4 "\n", i);
	}
	err[0] = '\0';
	expect_error("too many entries",
		     cpuid_dump_parse(text, len, 0, &dump, err, sizeof(err)),
		     "<input>:1026: too many CPUID entries");
	ok(!cpuid_dump_parse(text, fit, 0, &dump, err, sizeof(err)) &&
	   dump.n == CPUID_DUMP_MAX_ENTRIES, "exactly %u entries fit",
	   CPUID_DUMP_MAX_ENTRIES);
}

/* The text need not be NUL-terminated: @len is the end. */
static void test_bounds(void)
{
	static const char text[] = AIDA_HDR AIDA_L0;
	char buf[sizeof(text) + 8];

	memcpy(buf, text, sizeof(text) - 1);
	memset(buf + sizeof(text) - 1, '7', sizeof(buf) - sizeof(text) + 1);
	ok(!cpuid_dump_parse(buf, sizeof(text) - 1, 0, &dump, err, sizeof(err)) &&
	   regs_are(&dump, 0, 0, 1, 0x68747541, 0x444d4163, 0x69746e65),
	   "bytes past len are not read (unterminated buffer)");
	expect_error("len ends inside a register",
		     cpuid_dump_parse(buf, sizeof(text) - 5, 0, &dump, err,
				      sizeof(err)), "<input>:2: truncated line");
	expect_error("NULL text", cpuid_dump_parse(NULL, 10, 0, &dump, err,
						   sizeof(err)), "empty file");
}

/* ---- completeness: what leaf 0 and 0x80000000 promise is there ---- */

#define RAW(leaf, eax) "   0x" leaf " 0x00: eax=0x" eax " " Z3 "\n"
#define RAW_EXT(max)	RAW("80000000", max) RAW("80000001", "00000000")

struct complete_case {
	const char *what;
	const char *text;
	const char *want;	/* NULL: complete */
	bool warning;		/* want is a warning: decoded all the same */
};

static const struct complete_case complete_cases[] = {
	{ "Intel, basic and extended leaves up to their maxima",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000004") RAW("00000001", "000906e9")
	  RAW("00000002", "00000001") RAW("00000004", "1c004121")
	  RAW_EXT("80000006") RAW("80000005", "00000000") RAW("80000006", "00000000"), NULL },
	{ "cut after leaf 1 (head -3 of a dump)",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000016") RAW("00000001", "000906e9"),
	  "<input>: CPU 0 block is incomplete (cut short?): no leaf 0x2, which leaf 0 "
	  "promises (highest basic leaf 0x16)" },
	{ "the highest basic leaf missing, every leaf the decoder reads there",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000016") RAW("00000001", "000906e9")
	  RAW("00000002", "00000001") RAW("00000004", "1c004121")
	  RAW_EXT("80000006") RAW("80000005", "00000000") RAW("80000006", "00000000"),
	  "<input>: CPU 0 block lacks leaf 0x16, the highest that leaf 0 names (a tool "
	  "that leaves leaves out, or cut short?); decoded anyway", true },
	{ "the highest basic leaf missing, and 0x80000000 with it",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000016") RAW("00000001", "000906e9")
	  RAW("00000002", "00000001") RAW("00000004", "1c004121"),
	  "no leaf 0x80000000, which every CPU with leaf 4 has" },
	{ "Intel leaf 4 missing below the maximum",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000005") RAW("00000001", "000906e9")
	  RAW("00000002", "00000001") RAW("00000005", "00000040") RAW_EXT("80000001"),
	  "no leaf 0x4, which leaf 0 promises" },
	{ "cut between the basic and the extended leaves",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000004") RAW("00000001", "000906e9")
	  RAW("00000002", "00000001") RAW("00000004", "1c004121"),
	  "no leaf 0x80000000, which every CPU with leaf 4 has" },
	{ "the highest extended leaf missing, every leaf the decoder reads there",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000002") RAW("00000001", "00000f29")
	  RAW("00000002", "00000001") RAW_EXT("80000008") RAW("80000005", "00000000")
	  RAW("80000006", "00000000"),
	  "lacks leaf 0x80000008, the highest that leaf 0x80000000 names", true },
	{ "cut inside the extended leaves",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000002") RAW("00000001", "00000f29")
	  RAW("00000002", "00000001") RAW_EXT("80000008"),
	  "no leaf 0x80000005, which leaf 0x80000000 promises (highest extended leaf "
	  "0x80000008)" },
	{ "0x80000006 missing below the extended maximum",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000002") RAW("00000001", "00000f29")
	  RAW("00000002", "00000001") RAW_EXT("80000008") RAW("80000005", "00000000")
	  RAW("80000008", "00003028"),
	  "no leaf 0x80000006" },
	{ "a Pentium III: highest leaf 3, no extended leaves",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000003") RAW("00000001", "00000683")
	  RAW("00000002", "03020101") RAW("00000003", "00000000"), NULL },
	{ "0x80000000 that names no extended leaf (Intel's echo)",
	  "CPU 0:\n" RAW_L0_INTEL("0x00000002") RAW("00000001", "00000683")
	  RAW("00000002", "03020101") RAW("80000000", "03020101"), NULL },
	{ "AMD: leaf 4 may be missing (AIDA64 leaves zeros out)",
	  "CPU 0:\n" RAW_L0_AMD RAW("00000001", "00a60f12") RAW_EXT("80000006")
	  RAW("80000005", "ff48ff40") RAW("80000006", "5c002200"), NULL },
	{ "AMD without extended leaves",
	  "CPU 0:\n" RAW_L0_AMD RAW("00000001", "00000f51"),
	  "no leaf 0x80000000, which every AMD and Hygon CPU has" },
	{ "AMD with TOPOEXT but no 0x8000001D",
	  "CPU 0:\n" RAW_L0_AMD RAW("00000001", "00a60f12")
	  RAW("80000000", "8000001d")
	  "   0x80000001 0x00: eax=0x00a60f12 ebx=0x00000000 ecx=0x00400000 edx=0x00000000\n"
	  RAW("80000005", "ff48ff40") RAW("80000006", "5c002200")
	  RAW("8000001e", "00000000"),
	  "no leaf 0x8000001d" },
	{ "AMD with TOPOEXT and 0x8000001D",
	  "CPU 0:\n" RAW_L0_AMD RAW("00000001", "00a60f12")
	  RAW("80000000", "8000001d")
	  "   0x80000001 0x00: eax=0x00a60f12 ebx=0x00000000 ecx=0x00400000 edx=0x00000000\n"
	  RAW("80000005", "ff48ff40") RAW("80000006", "5c002200")
	  RAW("8000001d", "00004121"), NULL },
};

static void test_complete(void)
{
	const struct complete_case *c;
	int ret;

	for (c = complete_cases; c < complete_cases + sizeof(complete_cases) / sizeof(*c); c++) {
		err[0] = '\0';
		if (parse(c->text, 0, &dump)) {
			ok(false, "complete: %s: parses (%s)", c->what, err);
			continue;
		}
		ret = cpuid_dump_check(&dump, "<input>", 0, err, sizeof(err));
		if (c->warning)
			ok(ret == 1 && strstr(err, c->want), "complete: %s: a warning, decoded (%s)",
			   c->what, err);
		else if (c->want)
			expect_error(c->what, ret, c->want);
		else if (!ok(!ret, "complete: %s", c->what))
			printf("# %s\n", err);
	}
}

/* ---- files ---- */

static const char *tmp_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, len, "%s/test-dump-%ld-%s", dir ? dir : "/tmp",
		 (long)getpid(), name);
	return buf;
}

static bool write_file(const char *path, const char *text, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t len = strlen(text);
	bool good;

	if (fd < 0)
		return false;
	good = write(fd, text, len) == (ssize_t)len &&
	       (size <= (off_t)len || !ftruncate(fd, size));
	return !close(fd) && good;
}

static int load(const char *path, unsigned int cpu)
{
	err[0] = '\0';
	return cpuid_dump_load(path, cpu, &dump, err, sizeof(err));
}

static void test_load(void)
{
	char path[512], want[600];

	expect_error("missing file",
		     load("/nonexistent/kcolour/dump.txt", 0),
		     "/nonexistent/kcolour/dump.txt: cannot open: No such file");
	expect_error("directory", load("/", 0), "/: not a regular file");

	tmp_path(path, sizeof(path), "empty");
	write_file(path, "", 0);
	snprintf(want, sizeof(want), "%s: empty file", path);
	expect_error("empty file", load(path, 0), want);

	write_file(path, "", (off_t)CPUID_DUMP_MAX_FILE + 1);	/* sparse */
	expect_error("file larger than 16 MiB", load(path, 0), "larger than 16 MiB");

	write_file(path, AIDA_HDR AIDA_L0 "CPUID 00000001: 00000F51-X\n", 0);
	snprintf(want, sizeof(want), "%s:3: bad hex in register field", path);
	expect_error("FILE:LINE: in messages", load(path, 0), want);

	write_file(path, AIDA_HDR AIDA_L0, 0);
	snprintf(want, sizeof(want), "no CPU 2 in %s (1 CPU)", path);
	expect_error("no CPU 2 in FILE", load(path, 2), want);
	ok(!load(path, 0) && dump.n == 1, "load: small file");
	unlink(path);
}

static const char *fixture_dir(void)
{
	const char *env = getenv("FIXTURES");

	if (env && *env)
		return env;
	fprintf(stderr, "test-dump: set FIXTURES to the fixture dir (facts.tsv's fixtures path)\n");
	exit(2);
}

#define MAX_FILES 512

static char names[MAX_FILES][512];

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* *.txt under @dir (not README.md, not the JSON), sorted; count or -1. */
static int list_dumps(const char *dir, unsigned int first)
{
	unsigned int n = first;
	struct dirent *de;
	DIR *dh = opendir(dir);
	size_t len;

	if (!dh)
		return -1;
	while ((de = readdir(dh)) && n < MAX_FILES) {
		len = strlen(de->d_name);
		if (len > 4 && !strcmp(de->d_name + len - 4, ".txt"))
			snprintf(names[n++], sizeof(names[0]), "%s/%s", dir,
				 de->d_name);
	}
	closedir(dh);
	qsort(names[first], n - first, sizeof(names[0]), cmp_name);
	return (int)(n - first);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = strlen(s), lt = strlen(tail);

	return ls >= lt && !strcmp(s + ls - lt, tail);
}

/*
 * X.cpuid-r.txt next to instlatx64/X_CPUID.txt holds the same CPU 0
 * registers: both parsers must agree on every entry.
 */
static void check_twin(const char *dir, const char *raw_path)
{
	const char *base = strrchr(raw_path, '/') + 1;
	char twin[1024];
	unsigned int i, bad = 0;
	u32 r[4];

	snprintf(twin, sizeof(twin), "%s/instlatx64/%.*s_CPUID.txt", dir,
		 (int)(strlen(base) - strlen(".cpuid-r.txt")), base);
	if (access(twin, R_OK))
		return;
	if (cpuid_dump_load(twin, 0, &dump2, err, sizeof(err))) {
		ok(false, "%s: twin %s: %s", base, twin, err);
		return;
	}
	for (i = 0; i < dump.n; i++) {
		cpuid_dump_query(&dump2, dump.e[i].leaf, dump.e[i].subleaf, r);
		bad += !!memcmp(r, dump.e[i].regs, sizeof(r));
	}
	ok(!bad && dump.n == dump2.n,
	   "%s and its AIDA64 twin agree (%u entries, %u differ)", base,
	   dump.n, bad);
}

/* Every block of every fixture is complete: the check refuses, or warns of, no real dump. */
static void check_fixtures_complete(int files)
{
	unsigned int cpu, blocks = 0, bad = 0;
	int i;

	for (i = 0; i < files; i++) {
		for (cpu = 0; !load(names[i], cpu); cpu++) {
			blocks++;
			if (cpuid_dump_check(&dump, names[i], cpu, err, sizeof(err)) && !bad++)
				printf("# %s\n", err);
			if (cpu + 1 >= dump.cpus)
				break;
		}
	}
	ok(blocks > (unsigned int)files && !bad,
	   "every CPU block of the %d fixtures is complete (%u blocks, %u incomplete)",
	   files, blocks, bad);
}

static void test_fixtures(void)
{
	const char *dir = fixture_dir();
	char sub[1024];
	int n, m, i;

	snprintf(sub, sizeof(sub), "%s/instlatx64", dir);
	n = list_dumps(dir, 0);
	m = n < 0 ? -1 : list_dumps(sub, (unsigned int)n);
	if (!ok(n > 0 && m > 0, "fixtures found in %s (%d + %d dumps)", dir, n, m))
		return;
	for (i = 0; i < n + m; i++) {
		const char *base = strrchr(names[i], '/') + 1;
		bool raw = ends_with(base, ".cpuid-r.txt");
		int want = raw ? CPUID_FMT_RAW : CPUID_FMT_AIDA64;
		int ret = load(names[i], 0);

		if (!ok(!ret && dump.format == want,
			"fixture %s loads for CPU 0 (%u entries, %s)", base,
			dump.n, raw ? "cpuid -r" : "AIDA64"))
			printf("# %s\n", err);
		else if (raw)
			check_twin(dir, names[i]);
	}
	check_fixtures_complete(n + m);
	snprintf(sub, sizeof(sub), "%s/instlatx64/AuthenticAMD0830F10_K17_Rome_CPUID.txt", dir);
	if (access(sub, R_OK))
		return;
	ok(!load(sub, 255) && dump.n == 59 && dump.cpus == 256,
	   "Rome: CPU 255 is the last block of 256");
	expect_error("Rome: no CPU 256", load(sub, 256), "(256 CPUs)");
}

int main(void)
{
	test_raw();
	test_aida();
	test_query();
	test_errors();
	test_too_many();
	test_bounds();
	test_complete();
	test_load();
	test_fixtures();
	if (failures)
		printf("# %d of %d tests failed\n", failures, tests);
	return tap_end();
}
