#!/usr/bin/env python3
"""The objects behind the direct map's L1D conflict misses, both sides of
each: make bench-attribution [QUICK=1] -> docs/results/attribution.md.

Each boot runs the bench kernel (facts.tsv image bench, whose DEBUG_PAGE_MAP
gives /sys/kernel/debug/page_map) under kcolour-cachesim with conflicts=: for
every access that the bench CPU's L1D misses and its fully-associative copy
hits, the plugin keeps the line and the line whose miss last evicted it from
its set (bench/cachesim/README.md, conflicts=).  After each phase, outside its
window, the guest prints the page map (phases.sh page_map); the host names a
direct-map line by the owner of its page frame, a slab cache or a page kind,
and an evictor outside the direct map by its region.  -smp 1, deterministic,
the cases off, defaults and task in three layouts, pooled.  TAP on stdout:
every phase and page map present, the plugin's pairs add up to its counts,
and (full runs) at least 90% of the conflict misses named on both sides.
Flags (make's QUICK=1, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import collections
import sys
import textwrap

from bench.lib.data import REGIONS, read_conflicts
from bench.lib.experiment import Cases, cases_main
from bench.lib.pagemap import PAGE_SHIFT, check, owner_name, page_maps
from bench.lib.probe import bench_caches
from bench.lib.report import Doc, fmt, plot_png, table_lines
from bench.lib.runner import boot_name, table_path

TARGET_NAMED = 0.90     # the share of conflict misses named on both sides

# page_map's page kinds, as the report names them.
# Owners that name nothing: the page was freed before the map was read, or
# the plugin lost the evictor (bench/cachesim/README.md, conflicts=).
UNNAMED = {"free page", "not in the map", "evictor unknown"}
TOP_PAIRS, TOP_OBJECTS = 12, 8
# task_struct's slab in the bench kernel: 10 objects of 3264 B in 8 pages
# (/proc/slabinfo in the guest, docs/design.md), naturally aligned (a buddy
# block): two task_structs in one slab have one frame number >> 3.
TASK_SLAB_PAGES_SHIFT = 3



def evictor_name(evictor, pmap):
    """An evictor as the plugin wrote it: a direct-map address, a region, or ?."""
    if evictor == "?":
        return "evictor unknown"
    if evictor.startswith("0x"):
        return owner_name(pmap.owner(int(evictor, 16) >> PAGE_SHIFT))
    return "(%s)" % REGIONS.get(evictor, evictor)


class Tally:
    """One case's conflict misses on one workload, layouts pooled: by
    (victim, evictor) pair, with the L1D sets each pair met in."""

    def __init__(self):
        self.pairs, self.sets = collections.Counter(), collections.defaultdict(collections.Counter)
        self.direct = self.events = self.sa_fa = 0
        self.task_self = self.task_one_slab = 0  # task_struct on task_struct

    def add(self, phase, conflicts, pmap, nsets, line):
        head, pairs = conflicts
        self.direct += head["direct"]
        self.events += phase.unit[1]
        c = phase.counts[("L1D", "direct")]
        self.sa_fa += c["sa_miss"] - c["fa_miss"]
        for victim, evictor, n in pairs:
            key = (owner_name(pmap.owner(victim >> PAGE_SHIFT)), evictor_name(evictor, pmap))
            self.pairs[key] += n
            self.sets[key][(victim // line) % nsets] += n
            if key == ("task_struct", "task_struct"):
                self.task_self += n
                shift = PAGE_SHIFT + TASK_SLAB_PAGES_SHIFT
                self.task_one_slab += n if victim >> shift == int(evictor, 16) >> shift else 0

    def named(self):
        return sum(n for (v, e), n in self.pairs.items() if v not in UNNAMED and e not in UNNAMED)

    def share(self, n):
        return n / self.direct if self.direct else 0.0

    def by_victim(self):
        out = collections.Counter()
        for (v, _), n in self.pairs.items():
            out[v] += n
        return out


def tally(run, cases, layouts, nsets, line):
    """{(case, phase index): Tally}, layouts pooled."""
    out = collections.defaultdict(Tally)
    for c, _ in cases:
        for lay in layouts:
            n = boot_name(c, lay)
            maps = page_maps(run.console(n))
            conf = read_conflicts(table_path(run.work, n, "conflicts"))
            for i, p in enumerate(run.boots[n]):
                out[(c, i)].add(p, conf[i], maps[i], nsets, line)
    return out


def sets_str(counter):
    top = ", ".join(str(s) for s, _ in counter.most_common(4))
    return "%d (%s%s)" % (len(counter), top, ", ..." if len(counter) > 4 else "")


class Report(Doc):
    """The page; its prose is bench/templates/attribution.md.in's."""

    def __init__(self, run, cases, layouts):
        super().__init__(run)
        size, ways, line = bench_caches()["L1D"]
        self.cases, self.layouts, self.nsets = cases, layouts, size // ways // line
        self.t = tally(run, cases, layouts, self.nsets, line)
        self.names = [boot_name(cases[0][0], layouts[0])]
        self.phases = [(i, p) for i, p in enumerate(run.boots[self.names[0]]) if not p.start_up]

    def save(self, out):
        m = self.meta
        self.template("attribution", "intro", quick=" QUICK=1" if self.run.quick else "",
                      date=m["date"], qemu=m["qemu"], gcc=m["gcc"], cpu=m["cpu"],
                      nsets=self.nsets, kargs=" ".join(self.run.kargs),
                      layouts=", ".join(map(str, self.layouts)), where=self.run.where())
        self.summary()
        for i, p in self.phases:
            self.workload(i, p)
        self.plot(out)
        self.write_md(out / "attribution.md")

    def summary(self):
        rows = []
        for i, p in self.phases:
            for c, _ in self.cases:
                t = self.t[(c, i)]
                vic = t.by_victim()
                rows.append([p.label, c, fmt(t.direct / t.events), fmt(t.sa_fa / t.events),
                             "%.1f%%" % (100 * t.share(t.named())),
                             "%.1f%%" % (100 * t.share(sum(n for (_, e), n in t.pairs.items()
                                                           if e == "evictor unknown"))),
                             "%.1f%%" % (100 * t.share(vic["free page"] + vic["not in the map"]))])
        self.template("attribution", "coverage", table=table_lines(
            ["workload", "case", "conflict misses / event", "SA - FA / event", "named",
             "evictor unknown", "victim freed"], rows, "llrrrrr"))

    def workload(self, i, p):
        objs = collections.Counter()
        for c, _ in self.cases:
            objs.update(self.t[(c, i)].by_victim())
        top = [o for o, _ in objs.most_common(TOP_OBJECTS)]
        rows = [[o] + [fmt(self.t[(c, i)].by_victim()[o] / self.t[(c, i)].events)
                       for c, _ in self.cases] for o in top]
        rows.append(["all"] + [fmt(self.t[(c, i)].direct / self.t[(c, i)].events)
                               for c, _ in self.cases])
        same_slab = "; ".join("%s %s" % (c, "%.0f%% of %s a %s" % (
            100 * self.t[(c, i)].task_one_slab / self.t[(c, i)].task_self,
            fmt(self.t[(c, i)].task_self / self.t[(c, i)].events), p.unit[0])
            if self.t[(c, i)].task_self else "none") for c, _ in self.cases)
        self.template("attribution", "workload", label=p.label, per=p.unit[0],
                      same_slab=same_slab, table=table_lines(
                          ["missing object"] + [c for c, _ in self.cases], rows))
        for c in ("defaults", "task"):
            if (c, i) not in self.t:
                continue
            t = self.t[(c, i)]
            self.template("attribution", "pairs", case=c, table=table_lines(
                ["missing object", "evicted by", "share", "per %s" % p.unit[0], "L1D sets"],
                [[v, e, "%.1f%%" % (100 * t.share(n)), fmt(n / t.events),
                  sets_str(t.sets[(v, e)])]
                 for (v, e), n in t.pairs.most_common(TOP_PAIRS)], "llrrl"))

    def plot(self, out):
        """Conflict misses by missing object, a bar a case, as a share of off's
        total on each workload (one scale for workloads of any size)."""
        objs = collections.Counter()
        for (c, i), t in self.t.items():
            objs.update({o: n / t.direct for o, n in t.by_victim().items() if t.direct})
        top = [o for o, _ in objs.most_common(6)]
        dat = out / "attribution.dat"
        lines = ["# columns: %s\n" % " | ".join(top + ["other objects"])]
        for k, (i, p) in enumerate(self.phases):
            off = self.t[(self.cases[0][0], i)].direct / self.t[(self.cases[0][0], i)].events
            for j, (c, _) in enumerate(self.cases):
                t, x = self.t[(c, i)], k * (len(self.cases) + 1) + j
                vic = t.by_victim()
                per = [vic[o] / t.events for o in top] + \
                    [(t.direct - sum(vic[o] for o in top)) / t.events]
                lines.append("%d %s  # %s %s\n" % (x, " ".join("%.3f" % (100 * v / off)
                                                              for v in per), p.label, c))
        self.data(dat, "".join(lines))
        draw(dat, out / "attribution.png")
        self.template("attribution", "plot", objects=len(top))


def draw(dat, png):
    """attribution.png from attribution.dat alone: its "# columns:" line names
    the stacked objects, and each bar's comment its workload and case."""
    rows = [line.split("#", 1) for line in dat.read_text().splitlines()]
    cols = rows[0][1].split(":", 1)[1].strip().split(" | ")
    bars = [(int(data.split()[0]), note.strip().rsplit(" ", 1)) for data, note in rows[1:]]
    cases = list(dict.fromkeys(case for _, (_, case) in bars))
    groups = collections.defaultdict(list)
    for x, (label, _) in bars:
        groups[label].append(x)
    xt = ", ".join('"%s" %d' % (case, x) for x, (_, case) in bars)
    # The workload under its group of bars, wrapped so that neighbours stay apart.
    labels = ['set label "%s" at %g, graph -0.21 center font \',9\'' % (
        "\\n".join(textwrap.wrap(label, 14)), sum(xs) / len(xs)) for label, xs in groups.items()]
    plot_png(png, "L1D conflict misses on the direct map, by the object that misses (%s)"
             % ", ".join(cases), "", "% of the conflict misses of off", None, 1,
             ["'%s' using 1:(%s) with boxes title '%s'" % (
                 dat, "+".join("$%d" % (2 + m) for m in range(len(cols) - k)),
                 cols[len(cols) - 1 - k]) for k in range(len(cols))],
             ["set termoption noenhanced", "set style fill solid 0.8 border -1",
              "set boxwidth 0.8", "set xtics (%s) rotate by 90 right font ',8'" % xt,
              "set bmargin 9", "set xrange [-1:%d]" % (max(x for x, _ in bars) + 2)] + labels)


def checks(run, cases, layouts):
    """A page map and conflict pairs for every phase, which the page needs;
    in a full run, at least TARGET_NAMED of each case's conflict misses
    named on both sides, a target whose miss fails the TAP but keeps the
    page and its record."""
    names = [boot_name(c, lay) for c, _ in cases for lay in layouts]
    if not check(run, names):
        return False
    if not run.quick:
        size, ways, line = bench_caches()["L1D"]
        for (c, i), t in sorted(tally(run, cases, layouts, size // ways // line,
                                      line).items()):
            p = run.boots[names[0]][i]
            run.tap(t.share(t.named()) >= TARGET_NAMED,
                    "%s, %s: %.1f%% of %d conflict misses named on both sides (target %d%%)"
                    % (p.label, c, 100 * t.share(t.named()), t.direct, 100 * TARGET_NAMED))
    return True


EXPERIMENT = Cases(
    name="attribution", wset="attribution", quick_wset="attribution-quick",
    cases=(("off", "kstack_colour=off"), ("defaults", ""), ("task", "kstack_colour=task")),
    layouts=(1, 2, 3), quick_cases=("off", "defaults"), quick_layouts=(1,),
    report=Report, checks=checks, after_each="page_map", tables=("conflicts",))


def main(argv=None):
    return cases_main(EXPERIMENT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
