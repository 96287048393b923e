#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Differential test of kcolour-probe against Debian's `cpuid -f` decode.

usage: check_cpuid_tool.py PROBE [--all] [DUMP-NAME-SUBSTRING...]

Inputs: every $FIXTURES/*.cpuid-r.txt, and a selection of InstLatx64
AIDA64 dumps (--all: every one) converted to `cpuid -r` text by
aida_to_raw() below, in a temporary directory.  For each, Todd Allen's
cpuid decodes CPU 0 (`cpuid -f FILE`) and the probe decodes the same file
(`PROBE --cpuid-file FILE --json`).  Each cache the probe reports with
source leaf4, leaf2, 0x8000001d, 0x80000005 or 0x80000006 is compared
(level, type, size, ways, line; uops and ways for a trace cache; the
descriptor byte for leaf 2) with what cpuid prints for that source; a
cache cpuid decodes from a source the probe uses, at a level and type the
probe does not report at all, is a miss too.  For converted dumps the
probe must also decode the converted file exactly as it decodes the
AIDA64 original, and aida_to_raw() must reproduce the shared
*.cpuid-r.txt fixtures from their InstLatx64 originals byte for byte
(parser and converter check each other).

The cpuid tool's own quirks are handled in the parsers (see the comments
there) or listed in QUIRKS with the reason; a quirk that no longer
happens is stale and fails.  Output is TAP, one line per dump; exit 0 if
all pass, 1 if not, 2 if the probe or `cpuid` is missing.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probelib import FIXTURES, Tap, cache_name, probe_arg, run_probe  # noqa: E402

# InstLatx64 dumps converted by default: one per decoding path.
SELECTED = (
    "GenuineIntel0000683_P3_Coppermine_CPUID.txt",	# leaf 2 only, 32-byte lines
    "GenuineIntel0000F29_P4_Northwood_CPUID.txt",	# leaf 2 only, trace cache
    "GenuineIntel0000F43_P4_Prescott_CPUID.txt",	# leaf 4 + leaf-2 trace cache
    "GenuineIntel00006F7_Clovertown_CPUID.txt",		# leaf 4, untagged subleafs
    "GenuineIntel00B0671_RaptorLake_12_CPUID.txt",	# leaf 4, hybrid
    "GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt",	# leaf 4, 12-way 48K "L0"
    "AuthenticAMD0000F51_K8_Sledgehammer_CPUID.txt",	# 0x80000005/6 only
    "AuthenticAMD0600F12_Interlagos_CPUID.txt",		# 0x8000001D, untagged
    "AuthenticAMD0800F11_K17_Zen_CPUID15_TR.txt",	# Zen 1
    "AuthenticAMD0B20F40_K20_StrixPoint_07_CPUID.txt",	# Zen 5
    "CentaurHauls00307B0_6640MA_CPUID.txt",		# Centaur
)

# Where `cpuid` itself is wrong or says less than the registers do, per
# dump: (file, cache, field, cpuid says, probe says, reason), values as
# str.  Empty for now: the tool's quirks met on these fixtures are all
# systematic and normalised by the parsers below, each with its reason:
#  - leaf 2 descriptor 0x30 printed as "L1 cache" (no kind): LEAF2_KIND_FIX;
#  - 0x80000006 associativity printed as ranges ("8 to 15-way"): amd_assoc();
#  - 0x80000006 code 9 printed raw, ways unknown: not compared;
#  - fully associative leaf 4 / 0x8000001D caches: EBX ways, probe says 0.
QUIRKS = (
)

SOURCES = ("leaf4", "leaf2", "0x8000001d", "0x80000005", "0x80000006")
ABSENT = "-"


# ---- AIDA64 -> `cpuid -r` ----

AIDA_CPU = re.compile(r"^------\[ (?:CPUID Registers / )?Logical CPU #\d+ \]------")
AIDA_ENTRY = re.compile(
    r"^CPUID\s+([0-9A-Fa-f]{8}):?\s+([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})-"
    r"([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8})(?:\s+\[SL ([0-9A-Fa-f]+)\])?")


def aida_to_raw(text, cpu=0):
    """The @cpu'th logical-CPU block (by position) of AIDA64 CPUID text, as
    `cpuid -r` text.  [SL nn] is hex; untagged repeats of a leaf are its
    subleafs 0, 1, 2... in order (as cpuid_dump.c reads them)."""
    out, seen, block, inside = ["CPU %d:" % cpu], {}, -1, False
    for line in text.splitlines():
        if line.startswith("------["):
            if inside and block == cpu:
                break
            inside = AIDA_CPU.match(line) is not None
            block += inside
            continue
        m = AIDA_ENTRY.match(line)
        if not (inside and block == cpu and m):
            continue
        leaf = int(m[1], 16)
        sub = int(m[6], 16) if m[6] else seen.get(leaf, 0)
        seen[leaf] = seen.get(leaf, 0) + 1
        regs = [int(r, 16) for r in m.group(2, 3, 4, 5)]
        out.append("   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x"
                   % (leaf, sub, *regs))
    if len(out) < 2:
        raise ValueError("no CPU %d block with entries" % cpu)
    return "\n".join(out) + "\n"


# ---- `cpuid -f` output ----
#
# Sections start at 3 spaces of indent, their fields at 6 and more.  What
# each cache section prints, and the tool's quirks handled here:
#  - leaf 4 / 0x8000001D: "--- cache N ---" blocks of "key = value"; the
#    ways are EBX's count even for a fully associative cache, where the
#    probe says 0 (its convention), so "fully associative = true" maps to 0.
#  - leaf 2: one "0xNN: text" line per descriptor, the cpuid tool's table
#    text ("L2 cache: 2M, 8-way, 64 byte lines", "Trace cache: 12K-uop,
#    8-way"), TLB and prefetch lines among them.
#  - 0x80000005: associativity printed raw; 0xff is fully associative.
#  - 0x80000006: associativity printed from an old table as ranges ("8 to
#    15-way (6)", "16 to 31-way (8)"); AMD's APM defines the code as the
#    lower bound exactly (6 = 8 ways, 8 = 16, 0xA = 32 ...), so that is
#    taken.  Codes the table lacks are printed raw ("0x9 (9)": Zen's "see
#    0x8000001D"): ways unknown, not compared.  L3 size is in 512 KB units.

def cpu0_sections(text):
    """{section title: [field lines]} for the first CPU of `cpuid` output."""
    sections, cur, cpus = {}, None, 0
    for line in text.splitlines():
        if re.match(r"^CPU( \d+)?:\s*$", line):
            cpus += 1
            if cpus > 1:
                break
            continue
        if line.startswith("   ") and not line.startswith("    "):
            cur = sections.setdefault(line.strip(), [])
        elif cur is not None and line.startswith("    "):
            cur.append(line.strip())
    return sections


def num(value):
    """The decimal of "0x40 (64)", "data cache (1)", "64", "32768 (32 KB)"."""
    m = re.search(r"\((\d+)\)\s*$", value) or re.match(r"\s*(\d+)", value)
    if not m:
        raise ValueError("no number in cpuid output %r" % value)
    return int(m[1])


def kv(line):
    key, _, value = line.partition("=")
    return key.strip(), value.strip()


CACHE_TYPES = {1: "data", 2: "instruction", 3: "unified"}

# field names of the two "deterministic" listings
DET_KEYS = {
    "leaf4": {"type": "cache type", "level": "cache level",
              "full": "fully associative cache", "line": "system coherency line size",
              "ways": "ways of associativity", "size": "(size synth)"},
    "0x8000001d": {"type": "type", "level": "level", "full": "fully associative",
                   "line": "line size in bytes", "ways": "number of ways",
                   "size": "(synth size)"},
}
DET_SECTION = {"leaf4": "deterministic cache parameters (4):",
               "0x8000001d": "Cache Properties (0x8000001d):"}


def deterministic(lines, source):
    keys, caches, cur = DET_KEYS[source], [], None
    for line in lines:
        if line.startswith("--- cache"):
            cur = {}
            caches.append(cur)
        elif cur is not None and "=" in line:
            k, v = kv(line)
            cur[k] = v
    out = []
    for c in caches:
        ctype = CACHE_TYPES.get(num(c.get(keys["type"], "0 (0)")))
        if not ctype:
            continue
        full = c.get(keys["full"]) == "true"
        out.append({"level": num(c[keys["level"]]), "type": ctype,
                    "size": num(c[keys["size"]]), "line": num(c[keys["line"]]),
                    "ways": 0 if full else num(c[keys["ways"]])})
    return out


LEAF2_CACHE = re.compile(
    r"^(?P<desc>0x[0-9a-f]{2}): L(?P<level>[123]) (?P<kind>data |instruction )?cache: "
    r"(?P<size>[\d.]+)(?P<unit>[KM])(?: MLC)?, (?P<ways>\d+)-way, (?:sectored, )?"
    r"(?P<line>\d+)[ -]byte lines")
LEAF2_TRACE = re.compile(
    r"^(?P<desc>0x[0-9a-f]{2}): Trace cache: (?P<uops>\d+)K-uop, (?P<ways>\d+)-way")
# cpuid prints descriptor 0x30 as "L1 cache: 32K, 8-way, 64 byte lines";
# the SDM's table says "1st-level instruction cache".  A kind-less "L1
# cache" is otherwise a unified one (cpuid's Cyrix-style entries).
LEAF2_KIND_FIX = {"0x30": "instruction"}


def leaf2(lines):
    out = []
    for line in lines:
        m = LEAF2_CACHE.match(line)
        if m:
            kind = (m["kind"] or "").strip() or LEAF2_KIND_FIX.get(m["desc"], "unified")
            out.append({"level": int(m["level"]), "type": kind,
                        "size": int(float(m["size"]) * (1 << (10 if m["unit"] == "K" else 20))),
                        "ways": int(m["ways"]), "line": int(m["line"]),
                        "descriptor": m["desc"]})
        m = LEAF2_TRACE.match(line)
        if m:
            out.append({"level": 1, "type": "trace", "uops": int(m["uops"]) * 1024,
                        "ways": int(m["ways"]), "descriptor": m["desc"]})
    return out


def amd_assoc(value):
    """Ways from cpuid's 0x80000006 associativity text; None if unknown."""
    for pattern, ways in ((r"^(\d+)-way", None), (r"^(\d+) to \d+-way", None),
                          (r"^(\d+) or more-way", None), (r"^direct mapped", 1),
                          (r"^full", 0)):
        m = re.match(pattern, value)
        if m:
            return ways if ways is not None else int(m[1])
    return None


def legacy_amd(sections):
    """Caches of 0x80000005 (ECX/EDX) and 0x80000006 (ECX/EDX)."""
    table = (
        ("0x80000005", "L1 data cache information (0x80000005/ecx):", 1, "data",
         "size (KB)", 1 << 10, lambda v: 0 if num(v) == 0xff else num(v)),
        ("0x80000005", "L1 instruction cache information (0x80000005/edx):", 1,
         "instruction", "size (KB)", 1 << 10, lambda v: 0 if num(v) == 0xff else num(v)),
        ("0x80000006", "L2 unified cache information (0x80000006/ecx):", 2, "unified",
         "size (KB)", 1 << 10, amd_assoc),
        ("0x80000006", "L3 cache information (0x80000006/edx):", 3, "unified",
         "size (in 512KB units)", 512 << 10, amd_assoc),
    )
    out = {"0x80000005": [], "0x80000006": []}
    for source, title, level, ctype, size_key, unit, assoc in table:
        f = dict(kv(line) for line in sections.get(title, []) if "=" in line)
        if not f or num(f[size_key]) == 0:
            continue
        out[source].append({"level": level, "type": ctype,
                            "size": num(f[size_key]) * unit,
                            "line": num(f["line size (bytes)"]),
                            "ways": assoc(f["associativity"])})
    return out


def cpuid_caches(path):
    """{source: [cache dicts]} from `cpuid -f path`, CPU 0."""
    out = subprocess.run(["cpuid", "-f", str(path)], capture_output=True,
                         text=True, timeout=60)
    if out.returncode:
        raise RuntimeError("cpuid -f exit %d: %s" % (out.returncode, out.stderr.strip()))
    sec = cpu0_sections(out.stdout)
    caches = {s: deterministic(sec.get(DET_SECTION[s], []), s) for s in DET_SECTION}
    caches["leaf2"] = leaf2(sec.get("cache and TLB information (2):", []))
    caches.update(legacy_amd(sec))
    return caches


# ---- comparison ----

def compare(tool, probe_caches):
    """[(cache, field, cpuid says, probe says, source)]"""
    misses = []
    have = {cache_name(c["level"], c["type"]) for c in probe_caches}
    used = {c.get("source") for c in probe_caches}
    for c in probe_caches:
        src = c.get("source")
        if src not in SOURCES:
            continue
        name = cache_name(c["level"], c["type"])
        match = [t for t in tool[src] if cache_name(t["level"], t["type"]) == name]
        fields = ("uops", "ways") if c["type"] == "trace" else ("size", "ways", "line")
        if src == "leaf2":
            fields += ("descriptor",)
        for f in fields:
            want = match[0].get(f, ABSENT) if match else ABSENT
            if want is None:		# cpuid printed no usable value
                continue
            if want != c.get(f, ABSENT):
                misses.append((name, f, str(want), str(c.get(f, ABSENT)), src))
    for src in sorted(used & set(SOURCES)):
        for t in tool[src]:
            name = cache_name(t["level"], t["type"])
            if name not in have:
                misses += [(name, f, str(t.get(f)), ABSENT, src)
                           for f in ("size", "ways", "line") if t.get(f) is not None]
    return misses


def check(tap, probe, name, raw_path, original, quirks, used):
    try:
        tool = cpuid_caches(raw_path)
        got = run_probe(probe, raw_path)
        orig = run_probe(probe, original) if original else got
    except (OSError, RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        tap(False, name, ["%s: %s" % (type(e).__name__, e)])
        return
    diag, bad = [], 0
    if orig != got:
        bad += 1
        diag.append("probe decodes the converted file differently from the original")
    for cache, field, want, have, src in compare(tool, got):
        k = (name, cache, field, want, have)
        line = "%s %s %s: cpuid %s, probe %s" % (cache, src, field, want, have)
        if k in quirks:
            used.add(k)
            diag.append(line + " (cpuid quirk: %s)" % quirks[k])
        else:
            bad += 1
            diag.append(line)
    srcs = sorted({c.get("source") for c in got} & set(SOURCES))
    tap(not bad, "%s (%s)" % (name, ", ".join(srcs) or "no CPUID cache source"), diag)


def main(argv):
    args = [a for a in argv[2:] if a != "--all"]
    probe = probe_arg(argv, "PROBE [--all] [DUMP-NAME-SUBSTRING...]")
    if probe is None:
        return 2
    if not shutil.which("cpuid"):
        print("%s: the `cpuid` tool is missing (apt-get install cpuid)" % argv[0],
              file=sys.stderr)
        return 2
    raws = sorted(FIXTURES.glob("*.cpuid-r.txt"))
    aida = sorted((FIXTURES / "instlatx64").glob("*.txt"))
    if "--all" not in argv:
        aida = [p for p in aida if p.name in SELECTED]
    if args:
        raws = [p for p in raws if any(s in p.name for s in args)]
        aida = [p for p in aida if any(s in p.name for s in args)]
    quirks = {q[:5]: q[5] for q in QUIRKS}
    used, ran = set(), set()
    tap = Tap()
    for path in raws:
        ran.add(path.name)
        check(tap, probe, path.name, path, None, quirks, used)
        twin = FIXTURES / "instlatx64" / path.name.replace(".cpuid-r.txt", "_CPUID.txt")
        if twin.exists():	# the shared raw fixtures were made from these
            tap(aida_to_raw(twin.read_text(errors="replace")) == path.read_text(),
                "aida_to_raw(%s) reproduces %s" % (twin.name, path.name))
    with tempfile.TemporaryDirectory(prefix="kcolour-cpuid-") as tmp:
        for path in aida:
            ran.add(path.name)
            raw = Path(tmp) / (path.stem + ".cpuid-r.txt")
            try:
                raw.write_text(aida_to_raw(path.read_text(errors="replace")))
            except ValueError as e:
                tap(False, path.name, ["conversion: %s" % e])
                continue
            check(tap, probe, path.name, raw, path, quirks, used)
    stale = sorted(k for k in quirks if k[0] in ran and k not in used)
    tap(not stale, "QUIRKS: %d listed, none stale" % len(quirks),
        ["stale: " + " ".join(k) for k in stale])
    tap.plan()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
