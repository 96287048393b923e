#!/usr/bin/env python3
"""Every percentage a series quotes (its commit messages, the help texts
and documentation it adds, its cover letter) is one that docs/results shows
today: the same figure, sign aside, somewhere in docs/results/*.md.  A
figure measured elsewhere says so on its line with "(measured: ...)"; such
lines are not checked.  TAP on stdout.

usage: check_figures.py SERIES-DIR...  (directories of kernel-patches/)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import facts, tap  # noqa: E402

FIGURE = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.\d+)?)%")
MARKED = "(measured: "


def shown(text):
    """Every percentage of text, sign dropped."""
    return {m.group(1) + "%" for m in FIGURE.finditer(text)}


def figures(text):
    """The percentages of text, less those on marked lines."""
    return shown("\n".join(line for line in text.splitlines() if MARKED not in line))


def main(dirs):
    t = tap.Tap()
    results = "".join(p.read_text() for p in sorted((facts.ROOT / "docs/results").glob("*.md")))
    known = shown(results)
    for d in dirs:
        for patch in sorted((facts.ROOT / "kernel-patches" / d).glob("*.patch")):
            missing = sorted(figures(patch.read_text()) - known, key=lambda f: float(f[:-1]))
            t(not missing, "%s: every percentage it quotes is in docs/results"
              % patch.relative_to(facts.ROOT / "kernel-patches"),
              diag=["not in docs/results: " + ", ".join(missing)] if missing else [])
    return t.plan()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
