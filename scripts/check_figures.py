#!/usr/bin/env python3
"""Every percentage a series quotes (its commit messages, the help texts
and documentation it adds, its cover letter: quoted()), and every percentage of a
document such as the README, is one that the docs/results page it cites shows
today, with its sign and its interval:

 - a figure needs a citation, docs/results/NAME.md (or results/NAME.md):
   in its paragraph, else anywhere in the same text (a commit message and
   its help texts, a README); a text that cites no page fails;
 - a figure with its interval, x% [lo, hi], is a triple the cited pages
   show, each number with its sign (an unsigned x matches either sign);
 - a figure alone is one the cited pages show with the same sign (an
   unsigned one, with either);
 - a confidence level ("95% interval") is no figure.

A figure measured elsewhere says so on its line with "(measured: ...)", and
a number that is no result says what it is, "(synthetic: ...)" or "(an
example)"; such lines are not checked.  TAP on stdout.

usage: check_figures.py SERIES-DIR|FILE...  (directories of kernel-patches/,
       or files of the tree, such as README.md)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import facts, tap  # noqa: E402

MARKERS = ("(measured: ", "(synthetic: ", "(an example)")
RESULTS = facts.ROOT / "docs/results"
CITED = re.compile(r"(?:docs/)?results/([\w-]+\.md)")
NUM = r"([-+]?)(\d+(?:\.\d+)?)"
FIGURE = re.compile(r"(?<![\w.])" + NUM + "%")
TRIPLE = re.compile(r"(?<![\w.])" + NUM + r"%\s*\[\s*" + NUM + r"%?\s*,\s*" + NUM +
                    r"%?\s*\]")
LEVEL = re.compile(r"\b9[059]%(?=[\s-]+(?:interval|confidence|Student|t interval|coverage))")


def signed(sign, number):
    return (sign, float(number))


def same(a, b):
    """Two (sign, value): the same number, and the same sign where both give one."""
    return a[1] == b[1] and (not a[0] or not b[0] or a[0] == b[0])


class Page:
    """What a results page shows: its figures and its intervals, signed."""

    def __init__(self, text):
        self.triples = [tuple(signed(*m.group(i, i + 1)) for i in (1, 3, 5))
                        for m in TRIPLE.finditer(text)]
        self.figures = [signed(*m.groups()) for m in FIGURE.finditer(text)]

    def has_triple(self, t):
        return any(all(same(a, b) for a, b in zip(t, p)) for p in self.triples)

    def has_figure(self, f):
        return any(same(f, p) for p in self.figures)


def pages_of(results=RESULTS):
    return {p.name: Page(p.read_text()) for p in sorted(Path(results).glob("*.md"))}


def fmt(t):
    return "%s%g%%" % t if len(t) == 2 else "%s%g%% [%s%g%%, %s%g%%]" % (t[0] + t[1] + t[2])


def unshown(text, pages):
    """What of text the pages it cites do not show: ["+1.14% (not on paired.md)", ...]."""
    problems = []
    everywhere = set(CITED.findall(text))
    for para in re.split(r"\n\s*\n", text):
        para = LEVEL.sub("", "\n".join(line for line in para.splitlines()
                                       if not any(m in line for m in MARKERS)))
        cited = sorted(set(CITED.findall(para)) or everywhere)
        shown = [pages[c] for c in cited if c in pages]
        where = ", ".join(cited) or "no page cited"
        spans = []
        for m in TRIPLE.finditer(para):
            spans.append(m.span())
            t = tuple(signed(*m.group(i, i + 1)) for i in (1, 3, 5))
            if not any(p.has_triple(t) for p in shown):
                problems.append("%s (not on %s)" % (fmt(t), where))
        for m in FIGURE.finditer(para):
            if any(a <= m.start() < b for a, b in spans):
                continue
            f = signed(*m.groups())
            if not any(p.has_figure(f) for p in shown):
                problems.append("%s (not on %s)" % (fmt(f), where))
    return problems


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
    pages = pages_of()
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
            t(not missing, "%s: every percentage it quotes is on the page it cites, with its "
              "sign and interval" % name, diag=missing)
    return t.plan()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
