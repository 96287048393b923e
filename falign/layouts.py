"""Function alignment against the luck of one link: make falign-layouts
[QUICK=1] -> docs/results/falign-layouts.md.

Each function alignment choice (facts.tsv falign) is built in LAYOUTS layouts
that differ only in where the code of kernel/, mm/, fs/, lib/ and net/ lands
(text-pads-N.config: the bench series' DEBUG_TEXT_PADS, a seeded pad of int3
after each of those directories), with bench-net for the workloads, and booted
once a layout under the cache simulator at -smp 1 (deterministic) on the
falign-layouts workloads.  L1I misses per event: median and range over the
layouts, beside the fully-associative and MIN figures of the same boots; a
choice is worse than 16 B where its median lies above 16 B's range (bench.py's
verdict).  Which functions collide: the plugin's text_conflicts= pairs (the
line that missed, the line that evicted it), named by System.map.  TAP on
stdout: every phase complete, the conflict pairs add up and name functions,
and the layouts really differ: the functions linked before the first pad
keep their addresses, and most of the rest change L1I set from one layout
to the next.
QUICK: make check's images, in layout 1: the test image without and with
pads, and the image without colouring, built with HOT_TEXT_ORDER (the
project's profile, make HOT_TEXT_PROFILE=); the machinery only.
Paired: each choice against the first (16 B) layout by layout, L1I misses
and estimated cycles (make bench's model), the mean with its 95% Student's t
interval (bench/lib/paired.py).  An ordered image is checked against its own
profile (the file its fragment gives make as HOT_TEXT_PROFILE=).  PAGE=NAME writes docs/results/NAME.md instead of falign-layouts.md,
for a run of some choices (make falign-profiles).
Flags (make's QUICK=1, CHOICES="IMAGE ...", PAGE=NAME, JOBS=N, WORK=DIR,
REPORT_ONLY=1, RESUME=1): --help.

usage: python3 -m falign.layouts [FLAGS]  (from the top of the tree, not by its path)
"""

import collections
import sys
from pathlib import Path

from bench.lib import paired
from bench.lib.cost import cycles, latency
from bench.lib.data import conflict_problems, net, read_conflicts
from bench.lib.probe import bench_caches, plugin_geometry
from bench.lib.record import work_dir
from bench.lib.report import Doc, Spread, fmt, gnuplot_str, make_vars, plot_png
from bench.lib.runner import ROOT, Run, parser, run_args, table_path
from falign import hot_text
from falign.hot_text import symbols
from harness import facts, kconfig, kernel, series

HERE = Path(__file__).resolve().parent

LAYOUTS, QUICK_LAYOUTS = (1, 2, 3), (1,)
# The fragments every layout image adds to its alignment's image: the
# workloads' network, and the seeded pads.
EXTRA = ["bench-net"]
ORDERED = "falign-ordered"  # the fragment that turns HOT_TEXT_ORDER on
UNPROFILED = "falign-ordered-noprofile"     # the same without a profile
OVER_WEAK = 0.01
MOVED = 0.5     # the share of functions after the first pad that must change L1I set
NAMED = 0.99    # the share of the text's conflict misses whose line a function holds
TOP_PAIRS = 3   # the colliding function pairs the report names per workload


def profile_of(fragments):
    """The hot-text profile an image's fragments order its text by: the file
    one gives make as HOT_TEXT_PROFILE=; None when no fragment turns
    HOT_TEXT_ORDER on or none names a profile."""
    lines = [l for f in kconfig.fragment_files(fragments) for l in f.read_text().splitlines()]
    if "CONFIG_HOT_TEXT_ORDER=y" not in lines:
        return None
    named = list(kernel.files_named(lines, series.Tree().path))
    return named[-1] if named else None


def pads(layout):
    return "text-pads-%d" % layout


def l1i(p, kind="sa_miss"):
    return p.rate("L1I", "all", kind)


def map_symbols(system_map, kinds="tT"):
    """[(address, name)] of a System.map's symbols of those kinds, by address."""
    with open(system_map) as f:
        return sorted((int(w[0], 16), w[2]) for w in map(str.split, f)
                      if len(w) == 3 and w[1] in kinds)


def lines_touched(addr, size, line):
    return (addr + size - 1) // line - addr // line + 1


def functions(image, nsets, line):
    """{name: (address, L1I set)} of an image's text symbols (System.map)."""
    return {name: (a, (a // line) % nsets)
            for a, name in map_symbols(Path(image.path) / "System.map")}


def text_sizes(system_map, hot, line):
    """(text bytes, lines the hot functions touch, hot region bytes or 0) of
    a System.map: _stext to the last symbol before the entry text (which,
    like _etext, sits on a 2 MiB boundary); each function of the profile
    ends where the next symbol starts; the region between __hot_text_start
    and __hot_text_end (HOT_TEXT_ORDER)."""
    syms = map_symbols(system_map, "tTA")
    at = {name: a for a, name in syms}
    lines = sum(lines_touched(a, b - a, line) for (a, name), (b, _) in zip(syms, syms[1:])
                if name in hot and b > a)
    region = at.get("__hot_text_end", 0) - at.get("__hot_text_start", 0)
    last = max(a for a, _ in syms if a < at["__entry_text_start"])
    return last - at["_stext"], lines, region


def check_no_profile(run, key):
    """TAP: HOT_TEXT_ORDER built without make HOT_TEXT_PROFILE= places
    nothing: its hot region is empty."""
    at = {name: a for a, name in map_symbols(run.system_map(key))}
    start, end = at.get("__hot_text_start"), at.get("__hot_text_end")
    run.tap(start is not None and start == end,
            "%s: HOT_TEXT_ORDER without a profile builds, and places nothing (hot region "
            "%s to %s)" % (key, start and hex(start), end and hex(end)))


def check_order(run, key, profile, line):
    """TAP: an ordered image (HOT_TEXT_ORDER) has the profile's functions
    first in its text, in the profile's order, each on the fewest lines its
    size allows (its size: up to the next symbol, which only the padding
    after it adds to, within its last line; a weak function's unused
    default copy, linked after the strong one, has no symbol and so adds to
    it too: OVER_WEAK of the functions may seem to touch a line more)."""
    syms = map_symbols(run.system_map(key))
    at = {name: a for a, name in syms}
    start, end = at.get("__hot_text_start"), at.get("__hot_text_end")
    if start is None or end is None:
        run.tap(False, "%s: no __hot_text_start/__hot_text_end in System.map" % key)
        return
    region = [(a, name, b - a) for (a, name), (b, _) in zip(syms, syms[1:])
              if start <= a < end and not name.startswith("__hot_text")]
    names = list(dict.fromkeys(name for _, name, _ in region))
    placed, profiled = set(names), [name for _, name, _ in hot_text.read(profile)]
    order = [name for name in profiled if name in placed]
    over = [name for a, name, size in region if lines_touched(a, size, line) > -(-size // line)]
    text = {name for _, name in syms if at["_stext"] <= at[name] < at["__entry_text_start"]}
    outside = [name for name in profiled if name in text and name not in placed]
    run.tap(start - at["_stext"] < 4096 and names and names == order and
            len(over) <= OVER_WEAK * len(names),
            "%s: the hot region holds %d functions (%d bytes) at the start of the text, in the "
            "profile's order, each on the fewest lines its size allows; %d of the profile's "
            "functions in .text have no section of their own (assembly) and stay where they are"
            % (key, len(names), end - start, len(outside)),
            (["touch a line more (%d; weak twins?): %s" % (len(over), over[:5])]
             if over else []) +
            (["order differs: %s" % [x for x, y in zip(names, order) if x != y][:5]]
             if names != order else []))


class Collisions:
    """Who evicts whom in the L1I: each boot's text_conflicts= table with
    both lines named by their functions, per phase."""

    def __init__(self, run, keys):
        self.run, self.pairs, self.named, self.watched = run, {}, {}, {}
        self.tables = {k: read_conflicts(table_path(run.work, k, "text_conflicts"))
                       for k in keys}
        for k in keys:
            syms = symbols(run.system_map(k))
            for i, (head, pairs) in self.tables[k].items():
                c = self.pairs[k, i] = collections.Counter()
                self.watched[k, i] = head.get("ktext", 0)
                self.named[k, i] = 0
                for victim, evictor, n in pairs:
                    v = syms.lookup(victim)
                    e = syms.lookup(int(evictor, 16)) if evictor.startswith("0x") else \
                        "(%s)" % evictor
                    c[v, e] += n
                    self.named[k, i] += n if v != "[unknown]" else 0

    def check(self, keys):
        """TAP: each boot's table adds up to its phases' counts, and a
        function holds nearly every victim line."""
        for k in keys:
            problems = []
            for i, p in enumerate(self.run.boots[k]):
                problems += ["phase %d: %s" % (i, x) for x in conflict_problems(
                    "text_conflicts", p, self.tables[k].get(i, ({}, [])))]
            named = sum(self.named.get((k, i), 0) for i in range(len(self.run.boots[k])))
            watched = sum(self.watched.get((k, i), 0) for i in range(len(self.run.boots[k])))
            self.run.tap(not problems and named >= NAMED * watched,
                         "%s: L1I conflict pairs for each of %d phases add up to the plugin's "
                         "counts, and %d of their %d kernel-text misses name a function "
                         "(want %d%%)" % (k, len(self.run.boots[k]), named, watched,
                                          100 * NAMED), problems[:10])

    def rate(self, k, i):
        """Boot k's kernel-text conflict misses per event in phase i (web:
        ab's start-up included)."""
        return self.run.boots[k][i].per(self.watched.get((k, i), 0))

    def top(self, keys, i):
        """The phase's pairs pooled over boots keys: [(victim, evictor, share)]."""
        pooled = collections.Counter()
        for k in keys:
            pooled.update(self.pairs.get((k, i), {}))
        total = sum(pooled.values()) or 1
        return [(v, e, n / total) for (v, e), n in pooled.most_common(TOP_PAIRS)]


def check_layouts(run, keys, nsets, line):
    """TAP: of each pair of consecutive images, some functions at the same
    address (those linked before the first pad) and most of the others in
    another L1I set."""
    for a, b in zip(keys, keys[1:]):
        fa, fb = (functions(run.images[k], nsets, line) for k in (a, b))
        both = [f for f in fa if f in fb]
        same = sum(fa[f][0] == fb[f][0] for f in both)
        other = sum(fa[f][1] != fb[f][1] for f in both)
        rest = len(both) - same
        run.tap(same > 0 and rest > 0 and other >= MOVED * rest,
                "%s against %s: %d of %d functions at the same address, %d of the other %d in "
                "another L1I set (want at least %d%%)" % (b, a, same, len(both), other, rest,
                                                          100 * MOVED))


class Report(Doc):
    def __init__(self, run, choices, layouts, collisions, line, page="falign-layouts",
                 make_args="", held_out=None):
        super().__init__(run)
        self.line, self.page, self.make_args, self.lat = line, page, make_args, latency()
        # {SELECT: {workload: the choice trained without it}}
        self.held_out = held_out or {}
        self.choices, self.layouts, self.collisions = choices, layouts, collisions
        self.names = ["%s.L%d" % (choices[0][0], layouts[0])]
        self.net = {n: net(b) for n, b in self.boots.items()}
        first = self.net[self.names[0]]
        self.labels = [p.label for p in first]
        self.rows = [i for i, p in enumerate(first) if not p.start_up]

    def spread(self, choice, i, f):
        return Spread([f(self.net["%s.L%d" % (choice, lay)][i]) for lay in self.layouts])

    def save(self, out):
        m = self.meta
        self.md("""
            # Function alignment across text layouts: L1I misses

            Generated by `make falign-layouts%s` (falign/layouts.py) on %s: QEMU %s, %s; CPU
            model %s; kernel arguments `%s`; -smp 1, one boot a layout.  The run's commands
            and raw files: `%s` (`REPORT_ONLY=1` writes this page again from them).

            Each alignment choice is built in layouts %s: the same code, with a seeded pad of
            0-4080 bytes of int3 after the code of kernel/, mm/, fs/, lib/ and net/
            (`text-pads-N.config`, the bench series' `DEBUG_TEXT_PADS`), so that only where
            each directory's code lands, and with it which functions share L1I sets, differs.
            Figures: L1I misses per event (set-associative LRU), median [range] over the
            layouts; FA is the fully-associative LRU figure of the same boots, MIN the
            Belady bound.  Whether a choice differs from %s is the paired comparison's
            (below), not these ranges'.
            """, self.make_args, m["date"], m["qemu"], m["gcc"],
                m["cpu"], " ".join(self.run.kargs), self.run.where(),
                ", ".join(map(str, self.layouts)), self.choices[0][1])
        base = self.choices[0][0]
        rows = []
        for i in self.rows:
            rows.append([self.labels[i]] + [str(self.spread(c, i, l1i)) for c, _ in self.choices] +
                ["%s / %s" % (fmt(self.spread(base, i, lambda p: l1i(p, "fa_miss")).median),
                              fmt(self.spread(base, i, lambda p: l1i(p, "min_bound")).median))])
        self.table(["workload"] + [label for _, label in self.choices] +
                   ["FA / MIN (%s)" % self.choices[0][1]], rows)
        self.plot(out)
        self.paired()
        self.calibration()
        self.held_out_table()
        self.costs()
        self.md("""
            ## Which functions collide

            The plugin's `text_conflicts=` table: for each L1I conflict miss in the kernel
            text (an access the set-associative L1I misses and the fully-associative one
            hits), the line that missed and the line whose miss last evicted it, each named
            by the function that holds the line's first byte (System.map).  The %d
            commonest pairs per workload, victim <- evictor, with their share of the text's
            conflict misses, all layouts pooled.  Conflict misses in the text per event:
            median [range] over the layouts (web: ab's start-up included, as in no other
            figure here).
            """, TOP_PAIRS)
        for c, label in self.choices:
            keys = ["%s.L%d" % (c, lay) for lay in self.layouts]
            self.md("### %s", label)
            self.table(["workload", "text conflicts per event", "victim <- evictor (share)"], [
                [self.labels[i], str(Spread([self.collisions.rate("%s.L%d" % (c, lay), i)
                                             for lay in self.layouts])),
                 "; ".join("%s <- %s (%.0f%%)" % (v, e, 100 * x)
                           for v, e, x in self.collisions.top(keys, i))]
                for i in self.rows])
        self.write_md(out / (self.page + ".md"))

    def paired(self):
        """Each choice against the first, layout by layout: L1I and L2 misses
        and estimated cycles, 95% t intervals."""
        base, label = self.choices[0]
        if len(self.layouts) < 2 or len(self.choices) < 2:
            return
        self.md("""
            ## Paired against %s

            Each choice against %s in the same text layouts (the same pads), layout by
            layout: the mean ratio with its 95%% Student's t interval over the %d layouts
            (bench/lib/paired.py); **lower** or **higher** where it excludes 0.  Estimated
            cycles: instructions x %g + %g an L1 miss + %g an L2 miss (make bench's model).
            """, label, label, len(self.layouts), self.lat["cpi"], self.lat["L2"],
                self.lat["L3"])
        for what, f in (("L1I misses per event", l1i),
                        ("L2 misses per event (code and data)", lambda p: p.rate("L2")),
                        ("estimated cycles per event", lambda p: cycles(p, self.lat))):
            self.md("### %s", what)
            self.table(["workload"] + [lab for _, lab in self.choices[1:]], [
                [self.labels[i]] + [self.interval(base, c, i, f) for c, _ in self.choices[1:]]
                for i in self.rows])

    def held_out_table(self):
        """Each workload a profile was trained without, scored on that profile
        (one of each SELECT) and beside 64 B and the profiles trained on every
        program, against the first choice (16 B): the evaluation that cannot
        be tuned to."""
        held = {w for by_workload in self.held_out.values() for w in by_workload}
        rows = [(i, self.net[self.names[0]][i].workload) for i in self.rows]
        rows = [(i, w) for i, w in rows if w in held]
        if not rows or len(self.layouts) < 2:
            return
        base, label = self.choices[0]
        known = dict(self.choices)
        beside = [c for c in ("falign-64b", "falign-ordered-programs",
                              "falign-ordered-programs-density", "falign-ordered-programs-c3")
                  if c in known]
        self.md("""
            ## Held out: each workload scored on a profile that never saw it

            Each workload below was left out of the training of one profile of each
            SELECT (facts.tsv falign-profile HELD-OUT: `hot_text.py --leave-out`, the same
            training boot; by count, a workload's part of the region is its hottest
            functions; by density, the most instructions a byte first), and is scored
            here on that profile, against %s in the same layouts, beside %s. Estimated
            cycles, then L1I misses, per event: paired over the %d layouts as above.
            """, label, "; ".join(known[c] for c in beside) or "nothing else",
                len(self.layouts))
        for what, f in (("estimated cycles", lambda p: cycles(p, self.lat)), ("L1I misses", l1i)):
            self.table(["workload"] + ["held out, by %s: %s" % (select, what)
                                       for select in self.held_out] +
                       ["%s: %s" % (known[c], what) for c in beside],
                       [[self.labels[i]] + [
                           self.interval(base, by_workload[w], i, f) if w in by_workload else "-"
                           for by_workload in self.held_out.values()] +
                        [self.interval(base, b, i, f) for b in beside] for i, w in rows])

    def interval(self, base, choice, i, f):
        pair = paired.Paired(*[[f(self.net["%s.L%d" % (c, lay)][i]) for lay in self.layouts]
                               for c in (base, choice)])
        return pair.cell()

    def calibration(self):
        """The simulator's 64 B against 1 B L1I misses, beside the published
        hardware figures (facts.tsv calibration)."""
        known = dict(self.choices)
        if not {"falign-1b", "falign-64b"} <= set(known) or len(self.layouts) < 2:
            return
        published = facts.rows("calibration")
        self.md("""
            ## Calibration: 64 B against 1 B, simulated and on hardware

            The only published hardware figures for function alignment compare 64-byte
            alignment with none.  Here, %s against %s in the same text layouts, L1I misses
            per event, paired as above; beside them the published counts (facts.tsv
            calibration), whose ratio is computed from the counts.  A 2015 kernel,
            other workloads, whole machines (user space too) and real front ends, which this
            simulator does not model (docs/real-hardware.md: the decoded-uop cache and the
            prefetchers hide part of the L1I misses there): a check of direction and of
            order of magnitude, not of the number.""", known["falign-64b"], known["falign-1b"])
        self.table(["workload", "simulated: %s vs %s" % (known["falign-64b"],
                                                          known["falign-1b"])],
                   [[self.labels[i], self.interval("falign-1b", "falign-64b", i, l1i)]
                    for i in self.rows])
        self.table(["published", "%s B vs %s B" % ("64", "1"), "source"],
                   [[name, "%+.2f%% (%s against %s misses)" % (
                       100 * (int(a) / int(b) - 1), "{:,}".format(int(a)), "{:,}".format(int(b))),
                     src] for name, _, a, _, b, src in published], "lrl")

    def costs(self):
        """Each choice's bounds, instructions and text, beside 16 B's."""
        base = self.choices[0][0]
        self.md("""
            ## Bounds, instructions and text

            L1I misses per event against the fully-associative LRU figure (FA) and the
            Belady bound (MIN) of the same boots, medians over the layouts; instructions
            per event, median, in %% of %s's.
            """, self.choices[0][1])
        self.table(["workload"] + [label for _, label in self.choices], [
            [self.labels[i]] + ["%s / %s / %s; %+.2f%% insns" % (
                fmt(self.spread(c, i, l1i).median),
                fmt(self.spread(c, i, lambda p: l1i(p, "fa_miss")).median),
                fmt(self.spread(c, i, lambda p: l1i(p, "min_bound")).median),
                100 * (self.spread(c, i, lambda p: p.insns).median /
                       self.spread(base, i, lambda p: p.insns).median - 1))
                for c, _ in self.choices]
            for i in self.rows])
        hot = {name for _, name, _ in hot_text.read(hot_text.project_profile())}
        size = {c: [text_sizes(self.run.system_map("%s.L%d" % (c, lay)), hot, self.line)
                    for lay in self.layouts] for c, _ in self.choices}
        text = {c: Spread([x[0] for x in size[c]]).median for c in size}
        self.md("""
            Text: `_stext` to the last symbol before the entry text (System.map; `_etext`
            sits on a 2 MiB boundary), median over the layouts.  Hot lines:
            the L1I lines that the %d functions of the project's hot-text profile
            (`falign/profiles/programs-density.profile`, trained on facts.tsv's
            hot-text-programs)
            touch, wherever they are.  Hot region: `__hot_text_start` to
            `__hot_text_end`, where HOT_TEXT_ORDER places them.
            """, len(hot))
        self.table(["choice", "text bytes", "vs %s" % self.choices[0][1], "hot lines",
                    "hot region bytes"], [
            [label, "%d" % text[c], "%+.2f%%" % (100 * (text[c] / text[base] - 1)),
             str(Spread([x[1] for x in size[c]])),
             str(Spread([x[2] for x in size[c]])) if any(x[2] for x in size[c]) else "-"]
            for c, label in self.choices])

    def plot(self, out):
        """L1I misses per workload, each choice as a share of 16 B's median."""
        dat = out / (self.page + ".dat")
        base = self.choices[0][0]
        lines = []
        for x, i in enumerate(self.rows):
            ref = self.spread(base, i, l1i).median or 1
            vals = []
            for c, _ in self.choices:
                s = self.spread(c, i, l1i)
                vals.append("%.2f %.2f %.2f" % (100 * s.median / ref, 100 * s.lo / ref,
                                                 100 * s.hi / ref))
            lines.append("%d %s  # %s\n" % (x, " ".join(vals), self.labels[i]))
        dat.write_text("".join(lines))
        step = min(0.12, 0.8 / len(self.choices))  # a workload's choices side by side
        plot_png(out / (self.page + ".png"), "L1I misses by function alignment, median and "
                 "range over %d text layouts" % len(self.layouts), "",
                 "%% of the median of %s" % self.choices[0][1], None, 1,
                 ["'%s' using ($1+%.3f):%d:%d:%d with yerrorbars pt 7 title %s" % (
                     dat, step * (k - (len(self.choices) - 1) / 2), 2 + 3 * k, 3 + 3 * k,
                     4 + 3 * k, gnuplot_str(label))
                  for k, (_, label) in enumerate(self.choices)],
                 ["set termoption noenhanced", "set key below",
                  "set xrange [-0.5:%g]" % (len(self.rows) - 0.5),
                  "set xtics rotate by -20 (%s)" % ", ".join(
                      '"%s" %d' % (self.labels[i], x) for x, i in enumerate(self.rows))])
        self.md("![L1I misses by alignment across layouts](%s.png)\n\n"
                "`%s.dat`: a line a workload; for each choice the median, lowest "
                "and highest, in %% of %s's median.", self.page, self.page, self.choices[0][1])


def main(argv=None):
    p = parser(__doc__)
    p.add_argument("--choices", metavar='"IMAGE ..."',
                   help="some of facts.tsv's falign and falign-profile rows, in their order; "
                   "the first is the reference (default every falign row; not in a --quick "
                   "run)")
    p.add_argument("--page", default="falign-layouts", metavar="NAME",
                   help="the report: docs/results/NAME.md (default falign-layouts)")
    opts = p.parse_args(argv)
    quick = opts.quick
    caches = bench_caches()
    size, ways, line = caches["L1I"]
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    work = work_dir(opts, "falign-layouts-quick" if quick else opts.page)
    run = Run("falign-layouts", "falign-layouts-quick" if quick else "falign-layouts", work,
              900 if quick else 3600, plugin_geometry(caches), tables=("text_conflicts",),
              **run_args(opts))
    ordered = []    # (key, profile) of the images built with HOT_TEXT_ORDER
    held_out = {}
    if quick:   # make check's images: the test image, its padded twin, and off (HOT_TEXT_ORDER)
        if ORDERED not in facts.image_spec("off")[1]:
            run.bail("facts.tsv's image off lacks %s: the smoke run has no ordered image" % ORDERED)
        choices = [("test", "test image"), ("test-pads", "test image, padded"),
                   ("off", "image without colouring, hot text first")]
        run.image("test.L1", "test")
        # the same objects as the test image's but the pads: a copy of its
        # object dir rebuilds only those, and links
        run.image("test-pads.L1", "test-pads", facts.image_spec("test")[1] + [pads(1)],
                  like="test")
        run.image("off.L1", "off")
        keys, ordered = ["test.L1", "test-pads.L1", "off.L1"], [
            ("off.L1", profile_of(facts.image_spec("off")[1]))]
        # HOT_TEXT_ORDER built without a profile: the same objects, relinked.
        unordered = [UNPROFILED if f == ORDERED else f for f in facts.image_spec("off")[1]]
        run.image("off-noprofile.L1", "off-noprofile", unordered, like="off")
        check_no_profile(run, "off-noprofile.L1")
    else:
        table = {**facts.table("falign"), **facts.table("falign-profile")}
        choices = [(c, row[0]) for c, row in table.items()
                   if c in (opts.choices or " ".join(facts.table("falign"))).split()]
        unknown = set((opts.choices or "").split()) - set(table)
        if unknown:
            run.bail("--choices: %s: not a falign or falign-profile row of facts.tsv"
                     % " ".join(sorted(unknown)))
        for c, row in facts.table("falign-profile").items():
            if c in dict(choices) and row[1] != "-":
                how = row[2] + (", in C3's order" if row[3] == "c3" else "")
                held_out.setdefault(how, {})[row[1]] = c
        keys = []
        for c, _ in choices:
            for lay in layouts:
                # One object dir a choice: a layout is its pads and a relink.
                run.image("%s.L%d" % (c, lay), c + "-layouts",
                          facts.image_spec(c)[1] + EXTRA + [pads(lay)])
                keys.append("%s.L%d" % (c, lay))
                profile = profile_of(facts.image_spec(c)[1])
                if profile:
                    ordered.append((keys[-1], profile))
    if not run.replay:     # quick: one pair; else each choice's layouts in turn
        for run_keys in [keys[:2]] if quick else [["%s.L%d" % (c, lay) for lay in layouts]
                                          for c, _ in choices]:
            check_layouts(run, run_keys, size // ways // line, line)
    for k, profile in ordered:
        check_order(run, k, profile, line)
    boots = [(k, k, "bench_layout=1") for k in keys]
    run.boot("layouts", boots)
    ok = run.check_boots([b[0] for b in boots])
    collisions = Collisions(run, keys) if ok else None
    if ok:
        collisions.check(keys)
    make_args = make_vars([
        ("QUICK", 1 if quick else None), ("CHOICES", '"%s"' % opts.choices if opts.choices
                                          else None),
        ("PAGE", opts.page if opts.page != "falign-layouts" else None)])
    return run.finish(Report(run, choices, layouts, collisions, line, opts.page, make_args,
                             held_out) if ok else None,
                      run.work if quick else ROOT / "docs/results")


if __name__ == "__main__":
    sys.exit(main())
