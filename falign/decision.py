"""The code-layout decision: make falign-decision [LAYOUTS="S ..."] [QUICK=1]
-> docs/results/falign-decision.md, the pre-registered run of
docs/results/protocol-layout.md (which this file carries out: its kernels,
seeds, workloads, caches, metrics, family and rule are the constants below).

Five kernels (KERNELS), each built in the layouts of SEEDS (text-pads-S: the
same code with seeded pads after kernel/, mm/, fs/, lib/ and net/), booted
once a layout under the cache simulator at -smp 1 on the layout-decision
workloads, the Skylake client's caches the primary hierarchy and two larger
L2s simulated on the same boots (L2S, kcolour-cachesim cpus=).  Each boot's
figures go to docs/results/data/falign-decision/KERNEL.SSEED.tsv, the raw
data, committed as it comes: the page is computed from those files alone,
so REPORT_ONLY=1 writes it again, byte for byte, without a boot.
LAYOUTS= boots only those seeds (a session adds a complete set of layouts;
RESUME=1 keeps the boots a run before made).  The run refuses kernels,
workloads or caches that differ from the frozen pins
(docs/results/data/falign-decision/pins.tsv, written once by --freeze, in
a commit before the first boot).
QUICK: make check's images (test, off) unpadded, the layout-decision-quick
workloads, raw files and report in the work dir: the machinery only.
Flags (make's LAYOUTS=, QUICK=1, JOBS=N, WORK=DIR, REPORT_ONLY=1,
RESUME=1, FREEZE=1): --help.

usage: python3 -m falign.decision [FLAGS]  (from the top of the tree, not by its path)
"""

import hashlib
import math
import sys
from pathlib import Path

from bench.lib import paired
from bench.lib.cost import latency
from bench.lib.cpus import hierarchy
from bench.lib.data import net
from bench.lib.probe import bench_caches, plugin_geometry
from bench.lib.report import Doc, gnuplot_str, plot_png
from bench.lib.runner import ROOT, Run, parser
from falign.layouts import pads, text_sizes
from harness import facts, series

HERE = Path(__file__).resolve().parent

# The protocol's kernels: (facts.tsv image, label), the control first.
KERNELS = [("falign-default", "16 B"), ("falign-64b", "64 B"),
           ("falign-ordered-programs-density", "shipped profile"),
           ("falign-ordered-sham", "sham profile"), ("falign-ordered-lines", "64 B + packing")]
CONTROL, B64, SHIPPED, SHAM, PACKED = (k for k, _ in KERNELS)
# Ten text-pad seeds drawn at random from 4..999 (Python's SystemRandom,
# 2026-12-06); earlier pages used 1, 2 and 3.
SEEDS = (105, 176, 346, 445, 480, 500, 534, 621, 806, 887)
WSET = "layout-decision"
# The L2s, each under the Skylake client's L1s: the primary hierarchy's
# (the bench CPU's), then cpus= hierarchies 1 and 2.
L2S = [("256K 4-way", None), ("1M 8-way", (1 << 20, 8)), ("2M 16-way", (2 << 20, 16))]
UNSEEN = ("redis", "rsync", "build")
WEB = "web c=4 close"
ALPHA = 0.05
DATA = ROOT / "docs/results/data/falign-decision"
PINS = DATA / "pins.tsv"
# The columns of a raw file's phase lines: counts of the whole phase.
COLUMNS = ["label", "events", "insns", "L1I", "L1D"] + [
    "%s%s" % (h, r) for h in ("L2", "cpu1-L2", "cpu2-L2") for r in ("", ".ktext")]
# Each metric: (name, value of a raw row at L2 h); a row is {column: number}.
METRICS = {
    "L1I misses": lambda r, h, lat: r["L1I"] / r["events"],
    "L2 misses, kernel text": lambda r, h, lat: r[l2(h) + ".ktext"] / r["events"],
    "L2 misses, the rest": lambda r, h, lat: (r[l2(h)] - r[l2(h) + ".ktext"]) / r["events"],
    "estimated cycles": lambda r, h, lat: cycles(r, h, lat),
}
# The bounds a claim in cycles must hold at: latencies x0.5 and x1.5, and
# an L2 miss charged half (overlapped).
BOUNDS = {"latencies x0.5": dict(scale=0.5), "latencies x1.5": dict(scale=1.5),
          "L2 misses half overlapped": dict(l2_share=0.5)}


def l2(h):
    return ("L2", "cpu1-L2", "cpu2-L2")[h]


def cycles(r, h, lat, scale=1.0, l2_share=1.0):
    """make bench's cost model on L2 h: instructions x CPI, an L1 miss an L2
    hit, an L2 miss an L3 hit (scaled), per event."""
    return (r["insns"] * lat["cpi"] + scale * ((r["L1I"] + r["L1D"]) * lat["L2"] +
                                               l2_share * r[l2(h)] * lat["L3"])) / r["events"]


# The pre-registered family: (hypothesis, case, control, workload, metric,
# L2 index, the predicted sign: -1 lower).  Holm's correction runs over all
# of it; 25 tests, so that ten layouts all of one sign (an exact signed-rank
# p of 2/1024) can pass the first step (0.05 / 25 = 0.002).
FAMILY = (
    [("H1", SHIPPED, CONTROL, w, "L1I misses", 0, -1) for w in UNSEEN] +
    [("H2", SHIPPED, CONTROL, w, "L2 misses, kernel text", h, -1)
     for w in UNSEEN for h in range(3)] +
    [("H3", SHIPPED, SHAM, w, "L1I misses", 0, -1) for w in UNSEEN] +
    [("H4", SHIPPED, SHAM, w, "L2 misses, kernel text", 0, -1) for w in UNSEEN] +
    [("H5", PACKED, B64, w, "L1I misses", 0, -1) for w in (WEB,) + UNSEEN] +
    [("H6", k, CONTROL, WEB, "estimated cycles", 0, -1) for k in (SHIPPED, PACKED, B64)])
# Each hypothesis from its tests' verdicts (test index lists into FAMILY
# by hypothesis): "two of three" groups (the unseen programs), each
# confirmed where at least two of its tests are and none is refuted,
# refuted where at least two are and none is confirmed.
HYPOTHESES = {
    "H1": "the shipped profile has fewer L1I misses than 16 B on the unseen programs",
    "H2": "the shipped profile has fewer L2 misses on kernel text than 16 B on the unseen "
          "programs, at each L2 size",
    "H3": "the shipped profile has fewer L1I misses than the sham on the unseen programs",
    "H4": "the shipped profile has fewer L2 misses on kernel text than the sham on the "
          "unseen programs (256K L2)",
    "H5": "64 B + packing has fewer L1I misses than 64 B on the web server and on the "
          "unseen programs",
    "H6": "each of the shipped profile, 64 B + packing and 64 B takes fewer estimated cycles "
          "than 16 B on the web server (256K L2), at every latency bound",
}
# The text gate of 64 B + packing against 16 B: the mean paired ratio.
TEXT_GATE = 1.0


def two_of_three(verdicts):
    c, r = verdicts.count("confirmed"), verdicts.count("refuted")
    return "confirmed" if c >= 2 and not r else "refuted" if r >= 2 and not c else \
        "inconclusive"


def all_of(verdicts):
    """confirmed where each is, refuted where any is, else inconclusive."""
    return "refuted" if "refuted" in verdicts else \
        "confirmed" if all(v == "confirmed" for v in verdicts) else "inconclusive"


def hypothesis_verdicts(tests):
    """{H: verdict (and its parts)} from [(test, verdict)] of the family."""
    by = {}
    for t, v in tests:
        by.setdefault(t[0], []).append((t, v))
    out = {}
    for h in ("H1", "H3", "H4"):
        out[h] = two_of_three([v for _, v in by[h]])
    sizes = [two_of_three([v for t, v in by["H2"] if t[5] == i]) for i in range(len(L2S))]
    out["H2"] = "%s (by L2: %s)" % (all_of(sizes), ", ".join(
        "%s %s" % (L2S[i][0], v) for i, v in enumerate(sizes)))
    web = [v for t, v in by["H5"] if t[3] == WEB][0]
    unseen = two_of_three([v for t, v in by["H5"] if t[3] != WEB])
    out["H5"] = "%s (web %s, unseen %s)" % (all_of([web, unseen]), web, unseen)
    out["H6"] = "; ".join("%s %s" % (t[1], v) for t, v in by["H6"])
    return out


def digest(paths):
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes())
    return h.hexdigest()[:16]


def protocol_commit():
    """The commit that last changed the protocol page, which must hold it
    as it is ("uncommitted" otherwise)."""
    from harness import util
    page = "docs/results/protocol-layout.md"
    if util.git(ROOT, "status", "--porcelain", "--", page).strip():
        return "uncommitted"
    return util.git(ROOT, "log", "-1", "--format=%H", "--", page).strip() or "uncommitted"


def pinned(what):
    """The frozen pin of WHAT (pins.tsv), or "-"."""
    return next((r[2] for r in read_pins() if r[0] == what), "-")


# The programs the guest runs, whose Debian versions the pins hold (an
# upgrade between sessions would change the workloads).
GUEST_PACKAGES = ("lighttpd", "apache2-utils", "rt-tests", "redis-tools", "rsync", "tcc", "make",
                  "dash", "busybox-static", "libc6")


def package_versions():
    from harness import util
    out = util.tool_version(["dpkg-query", "-W", "-f", "${Package}=${Version} "] +
                            list(GUEST_PACKAGES))
    return out or "unknown"


def text_digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pins():
    """[(what, name, digest)]: every input the protocol freezes: what is
    built and booted, what runs in the guest, and the analysis itself."""
    from harness import kconfig, kernel, util
    cachesim = sorted((ROOT / "bench/cachesim").glob("*.[ch]")) + \
        sorted((ROOT / "bench/workloads").glob("*.[ch]")) + [ROOT / "bench/workloads/phases.sh"]
    out = [("protocol", "docs/results/protocol-layout.md", protocol_commit()),
           ("series", "kernel-patches", series.series_digest()),
           ("workloads", WSET, text_digest("\n".join(facts.workloads(WSET)))),
           ("caches", "L2S", text_digest(repr((bench_caches(), L2S)))),
           ("latency", "facts.tsv latency bench", text_digest(repr(latency()))),
           ("seeds", "SEEDS", digest(kconfig.fragment_files([pads(s) for s in SEEDS]))),
           ("analysis", "falign/decision.py bench/lib/paired.py bench/lib/cpus.py "
            "bench/lib/data.py", digest([ROOT / "falign/decision.py", ROOT / "bench/lib/paired.py",
                                         ROOT / "bench/lib/cpus.py", ROOT / "bench/lib/data.py"])),
           ("simulator", "bench/cachesim bench/workloads", digest(cachesim)),
           ("tools", "qemu gcc", text_digest(
               util.tool_version(["qemu-system-x86_64", "--version"]) +
               util.tool_version(["gcc", "--version"]))),
           ("guest", "Debian packages", text_digest(package_versions()))]
    for k, _ in KERNELS:
        frags = kconfig.fragment_files(facts.image_spec(k)[1] + ["bench-net"])
        lines = [line for f in frags for line in f.read_text().splitlines()]
        named = list(kernel.files_named(lines, series.Tree().path))
        out.append(("kernel", k, digest(frags + named)))
    return out


def read_pins():
    return [tuple(line.split("\t")) for line in PINS.read_text().splitlines()
            if line and not line.startswith("#")] if PINS.exists() else []


def changed_pins(only=None):
    """What differs from the frozen pins (of the kinds in only): [] where
    nothing does."""
    want, got = read_pins(), pins()
    if not want:
        return ["no pins: make falign-decision FREEZE=1 once, and commit them first"]
    return ["changed since the freeze: %s (%s)" % (w, n) for (w, n, d) in got
            if (w, n, d) not in want and (only is None or w in only)]


def check_pins(run):
    changed = changed_pins()
    run.tap(not changed, "the kernels, workloads, caches, seeds, tools and analysis are the "
            "protocol's frozen ones (%s)" % PINS.relative_to(ROOT), changed)


def extract(boot, image_map):
    """A boot's raw rows (web net of ab's start-up) and its text bytes."""
    rows = []
    for p in net(boot):
        if p.start_up:
            continue
        c = {"L1I": p.counts[("L1I", "all")]["sa_miss"], "L1D": p.counts[("L1D", "all")]["sa_miss"]}
        for h in range(3):
            for r in ("all", "ktext"):
                c[l2(h) + ("" if r == "all" else ".ktext")] = p.counts[(l2(h), r)]["sa_miss"]
        rows.append([p.label, p.unit[1], p.head["insns"]] + [c[k] for k in COLUMNS[3:]])
    return rows, text_sizes(image_map, set(), 64)[0]


def write_raw(path, kernel, seed, rows, text, banner="?"):
    """A boot's raw file: what booted (its Linux banner), then its rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# kernel %s seed %s text_bytes %d\n# %s\n%s\n%s" % (
        kernel, seed, text, banner, "\t".join(COLUMNS),
        "".join("\t".join(str(x) for x in r) + "\n" for r in rows)))


def read_raw(path):
    """({label: {column: number}}, text bytes) of a raw file."""
    lines = [line for line in path.read_text().splitlines() if not line.startswith("# ") or
             line.startswith("# kernel ")]
    text = int(lines[0].split()[-1])
    rows = {}
    for line in lines[2:]:
        w = line.split("\t")
        rows[w[0]] = dict(zip(COLUMNS[1:], map(int, w[1:])))
    return rows, text


class Report(Doc):
    def __init__(self, data, kernels, seeds, quick=False):
        super().__init__()
        self.data, self.kernels, self.seeds, self.quick = data, kernels, seeds, quick
        self.label = dict(KERNELS + [("test", "test image"), ("off", "off image")])
        self.lat = latency()
        self.complete = [s for s in seeds if all((k, s) in data for k in kernels)]
        first = data[(kernels[0], self.complete[0])][0] if self.complete else {}
        self.workloads = list(first)

    def values(self, kernel, w, metric, h, bound=None):
        f = (lambda r, h, lat: cycles(r, h, lat, **BOUNDS[bound])) if bound else METRICS[metric]
        return [f(self.data[(kernel, s)][0][w], h, self.lat) for s in self.complete]

    def pair(self, case, control, w, metric, h, bound=None):
        return paired.Paired(self.values(control, w, metric, h, bound),
                             self.values(case, w, metric, h, bound))

    def verdicts(self):
        """Each test of the family: its Paired, both adjusted p and the verdict."""
        tests = [(t, self.pair(t[1], t[2], t[3], t[4], t[5])) for t in FAMILY]
        pt = paired.holm([p.p for _, p in tests])
        pw = paired.holm([paired.signed_rank_p(p.diffs) for _, p in tests])
        out = []
        for (t, p), a, b in zip(tests, pt, pw):
            sign = -1 if p.pct < 0 else 1
            verdict = "inconclusive"
            if a <= ALPHA and b <= ALPHA:
                verdict = "confirmed" if sign == t[6] else "refuted"
                held = [bd for bd in BOUNDS if verdict == "confirmed" and
                        t[4] == "estimated cycles" and
                        not (self.pair(t[1], t[2], t[3], t[4], t[5], bd).real and
                             (self.pair(t[1], t[2], t[3], t[4], t[5], bd).pct < 0) == (sign < 0))]
                if held:
                    verdict = "inconclusive: not at %s" % ", ".join(held)
            out.append((t, p, a, b, verdict))
        return out

    def save(self, out, page):
        n, done = len(self.seeds), len(self.complete)
        self.md("""
            # The code-layout decision

            The pre-registered run of [protocol-layout.md](protocol-layout.md): %s, each
            built in the text layouts of the protocol's seeds and booted once a layout
            under the cache simulator at -smp 1 (`make falign-decision`, falign/decision.py),
            the Skylake client's L1s with three L2s on the same boots: %s.  Raw figures:
            `data/falign-decision/`, a file a boot; this page is computed from them alone.
            The protocol as run: commit %s; the inputs' pins: `data/falign-decision/pins.tsv`.
            """, ", ".join(self.label[k] for k in self.kernels), ", ".join(n for n, _ in L2S),
                "-" if self.quick else pinned("protocol"))
        if self.quick:
            self.md("""
                **Smoke run (QUICK=1): make check's two images, unpadded, and the
                layout-decision-quick workloads: the machinery only, no verdict.**""")
        elif done < n:
            self.md("""
                **Interim: %d of %d layouts complete (%s).**  The protocol gives no verdict
                before every layout is in: the intervals below are interim and decide
                nothing.""", done, n, " ".join(map(str, self.complete)) or "none")
        else:
            self.family()
        self.secondary()
        self.texts()
        self.plot(out, page)
        self.write_md(out / (page + ".md"))

    def family(self):
        self.md("""
            ## The pre-registered family

            Each test: the case against its control in the same %d layouts, the mean
            ratio with its 95%% Student's t interval (bench/lib/paired.py), then Holm's
            adjusted p over the %d tests of the family for t and for the exact
            Wilcoxon signed-rank test.  Confirmed: both adjusted p at most %g, the mean
            in the predicted direction (lower); refuted: both, the other way; else
            inconclusive.  A test in estimated cycles is confirmed only where the
            interval also excludes 0 the same way at every bound (%s).
            """, len(self.complete), len(FAMILY), ALPHA, "; ".join(BOUNDS))
        rows, tests = [], self.verdicts()
        for t, p, a, b, verdict in tests:
            rows.append([t[0], "%s vs %s" % (self.label[t[1]], self.label[t[2]]), t[3], t[4],
                         L2S[t[5]][0], p.interval(), "%.4f" % a, "%.4f" % b, verdict])
        hyp = hypothesis_verdicts([(t, v) for t, _, _, _, v in tests])
        self.md("""
            Each hypothesis from its tests (the protocol's rule): a group of the three
            unseen programs is confirmed where at least two of its tests are and none is
            refuted, refuted where at least two are and none is confirmed; H2 needs its
            group confirmed at every L2, H5 the web server's test and the group.""")
        self.table(["", "hypothesis", "verdict"],
                   [[h, HYPOTHESES[h], hyp[h].replace(SHIPPED, self.label[SHIPPED]).replace(
                       PACKED, self.label[PACKED]).replace(B64, self.label[B64])]
                    for h in sorted(HYPOTHESES)], "lll")
        self.table(["", "comparison", "workload", "metric", "L2", "mean [95% CI]",
                    "Holm p (t)", "Holm p (signed rank)", "verdict"], rows, "lllllrrrl")
        self.md("""
            The tests in estimated cycles at each bound: latencies x0.5 and x1.5 (instructions
            unchanged), and each L2 miss charged half (overlapped).""")
        cyc = [t for t, _, _, _, _ in tests if t[4] == "estimated cycles"]
        self.table(["comparison", "nominal"] + list(BOUNDS), [
            ["%s vs %s" % (self.label[t[1]], self.label[t[2]]),
             self.pair(t[1], t[2], t[3], t[4], t[5]).interval()] +
            [self.pair(t[1], t[2], t[3], t[4], t[5], bd).interval() for bd in BOUNDS]
            for t in cyc])
        p = paired.Paired([self.data[(CONTROL, s)][1] for s in self.complete],
                          [self.data[(PACKED, s)][1] for s in self.complete])
        self.md("""
            The text gate: 64 B + packing's text against 16 B's, paired over the layouts,
            %s: %s (the gate: a mean of at most +%g%%).""", p.interval(),
                "met" if p.pct <= TEXT_GATE else "missed", TEXT_GATE)

    def secondary(self):
        self.md("""
            ## Every comparison, per L2 (secondary)

            Each kernel against %s, and the shipped profile against the sham and 64 B + packing
            against 64 B: the mean ratio and its 95%% interval over the %d complete
            layouts, unadjusted (**lower**/**higher** where it excludes 0).  These
            describe; only the family above decides.""", self.label[self.kernels[0]],
                len(self.complete))
        pairs = [(k, self.kernels[0]) for k in self.kernels[1:]]
        pairs += [(a, b) for a, b in ((SHIPPED, SHAM), (PACKED, B64))
                  if a in self.kernels and b in self.kernels]
        for metric in METRICS:
            for h, (name, _) in enumerate(L2S):
                if metric == "L1I misses" and h:
                    continue    # the L1s are the same in every hierarchy
                self.md("### %s%s", metric, "" if metric == "L1I misses" else ", L2 " + name)
                self.table(["workload"] + ["%s vs %s" % (self.label[a], self.label[b])
                                           for a, b in pairs],
                           [[w] + [self.pair(a, b, w, metric, h).cell() for a, b in pairs]
                            for w in self.workloads])

    def texts(self):
        base = self.kernels[0]
        self.md("""
            ## Text

            `_stext` to the last symbol before the entry text (System.map; `_etext` sits on
            a 2 MiB boundary), the median over the complete layouts, against %s.""",
                self.label[base])
        med = {k: sorted(self.data[(k, s)][1] for s in self.complete) for k in self.kernels}
        med = {k: v[len(v) // 2] if v else 0 for k, v in med.items()}
        self.table(["kernel", "text bytes", "vs " + self.label[base]], [
            [self.label[k], "%d" % med[k], "%+.2f%%" % (100.0 * (med[k] / med[base] - 1))
             if med[base] else "n/a"] for k in self.kernels])

    def plot(self, out, page):
        """L1I misses, each kernel against the control, a point a layout."""
        base, others = self.kernels[0], self.kernels[1:]
        dat = out / (page + ".dat")
        lines = []
        for x, w in enumerate(self.workloads):
            ref = self.values(base, w, "L1I misses", 0)
            for k, kernel in enumerate(others):
                for s, (a, b) in zip(self.complete, zip(ref, self.values(kernel, w, "L1I misses",
                                                                          0))):
                    lines.append("%.3f %d %.3f  # %s %s seed %s\n" % (
                        x + 0.12 * (k - (len(others) - 1) / 2), k,
                        100.0 * math.expm1(math.log(b / a)) if a > 0 and b > 0 else 0.0,
                        w, kernel, s))
        dat.write_text("".join(lines))
        plot_png(out / (page + ".png"), "L1I misses against %s, a point a layout"
                 % self.label[base], "", "% against " + self.label[base], None, 1,
                 ["'%s' using ($2 == %d ? $1 : 1/0):3 with points pt 7 title %s"
                  % (dat, k, gnuplot_str(self.label[kernel])) for k, kernel in enumerate(others)],
                 ["set termoption noenhanced", "set key below", "set yrange [*:*]",
                  "set xrange [-0.5:%g]" % (len(self.workloads) - 0.5),
                  "set xtics rotate by -20 (%s)" % ", ".join(
                      '"%s" %d' % (w, x) for x, w in enumerate(self.workloads))])
        self.md("![L1I misses against %s, a point a layout](%s.png)\n\n`%s.dat`: a line a "
                "layout, kernel and workload: x, the kernel's index, the ratio in %%.",
                self.label[base], page, page)


def load(kernels, seeds, data_dir):
    data = {}
    for k in kernels:
        for s in seeds:
            f = data_dir / ("%s.S%s.tsv" % (k, s))
            if f.exists():
                data[(k, s)] = read_raw(f)
    return data


def main(argv=None):
    p = parser(__doc__)
    p.add_argument("--layouts", metavar='"SEED ..."',
                   help="boot only these of the protocol's seeds (default all)")
    p.add_argument("--freeze", action="store_true",
                   help="write the pins of today's kernels, workloads and caches (once, "
                   "before the run's first boot)")
    opts = p.parse_args(argv)
    if opts.freeze:
        if list(DATA.glob("*.tsv")) != [PINS] and list(DATA.glob("*.S*.tsv")):
            print("error: %s holds the run's raw figures: the inputs were frozen before its "
                  "first boot, and stay so" % DATA.relative_to(ROOT), file=sys.stderr)
            return 1
        PINS.parent.mkdir(parents=True, exist_ok=True)
        PINS.write_text("# the code-layout decision's frozen inputs (falign/decision.py "
                        "--freeze): what, name, sha256 prefix\n" +
                        "".join("\t".join(x) + "\n" for x in pins()))
        print(PINS)
        return 0
    quick = opts.quick
    kernels = ["test", "off"] if quick else [k for k, _ in KERNELS]
    seeds = ["0"] if quick else [str(s) for s in SEEDS]
    work = opts.work or ROOT / "build/bench" / ("falign-decision-quick" if quick
                                               else "falign-decision")
    data_dir = Path(work) / "data" if quick else DATA
    out = Path(work) if quick else ROOT / "docs/results"
    if opts.report_only:
        data = load(kernels, seeds, data_dir)
        if not data:
            print("error: no raw data in %s" % data_dir, file=sys.stderr)
            return 1
        changed = [] if quick else changed_pins(only=("analysis", "latency"))
        if changed:
            print("error: %s: the page would not be the pre-registered analysis's"
                  % "; ".join(changed), file=sys.stderr)
            return 1
        Report(data, kernels, seeds, quick).save(out, "falign-decision")
        print(out / "falign-decision.md")
        return 0
    todo = seeds if quick or not opts.layouts else opts.layouts.split()
    unknown = set(todo) - set(seeds)
    caches = bench_caches()
    hier = "/".join(hierarchy(dict(caches, L2=g + caches["L2"][2:])) for _, g in L2S[1:])
    run = Run("falign-decision", WSET + ("-quick" if quick else ""), work,
              900 if quick else 3600, plugin_geometry(caches) + ",cpus=" + hier,
              resume=opts.resume, jobs=opts.jobs, pool=opts.pool)
    if unknown:
        run.bail("--layouts: %s: not a seed of the protocol (%s)" % (
            " ".join(sorted(unknown)), " ".join(seeds)))
    if not quick:
        check_pins(run)
        if run.tap.failed:
            return run.finish(None, out)
    boots = []
    for k in kernels:
        for s in todo:
            key = "%s.S%s" % (k, s)
            if quick:
                run.image(key, k)
            else:
                run.image(key, k + "-layouts", facts.image_spec(k)[1] + ["bench-net", pads(int(s))])
            boots.append((key, key, "bench_layout=1"))
    run.boot("decision", boots)
    if run.check_boots([b[0] for b in boots], extras=6):
        failed = {key: ["%s status %s" % (p.label, p.info.get("status"))
                        for p in run.boots[key] if p.info.get("status", 0)]
                  for key, _, _ in boots}
        run.tap(not any(failed.values()), "every workload of every boot exited 0 (redis "
                "served, rsync copied, make built)",
                ["%s: %s" % (k, ", ".join(v)) for k, v in failed.items() if v])
        for key, _, _ in boots:
            if failed[key]:
                # No figures from it; RESUME=1 boots it again (the protocol: twice
                # at most, then the layout is dropped for every kernel).
                (run.work / (key + ".rc")).unlink(missing_ok=True)
                continue
            k, s = key.rsplit(".S", 1)
            rows, text = extract(run.boots[key], run.system_map(key))
            write_raw(data_dir / (key + ".tsv"), k, s, rows, text,
                      run.meta.get("banner_" + key, "?"))
        data = load(kernels, seeds, data_dir)
        run.tap(all((data_dir / (b[0] + ".tsv")).exists() for b in boots),
                "every boot's raw figures written to %s" % data_dir.relative_to(ROOT))
        report = Report(data, kernels, seeds, quick)
        return run.finish(_Saver(report), out)
    return run.finish(None, out)


class _Saver:
    """Run.finish()'s report: the page, named for the decision."""

    def __init__(self, report):
        self.report = report

    def save(self, out):
        self.report.save(out, "falign-decision")


if __name__ == "__main__":
    sys.exit(main())
