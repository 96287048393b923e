"""A bench report's page: Doc (a markdown report, of a Run's boots if
given, its tables, code and plots), the figures as the pages write them
(fmt(), pct(), Spread), gnuplot's PNG plots (plot_png()) and WRITTEN, the
pages written, which Run.finish records.
"""

import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from harness import facts

# The files a report wrote (Doc.write_md, Doc.data, plot_png()): Run.finish
# records its .md pages as new runs, and a record's pages are all of them.
WRITTEN: list = []
# The pages' prose (Doc.template()).
TEMPLATES = facts.ROOT / "bench/templates"


class Doc:
    """A markdown report, of a Run's boots if given; a subclass gives .names,
    the cases (the first one's phases are the layout of every boot's)."""

    names: list[str]  # set by each subclass

    def __init__(self, run=None):
        self.run, self.out = run, []
        self.work, self.meta, self.boots = (run.work, run.meta, run.boots) if run else \
            (None, {}, {})

    def resumed(self):
        """What an intro says of a run that RESUME=1 finished: the run it
        resumed, whose boots it kept ("" for a run in one go)."""
        return (", resuming (RESUME=1) the run started on %s, whose boots it kept"
                % self.meta["started"] if "started" in self.meta else "")

    def w(self, line=""):
        """One line; a line wrapped in the source joins with single spaces."""
        self.out.append(re.sub(r"\s*\n\s*", " ", line))

    def md(self, text, *args):
        """Paragraphs (headings too) written in the source, split by blank lines,
        each a line and a blank line; text % args where there are args."""
        for par in re.split(r"\n\s*\n", (text % args if args else text).strip()):
            self.w(par.strip())
            self.w()

    def table(self, head, rows, align=None):
        """align: a letter a column, l or r (default: the first l, the rest r)."""
        self.out += table_lines(head, rows, align)

    def template(self, name, section, /, **fields):
        """A section of bench/templates/NAME.md.in (from its "@@ SECTION" line to
        the next): each paragraph as md() writes it, its {field}s filled
        (str.format); a paragraph of "- " items, an item a line; and a
        paragraph that is one {field} alone, of lines (a table_lines()),
        replaced by those lines as they are."""
        text = (TEMPLATES / (name + ".md.in")).read_text()
        sections = dict((s.split("\n", 1) + [""])[:2] for s in re.split(r"^@@ ", text, flags=re.M)
                        if s.strip())
        for par in re.split(r"\n\s*\n", sections[section].strip()):
            alone = re.fullmatch(r"\{(\w+)\}", par.strip())
            if alone and not isinstance(fields[alone.group(1)], str):
                self.out += fields[alone.group(1)]
                continue
            # A list: an item a line (a nested "  - " item too, flattened).
            for item in re.split(r"\n(?=\s*- )", par.strip()):
                self.w(item.strip().format(**fields))
            self.w()

    def scratch(self, name):
        """A path for a plot's data that no page publishes: in a directory of
        its own, removed when the process ends (a record stays as it is)."""
        if not hasattr(self, "_scratch"):
            self._scratch = tempfile.TemporaryDirectory(prefix="bench-plot-")
        return Path(self._scratch.name) / name

    def code(self, text):
        self.out += ["```", text.rstrip("\n"), "```", ""]

    def commands(self, lines):
        """The run's command lines, last, where they do not stand between a
        reader and the results."""
        self.md("""## Appendix: the commands

            Paths relative to the project top:""")
        self.code("\n".join(lines).replace(str(facts.ROOT) + "/", ""))

    def ring_ns(self):
        return [p.info["tasks"] for p in self.boots[self.names[0]].of("ring")]

    def miss(self, name, event, cache="L1D", region="all", kind="sa_miss"):
        """A case's misses per event at ring N (an int) or of a workload."""
        return self.boots[name].event(event).rate(cache, region, kind)

    def ring_plot(self, png, dat, title, ylabel, series, head=""):
        """A plot against the ring's N of series (title, gnuplot style, [value an N])."""
        ns = self.ring_ns()
        Path(dat).write_text(head + "".join("%d %s\n" % (n, " ".join("%.4f" % s[2][i]
                                                                    for s in series))
                                            for i, n in enumerate(ns)))
        plot_png(png, title, "tasks in the ring (N)", ylabel, ns, 1.15,
                 ["'%s' using 1:%d with %s title '%s'" % (dat, 2 + i, style, t)
                  for i, (t, style, _) in enumerate(series)])

    def write_md(self, path):
        Path(path).write_text("\n".join(self.out) + "\n")
        WRITTEN.append(Path(path))

    def data(self, path, text):
        """A plot's data file that the page publishes (NAME.dat)."""
        Path(path).write_text(text)
        WRITTEN.append(Path(path))


def make_vars(pairs):
    """' NAME=value' for each (NAME, value) with a value: the make variables of
    a run, for its page's first line."""
    return "".join(" %s=%s" % kv for kv in pairs if kv[1])


def table_lines(head, rows, align=None):
    """A markdown table's lines and a blank line after; align: a letter a
    column, l or r (default: the first l, the rest r)."""
    align = align or "l" + "r" * (len(head) - 1)
    return (["| " + " | ".join(head) + " |",
             "|" + "".join("---:|" if a == "r" else "---|" for a in align)] +
            ["| " + " | ".join(str(x) for x in r) + " |" for r in rows] + [""])


def gnuplot_str(text):
    """TEXT as a gnuplot '' string, whose quote is written twice."""
    return "'%s'" % str(text).replace("'", "''")


def plot_png(png, title, xlabel, ylabel, xs, pad, plots, extra=()):
    """A PNG plot (gnuplot): on a log2 x axis with a tick at each of xs, or
    where xs is None on the axis that the extra set commands give."""
    axis = ["set logscale x 2", "set xrange [%g:%g]" % (min(xs) / pad, max(xs) * pad),
            "set xtics (%s)" % ", ".join(str(x) for x in xs)] if xs else []
    script = "\n".join([
        "set terminal pngcairo size 900,560 font ',11'", "set output %s" % gnuplot_str(png),
        "set title " + gnuplot_str(title), "set xlabel " + gnuplot_str(xlabel),
        "set ylabel " + gnuplot_str(ylabel)] +
        axis + ["set yrange [0:*]", "set grid", "set key outside right top"] + list(extra) +
        ["plot " + ", ".join(plots)])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    WRITTEN.append(Path(png))


class Spread:
    """The median and the range of one figure over a case's layouts."""

    def __init__(self, values):
        self.values = sorted(values)
        self.median, self.lo, self.hi = statistics.median(values), self.values[0], \
            self.values[-1]

    def __str__(self):
        if self.lo == self.hi:
            return fmt(self.median)
        return "%s [%s&ndash;%s]" % (fmt(self.median), fmt(self.lo), fmt(self.hi))


def pct(new, old):
    return 100.0 * (new - old) / old if old else float("nan")


def fmt(x):
    """Per-event figures: 3 significant digits, at least 2 decimals below 10."""
    return "%.0f" % x if abs(x) >= 1000 else "%.1f" % x if abs(x) >= 10 else "%.2f" % x
