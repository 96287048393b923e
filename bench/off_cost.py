#!/usr/bin/env python3
"""What carrying the colouring costs while it is off: make bench-off-cost
[LAYOUTS="SEED ..."] [RESUME=1] [REPORT_ONLY=1] [QUICK=1] -> docs/results/off-cost.md.

Two kernels of one tree and one configuration (the series, the bench's
qemu-test and bench-net fragments) that differ only in the colouring's
options: "without", CONFIG_KSTACK_COLOUR and CONFIG_TASK_STRUCT_COLOUR not
set, and "built in, off", both set as a distribution would carry them
(kcolour.config, kcolour-task.config: built in, off at boot).  Without them
the series' colouring compiles away (task_kstack_colour_offset() is 0, no
fork hook, no task_struct colours), so the pair measures what the built-in
code costs a kernel that never colours: the stack top's offset load on
every context switch and in task_pt_regs(), the fork hook's flag read,
and the code's size moving everything after it.

Each kernel is built in LAYOUTS text layouts (the bench series' seeded pads,
text-pads-SEED.config; the pads move the code of kernel/, mm/, fs/, lib/ and
net/, so that the second kernel's larger text is not judged on one link's
luck) and booted once a layout at -smp 1, deterministic, under the cache
simulator on the bench CPU's caches (make bench's), on the off-cost
workloads.  Layout by layout, built in and off against without:
instructions, L1I, L1D and L2 misses and estimated cycles per event (make
bench's model, with its bounds: latencies x0.5 and x1.5), the mean ratio
with its 95% Student's t interval (bench/lib/paired.py).  Instructions are the
model-free figure of the code the kernel runs; the misses and cycles carry
where the code lands.

Every boot also runs under the simulator's instruction profile (profile=),
so the page says where the instructions the built-in kernel adds are spent:
per workload, how much of the difference is in functions whose code differs
between the two kernels (their size in vmlinux differs: the colouring's
inline hooks) and how much is the same code run more often, and the
functions that differ most (bench/lib/functions.py).

The raw figures of each boot are kept in docs/results/data/off-cost/ (two
files a boot: the counts, KEY.tsv, and the instructions by function,
KEY.functions.tsv), and REPORT_ONLY=1 writes the page again from them, byte
for byte, without a boot (make check does, into build/).  TAP on stdout:
every phase complete, each image's .config says what its kernel is (CONFIGS:
built in and off at boot, or not built), each workload's functions add up to
its instructions, and every raw file written.
QUICK=1: the report of the committed raw figures, into build/bench/off-cost-quick.
Flags (make's LAYOUTS=, QUICK=1, JOBS=N, WORK=DIR, REPORT_ONLY=1, RESUME=1): --help.
"""

import statistics
import sys
from pathlib import Path

from bench.lib import experiment, functions, paired
from bench.lib.cost import cycles, latency
from bench.lib.data import UNITS, net
from bench.lib.report import Doc, fmt, table_lines
from bench.lib.runner import ROOT, table_path

WSET = "off-cost"
DATA = ROOT / "docs/results/data/off-cost"
# (key, label, fragments): the control first.
KERNELS = (("without", "without the colouring", ["qemu-test", "bench-net"]),
           ("off", "built in, off", ["qemu-test", "kcolour", "kcolour-task", "bench-net"]))
# The layouts: the seeds of the code-layout decision's pads, whose fragments
# the tree has; they chose nothing here either.
SEEDS = (105, 176, 346, 445, 480, 500, 534, 621, 806, 887)
COLUMNS = ("workload", "events", "insns", "L1I", "L1D", "L2")
# What each kernel's .config must say (the bench boots "quiet", so the
# kernel's own boot line is not on the console): (kernel, lines).
# (TASK_STRUCT_COLOUR depends on KSTACK_COLOUR: without it, .config omits it.)
CONFIGS = {"without": ("# CONFIG_KSTACK_COLOUR is not set",),
           "off": ("CONFIG_KSTACK_COLOUR=y", "# CONFIG_KSTACK_COLOUR_DEFAULT_ON is not set",
                   "CONFIG_TASK_STRUCT_COLOUR=y",
                   "# CONFIG_TASK_STRUCT_COLOUR_DEFAULT_ON is not set")}
BOUNDS = (("nominal", 1.0), ("latencies x0.5", 0.5), ("latencies x1.5", 1.5))
TOP = 10  # functions listed a workload


class Counts:
    """One workload of one boot, from its raw row: what bench.cycles() reads
    of a Phase (insns, rate())."""

    def __init__(self, row):
        self.row = row
        self.insns = row["insns"] / row["events"]

    def rate(self, cache, region="all", kind="sa_miss"):
        return self.row[cache] / self.row["events"]


# Each figure per event: (name, value of a raw row).
METRICS = (("instructions", lambda c, lat: c.insns),
           ("L1I misses", lambda c, lat: c.rate("L1I")),
           ("L1D misses", lambda c, lat: c.rate("L1D")),
           ("L2 misses", lambda c, lat: c.rate("L2")))


def extract(boot):
    """A boot's raw rows: a row a workload, web net of ab's start-up."""
    return [[p.label, p.unit[1], p.head["insns"]] +
            [p.counts[(c, "all")]["sa_miss"] for c in COLUMNS[3:]]
            for p in net(boot) if not p.start_up]


def write_raw(path, kernel, seed, rows, banner):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# kernel %s seed %s\n# %s\n%s\n%s" % (
        kernel, seed, banner, "\t".join(COLUMNS),
        "".join("\t".join(str(x) for x in r) + "\n" for r in rows)))


def read_raw(path):
    """{workload: {column: number}} of a raw file."""
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    if lines[0].split("\t") != list(COLUMNS):
        raise ValueError("%s: columns %r, want %r" % (path, lines[0], "\t".join(COLUMNS)))
    return {w[0]: dict(zip(COLUMNS[1:], map(int, w[1:])))
            for w in (line.split("\t") for line in lines[1:])}


def load(seeds, data_dir):
    """({(kernel, seed): rows}, {(kernel, seed): functions.Functions}) of the
    raw files there are."""
    files = {(k, s): (data_dir / (EXPERIMENT.key(k, s) + ".tsv"),
                      data_dir / (EXPERIMENT.key(k, s) + ".functions.tsv"))
             for k, _, _ in KERNELS for s in seeds}
    have = {ks: f for ks, f in files.items() if f[0].exists()}
    return ({ks: read_raw(f[0]) for ks, f in have.items()},
            {ks: functions.read(f[1]) for ks, f in have.items() if f[1].exists()})


def mean_interval(xs):
    """"+1.2 [+0.4, +2.0]": the mean and its 95% Student's t interval."""
    m, h = paired.mean_interval(xs)
    if len(xs) < 2:
        return "%+.1f (one layout)" % m
    return "%+.1f [%+.1f, %+.1f]" % (m, m - h, m + h)


class Report(Doc):
    def __init__(self, loaded, seeds):
        super().__init__()
        (self.data, self.functions), self.lat = loaded, latency()
        # Only layouts both kernels booted in pair.
        self.seeds = [s for s in seeds if all((k, s) in self.data for k, _, _ in KERNELS)]
        first = self.data[(KERNELS[0][0], self.seeds[0])] if self.seeds else {}
        self.workloads = list(first)

    def values(self, kernel, workload, value):
        return [value(Counts(self.data[(kernel, s)][workload]), self.lat) for s in self.seeds]

    def compare(self, workload, value):
        return paired.Paired(self.values("without", workload, value),
                             self.values("off", workload, value))

    def cycles(self, scale):
        return lambda c, lat: cycles(c, lat, lat_scale=scale)

    def save(self, out):
        """The page: its prose is bench/templates/off-cost.md.in's."""
        lat = self.lat
        self.template("off-cost", "intro", layouts=len(self.seeds),
                      seeds=", ".join(map(str, self.seeds)))
        if len(self.seeds) < 2:
            self.template("off-cost", "too-few")
            return self.write(out)
        names = [m for m, _ in METRICS] + ["estimated cycles"]
        values = [v for _, v in METRICS] + [self.cycles(1.0)]
        self.template("off-cost", "per-event", cpi=lat["cpi"], l2=lat["L2"], l3=lat["L3"],
                      source=lat["source"], per_event=table_lines(
                          ["workload", "per"] + names,
                          [[w, self.per(w)] + [self.compare(w, v).cell() for v in values]
                           for w in self.workloads]),
                      bounds=table_lines(
                          ["workload"] + [b for b, _ in BOUNDS],
                          [[w] + [self.compare(w, self.cycles(s)).cell() for _, s in BOUNDS]
                           for w in self.workloads]),
                      figures=table_lines(
                          ["workload"] + ["%s, %s" % (label, m) for _, label, _ in KERNELS
                                          for m in ("instructions", "cycles")],
                          [[w] + [fmt(sorted(self.values(k, w, v))[len(self.seeds) // 2])
                                  for k, _, _ in KERNELS
                                  for v in (METRICS[0][1], self.cycles(1.0))]
                           for w in self.workloads]))
        self.attribution()
        return self.write(out)

    def attribution(self):
        """Where the added instructions are spent: the profiles of the same boots."""
        seeds = [s for s in self.seeds if all((k, s) in self.functions for k, _, _ in KERNELS)]
        if not seeds:
            return
        control, case = (k for k, _, _ in KERNELS)
        split = {w: [] for w in self.workloads}
        per_fn = {w: {} for w in self.workloads}
        for s in seeds:
            a, b = self.functions[(control, s)], self.functions[(case, s)]
            for w in self.workloads:
                (ea, fa), (eb, fb) = a[w], b[w]
                diffs = {f: fb[f][1] / eb - fa[f][1] / ea for f in fa}
                differs = {f for f in diffs if fa[f][0] != fb[f][0]}
                split[w].append((sum(diffs.values()), sum(diffs[f] for f in differs)))
                for f, d in diffs.items():
                    per_fn[w].setdefault(f, [f in differs, [0.0] * len(seeds)])
                    per_fn[w][f][0] |= f in differs
                    per_fn[w][f][1][seeds.index(s)] = d
        self.template("off-cost", "attribution", layouts=len(seeds), split=table_lines(
            ["workload", "per", "instructions added", "in code that differs",
             "in the same code"],
            [[w, self.per(w)] + [mean_interval([x[0] for x in split[w]]),
                                 mean_interval([x[1] for x in split[w]]),
                                 mean_interval([x[0] - x[1] for x in split[w]])]
             for w in self.workloads]))
        for w in self.workloads:
            top = sorted(per_fn[w].items(),
                         key=lambda kv: (-abs(statistics.fmean(kv[1][1])), kv[0]))[:TOP]
            self.template("off-cost", "top", workload=w, top=TOP, table=table_lines(
                ["function", "code", "instructions an event"],
                [[f, "differs" if differs else "same", mean_interval(ds)]
                 for f, (differs, ds) in top]))

    def per(self, workload):
        """A workload's event (bench.lib.data.UNITS), by its label's first word."""
        return UNITS.get(workload.split()[0], UNITS["cmd"])[0]

    def write(self, out):
        self.write_md(Path(out) / "off-cost.md")


def raw(run, seed):
    """One layout's raw files: each kernel's counts (KEY.tsv) and its
    instructions by function (KEY.functions.tsv, both kernels listing the same
    functions), from their boots' profile= files."""
    vmlinux = {k: run.images[EXPERIMENT.key(k, seed)].path / "vmlinux" for k, _, _ in KERNELS}
    size = {k: functions.sizes(v) for k, v in vmlinux.items()}
    fns, written = {}, []
    for k in vmlinux:
        key = EXPERIMENT.key(k, seed)
        write_raw(DATA / (key + ".tsv"), k, seed, extract(run.boots[key]),
                  run.meta.get("banner_" + key, "?"))
        fns[k], problems = functions.of_boot(run.boots[key], run.system_map(key),
                                             table_path(run.work, key, "profile"), size[k])
        run.tap(not problems, "%s: each workload's functions add up to its instructions" % key,
                problems)
    functions.paired(fns, size)
    for k in vmlinux:
        key = EXPERIMENT.key(k, seed)
        functions.write(DATA / (key + ".functions.tsv"), "# kernel %s seed %s\n# %s" % (
            k, seed, run.meta.get("banner_" + key, "?")), fns[k])
        written += [DATA / (key + ".tsv"), DATA / (key + ".functions.tsv")]
    return written


def report(seeds):
    data = load(seeds, DATA)
    return Report(data, seeds) if data[0] else None


EXPERIMENT = experiment.Experiment(
    name="off-cost", page="off-cost.md", wset=WSET, kernels=KERNELS, configs=CONFIGS,
    seeds=SEEDS, data=DATA, raw=raw, report=report, tables=("profile",))


def main(argv=None):
    return experiment.main(EXPERIMENT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
