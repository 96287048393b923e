#!/usr/bin/env python3
"""Every percentage a series quotes (its commit messages, the help texts
and documentation it adds, its cover letter: quoted()), and every percentage of a
document such as the README, is one that docs/results shows today: the
same figure, sign aside, somewhere in docs/results/*.md.  A line that
links results pages (docs/results/NAME.md) is held to those pages alone.
A figure measured elsewhere says so on its line with "(measured: ...)";
such lines are not checked.  TAP on stdout.

usage: check_figures.py SERIES-DIR|FILE...  (directories of kernel-patches/,
       or files of the tree, such as README.md)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import facts, tap  # noqa: E402

FIGURE = re.compile(r"(?<![\w.])[-+]?(\d+(?:\.\d+)?)%")
MARKED = "(measured: "
RESULTS = facts.ROOT / "docs/results"
CITED = re.compile(r"(?:docs/)?results/([\w-]+\.md)")


def shown(text):
    """Every percentage of text, sign dropped."""
    return {m.group(1) + "%" for m in FIGURE.finditer(text)}


def figures(text):
    """The percentages of text, less those on marked lines."""
    return shown("\n".join(line for line in text.splitlines() if MARKED not in line))


def unshown(text, pages):
    """The figures of text that the results pages do not show: a line
    citing pages against those, any other line against them all."""
    everywhere = set().union(*pages.values())
    missing = set()
    for line in text.splitlines():
        cited = CITED.findall(line)
        known = set().union(*(pages.get(c, set()) for c in cited)) if cited else everywhere
        missing |= figures(line) - known
    return sorted(missing, key=lambda f: float(f[:-1]))


def quoted(patch):
    """What a patch quotes: its message (to the first "---") and the lines it
    adds to help texts (Kconfig files) and documentation; not code or data,
    such as a profile's header, which records its own measurement."""
    message, _, diff = patch.partition("\n---\n")
    keep, lines = False, [message]
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            path = line.split(" b/", 1)[-1]
            keep = Path(path).name.startswith("Kconfig") or path.startswith("Documentation/")
        elif keep and line.startswith("+") and not line.startswith("+++"):
            lines.append(line[1:])
    return "\n".join(lines)


def main(args):
    t = tap.Tap()
    pages = {p.name: shown(p.read_text()) for p in sorted(RESULTS.glob("*.md"))}
    for arg in args:
        path = facts.ROOT / arg
        if path.is_file():
            texts = [(arg, path.read_text())]
        else:
            texts = [(str(p.relative_to(facts.ROOT / "kernel-patches")), quoted(p.read_text()))
                     for p in sorted((facts.ROOT / "kernel-patches" / arg).glob("*.patch"))]
            if not texts:
                t(False, "%s: a series directory or a file" % arg)
        for name, text in texts:
            missing = unshown(text, pages)
            t(not missing, "%s: every percentage it quotes is in docs/results" % name,
              diag=["not in docs/results (or not in the page its line cites): "
                    + ", ".join(missing)] if missing else [])
    return t.plan()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
