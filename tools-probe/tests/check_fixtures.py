#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare kcolour-probe's decode of every InstLatx64 dump with an oracle.

usage: check_fixtures.py PROBE [DUMP-NAME-SUBSTRING...]

The oracle for a dump is AIDA64's own decoded summary that follows the
first logical-CPU block (the one `--cpu 0` decodes), e.g.

    L1    Data Cache:    32 KB,  8-way Associative, 64-byte Line
    L2 Unified Cache:     1 MB,  8-way Associative, 64-byte Line

or, for the dumps that carry none (P3 Coppermine, P4 Northwood, K8
Sledgehammer), $FIXTURES/expected-manual.json.  A dump with neither is a
failure.

Compared per cache (L1D, L1I, L2, L3, and whatever else either side has):
size, ways and line.  The manual oracle also gives uops (trace caches),
source and descriptor, compared too.  A cache on one side only is a miss
on every field.  (sets is not compared: AIDA64 does not give it, and
size / (ways * line) is not the CPUID set count of a cache with several
line partitions, like Prescott's L2.)

Exceptions: fixture-exceptions.txt next to this script, one per line,
    FILE CACHE FIELD EXPECTED GOT  # reason
("-" for a value that is absent).  An exception that no longer happens is
stale, and fails.  Output is TAP: one line per dump, one per field
(agreement must be >= 98%, explained misses included), one for the
exception list.  Exit 0 if all pass, 1 if not, 2 if the probe is missing.

AIDA64 summary variants seen (every "Cache:" line of the 55 summaries):
  - "L1    Data Cache", "L1  Instr. Cache", "L2 Unified Cache", with
    varying padding ("L3    Unified Cache" on Panther Lake);
  - sizes in KB or MB (MB only when a whole number: "19712 KB", "33 MB");
  - "L0+L1    Data Cache: 48+192 KB, 12-way ..." (Panther Lake, Cougar
    Cove P-cores).  Intel now calls the 48 KB first-level data cache "L0"
    and adds a 192 KB cache between it and L2.  CPUID leaf 4 enumerates
    only the 48 KB one, as level 1 (FC004121-02C0003F-0000003F: 12 ways x
    64 sets x 64 B), and the ways figure is that cache's.  The 192 KB cache
    is in no CPUID leaf, so no decoder can see it: the first component is
    compared as L1D and the second is reported and dropped.  Any other
    "LA+LB" line is read the same way (first component at level max(A, 1)).
Any other "Cache:" line in a summary fails the dump, so a new variant
is noticed rather than skipped.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from probelib import FIXTURES, ProbeError, Tap, cache_name, probe_arg, run_probe  # noqa: E402

EXCEPTIONS = HERE / "fixture-exceptions.txt"
THRESHOLD = 98.0

CPU_HEADER = re.compile(r"^------\[ (?:CPUID Registers / )?Logical CPU #\d+ \]------")
SUMMARY = re.compile(
    r"^L(?P<lvl>\d)(?:\+L(?P<lvl2>\d))?\s+(?P<kind>Data|Instr\.|Unified)\s+Cache:\s+"
    r"(?P<size>\d+)(?:\+(?P<size2>\d+))?\s+(?P<unit>KB|MB),\s+"
    r"(?P<ways>\d+)-way Associative,\s+(?P<line>\d+)-byte Line\s*$")
AIDA_TYPE = {"Data": "data", "Instr.": "instruction", "Unified": "unified"}
UNIT = {"KB": 1 << 10, "MB": 1 << 20}
AIDA_FIELDS = ("size", "ways", "line")
CORE_FIELDS = ("size", "ways", "line", "uops", "source")
ABSENT = "-"


def first_block(text):
    """Lines of the first logical-CPU block, up to the next section."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("------["):
            if inside:
                break
            inside = bool(CPU_HEADER.match(line))
        elif inside:
            lines.append(line)
    return lines


def aida_oracle(path):
    """{cache name: fields} from the AIDA64 summary, notes, unparsed lines."""
    caches, notes, bad = {}, [], []
    for line in first_block(path.read_text(errors="replace")):
        if "Cache:" not in line:
            continue
        m = SUMMARY.match(line)
        if not m:
            bad.append(line.strip())
            continue
        level = max(int(m["lvl"]), 1)
        ctype = AIDA_TYPE[m["kind"]]
        if m["lvl2"]:
            notes.append("%s: L%s+L%s: %s %s at CPUID level %d; the %s %s L%s is "
                         "not in CPUID, dropped" % (path.name, m["lvl"], m["lvl2"],
                         m["size"], m["unit"], level, m["size2"], m["unit"], m["lvl2"]))
        caches[cache_name(level, ctype)] = {
            "size": int(m["size"]) * UNIT[m["unit"]],
            "ways": int(m["ways"]),
            "line": int(m["line"]),
        }
    return caches, notes, bad


def manual_oracle(manual, path):
    entry = manual.get(path.name)
    if entry is None:
        return None
    caches = {}
    for c in entry["caches"]:
        fields = {k: v for k, v in c.items() if k not in ("level", "type")}
        caches[cache_name(c["level"], c["type"])] = fields
    return caches


def probe_caches(probe, path):
    """{cache name: fields} from the probe's JSON, or an error string."""
    try:
        listed = run_probe(probe, path)
    except ProbeError as e:
        return str(e)
    names = [cache_name(c["level"], c["type"]) for c in listed]
    caches = dict(zip(names, listed))
    if len(caches) != len(names):
        return "probe lists a cache twice: %s" % " ".join(names)
    return caches


def compare(oracle, got, fields):
    """[(cache, field, expected, got)] for every field compared.

    The fields are @fields, or all the oracle gives for that cache; for a
    cache the oracle lacks, those the probe has (CORE_FIELDS by default)."""
    out = []
    for name in sorted(set(oracle) | set(got)):
        exp, have = oracle.get(name, {}), got.get(name, {})
        side = exp or have
        keys = fields or list(exp) or CORE_FIELDS
        out += [(name, k, exp.get(k, ABSENT), have.get(k, ABSENT))
                for k in keys if k in side]
    return out


def load_exceptions():
    """{(file, cache, field, expected, got): reason}, or exit on a bad line."""
    exc = {}
    if not EXCEPTIONS.exists():
        return exc
    for no, raw in enumerate(EXCEPTIONS.read_text().splitlines(), 1):
        body, _, reason = raw.partition("#")
        if not body.strip():
            continue
        parts = body.split()
        if len(parts) != 5 or not reason.strip():
            sys.exit("%s:%d: want 'FILE CACHE FIELD EXPECTED GOT  # reason'"
                     % (EXCEPTIONS, no))
        exc[tuple(parts)] = reason.strip()
    return exc


def main(argv):
    probe = probe_arg(argv, "PROBE [DUMP-NAME-SUBSTRING...]")
    if probe is None:
        return 2
    dumps = sorted((FIXTURES / "instlatx64").glob("*.txt"))
    if argv[2:]:
        dumps = [d for d in dumps if any(s in d.name for s in argv[2:])]
    if not dumps:
        print("%s: no dumps in %s/instlatx64" % (argv[0], FIXTURES), file=sys.stderr)
        return 2
    manual = json.loads((FIXTURES / "expected-manual.json").read_text())
    exceptions = load_exceptions()
    used = set()
    stats = {}
    tap = Tap()

    for path in dumps:
        aida, notes, bad = aida_oracle(path)
        oracles = []
        if aida:
            oracles.append(("aida64", aida, AIDA_FIELDS))
        man = manual_oracle(manual, path)
        if man is not None:
            oracles.append(("manual", man, None))
        got = probe_caches(probe, path)
        if bad or not oracles or isinstance(got, str):
            why = ["unparsed summary line: " + b for b in bad]
            why += [] if oracles else ["no oracle: no AIDA64 summary, not in expected-manual.json"]
            why += [got] if isinstance(got, str) else []
            tap(False, path.name, why)
            continue
        diag, unexplained = list(notes), 0
        for oname, oracle, fields in oracles:
            for cache, field, e, g in compare(oracle, got, fields):
                s = stats.setdefault(field, [0, 0])
                s[0] += e == g
                s[1] += 1
                if e == g:
                    continue
                k = (path.name, cache, field, str(e), str(g))
                line = "%s %s: %s expected %s got %s" % (oname, cache, field, e, g)
                if k in exceptions:
                    used.add(k)
                    diag.append(line + " (exception: %s)" % exceptions[k])
                else:
                    unexplained += 1
                    diag.append(line)
        names = "+".join(o[0] for o in oracles)
        tap(not unexplained, "%s (%s, %d caches)" % (path.name, names, len(got)), diag)

    for key in sorted(stats):
        agree, total = stats[key]
        pct = 100.0 * agree / total
        tap(pct >= THRESHOLD, "field %s: %d/%d agree (%.1f%%, need %.0f%%)"
            % (key, agree, total, pct, THRESHOLD))
    if not argv[2:]:
        stale = sorted(set(exceptions) - used)
        tap(not stale, "fixture-exceptions.txt: %d exception(s), none stale" % len(exceptions),
            ["stale: " + " ".join(k) for k in stale])
    tap.plan()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
