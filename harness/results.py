"""The results pages (docs/results/NAME.md): the figures a page shows, and
the run each page's figures came from (docs/results/runs.tsv, their one
home): its date and the kernel it measured, facts.tsv's series versions
when it ran, with a digest of the page's figures that says whether the
page still shows that run."""

import datetime
import hashlib
import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from harness import facts

RESULTS = facts.ROOT / "docs/results"
RUNS = RESULTS / "runs.tsv"
NUM = r"([-+]?)(\d+(?:\.\d+)?)"
FIGURE = re.compile(r"(?<![\w.])" + NUM + "%")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
TRIPLE = re.compile(r"(?<![\w.])" + NUM + r"%\s*\[\s*" + NUM + r"%?\s*,\s*" + NUM +
                    r"%?\s*\]")
RUNS_HEAD = """\
# The run each results page's figures came from (harness/results.py; make
# check's figures suite holds every page to it).
# page: docs/results/NAME.md; date: the run's; kernel: facts.tsv's series
# versions then, the series each page measured first; figures: the first 16
# hex digits of the sha256 of the page's percentages, in order, or of its
# numbers where it has no percentage (a page written again from the same
# run keeps it; a new run changes it).  A bench run records the pages it
# writes; another writer records with
# python3 -m scripts.check_figures --record PAGE.
# When this file began (2026-12-06) its rows were filled in from git
# history: the commit that brought each page's current figures, and
# facts.tsv's series rows at that commit; a run rewrites its page's row.
# The digest sees a page's percentages only, where it has any: a rerun
# whose percentages all come out the same keeps its row.
page\tdate\tkernel\tfigures
"""
Signed = Tuple[str, float]


def signed(sign: str, number: str) -> Signed:
    return (sign, float(number))


def same(a: Signed, b: Signed) -> bool:
    """Two (sign, value): the same number, and the same sign where both give one."""
    return a[1] == b[1] and (not a[0] or not b[0] or a[0] == b[0])


class Page:
    """What a results page shows: its figures and its intervals, signed."""

    def __init__(self, text: str, run: Optional["Run"] = None) -> None:
        self.triples = [tuple(signed(*m.group(i, i + 1)) for i in (1, 3, 5))
                        for m in TRIPLE.finditer(text)]
        self.figures = [signed(*m.groups()) for m in FIGURE.finditer(text)]
        self.digest = digest(text)
        self.run = run

    def has_triple(self, t: Tuple[Signed, ...]) -> bool:
        return any(all(same(a, b) for a, b in zip(t, p)) for p in self.triples)

    def has_figure(self, f: Signed) -> bool:
        return any(same(f, p) for p in self.figures)


def digest(text: str) -> str:
    """The page's percentages, in order, hashed: what identifies its run.  A
    page without one (counts, sizes and seconds alone) is identified by its
    numbers."""
    figures = [m.group(0) for m in FIGURE.finditer(text)] or NUMBER.findall(text)
    return hashlib.sha256("\n".join(figures).encode()).hexdigest()[:16]


class Run:
    """A row of runs.tsv."""

    def __init__(self, page: str, date: str, kernel: str, figures: str) -> None:
        self.page, self.date, self.kernel, self.figures = page, date, kernel, figures

    def version(self, series: str) -> Optional[int]:
        """The version of one series in the kernel the run measured."""
        m = re.search(r"\b%s v(\d+)\b" % re.escape(series), self.kernel)
        return int(m.group(1)) if m else None

    def row(self) -> str:
        return "\t".join((self.page, self.date, self.kernel, self.figures)) + "\n"


def runs(path: Path = RUNS) -> Dict[str, Run]:
    """{page name: Run} of runs.tsv ({} where it is missing)."""
    if not path.exists():
        return {}
    out = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("#") or line.startswith("page\t") or not line:
            continue
        w = line.split("\t")
        if len(w) != 4:
            raise ValueError("%s:%d: 4 tab-separated fields, not %d" % (path, n, len(w)))
        out[w[0]] = Run(*w)
    return out


def kernel_now(first: str = "colour") -> str:
    """facts.tsv's series versions, the series a page measures first."""
    series = [(name, version) for name, _, version, _ in facts.rows("series")]
    series.sort(key=lambda s: s[0] != first)
    return ", ".join("%s v%s" % s for s in series)


def record(pages: Iterable[Path], first: str = "colour", path: Path = RUNS,
           date: Optional[str] = None) -> List[str]:
    """Record a new run of each page whose figures changed (today, the kernel
    facts.tsv names now); the names of the pages recorded."""
    have, done = runs(path), []
    for page in pages:
        page = Path(page)
        d = digest(page.read_text())
        old = have.get(page.name)
        if old and old.figures == d:
            continue
        have[page.name] = Run(page.name, date or datetime.date.today().isoformat(),
                              kernel_now(first), d)
        done.append(page.name)
    if done:
        path.write_text(RUNS_HEAD + "".join(have[p].row() for p in sorted(have)))
    return done


def pages(results: Path = RESULTS) -> Dict[str, Page]:
    """{NAME.md: Page} of every results page, each with its run's row."""
    have = runs(Path(results) / RUNS.name)
    return {p.name: Page(p.read_text(), have.get(p.name))
            for p in sorted(Path(results).glob("*.md"))}
