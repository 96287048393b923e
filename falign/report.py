"""make falign-report: the kernel of each function alignment choice (facts.tsv's
falign rows), falign-report --json on its vmlinux, and the table written to
docs/results/falign.md (--out FILE, make's OUT=FILE: elsewhere) and printed; then, under it, the
L1I misses of the same choices across text layouts, from make
falign-layouts's docs/results/falign-layouts.md (which make falign-report
runs first)."""
import argparse
import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

from harness import facts, kernel, qemu, util

HERE = Path(__file__).resolve().parent

HEAD = """# Function alignment: text size against cache lines touched

Made by `make falign-report` (falign/report.py) on %s: one kernel per
choice of the "Function alignment" Kconfig choice, tinyconfig +
`Kconfig-fragments/qemu-test.config` + `falign-CHOICE.config`, %s;
figures from `falign/falign-report --json vmlinux`.

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


def table(rows):
    """Markdown of [(label, {CONFIG_: value}, falign-report's file report)],
    the first row the 16-byte build the others are compared with."""
    for _, _, r in rows:  # text: the functions' bytes and the padding between them
        r["text"] = r["function_bytes"] + r["small_padding_bytes"]
    base = rows[0][2]
    out = [HEAD % (date.today().isoformat(), rows[0][1].get("CONFIG_CC_VERSION_TEXT", "?"))]
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


def layouts_section(path):
    """falign-layouts.md's text under a heading of this report's, or a line
    saying it is missing."""
    if not path.exists():
        return "\n## Across text layouts\n\nNo %s: run `make falign-layouts`.\n" % path.name
    body = path.read_text().split("\n", 1)[1]
    return "\n## Across text layouts: L1I misses\n\nFrom `%s` (`make falign-layouts`), " \
        "whole:\n%s" % (path.name, body.replace("\n## ", "\n### "))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m falign.report", description=__doc__,
                                epilog="(from the top of the tree, not by its path)")
    p.add_argument("--out", metavar="FILE", type=Path,
                   default=facts.ROOT / "docs/results/falign.md", help="where the table goes (default docs/results/falign.md)")
    out = p.parse_args(argv).out
    subprocess.run(["make", "-s", "-C", str(HERE), "falign-report"], check=True)
    rows = []
    try:
        for name, (label,) in facts.table("falign").items():
            img = kernel.image(name)
            r = subprocess.run([str(HERE / "falign-report"), "--json", str(img.path / "vmlinux")],
                               check=True, capture_output=True)
            config = dict(re.findall(r'^(CONFIG_(?:FUNCTION_ALIGNMENT|CC_VERSION_TEXT))="?(.*?)"?$',
                                     (img.path / "config").read_text(), re.M))
            rows.append((label, config, json.loads(r.stdout)["files"][0]))
    except util.Error as e:
        sys.exit("error: %s" % e)
    qemu.say("falign-report", "writing %s" % out)
    out.parent.mkdir(parents=True, exist_ok=True)
    md = table(rows) + layouts_section(out.parent / "falign-layouts.md")
    out.write_text(md)
    sys.stdout.write(md)


if __name__ == "__main__":
    main()
