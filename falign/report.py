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
CHOICES = "choices"     # a record's choices and their labels, a line each, in order
# What table() reads of falign-report's report of a file, and of what type.
LAYOUT = {"bytes": int, "lines_touched": int}
REPORT = {"function_bytes": int, "small_padding_bytes": int, "crossing": int,
          "short_functions": int, "aligned": {"64": int}, "functions": int,
          "lines_touched": int, "lines_lower_bound": int, "minimal_lines_layout": LAYOUT,
          "packed_layout": LAYOUT}

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
    values (NAME.falign.json), the choices and their labels (choices, from
    facts.tsv's falign rows) and the date (meta), into work."""
    subprocess.run(["make", "-s", "-C", str(HERE), "falign-report"], check=True)
    work.mkdir(parents=True, exist_ok=True)
    choices = facts.table("falign")
    for name in choices:
        img = kernel.image(name)
        r = subprocess.run([str(HERE / "falign-report"), "--json", str(img.path / "vmlinux")],
                           check=True, capture_output=True, text=True)
        try:
            report = json.loads(r.stdout)
            for f in report["files"]:
                f["path"] = "vmlinux"   # not the image cache's path
        except (ValueError, KeyError, TypeError) as e:
            raise util.Error("falign-report --json on %s's vmlinux: not its report (%s)"
                             % (name, e))
        report["config"] = dict(re.findall(
            r'^(CONFIG_(?:FUNCTION_ALIGNMENT|CC_VERSION_TEXT))="?(.*?)"?$',
            (img.path / "config").read_text(), re.M))
        (work / (name + JSON)).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    (work / CHOICES).write_text("".join("%s\t%s\n" % (n, label) for n, (label,) in
                                        choices.items()))
    (work / "meta").write_text("date=%s\n" % date.today().isoformat())


def problems(value, schema, where="report"):
    """What of schema value lacks or holds as another type."""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return ["%s is not an object" % where]
        return [p for k, s in schema.items()
                for p in (problems(value[k], s, "%s.%s" % (where, k)) if k in value
                          else ["no %s.%s" % (where, k)])]
    return [] if isinstance(value, schema) else ["%s is not %s" % (where, schema.__name__)]


def read(work):
    """[(label, config, report)] of a run's files, its choices in order, and
    its date; util.Error names what is missing or malformed."""
    day = record.read_meta(work / "meta", ("date",))["date"]
    try:
        rows = []
        lines = (work / CHOICES).read_text().splitlines()
        for n, line in enumerate(lines, 1):
            name, tab, label = line.partition("\t")
            if not tab or not name or not label:
                raise util.Error("%s line %d: not NAME<tab>LABEL: %r" % (work / CHOICES, n, line))
            report = json.loads((work / (name + JSON)).read_text())
            bad = problems(report, {"files": list, "config": dict}) or \
                problems((report["files"] or [None])[0], REPORT, "files[0]")
            if bad:
                raise util.Error("%s: %s" % (work / (name + JSON), "; ".join(bad)))
            rows.append((label, report["config"], report["files"][0]))
    except (OSError, ValueError) as e:
        raise util.Error("%s: not a run of falign.report: %s" % (work, e))
    if not rows:
        raise util.Error("%s: no choices" % (work / CHOICES))
    return rows, day


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m falign.report", description=__doc__,
                                parents=[record.replay_options()],
                                epilog="(from the top of the tree, not by its path)")
    opts = p.parse_args(argv)
    if opts.out and opts.out.suffix == ".md":
        p.error("--out %s: a directory (the page is NAME.md in it)" % opts.out)
    work = record.work_dir(opts, NAME)
    out = opts.out or facts.ROOT / "docs/results"
    keep = not opts.report_only and not opts.out     # a run for docs/results
    try:
        if not opts.report_only:
            measure(work)
        rows, day = read(work)
        if keep:    # what was read is what the record keeps and the page says
            work = record.keep_page(NAME, work, [n + JSON for n in facts.table("falign")] +
                                    [CHOICES, "meta"], ["falign.report"])
    except (util.Error, subprocess.CalledProcessError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    qemu.say("falign-report", "writing %s" % (out / (NAME + ".md")))
    out.mkdir(parents=True, exist_ok=True)
    md = table(rows, day, record.where(work))
    (out / (NAME + ".md")).write_text(md)
    if keep:
        results.record([out / (NAME + ".md")], first="falign")
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
