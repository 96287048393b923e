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
the cases off, defaults and task in LAYOUTS layouts, pooled.  TAP on stdout:
every phase and page map present, the plugin's pairs add up to its counts,
and (full runs) at least 90% of the conflict misses named on both sides.
Flags (make's QUICK=1, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import collections
import sys
import textwrap

from bench.lib.data import REGIONS, read_conflicts
from bench.lib.pagemap import PAGE_SHIFT, check, owner_name, page_maps
from bench.lib.report import Doc, fmt, plot_png
from bench.lib.runner import (ROOT, Run, bench_caches, parser, plugin_geometry, run_args,
                              table_path)

CASES = [("off", "bench", "kstack_colour=off"), ("defaults", "bench", ""),
         ("task", "bench", "kstack_colour=task")]
LAYOUTS, QUICK_LAYOUTS = (1, 2, 3), (1,)
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
    for c, _, _ in cases:
        for lay in layouts:
            n = "%s.L%d" % (c, lay)
            maps = page_maps((run.work / (n + ".log")).read_text(errors="replace"))
            conf = read_conflicts(table_path(run.work, n, "conflicts"))
            for i, p in enumerate(run.boots[n]):
                out[(c, i)].add(p, conf[i], maps[i], nsets, line)
    return out


def sets_str(counter):
    top = ", ".join(str(s) for s, _ in counter.most_common(4))
    return "%d (%s%s)" % (len(counter), top, ", ..." if len(counter) > 4 else "")


class Report(Doc):
    def __init__(self, run, cases, layouts, tallies, nsets):
        super().__init__(run)
        self.cases, self.layouts, self.t, self.nsets = cases, layouts, tallies, nsets
        self.names = ["%s.L%d" % (cases[0][0], layouts[0])]
        self.phases = [(i, p) for i, p in enumerate(run.boots[self.names[0]]) if not p.start_up]

    def save(self, out):
        m = self.meta
        self.md("""
            # Which direct-map objects conflict in the L1D

            Generated by `make bench-attribution%s` (bench/attribution.py) on %s: QEMU %s,
            %s; CPU model %s, the L1D the bench simulates (%d sets); kernel arguments
            `%s`; layouts %s pooled, -smp 1.  Commands: `%s/commands`.
            """, " QUICK=1" if self.run.quick else "", m["date"], m["qemu"], m["gcc"],
                m["cpu"], self.nsets, " ".join(self.run.kargs), ", ".join(map(str, self.layouts)),
                str(self.work).replace(str(ROOT) + "/", ""))
        self.md("""
            ## Method

            A *conflict miss* here is an access that the set-associative LRU L1D misses
            and its fully-associative LRU copy of the same size hits, counted access by
            access (so it is at least the L1D's set-associative minus fully-associative
            misses, which nets out the reverse cases).  For each one on the direct map the
            cache simulator (`conflicts=`) records the line and the line whose miss last
            evicted it from its set.  After each phase, outside its window, the guest
            prints `/sys/kernel/debug/page_map` (the bench kernel's `DEBUG_PAGE_MAP`,
            kernel-patches/bench); each direct-map line is named by its page frame's
            owner: the slab cache, or the page kind.  An evictor outside the direct map is
            named by its region, in brackets.

            Blind spots: the map is read after the phase, so a page freed in between is a
            *free page*, and one freed and reused is named by its new owner (a slab page
            is named by its cache, never by a freed one); the evictor table holds 65,536
            victims a CPU, and a conflict whose entry was overwritten has its *evictor
            unknown*; *untyped kernel page* is any page that is neither slab, page table,
            user, page cache, per-CPU nor free: pipe buffers, socket page fragments and
            other page allocations; a kmalloc cache is named as such, not by its callers.
            The web phase counts ab's start-up with its 100 requests.
            """)
        self.summary()
        for i, p in self.phases:
            self.workload(i, p)
        self.plot(out)
        self.write_md(out / "attribution.md")

    def summary(self):
        self.md("## Coverage\n\nConflict misses on the direct map per event, per access "
                "(set-associative minus fully-associative misses beside them), and the share "
                "named on both sides.")
        rows = []
        for i, p in self.phases:
            for c, _, _ in self.cases:
                t = self.t[(c, i)]
                vic = t.by_victim()
                rows.append([p.label, c, fmt(t.direct / t.events), fmt(t.sa_fa / t.events),
                             "%.1f%%" % (100 * t.share(t.named())),
                             "%.1f%%" % (100 * t.share(sum(n for (_, e), n in t.pairs.items()
                                                           if e == "evictor unknown"))),
                             "%.1f%%" % (100 * t.share(vic["free page"] + vic["not in the map"]))])
        self.table(["workload", "case", "conflict misses / event", "SA - FA / event",
                    "named", "evictor unknown", "victim freed"], rows, "llrrrrr")

    def workload(self, i, p):
        self.md("## %s (per %s)", p.label, p.unit[0])
        objs = collections.Counter()
        for c, _, _ in self.cases:
            objs.update(self.t[(c, i)].by_victim())
        top = [o for o, _ in objs.most_common(TOP_OBJECTS)]
        rows = []
        for o in top:
            rows.append([o] + [fmt(self.t[(c, i)].by_victim()[o] / self.t[(c, i)].events)
                               for c, _, _ in self.cases])
        rows.append(["all"] + [fmt(self.t[(c, i)].direct / self.t[(c, i)].events)
                               for c, _, _ in self.cases])
        self.md("The objects that miss, conflict misses per %s:", p.unit[0])
        self.table(["missing object"] + [c for c, _, _ in self.cases], rows)
        self.md("task_struct evicted by task_struct: the share whose two objects lie in one "
                "slab (one 8-page slab of 10), which a slab's colour cannot part: %s.",
                "; ".join("%s %s" % (c, "%.0f%% of %s a %s" % (
                    100 * self.t[(c, i)].task_one_slab / self.t[(c, i)].task_self,
                    fmt(self.t[(c, i)].task_self / self.t[(c, i)].events), p.unit[0])
                    if self.t[(c, i)].task_self else "none")
                    for c, _, _ in self.cases))
        for c in ("defaults", "task"):
            if (c, i) not in self.t:
                continue
            t = self.t[(c, i)]
            self.md("The pairs at `%s`, the missing object first (L1D sets: how many, the "
                    "busiest first):", c)
            self.table(["missing object", "evicted by", "share", "per %s" % p.unit[0], "L1D sets"],
                       [[v, e, "%.1f%%" % (100 * t.share(n)), fmt(n / t.events),
                         sets_str(t.sets[(v, e)])]
                        for (v, e), n in t.pairs.most_common(TOP_PAIRS)], "llrrl")

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
            for j, (c, _, _) in enumerate(self.cases):
                t, x = self.t[(c, i)], k * (len(self.cases) + 1) + j
                vic = t.by_victim()
                per = [vic[o] / t.events for o in top] + \
                    [(t.direct - sum(vic[o] for o in top)) / t.events]
                lines.append("%d %s  # %s %s\n" % (x, " ".join("%.3f" % (100 * v / off)
                                                              for v in per), p.label, c))
        dat.write_text("".join(lines))
        draw(dat, out / "attribution.png")
        self.md("![conflict misses by object](attribution.png)\n\n`attribution.dat`: the "
                "plot's data, a line a workload and case: the %d objects of the legend in "
                "order, then the rest, in %% of off's conflict misses on that workload.",
                len(top))


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


def main(argv=None):
    opts = parser(__doc__).parse_args(argv)
    quick = opts.quick
    caches = bench_caches()
    size, ways, line = caches["L1D"]
    nsets = size // ways // line
    cases = CASES[:2] if quick else CASES
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    work = opts.work or ROOT / "build/bench" / ("attribution-quick" if quick else "attribution")
    run = Run("bench-attribution", "attribution-quick" if quick else "attribution", work,
              900 if quick else 3600, plugin_geometry(caches), after_each="page_map",
              tables=("conflicts",), **run_args(opts))
    run.image("bench", "bench")
    boots = [("%s.L%d" % (c, lay), k, ("%s bench_layout=%d" % (a, lay)).strip())
             for c, k, a in cases for lay in layouts]
    run.boot("cases", boots)
    names = [b[0] for b in boots]
    report = None
    if run.check_boots(names) and check(run, names):
        tallies = tally(run, cases, layouts, nsets, line)
        report = Report(run, cases, layouts, tallies, nsets)
        if not quick:
            for (c, i), t in sorted(tallies.items()):
                p = run.boots[names[0]][i]
                run.tap(t.share(t.named()) >= TARGET_NAMED,
                        "%s, %s: %.1f%% of %d conflict misses named on both sides (target %d%%)"
                        % (p.label, c, 100 * t.share(t.named()), t.direct, 100 * TARGET_NAMED))
    return run.finish(report, run.work if quick else ROOT / "docs/results")


if __name__ == "__main__":
    sys.exit(main())
