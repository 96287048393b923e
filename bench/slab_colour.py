#!/usr/bin/env python3
"""Which slab caches colouring helps beyond task_struct: make bench-slab-colour
[QUICK=1] -> docs/results/slab-colour.md.

The attribution (docs/results/attribution.md) names the caches whose objects
still miss in the L1D by conflict after stack and task_struct colouring.  Each
candidate here gets its slabs coloured in turn, with the colours and step
task_struct gets (the bench kernel's slab_colour=, kernel-patches/bench; the
count from kcolour-probe, one L1D line apart, and a check that the kernel gave
task_struct the same), on top of kstack_colour=task; then the winners
together, at most three.  -smp 1, deterministic, LAYOUTS layouts.  Each
candidate is paired, layout by layout, with a placebo (a slab_colour= that
names no cache, on top of the same kstack_colour=task): the mean ratio and its
95% t interval (bench/lib/paired.py); the placebo against task is the method's
own bias.  A candidate wins when its L1D conflict misses (set-associative
minus fully-associative) on the ring at N=4 or N=6 are lower than the
placebo's, and its L1D misses are higher on no workload.  Memory: the guest's
/proc/slabinfo after the phases.  TAP on stdout: every phase complete, every
named cache coloured and no other, task_struct's colours as asked, and
(QUICK) a bad slab_colour= refused with its error.
Flags (make's QUICK=1, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import json
import re
import sys

from bench.lib import paired
from bench.lib.data import net
from bench.lib.probe import bench_caches, plugin_geometry, probe
from bench.lib.record import work_dir
from bench.lib.report import Doc, Spread, plot_png, table_lines
from bench.lib.runner import Run, boot_name, layout_boots, parser, run_args
from harness import facts, util
CANDIDATES = ("mm_struct", "files_cache", "inode_cache", "filp", "signal_cache")
MAX_COLOURED = 3        # the limit on further coloured kinds
CONTROLS = ("off", "task", "placebo")   # reported as they are, not judged
RING_TARGETS = (4, 6)   # the ring targets
TARGET = 0.40           # at most this share of off's conflict misses there
LAYOUTS, QUICK_LAYOUTS = (1, 2, 3, 4, 5), (1,)
# The placebo: a slab_colour= that names no cache.  It colours nothing and
# changes only the command line, which moves the boot's allocations as any
# case's own arguments do: every candidate is judged against it.
PLACEBO = "no_such_cache"
# A slab_colour= the kernel must refuse with its error and colour nothing:
# (colours - 1) x step reaches past the first page (QUICK's third case).
BAD = "2x4096:mm_struct"
INFO = re.compile(r"slab_info (.*)$")
PARAM = re.compile(r"(task_\w+): (\d+)")     # kstack_colour's params, not a cache


def task_colours(dump):
    """(colours, step) of task_struct on the dump's CPU: kcolour-probe's colour
    count, one line of the target cache apart (arch/x86 task_colour_derive())."""
    rec = json.loads(probe(dump, "--json"))
    level = rec["recommendation"]["level"]
    line = next(c["line"] for c in rec["caches"]
                if c["level"] == level and c["type"] != "instruction")
    step = -(-max(line, 64) // 64) * 64
    return min(rec["recommendation"]["colours"], 4096 // step), step


def slab_info(console):
    """The last slab_info block a console printed: ({cache: (objsize, objperslab,
    pagesperslab, active, num)}, [slab_colour: lines], {task_colours: n, ...}),
    and how many blocks there were."""
    blocks, cur = [], []
    for line in console.splitlines():
        m = INFO.search(line)
        if not m:
            continue
        if m.group(1).strip() == "end":
            blocks.append(cur)
            cur = []
        else:
            cur.append(m.group(1).strip())
    caches, coloured, params = {}, [], {}
    for w in (blocks[-1] if blocks else []):
        if w.startswith("slab_colour: "):
            coloured.append(w[len("slab_colour: "):])
        elif PARAM.fullmatch(w):
            k, v = PARAM.fullmatch(w).groups()
            params[k] = int(v)
        else:
            f = w.split()
            caches[f[0]] = tuple(map(int, f[1:6]))
    return caches, coloured, params, len(blocks)


def conflict(p):
    """L1D conflict misses per event: set-associative minus fully-associative."""
    return p.per(p.counts[("L1D", "all")]["sa_miss"] - p.counts[("L1D", "all")]["fa_miss"])


def l1d_misses(p):
    return p.rate("L1D")


class Figures:
    """The boots' phases by case, layout and row (web net of ab's start-up),
    and each candidate paired with its control."""

    def __init__(self, boots, cases, layouts):
        self.layouts, self.names = layouts, [c for c, _, _ in cases]
        self.net = {n: net(b) for n, b in boots.items()}
        first = self.net[boot_name(self.names[0], layouts[0])]
        self.labels = [p.label for p in first]
        # ab's start-up alone is no row: the web rows are net of it.
        self.rows = [i for i, p in enumerate(first) if not p.start_up]

    def values(self, case, i, f):
        """f of row i of a case, in layout order."""
        return [f(self.net[boot_name(case, lay)][i]) for lay in self.layouts]

    def spread(self, case, i, f):
        """values()' median and range."""
        return Spread(self.values(case, i, f))

    def pair(self, case, i, f, control="placebo"):
        """case against control, layout by layout (bench/lib/paired.py)."""
        return paired.Paired(self.values(control, i, f), self.values(case, i, f))

    def winners(self):
        """The candidates lower than the placebo on the ring at a target N and
        higher on no workload's L1D misses, the largest ring gain first, at
        most MAX_COLOURED."""
        rings = [i for i in self.rows if self.labels[i] in ["ring N=%d" % n for n in RING_TARGETS]]
        out = []
        for c in (c for c in self.names if c in CANDIDATES):
            if any(self.pair(c, i, conflict).verdict == paired.LOWER for i in rings) and \
                    not any(self.pair(c, i, l1d_misses).verdict == paired.HIGHER
                            for i in self.rows):
                out.append((sum(self.pair(c, i, conflict).pct for i in rings), c))
        return [c for _, c in sorted(out)[:MAX_COLOURED]]


def case_args(caches, colours, step):
    return "kstack_colour=task" + (" slab_colour=%dx%d:%s" % (colours, step, ",".join(caches))
                                   if caches else "")


class Report(Doc):
    def __init__(self, run, cases, layouts, winners, colours, step):
        super().__init__(run)
        self.cases, self.layouts, self.winners = cases, layouts, winners
        self.colours, self.step = colours, step
        self.names = [boot_name(cases[0][0], layouts[0])]
        self.fig = Figures(self.boots, cases, layouts)

    def save(self, out):
        """The page; its prose is bench/templates/slab-colour.md.in's."""
        m = self.meta
        self.template("slab-colour", "intro", quick=" QUICK=1" if self.run.quick else "",
                      date=m["date"], qemu=m["qemu"], gcc=m["gcc"], cpu=m["cpu"],
                      kargs=" ".join(self.run.kargs), layouts=", ".join(map(str, self.layouts)),
                      where=self.run.where(), colours=self.colours, step=self.step,
                      placebo=PLACEBO)
        for title, f in (("L1D conflict misses (set-associative minus fully-associative)",
                          conflict), ("L1D misses", l1d_misses)):
            controls = [c for c, _, _ in self.cases if c in CONTROLS]
            judged = [c for c, _, _ in self.cases if c not in CONTROLS]
            bias = ["placebo vs task"] if {"placebo", "task"} <= set(controls) else []
            rows = []
            for i in self.fig.rows:
                rows.append([self.fig.labels[i]] +
                            [str(self.fig.spread(c, i, f)) for c in controls] +
                            [self.fig.pair("placebo", i, f, "task").cell() for _ in bias] +
                            [self.fig.pair(c, i, f).cell() if "placebo" in controls else "-"
                             for c in judged])
            self.template("slab-colour", "figure", title=title, table=table_lines(
                ["workload"] + controls + bias + ["%s vs placebo" % c for c in judged], rows))
        self.template("slab-colour", "verdict", verdict=self.verdict())
        self.memory()
        self.plot(out)
        self.write_md(out / "slab-colour.md")

    def verdict(self):
        if len(self.layouts) < 2:
            return "None: one layout (QUICK=1) cannot tell a difference from the noise."
        rings = " or ".join(map(str, RING_TARGETS))
        if not self.winners:
            return ("No candidate lowers the ring's L1D conflict misses at N=%s against the "
                    "placebo without raising a workload's L1D misses: none is worth colouring."
                    % rings)
        return ("Lower than the placebo on the ring's L1D conflict misses at N=%s, and higher "
                "on no workload's L1D misses: %s." % (rings, ", ".join(self.winners)))

    def memory(self):
        """Each candidate's slabs in its own case against task's."""
        base = slab_info(self.log("task"))[0]
        rows = []
        for c in CANDIDATES:
            if c not in [x for x, _, _ in self.cases]:
                continue
            got = slab_info(self.log(c))[0]
            if c not in base or c not in got:
                continue
            (size, n0, p0, _, _), (_, n1, p1, active, _) = base[c], got[c]
            b0, b1 = p0 * 4096 / n0, p1 * 4096 / n1
            rows.append([c, size, "%d / %d" % (n0, p0), "%d / %d" % (n1, p1), active,
                         "%+.1f%%" % (100 * (b1 - b0) / b0)])
        self.template("slab-colour", "memory", layout=self.layouts[0], table=table_lines(
            ["cache", "object B", "objects / pages a slab, uncoloured", "coloured",
             "objects in use", "cost per object"], rows))

    def log(self, case):
        return self.run.console(boot_name(case, self.layouts[0]))

    def plot(self, out):
        """The ring's L1D conflict misses per case: median, range as error bars."""
        rings = [i for i in self.fig.rows if self.fig.labels[i].startswith("ring ")]
        dat = out / "slab-colour.dat"
        lines = []
        for x, (c, _, _) in enumerate(self.cases):
            vals = []
            for i in rings:
                s = self.fig.spread(c, i, conflict)
                vals += ["%.3f %.3f %.3f" % (s.median, s.lo, s.hi)]
            lines.append("%d %s  # %s\n" % (x, " ".join(vals), c))
        self.data(dat, "".join(lines))
        plot_png(out / "slab-colour.png", "Ring: L1D conflict misses per switch, by the caches "
                 "coloured (median and range, %d layout%s)" % (
                     len(self.layouts), "s" if len(self.layouts) > 1 else ""), "",
                 "set-associative minus fully-associative misses per switch", None, 1,
                 ["'%s' using ($1+%.2f):%d:%d:%d with yerrorbars pt 7 lc %d title '%s'" % (
                     dat, 0.1 * k, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k, k + 1, self.fig.labels[i])
                  for k, i in enumerate(rings)] +
                 # The target: at most 40% of off's conflict misses.
                 ["%g with lines dt 2 lc %d title '%s: %d%% of off'" % (
                     TARGET * self.fig.spread("off", i, conflict).median, k + 1,
                     self.fig.labels[i], 100 * TARGET)
                  for k, i in enumerate(rings) if "off" in self.fig.names],
                 ["set termoption noenhanced", "set xrange [-0.5:%g]" % (len(self.cases) - 0.5),
                  "set xtics rotate by -30 (%s)" % ", ".join(
                      '"%s" %d' % (c, x) for x, (c, _, _) in enumerate(self.cases))])
        self.template("slab-colour", "plot", target="%d" % (100 * TARGET))


def check(run, cases, layouts, colours, step):
    """TAP: a slab_info block a phase; exactly the named caches coloured, with
    the colours asked; task_struct's colours the same."""
    for c, _, args in cases:
        want = sorted("%s: %d colours x %d B" % (x, colours, step)
                      for x in re.findall(r"slab_colour=\S+:(\S+)", args)[0].split(",")
                      if x != PLACEBO) if "slab_colour=" in args and BAD not in args else []
        for lay in layouts:
            n = boot_name(c, lay)
            console = run.console(n)
            _, coloured, params, blocks = slab_info(console)
            problems = []
            if blocks != len(run.want):
                problems.append("%d slab_info blocks for %d phases" % (blocks, len(run.want)))
            if sorted(coloured) != want:
                problems.append("coloured %s, want %s" % (coloured, want))
            if BAD in args and "slab_colour=%s ignored: expected" % BAD not in console:
                problems.append("no error for slab_colour=%s" % BAD)
            if c != "off" and (params.get("task_colours"), params.get("task_step")) != \
                    (colours, step):
                problems.append("task_struct %s x %s B, want %d x %d B" % (
                    params.get("task_colours"), params.get("task_step"), colours, step))
            run.tap(not problems, "%s: slab colours as asked (%s)" % (
                n, "; ".join(want) or "none beyond task_struct" +
                (", slab_colour=%s refused" % BAD if BAD in args else "")), problems)
    return not run.tap.failed


def main(argv=None):
    opts = parser(__doc__).parse_args(argv)
    quick = opts.quick
    caches = bench_caches()
    try:
        colours, step = task_colours(facts.path("bench-dump"))
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    work = work_dir(opts, "slab-colour-quick" if quick else "slab-colour")
    run = Run("bench-slab-colour", "attribution-quick" if quick else "attribution", work,
              plugin_args=plugin_geometry(caches), after_each="slab_info",
              record="slab-colour", **run_args(opts))
    run.image("bench", "bench")
    cases = [("off", "bench", "kstack_colour=off"), ("task", "bench", case_args([], 0, 0)),
             ("placebo", "bench", case_args([PLACEBO], colours, step))]
    cases += [(c, "bench", case_args([c], colours, step))
              for c in (CANDIDATES[:1] if quick else CANDIDATES)]
    if quick:
        cases = cases[1:2] + cases[3:] + [("bad-param", "bench",
                                           "kstack_colour=task slab_colour=" + BAD)]

    def boots(cs):
        return layout_boots([(c, a) for c, _, a in cs], layouts, "bench")

    run.boot("cases", boots(cases))
    ok = run.check_boots([b[0] for b in boots(cases)]) and check(run, cases, layouts,
                                                                  colours, step)
    chosen = Figures(run.boots, cases, layouts).winners() if ok and not quick else []
    if len(chosen) > 1:
        together = [("+".join(chosen), "bench", case_args(chosen, colours, step))]
        run.boot("the winners together", boots(together))
        ok = run.check_boots([b[0] for b in boots(together)]) and \
            check(run, together, layouts, colours, step)
        cases += together
    report = Report(run, cases, layouts, chosen, colours, step) if ok else None
    return run.finish(report)


if __name__ == "__main__":
    sys.exit(main())
