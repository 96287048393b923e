#!/usr/bin/env python3
"""The function alignment comparison table (docs/results/falign.md).

usage: falign-table.py WORKDIR CHOICE...
  reads WORKDIR/CHOICE.json (falign-report --json of that choice's vmlinux)
  and WORKDIR/CHOICE.config (its CONFIG_FUNCTION_ALIGNMENT and compiler);
  prints Markdown.
"""
import json
import sys
from datetime import date
from pathlib import Path

LABELS = {"default": "16 (default)", "32b": "32", "64b": "64", "64b-packed": "64 packed"}


def text(r):
    """Function bytes and the alignment padding between them."""
    return r["function_bytes"] + r["small_padding_bytes"]


def pct(x, base):
    return "%+.1f%%" % (100.0 * (x - base) / base) if base else "n/a"


def main(work, choices):
    work = Path(work)
    reports = {c: json.loads((work / (c + ".json")).read_text())["files"][0] for c in choices}
    configs = {c: dict(line.strip().split("=", 1) for line in open(work / (c + ".config")))
               for c in choices}
    base = reports[choices[0]]
    compiler = configs[choices[0]].get("CONFIG_CC_VERSION_TEXT", "?").strip('"')

    print("# Function alignment: text size against cache lines touched\n")
    print("Made by `make falign-report` (scripts/falign-report.sh) on %s: one kernel per"
          % date.today().isoformat())
    print("choice of the \"Function alignment\" Kconfig choice, tinyconfig +")
    print("`Kconfig-fragments/qemu-test.config` + `falign-CHOICE.config`, %s;" % compiler)
    print("figures from `tools-probe/falign-report --json vmlinux`.\n")
    print("- *text*: the functions' own bytes plus the padding between them (gaps")
    print("  under 4 KiB: larger ones are section alignment, which a larger text")
    print("  partly fills, so the span from first to last function hides the cost).")
    print("- *crossing*: functions shorter than 64 bytes that touch two lines.")
    print("- *lines touched*: sum over functions of the 64-byte lines each touches;")
    print("  the lower bound is the sum of ceil(size / 64).")
    print("- *minimal-lines layout*: the same functions in the same order, 16-byte")
    print("  starts, moved to the next line only where they would otherwise touch")
    print("  more lines than their size needs: it touches exactly the lower bound.")
    print("  *packed*: 16-byte starts and nothing else (the smallest text).\n")

    print("| alignment | CONFIG_FUNCTION_ALIGNMENT | text (bytes) | vs 16 | padding | "
          "crossing / short | start on a line | lines touched | over the bound |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c in choices:
        r = reports[c]
        print("| %s | %s | %d | %s | %d | %d / %d | %d of %d | %d | %s |" % (
            LABELS.get(c, c), configs[c].get("CONFIG_FUNCTION_ALIGNMENT", "?"),
            text(r), pct(text(r), text(base)),
            r["small_padding_bytes"], r["crossing"], r["short_functions"],
            r["aligned"]["64"], r["functions"], r["lines_touched"],
            pct(r["lines_touched"], r["lines_lower_bound"])))

    print("\nThe best possible trades for the same functions (16-byte build's order):\n")
    print("| layout | bytes | vs 16 text | lines touched |")
    print("| --- | ---: | ---: | ---: |")
    print("| lower bound | | | %d |" % base["lines_lower_bound"])
    print("| minimal-lines layout | %d | %s | %d |" % (
        base["minimal_lines_layout"]["bytes"],
        pct(base["minimal_lines_layout"]["bytes"], text(base)),
        base["minimal_lines_layout"]["lines_touched"]))
    print("| packed, 16-byte starts | %d | %s | %d |" % (
        base["packed_layout"]["bytes"], pct(base["packed_layout"]["bytes"], text(base)),
        base["packed_layout"]["lines_touched"]))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
