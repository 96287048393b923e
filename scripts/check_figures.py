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
 - a confidence level ("95% interval") is no figure;
 - every page shows the run docs/results/runs.tsv records for it (its
   figures' digest), and a kernel a text names for a page it cites
   ("v5's build, results/paired.md"; "falign v4's") is the one that run
   measured (a bare "vN's" is the colouring series, falign's in its own
   series' texts).

A figure measured elsewhere says so on its line with "(measured: ...)", and
a number that is no result says what it is, "(synthetic: ...)" or "(an
example)"; such lines are not checked.  TAP on stdout.

usage: python3 -m scripts.check_figures SERIES-DIR|FILE...  (directories of
       kernel-patches/, or files of the tree, such as README.md)
       python3 -m scripts.check_figures --record PAGE...  (a new run of each
       page whose figures changed: today, facts.tsv's series versions)
       (each from the top of the tree, not by its path)
"""
import re
import sys
from pathlib import Path

from harness import facts, tap
from harness.results import FIGURE, TRIPLE, pages as pages_of, record, signed

MARKERS = ("(measured: ", "(synthetic: ", "(an example)")
CITED = re.compile(r"(?:docs/)?results/([\w-]+\.md)")
LEVEL = re.compile(r"\b9[059]%(?=[\s-]+(?:interval|confidence|Student|t interval|coverage))")
# A kernel named for a figure: "v5's build", "falign v4's run"; it names the
# kernel of the first page cited within REACH characters after it.
KERNEL = re.compile(r"(?<![\w.])(?:(stable|colour|falign|bench) )?v(\d+)'s\b")
REACH = 160


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


def misattributed(text, pages, series="colour"):
    """Where text names a kernel ("v5's build", "falign v4's") for the page it
    then cites, and that page's run measured another (its runs.tsv row);
    series: the one a bare "vN's" means."""
    problems = []
    for m in KERNEL.finditer(text):
        cite = CITED.search(text, m.end(), m.end() + REACH)
        if not cite:
            continue
        name, which, said = cite.group(1), m.group(1) or series, int(m.group(2))
        run = pages[name].run if name in pages else None
        if run is None:
            problems.append("%s: %s names no recorded run (runs.tsv)" % (m.group(0), name))
        elif run.version(which) != said:
            problems.append("%s: %s is the run of %s v%s (runs.tsv), not v%d" % (
                m.group(0), name, which, run.version(which), said))
    return problems


def unrecorded(pages):
    """The pages whose figures are not those of the run runs.tsv records for
    them, or that have no row there."""
    return ["%s: %s" % (name, "no row in runs.tsv" if p.run is None else
                        "its figures are not those of its %s run (digest %s, recorded %s)"
                        % (p.run.date, p.digest, p.run.figures))
            for name, p in pages.items() if p.run is None or p.run.figures != p.digest]


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
    if args[:1] == ["--record"]:
        done = record([facts.ROOT / a for a in args[1:]])
        print("recorded: %s" % (" ".join(done) or "none (their figures are the recorded ones)"))
        return 0
    t = tap.Tap()
    pages = pages_of()
    stale = unrecorded(pages)
    t(not stale, "every results page shows the run docs/results/runs.tsv records for it "
      "(after a new run: python3 -m scripts.check_figures --record PAGE)", diag=stale)
    for arg in args:
        path = facts.ROOT / arg
        if path.is_file():
            texts = [(arg, path.read_text())]
        else:
            texts = [(str(p.relative_to(facts.ROOT / "kernel-patches")), quoted(p.read_text()))
                     for p in sorted((facts.ROOT / "kernel-patches" / arg).glob("*.patch"))]
            if not texts:
                t(False, "%s: a series directory or a file" % arg)
        series = "falign" if arg.rstrip("/") == "falign" else "colour"
        for name, text in texts:
            missing = unshown(text, pages)
            t(not missing, "%s: every percentage it quotes is on the page it cites, with its "
              "sign and interval" % name, diag=missing)
            wrong = misattributed(text, pages, series)
            t(not wrong, "%s: every kernel it names for a page is the one that page's run "
              "measured" % name, diag=wrong)
    return t.plan()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
