"""Stack colouring on the caches of real CPUs: make bench-cpus [QUICK=1], and
make bench-cpu DUMP=FILE [QUICK=1] for any one CPUID dump (README.md).

Every boot simulates, beside the bench model's caches, the L1D, L1I and L2 of
each CPU (kcolour-cachesim cpus=, from kcolour-probe --cpuid-file DUMP --json
of facts.tsv's benchcpu dumps), so one boot per (setting, layout) scores
every CPU on the same guest run.  The settings: colouring off, a grid of
colour counts x steps x policies, each CPU's derived line exactly as
kcolour-probe --cmdline prints it, and placebos (colouring off under an
argument as long as a grid point's, and as each derived line).  The guest kernel stays the bench's
Skylake-Client: QEMU 7.2 cannot present a dump's CPUID, so the kernel's own
decode of these CPUs is not exercised here (the probe's is, and
kernel = probe = sysfs on the QEMU models: make demo-matrix).

Per CPU, setting and layout: the estimated cycles per event of each workload
(bench.py's model on that CPU's simulated misses) and their geometric mean.
Each CPU's optimum and the best fixed setting are picked on the pick layouts
and every setting is scored on the others, paired with off (or with another
setting) layout by layout: the mean ratio and its 95% t interval
(bench/lib/paired.py).  Results into build/bench/cpus
(docs/results/cpus.md from a full make bench-cpus).  Flags (make's QUICK=1,
DUMP=FILE, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import math
import statistics
import sys
from pathlib import Path

from bench.lib import paired
from bench.lib.cases import TARGET
from bench.lib.cost import latency
from bench.lib.cpus import Cpu, cpu_cycles, hierarchy
from bench.lib.data import net
from bench.lib.record import work_dir
from bench.lib.report import Doc, Spread, fmt, make_vars, plot_png, table_lines
from bench.lib.runner import ROOT, Run, boot_name, layout_boots, parser, run_args
from harness import facts, util
GRID = [(3, 1024, "balanced"), (4, 1024, "balanced"), (2, 2048, "balanced"),
        (4, 512, "balanced"), (8, 512, "balanced"), (16, 256, "balanced"),
        (3, 1024, "rr")]
# QUICK (make check's smoke run, 6 boots): one grid point beside off and the
# derived lines of two CPUs, one coloured (K8: 3 colours at shift 15) and one
# not (Tiger Lake's 48K 12-way L1D: kcolour-probe derives off, which is the
# off case); with --dump, off and the dump's derived line alone (2 boots
# where the dump's CPU, like this VM's, derives off).
QUICK_GRID = [(4, 512, "balanced")]
# The placebo: colouring off, with the 3 x 1 KiB grid point's fields (its
# line one character longer), so that off against the placebo shows what a
# setting's argument alone moves; never a candidate optimum or fixed setting.
# Not in the smoke run.  Each derived line that colours has a placebo of
# its own as well (placebo_of()): a derived line is a dozen characters
# longer than a grid point's.
PLACEBO = ("placebo", "kstack_colour=off,colours=3,step=1024,max_offset=2048,policy=balanced")
PICK, SCORE = (1, 2, 3, 4), (5, 6, 7, 8)
QUICK_PICK, QUICK_SCORE = (1,), (2,)
QUICK_CPUS = ("K8", "TigerLake")
# The plugin's primary caches (its defaults), simulated once more as the last
# cpus= hierarchy: it must count exactly what the primary L2 counts.
PRIMARY = hierarchy(facts.default_model()[1])
# The derived setting is within target where it is not measurably worse
# than the optimum by more than this (its interval's lower end).
TARGET_SLACK = 3.0


def setting_args(colours, step, policy):
    return "kstack_colour=on,colours=%d,step=%d,max_offset=%d,policy=%s" % (
        colours, step, (colours - 1) * step, policy)


def line_fields(line):
    """{key: value} of a kstack_colour= line."""
    return dict(x.split("=", 1) for x in line.split("=", 1)[1].split(",") if "=" in x)


def derived_key(line):
    """(colours, step, policy) of a kstack_colour= line, None for off."""
    kv = line_fields(line)
    if line.startswith("kstack_colour=off") or kv.get("colours") == "1":
        return None
    return int(kv["colours"]), int(kv["step"]), kv["policy"]


def placebo_of(name, line):
    """The placebo of setting NAME's kstack_colour= line: the same fields
    with colouring off, so an argument one character longer."""
    return PLACEBO[0] + "-" + name, "kstack_colour=off" + line[len("kstack_colour=on"):]


def is_own_placebo(name):
    """A derived line's own placebo (placebo_of())."""
    return name.startswith(PLACEBO[0] + "-")


def is_placebo(name):
    return name == PLACEBO[0] or is_own_placebo(name)


def settings(cpus, grid, placebo=True):
    """[(name, kernel args)]: off, the placebo, each distinct derived line
    (exactly as the probe prints it) followed by its own placebo where it
    colours, then the grid points that no derived line already is."""
    out, derived = [("off", "kstack_colour=off")] + [PLACEBO] * placebo, set()
    for c in cpus:
        if c.derived in (a for _, a in out):
            continue
        key = derived_key(c.derived)
        name = ("c1-derived" if key is None else "c%d-s%d-%s" % key) + \
            "-shift" + line_fields(c.derived).get("shift", "")
        out += [(name, c.derived)] + [placebo_of(name, c.derived)] * (placebo and key is not None)
        derived.add(key)
    return out + [("c%d-s%d-%s" % g, setting_args(*g)) for g in grid if g not in derived]


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


class Cpus(Doc):
    def __init__(self, run, cpus, cases, pick, score, lat):
        super().__init__(run)
        self.cpus, self.cases, self.pick, self.score, self.lat = \
            cpus, cases, pick, score, lat
        self.names = [boot_name(cases[0][0], pick[0])]
        # (case, cpu index, layout) -> {workload label: figure per event}:
        # estimated cycles, and the CPU's L1D misses.
        self.cyc, self.l1d = {}, {}
        for case, _ in cases:
            for i in range(len(cpus)):
                for lay in pick + score:
                    phases = [p for p in net(self.boots[boot_name(case, lay)]) if not p.start_up]
                    self.cyc[case, i, lay] = {p.label: self.cycles(p, i) for p in phases}
                    self.l1d[case, i, lay] = {p.label: p.rate("cpu%d-L1D" % (i + 1))
                                              for p in phases}
        self.workloads = list(self.cyc[cases[0][0], 0, pick[0]])
        self.has_placebo = PLACEBO in cases
        self.case_names = [c for c, _ in cases]
        # Some derived line's own placebo was booted (runs since 2026-12-07).
        self.has_own_placebo = any(self.own_placebo(i) for i in range(len(cpus)))
        self.opt, self.fixed = self.choose()

    def cycles(self, p, i):
        return cpu_cycles(p, i, self.lat)

    def per_layout(self, case, i, layouts, workload=None, figure=None):
        """In layout order, the geometric mean over the workloads (or one
        workload) of estimated cycles (or of another figure: self.l1d)."""
        fig = self.cyc if figure is None else figure
        return [fig[case, i, lay][workload] if workload else geomean(fig[case, i, lay].values())
                for lay in layouts]

    def gm(self, case, i, layouts, workload=None, figure=None):
        """per_layout()'s Spread: its median and range."""
        return Spread(self.per_layout(case, i, layouts, workload, figure))

    def choose(self):
        """Each CPU's optimum and the best fixed setting, on the pick layouts."""
        cases = [c for c, _ in self.cases if not is_placebo(c)]
        opt = [min(cases, key=lambda c: (self.gm(c, i, self.pick).median, c))
               for i in range(len(self.cpus))]
        fixed = min(cases, key=lambda c: (geomean(
            [self.gm(c, i, self.pick).median / self.gm("off", i, self.pick).median
             for i in range(len(self.cpus))]), c))
        return opt, fixed

    def pair(self, case, i, layouts, workload=None, figure=None, control="off"):
        """case against control on CPU i, layout by layout: the geometric mean
        over the workloads (or one workload) of estimated cycles (or of
        another figure: self.l1d)."""
        return paired.Paired(*[self.per_layout(c, i, layouts, workload, figure)
                               for c in (control, case)])

    def derived(self, i):
        """The case booted with CPU i's derived line."""
        return next(n for n, a in self.cases if a == self.cpus[i].derived)

    def own_placebo(self, i):
        """The placebo of CPU i's derived line, None where the line colours
        nothing or the run booted no such placebo."""
        d = self.derived(i)
        name = placebo_of(d, self.cpus[i].derived)[0]
        return name if d != "off" and name in self.case_names else None

    def rel(self, case, i):
        """A setting against off on the scoring layouts, paired: a table cell."""
        return self.pair(case, i, self.score).cell() if case != "off" else ""

    def targets(self, i):
        """The issue's three targets for CPU i, paired on the scoring layouts:
        (within: the derived setting not measurably more than TARGET_SLACK %
        above the optimum; beats fixed: measurably lower than the fixed
        setting; the workloads where it is measurably higher than off), and
        the workloads where it is measurably higher than its own placebo."""
        d = self.derived(i)
        to_opt, to_fixed = (self.pair(d, i, self.score, control=c) for c in (self.opt[i],
                                                                             self.fixed))
        # One scoring layout (QUICK) gives no interval: None, not a verdict.
        within = True if d == self.opt[i] else None if to_opt.verdict == paired.NA else \
            to_opt.lo <= TARGET_SLACK
        beats = False if d == self.fixed else None if to_fixed.verdict == paired.NA else \
            to_fixed.verdict == paired.LOWER
        worse, worse_placebo = ([w for w in self.workloads if control and self.pair(
            d, i, self.score, w, control=control).verdict == paired.HIGHER]
            for control in ("off" if d != "off" else None, self.own_placebo(i)))
        return within, beats, worse, worse_placebo

    def save(self, results):
        m = self.meta
        self.template("cpus", "intro", command=self.run.commands[0].split("   #")[0],
                      date=m["date"], resumed=self.resumed(),
                      banner=m["banner_bench"], fragments=m["fragments_bench"], cpu=m["cpu"],
                      kargs=m["kargs"], cpi=fmt(self.lat["cpi"]), l1=fmt(self.lat["L2"]),
                      l2=fmt(self.lat["L3"]), pick=", ".join(map(str, self.pick)),
                      score=", ".join(map(str, self.score)))
        self.code("\n".join(self.run.want))
        for c in self.cpus:
            if c.cpu:
                self.template("cpus", "hybrid", name=c.name, cpu=c.cpu)
        hits = [self.targets(i) for i in range(len(self.cpus))]
        self.template(
            "cpus", "cpus",
            cpus=table_lines(["CPU", "set", "L1D", "L1I", "L2",
                              "derived line (kcolour-probe --cmdline)"],
                             [[c.name, c.set, c.geometry("L1D"), c.geometry("L1I") +
                               (" (the model's: no L1I in CPUID)" if c.l1i_stand_in else ""),
                               c.geometry("L2"), "`%s`" % c.derived] for c in self.cpus],
                             "llllll"),
            settings=table_lines(["setting", "kernel arguments"],
                                 [[n, "`%s`" % a] for n, a in self.cases], "ll"),
            placebo=" *placebo*: colouring off under an argument as long as a setting's, the "
            "method's own bias;" if self.has_placebo else "",
            fixed=self.fixed, results=self.results_table(hits), slack="%g" % TARGET_SLACK,
            within=sum(h[0] is True for h in hits), ncpus=len(hits),
            beats=sum(h[1] is True for h in hits), worse=sum(len(h[2]) for h in hits),
            worse_own="; measurably above its own placebo on %d workload x CPU pairs" %
            sum(len(h[3]) for h in hits)
            if self.has_own_placebo else "")
        power = self.power()
        if power and len(self.score) > 1:
            self.template("cpus", "power", layouts=len(self.score), target="%g" % TARGET,
                          each="; ".join("%s ±%.2f%% (%s)" % (
                              n, hw, "n/a" if need is None else "%d" % need)
                              for n, hw, need in power))
        if self.has_placebo:
            self.template("cpus", "placebo", **self.bias(lambda i: PLACEBO[0]),
                          placebo_by=self.by_workload(lambda i: PLACEBO[0]),
                          derived_by=self.by_workload(self.derived))
        if self.has_own_placebo:
            self.template("cpus", "own-placebo", **self.bias(self.own_placebo),
                          placebo_by=self.by_workload(self.own_placebo),
                          derived_by=self.by_workload(self.derived, self.own_placebo))
        self.grid_section()
        self.policy_section()
        self.rule_section()
        self.l2_section()
        self.plot(results / "cpus.png")
        self.template("cpus", "plot")
        self.commands(self.run.commands)
        self.write_md(results / "cpus.md")

    def results_table(self, hits):
        """Each CPU's row: off, the placebo, optimum, derived (and its own
        placebo) and fixed against off, and the targets (hits: targets() of
        each CPU)."""
        rows, own = [], self.has_own_placebo
        for i, c in enumerate(self.cpus):
            w, b, worse, worse_own = hits[i]
            placebo = self.own_placebo(i)
            rows.append([c.name, c.set, str(self.gm("off", i, self.score))] +
                        ([self.rel(PLACEBO[0], i)] if self.has_placebo else []) +
                        ["%s %s" % (self.opt[i], self.rel(self.opt[i], i)),
                         "%s %s" % (self.derived(i), self.rel(self.derived(i), i))] +
                        [self.rel(placebo, i) if placebo else "-"] * own +
                        [self.rel(self.fixed, i), {True: "yes", False: "**no**"}.get(w, "n/a"),
                         {True: "yes", False: "no"}.get(b, "n/a"), ", ".join(worse) or "none"] +
                        [(", ".join(worse_own) or "none") if placebo else "-"] * own)
        return table_lines(["CPU", "set", "off"] + ["placebo"] * self.has_placebo +
                           ["optimum", "derived"] + ["derived's own placebo"] * own +
                           ["fixed", "derived within target", "derived beats fixed",
                            "workloads where derived is worse than off"] +
                           ["workloads where derived is worse than its own placebo"] * own,
                           rows, "llr" + "r" * self.has_placebo + "rr" + "r" * own + "rlll" +
                           "l" * own)

    def bias(self, placebo):
        """placebo(CPU index) (None: no placebo) against off, each CPU and
        workload on the scoring layouts: how many intervals exclude 0 (real)
        of how many (cells), and the largest mean."""
        cells = [self.pair(placebo(i), i, self.score, w) for i in range(len(self.cpus))
                 if placebo(i) for w in self.workloads]
        return {"real": sum(c.real for c in cells), "cells": len(cells),
                "largest": "%+.2f%%" % max((c.pct for c in cells), key=abs)}

    def by_workload(self, case, control=lambda i: "off"):
        """Where case(CPU index) differs from control(CPU index) (off) on the
        scoring layouts, by workload: how many CPUs, and the means' range
        ("none" if nowhere); a CPU whose case is off or control None is not
        counted."""
        out = []
        cpus = [i for i in range(len(self.cpus)) if case(i) not in ("off", None) and control(i)]
        for w in self.workloads:
            real = [p.pct for i in cpus
                    for p in [self.pair(case(i), i, self.score, w, control=control(i))] if p.real]
            for what, side in (("lower", [x for x in real if x < 0]),
                               ("higher", [x for x in real if x > 0])):
                if side:
                    out.append("%s %s on %d of %d CPUs (%s)" % (
                        w, what, len(side), len(cpus), "%+.2f%%" % side[0] if len(side) == 1 else
                        "%+.2f%% to %+.2f%%" % (min(side), max(side))))
        return "; ".join(out) or "none"

    def power(self):
        """[(CPU, half-width %, layouts for TARGET)] of the derived line against
        off on each CPU that colours."""
        return [(c.name, p.half_width, p.pairs_for(TARGET)) for i, c in enumerate(self.cpus)
                if self.derived(i) != "off" for p in [self.pair(self.derived(i), i, self.score)]]

    def grid_section(self):
        for figure, what in ((None, "estimated cycles"), (self.l1d, "L1D misses")):
            self.template("cpus", "grid", what=what, table=table_lines(
                ["setting"] + [c.name for c in self.cpus],
                [[n] + [mean_cell(self.pair(n, i, self.score, figure=figure))
                        for i in range(len(self.cpus))] for n, _ in self.cases[1:]]))

    def most_derived(self, key):
        """Of the settings with (colours, step, policy) key, the one most CPUs
        derive; None if no setting has it."""
        lines = [(sum(c.derived == a for c in self.cpus), n) for n, a in self.cases
                 if derived_key(a) == key]
        return max(lines)[1] if lines else None

    def policy_section(self):
        """rr against balanced at 3 x 1 KiB: balanced picks the least used
        colour under a per-core lock on fork, rr takes a per-core counter."""
        rr, balanced = (self.most_derived((3, 1024, pol)) for pol in ("rr", "balanced"))
        if not rr or not balanced:
            return
        every = self.pick + self.score
        self.template("cpus", "policy", rr=rr, balanced=balanced,
                      layouts=", ".join(map(str, every)), table=table_lines(
                          ["CPU", "estimated cycles", "L1D misses"],
                          [[c.name] + [self.pair(rr, i, every, figure=f, control=balanced).cell()
                                       for f in (None, self.l1d)]
                           for i, c in enumerate(self.cpus)], "lrr"))

    def rule_section(self):
        case = self.most_derived((3, 1024, "balanced"))
        if not case:
            return
        rows, seen, every = [], {}, self.pick + self.score
        for i, c in enumerate(self.cpus):
            if c.caches["L1D"] in seen:
                continue
            seen[c.caches["L1D"]] = i
            most = max(self.workloads,
                       key=lambda w: abs(self.pair(case, i, every, w, self.l1d).pct))
            rows.append([c.geometry("L1D"), ", ".join(
                             d.name for d in self.cpus if d.caches["L1D"] == c.caches["L1D"]),
                         self.pair(case, i, every, figure=self.l1d).cell(),
                         "%s %s" % (most, self.pair(case, i, every, most, self.l1d).cell()),
                         "colour" if derived_key(c.derived) else "none"])
        self.template(
            "cpus", "rule", case=case, layouts=", ".join(map(str, every)),
            table=table_lines(["L1D", "CPUs", "L1D misses", "the workload it moves most",
                               "derived"], rows, "lllll"),
            workloads=table_lines(["L1D (CPU)", "workload", "L1D misses", "estimated cycles"],
                                  [["%s (%s)" % (self.cpus[i].geometry("L1D"),
                                                 self.cpus[i].name), w] +
                                   [self.pair(case, i, every, w, f).cell()
                                    for f in (self.l1d, None)]
                                   for i in seen.values() for w in self.workloads], "llrr"))

    def l2_counts(self, case, i):
        """CPU i's L2 misses over a boot's phases, all and at the stack top,
        and its conflict misses (LRU less fully associative) the same, each
        the scoring layouts' median."""
        def count(lay, region, conflict):
            return sum(c["sa_miss"] - (c["fa_miss"] if conflict else 0) for c in (
                p.counts[("cpu%d-L2" % (i + 1), region)]
                for p in self.boots[boot_name(case, lay)]))
        return [statistics.median(count(lay, r, k) for lay in self.score)
                for k in (False, True) for r in ("all", "stack-top")]

    def l2_section(self):
        self.template("cpus", "l2", table=table_lines(
            ["CPU", "L2", "setting", "misses", "at the stack top", "conflict",
             "conflict at the stack top"],
            [[c.name, c.geometry("L2"), case] + ["%.0f" % x for x in self.l2_counts(case, i)]
             for i, c in enumerate(self.cpus) for case in ("off", self.derived(i))],
            "lllrrrr"))

    def plot(self, png):
        dat = self.scratch("cpus.dat")
        lines, titles = [], ("optimum", "derived", "fixed", "placebo")[:3 + self.has_placebo]
        for i, c in enumerate(self.cpus):
            vals = []
            for case in (self.opt[i], self.derived(i), self.fixed, PLACEBO[0])[:len(titles)]:
                d = self.pair(case, i, self.score)
                vals += [0.0] * 3 if case == "off" else [d.pct, d.lo, d.hi]
            lines.append("%d %s %s\n" % (i, c.name, " ".join("%.3f" % v for v in vals)))
        dat.write_text("".join(lines))
        n = len(self.cpus)
        plot_png(png, "estimated cycles per event against off (scoring layouts, paired: mean, "
                 "95% interval)",
                 "", "change against off, % (geometric mean over workloads)", None, 1,
                 ["'%s' using ($1%+.2f):%d:%d:%d%s with yerrorbars pt %d title '%s'" % (
                     dat, (k - (len(titles) - 1) / 2) * 0.18, 3 + 3 * k, 4 + 3 * k, 5 + 3 * k,
                     ":xtic(2)" if k == 1 else "", 5 + 2 * k, t)
                  for k, t in enumerate(titles)],
                 extra=["set xrange [-0.5:%g]" % (n - 0.5), "set xtics rotate by -40",
                        "set yrange [*:*]", "set offsets 0, 0, graph 0.05, graph 0.05",
                        "set xzeroaxis lt -1"])


def mean_cell(c):
    """A Paired's mean alone, in bold where its interval excludes 0."""
    return ("**%+.2f**" if c.real else "%+.2f") % c.pct


def check_twins(run, names, twins, what):
    """Two simulations of one geometry, on the same accesses, count the same
    accesses, misses and invalidations in every phase and region."""
    pairs = [(n, i, a, b, r) for n in names for i, (_, c) in run.boots[n].phases.items()
             for a, b in twins(c) for (cache, r) in c if cache == a]
    bad = ["%s phase %d %s %s" % (n, i, a, r) for n, i, a, b, r in pairs
           if any(run.boots[n].phases[i][1][(a, r)][k] != run.boots[n].phases[i][1][(b, r)][k]
                  for k in ("accesses", "sa_miss", "inval"))]
    run.tap(bool(pairs) and not bad, "%s in every phase and region (%d boots, %d counts)%s" % (
        what, len(names), len(pairs), ": " + ", ".join(bad[:5]) if bad else ""))


def main(argv=None):
    p = parser(__doc__)
    p.add_argument("--dump", metavar="FILE", type=Path,
                   help="one CPUID dump (cpuid -r or AIDA64) instead of facts.tsv's benchcpu "
                   "CPUs: make bench-cpu, into build/bench/cpu-NAME")
    opts = p.parse_args(argv)
    quick = opts.quick
    fixtures = facts.path("fixtures")
    try:
        if opts.dump:
            dump = opts.dump.resolve()
            cpus = [Cpu(dump.stem, "dump", dump)]
        else:
            cpus = [Cpu(n, s, fixtures / d, int(c)) for n, s, c, d in facts.rows("benchcpu")
                    if not quick or n in QUICK_CPUS]
    except (util.Error, KeyError, ValueError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    one = cpus[0].name if opts.dump else None
    cases = settings(cpus, GRID if not quick else [] if one else QUICK_GRID, placebo=not quick)
    pick, score = (QUICK_PICK, QUICK_SCORE) if quick else (PICK, SCORE)
    work = work_dir(opts, "%s%s" % ("cpu-" + one if one else "cpus", "-quick" if quick else ""))
    # The smoke run simulates the first CPU's L1D once more as an l1d_extra=,
    # whose MRU and invalidation paths are the sweep's, not the hierarchies'.
    extra = ",l1d_extra=%d:%d:%d" % cpus[0].caches["L1D"] if quick else ""
    command = "make bench-cpu" + make_vars([("DUMP", dump), ("QUICK", 1 if quick else None)]) \
        if one else None
    run = Run("bench-cpu" if one else "bench-cpus", "cpus-quick" if quick else "cpus", work,
              1800, "cpus=" + "/".join([c.hierarchy() for c in cpus] + [PRIMARY]) + extra,
              record=None if one else "cpus", command=command, **run_args(opts))
    run.image("bench", "bench")
    run.meta.setdefault("kargs", " ".join(run.kargs))
    # A record from before the derived lines' own placebos has none.
    cases = run.booted_cases(cases, pick[0], is_own_placebo)
    boots = layout_boots(cases, pick + score, "bench")
    run.boot("settings x layouts", boots)
    names = [b[0] for b in boots]
    if not run.check_boots(names, extras=3 * (len(cpus) + 1) + bool(extra)):
        return run.finish(None, run.work)
    check_twins(run, names, lambda c: [("L2", "cpu%d-L2" % (len(cpus) + 1))],
                "a cpus= hierarchy of the primary's geometry counts what the primary L2 counts")
    if extra:
        check_twins(run, names, lambda c: [(x, "cpu1-L1D") for x in {x for x, _ in c if x.startswith("L1D-")}],
                    "the l1d_extra= copy of %s's L1D counts what its cpus= L1D counts" %
                    cpus[0].name)
    report = Cpus(run, cpus, cases, pick, score, latency())
    for i, c in enumerate(cpus):
        run.tap(all(v > 0 for lay in pick + score for v in report.cyc["off", i, lay].values()),
                "%s: cycles for every workload and layout (%d workloads)" % (
                    c.name, len(report.workloads)))
    return run.finish(report, run.work if quick or one else ROOT / "docs/results")


if __name__ == "__main__":
    sys.exit(main())
