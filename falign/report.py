"""make falign-report: the kernel of each function alignment choice (facts.tsv's
falign rows), falign-report --json on its vmlinux, and the table written to
docs/results/falign.md (--out DIR, make's OUT=DIR: elsewhere) and printed.
A run keeps its record (each choice's JSON) in docs/results/data/falign/;
--report-only writes the page again from it.  The same choices' L1I misses
across text layouts are make falign-layouts's page."""
import argparse
import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

from bench.lib import record
from harness import facts, kernel, qemu, results, util

HERE = Path(__file__).resolve().parent
NAME = "falign"
JSON = ".falign.json"
# What table() reads of falign-report's report of a file.
REPORT_KEYS = ("function_bytes", "small_padding_bytes", "crossing", "short_functions", "aligned",
               "functions", "lines_touched", "lines_lower_bound", "minimal_lines_layout",
               "packed_layout")

HEAD = """# Function alignment: text size against cache lines touched

Made by `make falign-report` (falign/report.py) on %s: one kernel per
choice of the "Function alignment" Kconfig choice, tinyconfig +
`Kconfig-fragments/qemu-test.config` + `falign-CHOICE.config`, %s;
figures from `falign/falign-report --json vmlinux`, each choice's kept in
`%s` (`--report-only` writes this page again from them).  What each
choice does to L1I misses across text layouts, under the cache
simulator: [falign-layouts.md](falign-layouts.md) (`make falign-layouts`).

- *text*: the functions' own bytes plus the padding between them (gaps
  under 4 KiB: larger ones are section alignment, which a larger text
  partly fills, so the span from first to last function hides the cost).
- *crossing*: functions shorter than 64 bytes that touch two lines.
- *lines touched*: sum over functions of the 64-byte lines each touches;
  the lower bound is the sum of ceil(size / 64).
- *minimal-lines layout*: the same functions in the same order, 16-byte
  starts, moved to the next line only where they would otherwise touch
  more lines than their size needs: it touches exactly the lower bound.
  *packed*: 16-byte starts and nothing else (the smallest text).

| alignment | CONFIG_FUNCTION_ALIGNMENT | text (bytes) | vs 16 | padding | \
crossing / short | start on a line | lines touched | over the bound |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
"""


def pct(x, base):
    return "%+.1f%%" % (100.0 * (x - base) / base) if base else "n/a"


def table(rows, day, where):
    """Markdown of [(label, {CONFIG_: value}, falign-report's file report)],
    the first row the 16-byte build the others are compared with; day: the
    run's date, where: its files."""
    for _, _, r in rows:  # text: the functions' bytes and the padding between them
        r["text"] = r["function_bytes"] + r["small_padding_bytes"]
    base = rows[0][2]
    out = [HEAD % (day, rows[0][1].get("CONFIG_CC_VERSION_TEXT", "?"), where)]
    for label, config, r in rows:
        out.append("| %s | %s | %d | %s | %d | %d / %d | %d of %d | %d | %s |\n" % (
            label, config.get("CONFIG_FUNCTION_ALIGNMENT", "?"), r["text"],
            pct(r["text"], base["text"]), r["small_padding_bytes"], r["crossing"],
            r["short_functions"], r["aligned"]["64"], r["functions"], r["lines_touched"],
            pct(r["lines_touched"], r["lines_lower_bound"])))
    out.append("\nThe best possible trades for the same functions (16-byte build's order):\n\n"
               "| layout | bytes | vs 16 text | lines touched |\n| --- | ---: | ---: | ---: |\n"
               "| lower bound | | | %d |\n" % base["lines_lower_bound"])
    for name, key in (("minimal-lines layout", "minimal_lines_layout"),
                      ("packed, 16-byte starts", "packed_layout")):
        lay = base[key]
        out.append("| %s | %d | %s | %d |\n" % (name, lay["bytes"], pct(lay["bytes"], base["text"]),
                                                lay["lines_touched"]))
    return "".join(out)


def measure(work):
    """The run: each falign image's falign-report --json and its two CONFIG_
    values, NAME.falign.json in work (bench-sweep keeps the same files), and
    meta (the date)."""
    subprocess.run(["make", "-s", "-C", str(HERE), "falign-report"], check=True)
    work.mkdir(parents=True, exist_ok=True)
    for name in facts.table("falign"):
        img = kernel.image(name)
        r = subprocess.run([str(HERE / "falign-report"), "--json", str(img.path / "vmlinux")],
                           check=True, capture_output=True, text=True)
        report = json.loads(r.stdout)
        for f in report["files"]:
            f["path"] = "vmlinux"   # not the image cache's path
        report["config"] = dict(re.findall(
            r'^(CONFIG_(?:FUNCTION_ALIGNMENT|CC_VERSION_TEXT))="?(.*?)"?$',
            (img.path / "config").read_text(), re.M))
        (work / (name + JSON)).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    (work / "meta").write_text("date=%s\n" % date.today().isoformat())


def read(work):
    """[(label, config, report)] of a run's files, facts.tsv's falign rows in
    order, and its date; util.Error names what is missing or malformed."""
    try:
        rows = []
        for name, (label,) in facts.table("falign").items():
            report = json.loads((work / (name + JSON)).read_text())
            missing = [k for k in REPORT_KEYS if k not in report["files"][0]]
            if missing:
                raise ValueError("%s%s lacks %s" % (name, JSON, ", ".join(missing)))
            rows.append((label, report["config"], report["files"][0]))
        meta = dict(line.split("=", 1) for line in (work / "meta").read_text().splitlines())
        return rows, meta["date"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        raise util.Error("%s: not a run of falign.report: %s" % (work, e))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m falign.report", description=__doc__,
                                parents=[record.replay_options()],
                                epilog="(from the top of the tree, not by its path)")
    opts = p.parse_args(argv)
    work = opts.work or (record.RECORDS / NAME if opts.report_only
                         else util.BUILD / "bench" / NAME)
    out = opts.out or facts.ROOT / "docs/results"
    keep = not opts.report_only and not opts.out     # a run for docs/results
    try:
        if not opts.report_only:
            measure(work)
            if keep:    # a run for docs/results keeps its record; the page reads it
                (work / "pages").write_text(NAME + ".md\n")
                record.write(record.RECORDS / NAME, work,
                             [n + JSON for n in facts.table("falign")] + ["meta", "pages"],
                             ["falign.report"])
                work = record.RECORDS / NAME
        rows, day = read(work)
    except (util.Error, subprocess.CalledProcessError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    where = "data/%s/" % NAME if work == record.RECORDS / NAME else \
        str(work).replace(str(facts.ROOT) + "/", "")
    qemu.say("falign-report", "writing %s" % (out / (NAME + ".md")))
    out.mkdir(parents=True, exist_ok=True)
    md = table(rows, day, where)
    (out / (NAME + ".md")).write_text(md)
    if keep:
        results.record([out / (NAME + ".md")], first="falign")
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
