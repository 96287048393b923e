#!/usr/bin/env python3
"""Who misses and who evicts in the L2, by physical page frame: make
bench-l2-attribution [QUICK=1] -> docs/results/l2-attribution.md.

The L2 is physically indexed, so its conflicts are the page allocator's
doing as much as the kernel's layout.  Each boot runs the bench kernel
(DEBUG_PAGE_MAP) with colouring off under kcolour-cachesim with
l2_conflicts=: for every access the L2 misses and its fully-associative copy
hits, the plugin keeps the physical line and the line whose miss last
evicted it, with the regions of both accesses.  After each phase the guest
prints the page map (phases.sh page_map); the host names each line: the
kernel image's text or data (the image's physical range, nokaslr), a slab
cache, a page table, a kernel stack (an untyped page reached by a stack
access), a per-CPU area, user memory (anonymous or file-backed) or the page
cache by who touched it, another kernel page, a freed page.  The
caches of CPUS (facts.tsv benchcpu: their L2s of 256 KiB, 4 and 8 ways),
-smp 1, deterministic, LAYOUTS layouts pooled.  TAP: every phase and page
map present, the pairs add up to the plugin's counts, and (full runs) at
least 90% of the conflict misses named on both sides.

Beside each L2 the simulator runs copies of it on the same trace whose page
frames (outside the kernel image) take other page colours: random (a hash of
the frame: another arbitrary placement, the placebo) and balanced (colours
dealt round robin in first-touch order: what page colouring could do); and
balanced-all, the image's frames dealt too (what a layout of the image's hot
pages could add).  The section "What page colouring could do" pairs them
over layouts.
Flags (make's QUICK=1, IMAGE=, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import collections
import sys

from bench.lib import named_pairs, paired
from bench.lib.cost import latency
from bench.lib.data import read_conflicts
from bench.lib.pagemap import PAGE_SHIFT, check, owner_name, page_maps
from bench.lib.probe import plugin_geometry, probe_caches
from bench.lib.record import work_dir
from bench.lib.report import Doc, fmt, plot_png, table_lines
from bench.lib.runner import Run, boot_name, layout_boots, parser, run_args, table_path
from harness import facts

CPUS, QUICK_CPUS = ("Skylake", "Haswell"), ("Skylake",)
LAYOUTS, QUICK_LAYOUTS = (1, 2, 3), (1,)
CASE = "kstack_colour=off"
TARGET_NAMED = 0.90
START_KERNEL_MAP = 0xffffffff80000000     # nokaslr: physical = virtual - this
UNNAMED = {"free page", "not in the map", "evictor unknown"}
STACK_REGIONS = ("stack-top", "stack-rest")
TOP_PAIRS, TOP_OWNERS = 12, 10
# The page colourings simulated beside each CPU's L2, on the same trace
# (bench/cachesim/recolour.h): the frames' own colours, then these.
RECOLOURS = ("random", "balanced", "balanced-all")
MIN_PLOTTED = 1.0           # conflict misses an event: fewer are noise in a plot
# page_map's kinds, as this report names them (owner_name() gives the rest).
KIND_NAMES = {"other": "other kernel page", "reserved": "reserved at boot"}
# User pages by who touched them: (a user access, a kernel one).
USER_KINDS = {"anon": ("user anonymous memory", "anonymous memory, by the kernel"),
              "file": ("user file-backed memory (program text, mapped files)",
                       "page cache, by the kernel")}


def cpu_dump(name):
    """facts.tsv's benchcpu line of name: (dump path, logical CPU)."""
    for row in facts.rows("benchcpu"):
        if row[0] == name:
            return facts.path("fixtures") / row[3], int(row[2])
    raise SystemExit("error: no benchcpu %s in facts.tsv" % name)


class Namer:
    """Names a physical line by the kernel image's ranges (System.map), then
    the page map's owner, refined by the region of the access."""

    def __init__(self, system_map):
        sym = {}
        for line in open(system_map):
            w = line.split()
            if len(w) == 3 and w[2] in ("_text", "_etext", "_end"):
                sym[w[2]] = int(w[0], 16) - START_KERNEL_MAP
        self.text = (sym["_text"], sym["_etext"])
        self.data = (sym["_etext"], sym["_end"])

    def name(self, addr, pmap, region):
        if self.text[0] <= addr < self.text[1]:
            return "kernel text"
        if self.data[0] <= addr < self.data[1]:
            return "kernel data"
        owner = pmap.owner(addr >> PAGE_SHIFT)
        if owner == "other" and region in STACK_REGIONS:
            return "kernel stack"
        if owner in USER_KINDS:
            return USER_KINDS[owner][region != "user"]
        return KIND_NAMES.get(owner) or owner_name(owner)

    def evictor(self, evictor, pmap, region):
        if evictor == "?":
            return "evictor unknown"
        return self.name(int(evictor, 16), pmap, region)


class Tally:
    """One CPU's L2 conflict misses on one workload, layouts pooled."""

    def __init__(self):
        self.pairs = collections.Counter()
        self.watched = self.events = self.sa_fa = self.misses = 0

    def add(self, phase, watched, named):
        """One boot's phase: its conflict misses (watched) and their named
        pairs (read_named())."""
        self.watched += watched
        self.events += phase.unit[1]
        c = phase.counts[("L2", "all")]
        self.sa_fa += c["sa_miss"] - c["fa_miss"]
        self.misses += c["sa_miss"]
        self.pairs.update(named)

    def named(self):
        return sum(n for (v, e), n in self.pairs.items() if v not in UNNAMED and e not in UNNAMED)

    def share(self, n):
        return n / self.watched if self.watched else 0.0

    def side(self, k):
        out = collections.Counter()
        for pair, n in self.pairs.items():
            out[pair[k]] += n
        return out


# The owners by kind, for the summary: what could colour or lay them out.
GROUPS = {"kernel text": "kernel text", "kernel data": "kernel data (the image)",
          "kernel stack": "kernel stacks", "page table": "page tables",
          "per-CPU area": "per-CPU areas", "other kernel page": "other kernel pages",
          "reserved at boot": "other kernel pages", "user anonymous memory": "user memory",
          "user file-backed memory (program text, mapped files)": "user memory",
          "page cache, by the kernel": "page cache (kernel access)",
          "anonymous memory, by the kernel": "user memory"}
GROUP_ORDER = ["kernel text", "kernel data (the image)", "slab objects", "kernel stacks",
               "page tables", "per-CPU areas", "other kernel pages", "user memory",
               "page cache (kernel access)", "unnamed"]


def group(owner):
    """The kind of an owner: GROUPS, unnamed, else a slab cache."""
    return GROUPS.get(owner) or ("unnamed" if owner in UNNAMED else "slab objects")


def recoloured(phase, policy):
    """The plugin's name of the L2 extra under page colouring policy (it ends
    -POLICY), None if the phase has none."""
    return next((c for c, r in phase.counts if r == "all" and c.startswith("L2-") and
                 c.endswith("-" + policy)), None)


def check_recoloured(run, names):
    """TAP: each recoloured L2 saw the accesses of its CPU's L2, and a new frame
    for each frame leaves its fully-associative copy's misses as they were."""
    for n in names:
        problems = []
        for i, p in enumerate(run.boots[n]):
            own = p.counts[("L2", "all")]
            for r in RECOLOURS:
                x = p.counts.get((recoloured(p, r), "all"))
                if x is None:
                    problems.append("phase %d: no L2 extra under %s" % (i, r))
                elif (x["accesses"], x["fa_miss"]) != (own["accesses"], own["fa_miss"]):
                    problems.append("phase %d, %s: %d accesses, %d FA misses against %d, %d"
                                    % (i, r, x["accesses"], x["fa_miss"], own["accesses"],
                                       own["fa_miss"]))
        run.tap(not problems, "%s: the L2 under every other page colouring sees the same "
                "accesses, with the same fully-associative misses" % n, problems[:10])


def named_path(run, name):
    """A boot's conflict pairs named (write_named()): what a record keeps of
    its l2_conflicts= table, which is tens of megabytes a run."""
    return run.work / (name + ".l2-named")


def write_named(run, name, namer):
    """A boot's l2_conflicts= pairs, each line named by its owner (Namer, the
    page map of its phase), summed by (victim, evictor) (named_pairs.write())."""
    maps = page_maps(run.console(name))
    conf = read_conflicts(table_path(run.work, name, "l2_conflicts"), regions=True)
    named = {}
    for i in sorted(conf):
        head, pairs = conf[i]
        c = collections.Counter()
        for victim, evictor, n, vreg, ereg in pairs:
            c[(namer.name(victim, maps[i], vreg), namer.evictor(evictor, maps[i], ereg))] += n
        named[i] = (head["watched"], c)
    named_pairs.write(named_path(run, name), named)


def check_named(run, names):
    """TAP: each boot's named pairs (a record's, where the plugin's table is
    not kept) cover every phase and add up to its conflict misses."""
    for n in names:
        problems = named_pairs.problems(named_pairs.read(named_path(run, n)), len(run.boots[n]))
        run.tap(not problems, "%s: the named conflict pairs of each of %d phases add up" % (
            n, len(run.boots[n])), problems[:10])
    return not run.tap.failed


def tally(run, cpus, layouts):
    """{(cpu, phase index): Tally}, from the boots' named pairs."""
    out = collections.defaultdict(Tally)
    for cpu in cpus:
        for lay in layouts:
            n = boot_name(cpu, lay)
            named = named_pairs.read(named_path(run, n))
            for i, p in enumerate(run.boots[n]):
                out[(cpu, i)].add(p, *named[i])
    return out


class Report(Doc):
    def __init__(self, run, cpus, layouts, tallies, l2s):
        super().__init__(run)
        self.cpus, self.layouts, self.t, self.l2s = cpus, layouts, tallies, l2s
        self.lat = latency()
        self.names = [boot_name(cpus[0], layouts[0])]
        self.phases = [(i, p) for i, p in enumerate(run.boots[self.names[0]]) if not p.start_up]

    def save(self, out):
        """The page; its prose is bench/templates/l2-attribution.md.in's."""
        m = self.meta
        self.template("l2-attribution", "intro", quick=" QUICK=1" if self.run.quick else "",
                      date=m["date"], qemu=m["qemu"], gcc=m["gcc"], cpu=m["cpu"],
                      l2s=", ".join("%s (%s)" % (c, self.l2s[c]) for c in self.cpus),
                      kargs=" ".join(self.run.kargs), case=CASE,
                      layouts=", ".join(map(str, self.layouts)), where=self.run.where())
        self.summary()
        self.kinds()
        self.recoloured(out)
        for i, p in self.phases:
            self.workload(i, p)
        self.write_md(out / "l2-attribution.md")

    def summary(self):
        rows = []
        for i, p in self.phases:
            for c in self.cpus:
                t = self.t[(c, i)]
                rows.append([p.label, c, fmt(t.misses / t.events), fmt(t.watched / t.events),
                             fmt(t.sa_fa / t.events),
                             "%.0f%%" % (100 * t.sa_fa / t.misses if t.misses else 0),
                             "%.1f%%" % (100 * t.share(t.named()))])
        self.template("l2-attribution", "coverage", table=table_lines(
            ["workload", "L2", "L2 misses / event", "conflict misses / event",
             "SA - FA / event", "SA - FA share", "named"], rows, "llrrrrr"))

    def kinds(self):
        rows = []
        for i, p in self.phases:
            for c in self.cpus:
                t = self.t[(c, i)]
                kinds = collections.Counter()
                for owner, n in t.side(0).items():
                    kinds[group(owner)] += n
                rows.append([p.label, c] + ["%.0f%%" % (100 * t.share(kinds[g]))
                                            for g in GROUP_ORDER])
        self.template("l2-attribution", "kinds", table=table_lines(
            ["workload", "L2"] + GROUP_ORDER, rows, "ll" + "r" * len(GROUP_ORDER)))

    def variant(self, phase, recolour):
        """(L2 misses, L2 conflict misses SA - FA, estimated cycles) per event of
        a Phase on its L2 with the frames' own colours (recolour None) or
        another page colouring of it (bench.py's cycle model)."""
        name = "L2" if recolour is None else recoloured(phase, recolour)
        miss = phase.rate(name)
        l1 = phase.rate("L1D") + phase.rate("L1I")
        return (miss, miss - phase.rate(name, kind="fa_miss"),
                phase.insns * self.lat["cpi"] + l1 * self.lat["L2"] + miss * self.lat["L3"])

    def runs(self, i, cpu):
        """Phase i of cpu's boots, one a layout."""
        return [self.run.boots[boot_name(cpu, lay)][i] for lay in self.layouts]

    def compare(self, i, cpu, control, case, k):
        """paired.Paired of figure k of variant() over the layouts."""
        runs = self.runs(i, cpu)
        return paired.Paired([self.variant(p, control)[k] for p in runs],
                             [self.variant(p, case)[k] for p in runs])

    def conflicts(self, i, cpu):
        """Conflict misses per event, the mean over the layouts, with the frames'
        own colours and then under each of RECOLOURS."""
        runs = self.runs(i, cpu)
        return [sum(self.variant(p, v)[1] for p in runs) / len(runs)
                for v in (None,) + RECOLOURS]

    def recoloured(self, out):
        rows = []
        for i, p in self.phases:
            for c in self.cpus:
                own, rnd, bal, alls = self.conflicts(i, c)
                share = (lambda x: "%.0f%%" % (100 * x / own) if own else "-")
                rows.append([p.label, c, fmt(own), fmt(rnd), share(bal),
                             share(alls)] + [self.compare(i, c, a, b, 2).interval() for a, b in
                                             ((None, "random"), (None, "balanced"),
                                              ("random", "balanced"), (None, "balanced-all"))])
        self.template("l2-attribution", "recoloured", layouts=len(self.layouts),
                      l2=self.lat["L2"], l3=self.lat["L3"], cpi=self.lat["cpi"],
                      min=MIN_PLOTTED, table=table_lines(
                          ["workload", "L2", "conflict misses / event, own colours", "random",
                           "balanced / own", "balanced-all / own", "est. cycles: random - own",
                           "balanced - own", "balanced - random", "balanced-all - own"], rows,
                          "llrrrrrrrr"))
        self.colouring_plot(out / "l2-colouring.png", out / "l2-colouring.dat")

    def colouring_plot(self, png, dat):
        lines, xt = ["# x workload L2 own-per-event random balanced balanced-all (% of own)\n"], []
        for i, p in self.phases:
            for c in self.cpus:
                per = self.conflicts(i, c)
                if per[0] < MIN_PLOTTED:
                    continue
                xt.append('"%s, %s" %d' % (p.label, c, len(xt)))
                lines.append("%d \"%s\" %s %s %s\n" % (
                    len(xt) - 1, p.label, c, fmt(per[0]),
                    " ".join("%.2f" % (100 * v / per[0]) for v in per[1:])))
        self.data(dat, "".join(lines))
        plot_png(png, "L2 conflict misses under other page colours (own colours = 100%)", "",
                 "% of the conflict misses with their own colours", None, 1,
                 ["'%s' using 1:%d with points pt %d ps 1.6 title '%s'" % (dat, 5 + k, 5 + 2 * k, t)
                  for k, t in enumerate(RECOLOURS)],
                 ["set termoption noenhanced", "set key inside left bottom box opaque",
                  "set lmargin 16", "set xtics (%s) rotate by 35 right font ',9'"
                  % ", ".join(xt), "set xrange [-0.5:%g]" % (len(xt) - 0.5), "set bmargin 12",
                  "set arrow from -0.5, 100 to %g, 100 nohead lt -1" % (len(xt) - 0.5),
                  "set arrow from -0.5, 50 to %g, 50 nohead dt 2 lc rgb '#d62728'"
                  % (len(xt) - 0.5)])

    def workload(self, i, p):
        self.template("l2-attribution", "workload", label=p.label, per=p.unit[0])
        for k, what in ((0, "The lines that miss by conflict"), (1, "The lines that evict them")):
            owners = collections.Counter()
            for c in self.cpus:
                owners.update(self.t[(c, i)].side(k))
            top = [o for o, _ in owners.most_common(TOP_OWNERS)]
            self.template("l2-attribution", "owners", what=what, per=p.unit[0],
                          table=table_lines(["owner"] + list(self.cpus), [
                              [o] + ["%.1f%% (%s)" % (
                                  100 * self.t[(c, i)].share(self.t[(c, i)].side(k)[o]),
                                  fmt(self.t[(c, i)].side(k)[o] / self.t[(c, i)].events))
                                  for c in self.cpus] for o in top]))
        for c in self.cpus:
            t = self.t[(c, i)]
            self.template("l2-attribution", "pairs", cpu=c, table=table_lines(
                ["missing line's owner", "evicted by", "share", "per %s" % p.unit[0]],
                [[v, e, "%.1f%%" % (100 * t.share(n)), fmt(n / t.events)]
                 for (v, e), n in t.pairs.most_common(TOP_PAIRS)], "llrr"))


def main(argv=None):
    p = parser(__doc__)
    p.add_argument("--image", default="bench", help="the facts.tsv image, with bench-tools' "
                   "page map (default bench; --quick: the test image)")
    opts = p.parse_args(argv)
    quick = opts.quick
    cpus = QUICK_CPUS if quick else CPUS
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    work = work_dir(opts, "l2-attribution-quick" if quick else "l2-attribution")
    caches = {c: probe_caches(*cpu_dump(c)) for c in cpus}
    run = Run("bench-l2-attribution", "attribution-quick" if quick else "l2-attribution", work,
              after_each="page_map", tables=("l2_conflicts",),
              # make check's one quick boot on the full runs' path
              smoke=False, record="l2-attribution", record_tables=False, **run_args(opts))
    run.image("bench", opts.image)
    names = []
    for c in cpus:
        # this CPU's boots, with its L2 again under each other page colouring
        run.plugin_args = plugin_geometry(caches[c]) + ",l2_extra=" + "/".join(
            "%d:%d:%d@%s" % (*caches[c]["L2"], r) for r in RECOLOURS)
        boots = layout_boots([(c, CASE)], layouts, "bench")
        run.boot("%s's caches" % c, boots)
        names += [b[0] for b in boots]
    report = None
    # A fresh run checks the plugin's tables and names their pairs; a record
    # keeps the named pairs alone.
    raw = all(table_path(run.work, n, "l2_conflicts").exists() for n in names)
    if run.check_boots(names, extras=len(RECOLOURS)) and (
            check(run, names, "l2_conflicts") if raw else check_named(run, names)):
        if raw:
            namer = Namer(run.system_map("bench"))
            for n in names:
                write_named(run, n, namer)
        run.record_files += [named_path(run, n).name for n in names]
        tallies = tally(run, cpus, layouts)
        l2s = {c: "%dK %d-way" % (caches[c]["L2"][0] >> 10, caches[c]["L2"][1]) for c in cpus}
        report = Report(run, cpus, layouts, tallies, l2s)
        check_recoloured(run, names)
        if not quick:
            for (c, i), t in sorted(tallies.items()):
                p = run.boots[names[0]][i]
                run.tap(t.share(t.named()) >= TARGET_NAMED,
                        "%s, %s: %.1f%% of %d L2 conflict misses named on both sides "
                        "(target %d%%)" % (p.label, c, 100 * t.share(t.named()), t.watched,
                                           100 * TARGET_NAMED))
    return run.finish(report)


if __name__ == "__main__":
    sys.exit(main())
