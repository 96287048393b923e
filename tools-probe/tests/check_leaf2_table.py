#!/usr/bin/env python3
"""The leaf 2 descriptor table against Debian's `cpuid` tool, byte by byte.

Builds a `cpuid -r` dump with one logical CPU per descriptor byte 0x01-0xfe
(each CPU's leaf 2 holds only that byte), has `cpuid -f` decode it, and
compares every cache the tool names with kcolour-probe's decode of the same
CPU: level, type, size, ways, line.  A byte the tool calls a cache and the
probe does not know (or the reverse) fails, unless listed in EXCEPTIONS.
TAP output.  usage: check_leaf2_table.py PROBE
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from probelib import Tap, run_probe  # noqa: E402

# Bytes where the two decoders differ on purpose, with the reason.
EXCEPTIONS = {
    0x3F: "the cpuid tool does not know 0x3f; Linux's table and older SDM "
          "editions have it as L2 256K 2-way 64B",
}

TOOL_LINE = re.compile(
    r"^\s+0x([0-9a-f]{2}): (L1 data cache|L1 instruction cache|L1 cache|L2 cache|"
    r"L3 cache|Trace cache|L1 trace cache|instruction trace cache)[^:]*: "
    r"([\d.]+)\s*([KM])[^,]*, (\d+)-way(?:.*?(\d+)[- ]byte lines)?", re.M)
TOOL_TYPE = {"L1 data cache": (1, "data"), "L1 instruction cache": (1, "instruction"),
             # 0x30 only; the SDM calls it the 1st-level instruction cache
             "L1 cache": (1, "instruction"), "L2 cache": (2, "unified"),
             "L3 cache": (3, "unified")}


def dump_text():
    blocks = []
    for d in range(1, 0xFF):
        blocks.append(
            f"CPU {d - 1}:\n"
            "   0x00000000 0x00: eax=0x00000002 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
            "   0x00000001 0x00: eax=0x000006f6 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
            f"   0x00000002 0x00: eax=0x{1 | d << 8:08x} ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n")
    return "".join(blocks)


def tool_decode(path):
    out = subprocess.run(["cpuid", "-f", path], capture_output=True, text=True, check=True).stdout
    caches = {}
    for m in TOOL_LINE.finditer(out):
        d, kind = int(m.group(1), 16), m.group(2)
        size = float(m.group(3)) * (1024 if m.group(4) == "K" else 1 << 20)
        if "trace" in kind.lower():
            caches[d] = (1, "trace", int(size), int(m.group(5)), 0)
        else:
            level, ctype = TOOL_TYPE[kind]
            caches[d] = (level, ctype, int(size), int(m.group(5)), int(m.group(6) or 0))
    return caches


def probe_decode(probe, path, d):
    caches = run_probe(probe, path, "--no-sysfs", "--cpu", d - 1)
    if not caches:
        return None
    c = caches[0]
    return (c["level"], c["type"], c.get("size", c.get("uops")), c["ways"], c.get("line", 0))


def main():
    probe = sys.argv[1]
    with tempfile.NamedTemporaryFile("w", suffix=".raw") as f:
        f.write(dump_text())
        f.flush()
        tool = tool_decode(f.name)
        if len(tool) < 60:
            print(f"Bail out! the cpuid tool decoded only {len(tool)} cache descriptors")
            return 2
        tap = Tap()
        for d in range(1, 0xFF):
            mine, theirs = probe_decode(probe, f.name, d), tool.get(d)
            if mine is None and theirs is None:
                continue
            if mine == theirs:
                tap(True, f"descriptor 0x{d:02x}: {mine}")
            elif d in EXCEPTIONS:
                tap(True, f"descriptor 0x{d:02x}: probe {mine}, tool {theirs} # exception: {EXCEPTIONS[d]}")
            else:
                tap(False, f"descriptor 0x{d:02x}: probe {mine}, cpuid tool {theirs}")
    tap.plan()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
