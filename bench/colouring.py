#!/usr/bin/env python3
"""The cache benchmark of kernel stack colouring: make bench [QUICK=1] (README.md).

Real programs (lighttpd under ab, hackbench) and the microbenchmarks (ring,
messaging, forkloop), each in its own marker phase, boot by boot under the
kcolour-cachesim plugin simulating the caches of a real CPU (facts.tsv's
bench-dump, decoded by kcolour-probe).  Every case boots in LAYOUTS layouts
(bench/workloads/layout.c) at every -smp of SMPS; each case is paired with off
layout by layout (bench/lib/paired.py: the mean ratio and its 95% t interval), and a
placebo (colouring off, an argument as long as on's) shows the method's own bias.
The headline is estimated cycles per event (latencies from facts.tsv,
docs/results/bench.md cites them); absolute figures are the median and the range
over the layouts.  The checks (TAP
on stdout): every phase complete, ab's requests all served, the MIN bound
never above LRU or PLRU, repeated boots byte-identical, and the cost of the
series built in but off against the base kernel not measurably over its
limits (insns_off_vs_base()).  QUICK: off and on at -smp 1
and 2, two layouts, the bench-quick workloads, into build/bench/quick.
Other CPUs' caches: bench/cpus.py (make bench-cpus, make bench-cpu).
Flags (make's QUICK=1, JOBS=N, WORK=DIR, POOL=parallel, REPORT_ONLY=1, RESUME=1):
--help.
"""

import math
import re
import shutil
import statistics
import subprocess
import sys

from bench.lib import paired
from bench.lib.cases import STACK_CASES, TARGET
from bench.lib.cost import cycles, latency
from bench.lib.data import CACHES, REGIONS, net
from bench.lib.probe import plugin_geometry, probe_caches
from bench.lib.record import work_dir
from bench.lib.report import Doc, Spread, fmt, pct, plot_png, table_lines
from bench.lib.runner import Run, parser, run_args
from harness import facts, util

CASES = [(n, "bench", a) for n, a in STACK_CASES] + [
    ("task", "bench", "kstack_colour=task"),
    ("rko", "bench-base", "randomize_kstack_offset=on"), ("base", "bench-base", "")]
# A quick run's cases; the second boots twice (determinism across job pools).
QUICK_CASES = ("off", "on")
REPEATED = "on"
# -smp 1 runs under -icount, repeatably; more vCPUs hang there (QEMU 7.2:
# bench/cachesim/README.md, SMP) and run on one TCG thread on host time
# instead, so their figures move from boot to boot: the pairs' spread holds
# that noise too.
SMPS, LAYOUTS = (1, 4), (1, 2, 3, 4, 5)
QUICK_SMPS, QUICK_LAYOUTS = (1, 2), (1, 2)
# Off against base: the limits set on the cost of the series built in, per
# switch (the ring, every N pooled) and per fork.  The run fails where the
# paired interval lies above a limit (measurably over it); a median over it
# whose interval holds the limit is a finding the page states, as the
# layouts cannot tell it from the limit.
INSN_TOLERANCE = {"ring": 0.001, "forkloop": 0.003}
# The cycle model's inputs are scaled by each of these to test the verdicts.
SENSITIVITY = (0.5, 1.0, 1.5)
COLOURS = ("#d62728", "#7f7f7f", "#1f77b4", "#9467bd", "#2ca02c", "#ff7f0e")


def name(case, smp, layout):
    return "%s.smp%d.L%d" % (case, smp, layout)


def stacks_moved(a, b):
    """The share of stacks (in first-touch order) whose top line lies in
    another L2 set in Phase b than in Phase a; None without stacks."""
    sa, sb = (str(p.head.get("stack_l2_sets", "-")).split(",") for p in (a, b))
    n = min(len(sa), len(sb))
    if ["-"] in (sa, sb) or not n:
        return None
    return sum(x != y for x, y in zip(sa, sb)) / n


def lines_shared(a, b):
    """The share of direct-map lines two Phases both touch (Jaccard), from
    the plugin's bottom-k sketches."""
    ka, kb = (set(str(p.head.get("direct_sketch", "-")).split(",")) - {"-"} for p in (a, b))
    k = min(len(ka), len(kb))
    union = sorted(ka | kb, key=lambda h: int(h, 16))[:k]
    return sum(h in ka and h in kb for h in union) / k if k else None


def start_up_share(report):
    """ab's start-up in requests: the one-request run's cycles over the
    per-request cycles of the first web run with more (the first case,
    -smp and layout), or "?" without one."""
    phases = report.net[name(report.names[0], report.smps[0], report.layouts[0])]
    start = [p for p in phases if p.start_up]
    more = [p for p in phases if p.workload == "web" and p.info["requests"] > 1]
    if not start or not more:
        return "?"
    return "%.0f" % (cycles(start[0], report.lat) / cycles(more[0], report.lat))


class Report(Doc):
    def __init__(self, run, cases, smps, layouts, repeats, caches, lat):
        super().__init__(run)
        self.cases, self.smps, self.layouts, self.repeats = cases, smps, layouts, repeats
        self.caches, self.lat = caches, lat
        self.names = [c[0] for c in cases]
        self.net = {n: net(b) for n, b in self.boots.items()}

    def phases(self, case, smp, i):
        """Phase i of the case at smp, one a layout, web runs net of ab's start-up."""
        return [self.net[name(case, smp, lay)][i] for lay in self.layouts]

    def spread(self, case, smp, i, f):
        return Spread([f(p) for p in self.phases(case, smp, i)])

    def pair(self, case, smp, i, f):
        """case against off, layout by layout (bench/lib/paired.py)."""
        return paired.Paired([f(p) for p in self.phases("off", smp, i)],
                             [f(p) for p in self.phases(case, smp, i)])

    @property
    def judged(self):
        """The case the PLRU table judges: colouring on."""
        return "on" if "on" in self.names else self.names[1]

    @property
    def labels(self):
        return [p.label for p in self.boots[name(self.names[0], self.smps[0], self.layouts[0])]]

    def stable(self, smp, i, case, kind="sa_miss"):
        """case against off in estimated cycles, paired: the interval and its
        verdict under the model at 1x, with " (flips)" where the verdicts at
        the 9 scalings of its CPI and latencies do not all agree."""
        got = {(c, lt): self.pair(case, smp, i, lambda p: cycles(p, self.lat, kind, c, lt))
               for c in SENSITIVITY for lt in SENSITIVITY}
        return got[(1.0, 1.0)].cell() + (
            "" if len({g.verdict for g in got.values()}) == 1 else " (flips)")

    def layout_table(self, smp):
        """How far the layouts move placement, per workload, for each case:
        the mean over layout pairs."""
        pairs = [(x, y) for x in self.layouts for y in self.layouts if x < y]
        rows = []
        for i, label in enumerate(self.labels):
            cells = []
            for case in self.names:
                ph = dict(zip(self.layouts, self.phases(case, smp, i)))
                moved = [stacks_moved(ph[x], ph[y]) for x, y in pairs]
                shared = [lines_shared(ph[x], ph[y]) for x, y in pairs]
                cells.append("%s / %s" % (
                    "n/a" if None in moved else "%.0f%%" % (100 * statistics.mean(moved)),
                    "n/a" if None in shared else "%.0f%%" % (100 * statistics.mean(shared))))
            rows.append([label, ph[self.layouts[0]].head.get("stacks", "?")] + cells)
        return table_lines(["workload", "stacks"] + self.names, rows, "lr" + "r" * len(self.names))

    def headline(self, smp):
        rows = []
        for i, label in enumerate(self.labels):
            unit = self.phases(self.names[0], smp, i)[0].unit[0]
            rows.append([label, unit, str(self.spread("off", smp, i, lambda p: cycles(p, self.lat)))]
                        + [self.stable(smp, i, c) for c in self.names[1:]])
        return table_lines(["workload", "per", "off, median [range]"] +
                           ["%s vs off" % c for c in self.names[1:]], rows,
                           "ll" + "r" * len(self.names))

    def verdicts(self, smp):
        """Each case against off over the workloads, estimated cycles at -smp
        smp: where the interval excludes 0, and the widest where it does not."""
        est = lambda p: cycles(p, self.lat)  # noqa: E731
        if len(self.layouts) < 2:
            return ["None: one layout cannot give an interval."]
        out = []
        for case in self.names[1:]:
            found = [(label, self.pair(case, smp, i, est)) for i, label in enumerate(self.labels)]
            real = ["%s %s" % (label, c.interval()) for label, c in found if c.real]
            quiet = [c.half_width for _, c in found if not c.real]
            out.append("- %s: %s%s." % (
                case, "different on %d of %d workloads: %s" % (len(real), len(found),
                                                                "; ".join(real))
                if real else "no measurable effect on any of the %d workloads" % len(found),
                "%s, the widest interval ±%.2f%%" % (
                    "; no measurable effect on the other %d" % len(quiet) if real else "",
                    max(quiet)) if quiet else ""))
        return out

    def layouts_needed(self, target=TARGET):
        """The layouts that would give on against off a half-width of target %
        in estimated cycles, -smp 1, on the workloads the evidence names."""
        est = lambda p: cycles(p, self.lat)  # noqa: E731
        out = []
        for i, label in enumerate(self.labels):
            if re.match(r"web c=4 |hackbench ", label) and self.judged != "off":
                c = self.pair(self.judged, self.smps[0], i, est)
                need = c.pairs_for(target)
                out.append("%s ±%.2f%% (%s)" % (label, c.half_width, "n/a" if need is None else
                                                 "%d layouts" % need))
        return "; ".join(out)

    def against_off(self, case, smp, f):
        """case's medians over off's, the geometric mean over the workloads, in %."""
        logs = [math.log(self.spread(case, smp, i, f).median / self.spread("off", smp, i, f).median)
                for i in range(len(self.labels))]
        return 100 * (math.exp(statistics.mean(logs)) - 1)

    def host_time_note(self, smp):
        """Without icount a boot's figures follow host time: the base kernel
        against off in cycles and instructions, beside the same image with
        randomize_kstack_offset (rko) and the deterministic -smp 1."""
        if smp == 1 or not {"base", "rko"} <= set(self.names) or 1 not in self.smps:
            return
        est = lambda p: cycles(p, self.lat)  # noqa: E731
        insns = lambda p: p.insns  # noqa: E731
        self.template("bench", "host-time", smp=smp,
                      base_cycles="%+.1f%%" % self.against_off("base", smp, est),
                      base_insns="%+.1f%%" % self.against_off("base", smp, insns),
                      base_cycles1="%+.1f%%" % self.against_off("base", 1, est),
                      base_insns1="%+.1f%%" % self.against_off("base", 1, insns),
                      rko_cycles="%+.1f%%" % self.against_off("rko", smp, est))

    def miss_table(self, smp, cache):
        rows = []
        for i, label in enumerate(self.labels):
            for case in self.names:
                rows.append([label, case] + [str(self.spread(case, smp, i,
                                                             lambda p, k=k: p.rate(cache, kind=k)))
                                             for k in ("sa_miss", "plru_miss", "fa_miss")] +
                            [str(self.spread(case, smp, i, lambda p: p.counts[(
                                cache, "all")]["min_bound"] / p.unit[1]))])
        return table_lines(["workload", "case", "LRU", "PLRU", "FA-LRU", "MIN bound"], rows,
                           "llrrrr")

    def colour(self, case):
        """A case's colour in every plot: CASES' order, a quick run's too."""
        return COLOURS[[n for n, _, _ in CASES].index(case) % len(COLOURS)]

    def plru_table(self, smp):
        """The headline under PLRU: colouring on against off, paired."""
        rows = []
        for i, label in enumerate(self.labels):
            rows.append([label, self.stable(smp, i, self.judged),
                         self.stable(smp, i, self.judged, kind="plru_miss")])
        return table_lines(["workload"] + ["%s vs off, %s" % (self.judged, k)
                                           for k in ("LRU", "PLRU")], rows, "lrr")

    def plot(self, png, smp):
        """Estimated cycles per event, each case against off, paired: the mean
        and the 95% interval."""
        dat = self.scratch("cycles-smp%d.dat" % smp)
        lines = []
        for i, label in enumerate(self.labels):
            row = [str(i)]
            for case in self.names[1:]:
                c = self.pair(case, smp, i, lambda p: cycles(p, self.lat))
                row += ["%.3f %.3f %.3f" % (c.pct, c.lo, c.hi)]
            lines.append(" ".join(row) + "  # " + label)
        dat.write_text("\n".join(lines) + "\n")
        cases = self.names[1:]
        n = len(cases)
        xt = ", ".join("'%s' %d" % (lab, i) for i, lab in enumerate(self.labels))
        plot_png(png, "Estimated cycles per event against off, paired (-smp %d; mean and 95%% "
                 "interval over %d layouts)" % (smp, len(self.layouts)), "", "% against off",
                 None, None, ["'%s' using ($1+%.2f):%d:%d:%d with yerrorbars pt 7 lc rgb '%s' "
                              "title '%s'" % (dat, (j - (n - 1) / 2) * 0.15, 2 + 3 * j, 3 + 3 * j,
                                              4 + 3 * j, self.colour(c), c)
                              for j, c in enumerate(cases)],
                 extra=["set xtics rotate by -40 (%s)" % xt, "set yrange [*:*]",
                        "set xzeroaxis lt -1", "set xrange [-0.6:%g]" % (len(self.labels) - 0.4)])

    def conflict_curve(self, png, smp=1):
        """The ring's L1D conflict misses per switch (set-associative minus
        fully-associative, every region) against N, with and without the
        colourings, beside 40% of off's: the colouring issue's target (N=4 and
        6), and where it is missed, why."""
        cases = [c for c in self.names if c in ("off", "placebo", "on", "task")]
        ring = [(i, p.info["tasks"]) for i, p in
                enumerate(self.boots[name(self.names[0], smp, self.layouts[0])])
                if p.workload == "ring"]
        l1d = lambda k: lambda p: (p.counts[("L1D", "all")]["sa_miss"] -
                                   p.counts[("L1D", "all")][k]) / p.unit[1]
        rows, dat = [], []
        for i, n in ring:
            off = self.spread("off", smp, i, l1d("fa_miss")).median
            cells, line = [], [str(n)]
            for c in cases:
                s = self.spread(c, smp, i, l1d("fa_miss"))
                cells += [str(s)] + ([self.pair(c, smp, i, l1d("fa_miss")).cell()]
                                     if c != "off" else []) + \
                    [str(self.spread(c, smp, i, l1d("min_bound")))]
                line += ["%.3f %.3f %.3f" % (s.median, s.lo, s.hi)]
            rows.append([n] + cells)
            dat.append(" ".join(line + ["%.3f" % (0.4 * off)]))
        table = table_lines(["N"] + [h % c for c in cases for h in ("%s SA &minus; FA",
                                                                    "%s vs off",
                                                                    "%s SA &minus; MIN")
                                     if c != "off" or "vs off" not in h], rows)
        path = self.scratch("conflicts-smp%d.dat" % smp)
        path.write_text("\n".join(dat) + "\n")
        ns = [n for _, n in ring]
        plot_png(png, "Ring: L1D conflict misses per switch (SA - FA; -smp %d, median and "
                 "range over %d layouts)" % (smp, len(self.layouts)), "tasks in the ring (N)",
                 "conflict misses per switch", ns, 1.15,
                 ["'%s' using ($1*%.3f):%d:%d:%d with yerrorlines pt 7 lc rgb '%s' title '%s'"
                  % (path, 1 + 0.04 * (j - 1), 2 + 3 * j, 3 + 3 * j, 4 + 3 * j,
                     self.colour(c), c)
                  for j, c in enumerate(cases)] +
                 ["'%s' using 1:%d with lines dt 2 lc rgb 'black' title '40%% of off'"
                  % (path, 2 + 3 * len(cases))],
                 # Negative where fully-associative LRU thrashes (N = 8..16).
                 ["set yrange [*:*]", "set xzeroaxis lt -1"])
        return table

    def save(self, results):
        m = self.meta
        version = lambda k: re.sub(r"^Linux version (\S+).*", r"\1", m["banner_" + k])  # noqa: E731
        self.template(
            "bench", "intro", quick=" QUICK=1" if m["mode"] == "quick" else "", date=m["date"],
            resumed=self.resumed(),
            version=version("bench"), fragments=m["fragments_bench"], build=m["build_bench"],
            base=" and the base kernel, Linux %s without the series (%s; %s)." % (
                version("bench-base"), m["fragments_bench-base"], m["build_bench-base"])
            if "banner_bench-base" in m else "",
            qemu=m["qemu"], gcc=m["gcc"], guest=m["guest"], cpu=m["cpu"], kargs=m["kargs"],
            dump=m["dump"], caches=", ".join("%s %dK %d-way %d B" % (c, g[0] // 1024, g[1], g[2])
                                             for c, g in sorted(self.caches.items())),
            smps=" and ".join(map(str, self.smps)), nlayouts=len(self.layouts),
            cases=table_lines(["case", "kernel", "extra kernel arguments"],
                              [[n, "the series (%s)" % m["fragments_bench"] if k == "bench" else
                                "base kernel (%s)" % m.get("fragments_bench-base", "?"),
                                "`%s`" % a if a else "(none)"] for n, k, a in self.cases],
                              "lll"))
        self.code((self.work / "run.sh").read_text())
        self.template(
            "bench", "layouts", start_up=start_up_share(self), nlayouts=len(self.layouts),
            placebo=dict((n, a) for n, _, a in self.cases).get("placebo", "-"),
            layouts=table_lines(["layout", "children", "pipes", "files", "sockets", "eventfds",
                                 "pages"],
                                [[lay] + [self.boots[name("off", self.smps[0], lay)].layout.get(
                                    k, "?") for k in ("children", "pipes", "files", "sockets",
                                                      "eventfds", "pages")]
                                 for lay in self.layouts], "lrrrrrr"),
            moved=[line for smp in self.smps for line in self.layout_table(smp)],
            cpi=fmt(self.lat["cpi"]), l1=fmt(self.lat["L2"]), l2=fmt(self.lat["L3"]),
            cpu=m["cpu"], source=self.lat["source"])
        for smp in self.smps:
            self.template("bench", "smp-cycles", smp=smp, headline=self.headline(smp))
            self.host_time_note(smp)
            self.template("bench", "smp-plot", smp=smp)
        self.template("bench", "verdict", judged=self.judged, smp=self.smps[0],
                      target="%g" % TARGET, needed=self.layouts_needed() or "-")
        for smp in self.smps:
            self.template("bench", "verdict-smp", smp=smp, lines=self.verdicts(smp) + [""])
        self.template(
            "bench", "instructions", window=m.get("min_window", "?"), off_cost="; ".join(
                "per %s (%s) off %.1f, base %.1f: %+.3f%%, paired %s, %s" % (
                    unit, "the ring, every N pooled" if w == "ring" else w, a, b, d, p.cell(),
                    against_limit(d, limit, p))
                for w, unit, a, b, d, limit, p in insns_off_vs_base(self.boots, self.layouts))
            if {"off", "base"} <= set(self.names) and len(self.layouts) > 1 else
            "not measured (this run boots no base kernel)",
            tables=[line for smp in self.smps for line in table_lines(
                ["workload", "-smp"] + self.names,
                [[label, smp] + [str(self.spread(c, smp, i, lambda p: p.insns))
                                 for c in self.names]
                 for i, label in enumerate(self.labels)], "lr" + "r" * len(self.names))])
        for smp in self.smps:
            for cache in CACHES:
                self.template("bench", "misses", cache=cache, smp=smp,
                              table=self.miss_table(smp, cache))
        if "off" in self.names and len(self.names) > 2:
            self.template("bench", "ring",
                          table=self.conflict_curve(results / "bench-conflicts.png"))
        self.template("bench", "plru", judged=self.judged)
        for smp in self.smps:
            self.template("bench", "plru-smp", smp=smp, table=self.plru_table(smp))
        self.template(
            "bench", "determinism", smp=self.smps[0],
            lines=["- %s booted twice: the plugin outputs are %s." % (
                n, "byte-identical" if same(self.boots, n) else "**different**")
                for n in self.repeats] + [""],
            table=table_lines(["workload", "case"] + list(REGIONS.values()),
                              [[p.label, c] + [p.sa_fa("L1D", r) for r in REGIONS]
                               for i in range(len(self.labels)) for c in self.names
                               for p in [self.boots[name(c, self.smps[0], 1)][i]]],
                              "ll" + "r" * len(REGIONS)))
        self.commands(self.run.commands)
        for smp in self.smps:
            self.plot(results / ("bench-cycles-smp%d.png" % smp), smp)
        self.write_md(results / "bench.md")


def same(boots, n):
    return boots[n].raw == boots[n + ".repeat"].raw and bool(boots[n].raw)


def check_phases(run, names):
    """ab served every request; the MIN bound is never above LRU or PLRU."""
    bad_web, bad_min = [], []
    for n in names:
        for p in run.boots[n]:
            if p.workload == "web" and (p.info["failed"] or p.info["complete"] !=
                                        p.info["requests"]):
                bad_web.append("%s %s: %d of %d complete, %d failed" % (
                    n, p.label, p.info["complete"], p.info["requests"], p.info["failed"]))
            for cache in CACHES:
                c = p.counts[(cache, "all")]
                if c["min_bound"] > min(c["sa_miss"], c["plru_miss"]):
                    bad_min.append("%s %s %s: MIN %d, LRU %d, PLRU %d" % (
                        n, p.label, cache, c["min_bound"], c["sa_miss"], c["plru_miss"]))
    webs = sum(p.workload == "web" for n in names for p in run.boots[n])
    run.tap(webs > 0 and not bad_web, "web: ab served all requests, 0 failed (%d phases)" % webs,
            bad_web[:10])
    run.tap(not bad_min, "MIN bound <= LRU and PLRU misses in every phase and cache (%d boots)"
            % len(names), bad_min[:10])


def against_limit(median, limit, p):
    """What the page says of an off cost (in %) against its limit, given its
    paired interval p."""
    if p.lo > limit:
        return "**measurably over** its %.1f%% limit" % limit
    if p.hi > limit:
        return "the median %s its %.1f%% limit, the interval holding it" % (
            "over" if median > limit else "within", limit)
    if median > limit:
        return "the median over its %.1f%% limit, the interval below it" % limit
    return "within its %.1f%% limit" % limit


def check_insns(run, layouts):
    """The off cost not measurably over its limits.  A quick run's counts do
    not resolve 0.1%: skipped."""
    for workload, unit, a, b, d, limit, p in insns_off_vs_base(run.boots, layouts):
        run.tap(p.lo <= limit, "instructions per %s, %s, -smp 1: off %.1f, base %.1f, %+.3f%%, "
                "paired %s: not measurably over the %.1f%% limit" % (
                    unit, workload, a, b, d, p.cell(), limit))


def insns_off_vs_base(boots, layouts):
    """Off against base, instructions per switch (the ring, every N pooled)
    and per fork, -smp 1: [(workload, unit, off's median over the layouts,
    base's, the difference in %, its limit in %, paired.Paired)]."""
    out = []
    for workload, unit in (("ring", "switch"), ("forkloop", "fork")):
        off, base = ([boots[name(c, 1, lay)].insns(workload) for lay in layouts]
                     for c in ("off", "base"))
        a, b = statistics.median(off), statistics.median(base)
        out.append((workload, unit, a, b, pct(a, b), 100 * INSN_TOLERANCE[workload],
                    paired.Paired(base, off)))
    return out


def main(argv=None):
    opts = parser(__doc__).parse_args(argv)   # --pool: the cases'; the repeat's, the other
    quick = opts.quick
    dump = facts.path("bench-dump")
    try:
        caches = probe_caches(dump)
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    work = work_dir(opts, "quick" if quick else "bench")
    cases = [c for c in CASES if c[0] in QUICK_CASES] if quick else CASES
    smps = QUICK_SMPS if quick else SMPS
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    run = Run("bench", "bench-quick" if quick else "full", work,
              plugin_args=plugin_geometry(caches), record="bench", **run_args(opts))
    for key in sorted({k for _, k, _ in cases}):
        run.image(key, key)
    fixtures = facts.path("fixtures").resolve()
    for k, v in (("dump", str(dump.relative_to(fixtures)) if fixtures in dump.parents else
                  str(dump)), ("kargs", " ".join(run.kargs)), ("guest", guest_versions())):
        run.meta.setdefault(k, v)   # a replay keeps its run's
    boots = [(name(c, s, lay), k, ("%s bench_layout=%d" % (a, lay)).strip(), s)
             for c, k, a in cases for s in smps for lay in layouts]
    # One case boots again deterministically, by the other job pool where
    # there is one: the pools must give the same bytes as well.
    repeats = [name(REPEATED, 1, 1)]
    again = next(b for b in boots if b[0] == repeats[0])
    first = opts.pool
    pools = [first, "parallel" if first != "parallel" and shutil.which("parallel") else "builtin"]
    run.boot("cases (%s pool)" % pools[0], boots, pools[0])
    run.boot("repeat (%s pool)" % pools[1], [(again[0] + ".repeat",) + again[1:]], pools[1])
    ok = run.check_boots([b[0] for b in boots] + [r + ".repeat" for r in repeats])
    if ok:
        check_phases(run, [b[0] for b in boots])
        if not quick:
            check_insns(run, layouts)
    for r in repeats:
        run.tap(same(run.boots, r), "determinism: two boots of %s (%s, then %s pool) gave %s "
                "plugin output" % (r, pools[0], pools[1], "byte-identical" if same(run.boots, r)
                                   else "DIFFERENT"))
    run.meta.setdefault("min_window", run.boots[boots[0][0]].config.get("min_window", "?"))
    return run.finish(Report(run, cases, smps, layouts, repeats, caches, latency())
                      if ok else None)


def guest_versions():
    """The Debian versions of the guest's real programs, for the report."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", "lighttpd",
                          "apache2-utils", "rt-tests", "libc6"], capture_output=True, text=True)
    return ", ".join(out.stdout.split("\n")[:-1]) or "?"


if __name__ == "__main__":
    sys.exit(main())
