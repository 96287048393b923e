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

from bench.lib import named_pairs, paired
from bench.lib.cost import cycles, latency
from bench.lib.data import conflict_problems, net, read_conflicts
from bench.lib.probe import bench_caches, plugin_geometry
from bench.lib.record import work_dir
from bench.lib.report import Doc, Spread, fmt, gnuplot_str, make_vars, plot_png, table_lines
from bench.lib.runner import Run, boot_name, parser, run_args, table_path
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


def named_path(run, key):
    """Boot KEY's text_conflicts= pairs named by function (write_named()):
    what a record keeps of the table and the System.map it is named by."""
    return run.work / (key + ".text-named")


def sizes_path(run, key):
    """Image KEY's text sizes (write_sizes()): what a record keeps of its
    System.map for the page."""
    return run.work / (key + ".text-sizes")


def write_named(run, key):
    """Boot KEY's text_conflicts= pairs, each line named by the function that
    holds its first byte (System.map), an evictor outside the text by its
    region, summed by (victim, evictor) (named_pairs.write())."""
    syms = symbols(run.system_map(key))
    named = {}
    for i, (head, pairs) in read_conflicts(table_path(run.work, key, "text_conflicts")).items():
        c = collections.Counter()
        for victim, evictor, n in pairs:
            c[syms.lookup(victim), syms.lookup(int(evictor, 16)) if evictor.startswith("0x")
              else "(%s)" % evictor] += n
        named[i] = (head.get("ktext", 0), c)
    named_pairs.write(named_path(run, key), named)


def write_sizes(run, key, line, hot):
    """Image KEY's text_sizes() for hot, the functions of the project's
    hot-text profile, and how many they are: "hot N", then "text BYTES
    LINES REGION"."""
    sizes_path(run, key).write_text("hot %d\ntext %d %d %d\n" % (
        len(hot), *text_sizes(run.system_map(key), hot, line)))


def read_sizes(path):
    """(hot functions, (text bytes, hot lines, hot region bytes)) of write_sizes()'s file."""
    kv = dict(line.split(" ", 1) for line in path.read_text().splitlines())
    return int(kv["hot"]), tuple(map(int, kv["text"].split()))


class Collisions:
    """Who evicts whom in the L1I: each boot's text_conflicts= pairs with
    both lines named by their functions, per phase (write_named()'s files)."""

    def __init__(self, run, keys):
        self.run = run
        self.files = {k: named_pairs.read(named_path(run, k)) for k in keys}

    def phase(self, k, i):
        """Boot k's phase i: (its kernel-text conflict misses, their pairs)."""
        return self.files[k].get(i, (0, collections.Counter()))

    def check(self, keys, raw):
        """TAP: each boot's named pairs add up to its kernel-text conflict
        misses, and (raw) the plugin's table to its phases' counts (a
        record's replay has no table: its run checked it); a function holds
        nearly every victim line."""
        for k in keys:
            phases = len(self.run.boots[k])
            problems = named_pairs.problems(self.files[k], phases)
            if raw:
                table = read_conflicts(table_path(self.run.work, k, "text_conflicts"))
                for i, p in enumerate(self.run.boots[k]):
                    problems += ["phase %d: %s" % (i, x) for x in conflict_problems(
                        "text_conflicts", p, table.get(i, ({}, [])))]
            named = sum(n for i in range(phases) for (v, _), n in self.phase(k, i)[1].items()
                        if v != "[unknown]")
            watched = sum(self.phase(k, i)[0] for i in range(phases))
            self.run.tap(not problems and named >= NAMED * watched,
                         "%s: L1I conflict pairs for each of %d phases add up to %s, and %d of "
                         "their %d kernel-text misses name a function (want %d%%)" % (
                             k, phases, "the plugin's counts" if raw else
                             "the kernel-text conflict misses the record keeps", named, watched,
                             100 * NAMED), problems[:10])

    def rate(self, k, i):
        """Boot k's kernel-text conflict misses per event in phase i (web:
        ab's start-up included)."""
        return self.run.boots[k][i].per(self.phase(k, i)[0])

    def top(self, keys, i):
        """The phase's pairs pooled over boots keys: [(victim, evictor, share)]."""
        pooled = collections.Counter()
        for k in keys:
            pooled.update(self.phase(k, i)[1])
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
    def __init__(self, run, choices, layouts, collisions, line, page, command, held_out=None):
        super().__init__(run)
        self.line, self.page, self.command, self.lat = line, page, command, latency()
        # {SELECT: {workload: the choice trained without it}}
        self.held_out = held_out or {}
        self.choices, self.layouts, self.collisions = choices, layouts, collisions
        self.names = [boot_name(choices[0][0], layouts[0])]
        self.net = {n: net(b) for n, b in self.boots.items()}
        first = self.net[self.names[0]]
        self.labels = [p.label for p in first]
        self.rows = [i for i, p in enumerate(first) if not p.start_up]

    def spread(self, choice, i, f):
        return Spread([f(self.net[boot_name(choice, lay)][i]) for lay in self.layouts])

    def save(self, out):
        m = self.meta
        base = self.choices[0][0]
        rows = []
        for i in self.rows:
            rows.append([self.labels[i]] + [str(self.spread(c, i, l1i)) for c, _ in self.choices] +
                ["%s / %s" % (fmt(self.spread(base, i, lambda p: l1i(p, "fa_miss")).median),
                              fmt(self.spread(base, i, lambda p: l1i(p, "min_bound")).median))])
        self.template("falign-layouts", "intro", command=self.command, date=m["date"],
                      qemu=m["qemu"], gcc=m["gcc"], cpu=m["cpu"], kargs=" ".join(self.run.kargs),
                      where=self.run.where(), layouts=", ".join(map(str, self.layouts)),
                      base=self.choices[0][1], table=table_lines(
                          ["workload"] + [label for _, label in self.choices] +
                          ["FA / MIN (%s)" % self.choices[0][1]], rows))
        self.plot(out)
        self.paired()
        self.calibration()
        self.held_out_table()
        self.costs()
        self.template("falign-layouts", "collide", top=TOP_PAIRS)
        for c, label in self.choices:
            keys = [boot_name(c, lay) for lay in self.layouts]
            self.template("falign-layouts", "subsection", what=label, table=table_lines(
                ["workload", "text conflicts per event", "victim <- evictor (share)"], [
                    [self.labels[i], str(Spread([self.collisions.rate(boot_name(c, lay), i)
                                                 for lay in self.layouts])),
                     "; ".join("%s <- %s (%.0f%%)" % (v, e, 100 * x)
                               for v, e, x in self.collisions.top(keys, i))]
                    for i in self.rows]))
        self.write_md(out / (self.page + ".md"))

    def paired(self):
        """Each choice against the first, layout by layout: L1I and L2 misses
        and estimated cycles, 95% t intervals."""
        base, label = self.choices[0]
        if len(self.layouts) < 2 or len(self.choices) < 2:
            return
        self.template("falign-layouts", "paired", base=label, nlayouts=len(self.layouts),
                      cpi="%g" % self.lat["cpi"], l1="%g" % self.lat["L2"],
                      l2="%g" % self.lat["L3"])
        for what, f in (("L1I misses per event", l1i),
                        ("L2 misses per event (code and data)", lambda p: p.rate("L2")),
                        ("estimated cycles per event", lambda p: cycles(p, self.lat))):
            self.template("falign-layouts", "subsection", what=what, table=table_lines(
                ["workload"] + [lab for _, lab in self.choices[1:]],
                [[self.labels[i]] + [self.interval(base, c, i, f) for c, _ in self.choices[1:]]
                 for i in self.rows]))

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
        tables = [table_lines(["workload"] + ["held out, by %s: %s" % (select, what)
                                              for select in self.held_out] +
                              ["%s: %s" % (known[c], what) for c in beside],
                              [[self.labels[i]] + [
                                  self.interval(base, by_workload[w], i, f)
                                  if w in by_workload else "-"
                                  for by_workload in self.held_out.values()] +
                               [self.interval(base, b, i, f) for b in beside] for i, w in rows])
                  for what, f in (("estimated cycles", lambda p: cycles(p, self.lat)),
                                  ("L1I misses", l1i))]
        self.template("falign-layouts", "held-out", base=label,
                      beside="; ".join(known[c] for c in beside) or "nothing else",
                      nlayouts=len(self.layouts), cycles=tables[0], l1i=tables[1])

    def interval(self, base, choice, i, f):
        pair = paired.Paired(*[[f(self.net[boot_name(c, lay)][i]) for lay in self.layouts]
                               for c in (base, choice)])
        return pair.cell()

    def calibration(self):
        """The simulator's 64 B against 1 B L1I misses, beside the published
        hardware figures (facts.tsv calibration)."""
        known = dict(self.choices)
        if not {"falign-1b", "falign-64b"} <= set(known) or len(self.layouts) < 2:
            return
        published = facts.rows("calibration")
        self.template(
            "falign-layouts", "calibration", b64=known["falign-64b"], b1=known["falign-1b"],
            simulated=table_lines(["workload", "simulated: %s vs %s" % (known["falign-64b"],
                                                                        known["falign-1b"])],
                                  [[self.labels[i], self.interval("falign-1b", "falign-64b", i,
                                                                  l1i)]
                                   for i in self.rows]),
            published=table_lines(["published", "%s B vs %s B" % ("64", "1"), "source"],
                                  [[name, "%+.2f%% (%s against %s misses)" % (
                                      100 * (int(a) / int(b) - 1), "{:,}".format(int(a)),
                                      "{:,}".format(int(b))), src]
                                   for name, _, a, _, b, src in published], "lrl"))

    def costs(self):
        """Each choice's bounds, instructions and text, beside 16 B's."""
        base = self.choices[0][0]
        read = {c: [read_sizes(sizes_path(self.run, boot_name(c, lay))) for lay in self.layouts]
                for c, _ in self.choices}
        size = {c: [x[1] for x in read[c]] for c in read}
        text = {c: Spread([x[0] for x in size[c]]).median for c in size}
        self.template(
            "falign-layouts", "costs", base=self.choices[0][1], hot=read[base][0][0],
            bounds=table_lines(["workload"] + [label for _, label in self.choices], [
                [self.labels[i]] + ["%s / %s / %s; %+.2f%% insns" % (
                    fmt(self.spread(c, i, l1i).median),
                    fmt(self.spread(c, i, lambda p: l1i(p, "fa_miss")).median),
                    fmt(self.spread(c, i, lambda p: l1i(p, "min_bound")).median),
                    100 * (self.spread(c, i, lambda p: p.insns).median /
                           self.spread(base, i, lambda p: p.insns).median - 1))
                    for c, _ in self.choices]
                for i in self.rows]),
            text=table_lines(["choice", "text bytes", "vs %s" % self.choices[0][1], "hot lines",
                              "hot region bytes"], [
                [label, "%d" % text[c], "%+.2f%%" % (100 * (text[c] / text[base] - 1)),
                 str(Spread([x[1] for x in size[c]])),
                 str(Spread([x[2] for x in size[c]])) if any(x[2] for x in size[c]) else "-"]
                for c, label in self.choices]))

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
        self.template("falign-layouts", "plot", page=self.page, base=self.choices[0][1])


def command(opts) -> str:
    """The make command that runs this, for the page's first line: make
    falign-layouts with the variables given (CHOICES=, PAGE=), or another
    target, whose recipe holds them (--target)."""
    own = opts.target == "falign-layouts"
    return "make " + opts.target + make_vars([
        ("QUICK", 1 if opts.quick else None),
        ("CHOICES", '"%s"' % opts.choices if opts.choices and own else None),
        ("PAGE", opts.page if own and opts.page != "falign-layouts" else None)])


def arg_parser():
    """The run's parser: the flags every bench tool takes, and its own."""
    p = parser(__doc__)
    p.add_argument("--choices", metavar='"IMAGE ..."',
                   help="some of facts.tsv's falign and falign-profile rows, in their order; "
                   "the first is the reference (default every falign row; not in a --quick "
                   "run)")
    p.add_argument("--page", default="falign-layouts", metavar="NAME",
                   help="the report: docs/results/NAME.md (default falign-layouts)")
    p.add_argument("--target", default="falign-layouts", metavar="NAME",
                   help="the make target that runs it, for the page's first line (default "
                   "falign-layouts; make falign-profiles passes its own, whose recipe holds "
                   "the choices and the page)")
    return p


def main(argv=None):
    opts = arg_parser().parse_args(argv)
    quick = opts.quick
    caches = bench_caches()
    size, ways, line = caches["L1I"]
    layouts = QUICK_LAYOUTS if quick else LAYOUTS
    work = work_dir(opts, "falign-layouts-quick" if quick else opts.page)
    run = Run("falign-layouts", "falign-layouts-quick" if quick else "falign-layouts", work,
              plugin_args=plugin_geometry(caches), tables=("text_conflicts",),
              record=None if quick else opts.page, record_tables=False, series="falign",
              command=command(opts), **run_args(opts))
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
        if run.system_map("off-noprofile.L1").exists():
            check_no_profile(run, "off-noprofile.L1")
        else:
            run.tap.skip("off-noprofile.L1: HOT_TEXT_ORDER without a profile places nothing",
                         "no System.map here (a replay)")
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
                run.image(boot_name(c, lay), c + "-layouts",
                          facts.image_spec(c)[1] + EXTRA + [pads(lay)])
                keys.append(boot_name(c, lay))
                profile = profile_of(facts.image_spec(c)[1])
                if profile:
                    ordered.append((keys[-1], profile))
    if not run.replay:     # quick: one pair; else each choice's layouts in turn
        for run_keys in [keys[:2]] if quick else [[boot_name(c, lay) for lay in layouts]
                                          for c, _ in choices]:
            check_layouts(run, run_keys, size // ways // line, line)
    # A fresh run has each image's System.map and each boot's table, and keeps
    # what the page reads of them (named pairs, text sizes); a record has those.
    raw = all(run.system_map(k).exists() for k in keys)
    for k, profile in ordered:
        if raw:
            check_order(run, k, profile, line)
        else:
            run.tap.skip("%s: the hot region holds the profile's functions in its order" % k,
                         "no System.map in a record; its run checked it")
    if not raw and not all(named_path(run, k).exists() for k in keys):
        run.bail("%s has neither each image's System.map and table nor the named pairs a "
                 "record keeps (%s)" % (run.work, named_path(run, keys[0]).name))
    boots = [(k, k, "bench_layout=1") for k in keys]
    run.boot("layouts", boots)
    ok = run.check_boots([b[0] for b in boots])
    collisions = None
    if ok:
        if raw:
            hot = {name for _, name, _ in hot_text.read(hot_text.project_profile())}
            for k in keys:
                write_named(run, k)
                write_sizes(run, k, line, hot)
        run.record_files += [f(run, k).name for k in keys for f in (named_path, sizes_path)]
        collisions = Collisions(run, keys)
        collisions.check(keys, raw)
    return run.finish(Report(run, choices, layouts, collisions, line, opts.page, command(opts),
                             held_out) if ok else None)


if __name__ == "__main__":
    sys.exit(main())
