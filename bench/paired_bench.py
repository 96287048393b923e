#!/usr/bin/env python3
"""Stack colouring against off, paired and placebo-controlled: make bench-paired
[QUICK=1] [LAYOUTS=N] -> docs/results/paired.md.

Three cases boot in the same LAYOUTS seeded layouts (bench/workloads/layout.c)
at -smp 1, deterministic, under the simulator on the bench CPU's caches
(Skylake client, make bench's): `off` (kstack_colour=off), the colouring at its
defaults (`on`: kstack_colour=on,level=auto, what the kernel derives for the
guest's CPU), and a placebo with colouring off and an argument of the on case's
length (kstack_colour=off,policy=rr), so the command line moves the boot's
allocations alike.  For each workload, each case against off, layout by layout:
the mean ratio with its 95% Student's t interval over the layouts
(bench/lib/paired.py); the placebo's interval is the method's own bias and must
hold 0.  Estimated cycles per event (make bench's model), L1D and L2 misses.
The report gives the layouts each interval would need for a half-width of
+-0.5%.  TAP on stdout: every phase complete, and each boot's kstack_colour
params (debugfs) say colouring off for off and the placebo, on for on.
--workloads SET (make's WORKLOADS=) runs another facts.tsv workload set,
your own program among them as a "cmd NAME -- PROGRAM ARGS" line; its report
goes to the work dir, not docs/.
Flags (make's QUICK=1, LAYOUTS=N, IMAGE=, WORKLOADS=, JOBS=N, WORK=DIR,
REPORT_ONLY=1, RESUME=1): --help.
"""

import re
import sys

from bench.lib import paired
from bench.lib.cases import STACK_CASES, TARGET
from bench.lib.cost import cycles, latency
from bench.lib.cpus import Cpu, cpu_cycles
from bench.lib.data import net
from bench.lib.probe import bench_caches, plugin_geometry
from bench.lib.record import work_dir
from bench.lib.report import Doc, fmt, make_vars, plot_png, table_lines
from bench.lib.runner import ROOT, Run, boot_name, parser, run_args
from harness import facts, util
CASES = STACK_CASES
LAYOUTS, QUICK_LAYOUTS = 10, 2
# --classes: a CPU of each L1D class of make bench-cpus (facts.tsv benchcpu),
# and the 32K 8-way class's common L2s.
CLASS_CPUS = ("K8", "Bulldozer", "Atom-Diamondville", "Skylake", "Haswell", "Zen4-Raphael",
              "TigerLake")
QUICK_CLASS_CPUS = ("K8", "TigerLake")
METRICS = [("estimated cycles", None), ("L1D misses", "L1D"), ("L2 misses", "L2")]
# After each workload, outside its window: what the kernel chose (debugfs).
COLOUR_INFO = ("grep -E '^(enabled|colours|policy):' /sys/kernel/debug/x86/kstack_colour/params"
               " | sed 's/^/colour_info /'")
INFO = re.compile(r"^colour_info (enabled|colours|policy): (\S+)", re.M)


class Report(Doc):
    def __init__(self, run, layouts, image, wset=None, cpus=(), make_args=""):
        """wset: a workload set of the user's (--workloads), None for the default;
        cpus: the cpus.Cpu of each L1D class simulated beside (--classes);
        make_args: the make variables of the run, for the page's first line."""
        super().__init__(run)
        self.layouts, self.image, self.lat, self.wset = layouts, image, latency(), wset
        self.cpus, self.make_args = list(cpus), make_args
        self.stem = page_stem(self.cpus, wset)
        self.names = [boot_name(CASES[0][0], layouts[0])]
        self.net = {n: net(b) for n, b in self.boots.items()}
        first = self.net[self.names[0]]
        self.rows = [i for i, p in enumerate(first) if not p.start_up]
        self.labels = [p.label for p in first]

    def values(self, case, i, cache, cpu=None):
        """Per layout: estimated cycles (cache None) or cache's misses per event,
        on the bench CPU's caches or on the caches of self.cpus[cpu]."""
        if cpu is not None:
            f = (lambda p: cpu_cycles(p, cpu, self.lat)) if cache is None else \
                (lambda p: p.rate("cpu%d-%s" % (cpu + 1, cache)))
        else:
            f = (lambda p: cycles(p, self.lat)) if cache is None else (lambda p: p.rate(cache))
        return [f(self.net[boot_name(case, lay)][i]) for lay in self.layouts]

    def compare(self, case, i, cache, cpu=None):
        return paired.Paired(self.values("off", i, cache, cpu), self.values(case, i, cache, cpu))

    def save(self, out):
        """The page; its prose is bench/templates/paired.md.in's."""
        m = self.meta
        self.template("paired", "intro", make_args=self.make_args, date=m["date"],
                      qemu=m["qemu"], gcc=m["gcc"], image=self.image, cpu=m["cpu"],
                      kargs=" ".join(self.run.kargs), layouts=len(self.layouts),
                      where=self.run.where(), target=TARGET,
                      cases=", ".join("`%s` (`%s`)" % c for c in CASES),
                      layout=self.layouts[0], chose="; ".join("%s: %s" % (c, ", ".join(
                          "%s %s" % kv for kv in colour_info(self.console(c)).items()))
                          for c, _ in CASES))
        for title, cache in METRICS:
            rows = []
            for i in self.rows:
                off = self.values("off", i, cache)
                row = [self.labels[i], fmt(sum(off) / len(off))]
                for case, _ in CASES[1:]:
                    c = self.compare(case, i, cache)
                    need = c.pairs_for(TARGET)
                    row += ["%s %s" % (c.interval(), "**%s**" % c.verdict if c.real else
                                       "(%s)" % c.verdict if c.verdict == paired.NA else ""),
                            "n/a" if need is None else str(need)]
                rows.append(row)
            self.template("paired", "metric", title=title.capitalize(), table=table_lines(
                ["workload", "off, mean"] + [x for case, _ in CASES[1:] for x in (
                    "%s vs off" % case, "layouts for ±%g%%" % TARGET)], rows))
        self.template("paired", "verdict", verdict=self.verdict())
        if self.cpus:
            self.class_section()
        self.plot(out)
        self.write_md(out / (self.stem + ".md"))

    def class_section(self):
        """Each L1D class's estimated cycles, on its own caches, case by case."""
        self.template("paired", "classes")
        for case, _ in CASES[1:]:
            rows = []
            for k, c in enumerate(self.cpus):
                cells = []
                for i in self.rows:
                    cells.append(self.compare(case, i, None, k).cell())
                rows.append(["%s (%s)" % (c.geometry("L1D"), c.name), c.geometry("L2"),
                             "off" if "=off" in c.derived else
                             re.sub(r".*colours=(\d+),step=(\d+).*", r"\1 x \2 B", c.derived)]
                            + cells)
            self.template("paired", "class", case=case, table=table_lines(
                ["L1D (CPU)", "L2", "derived"] + [self.labels[i] for i in self.rows],
                rows, "lll" + "r" * len(self.rows)))

    def verdict(self):
        if len(self.layouts) < 2:
            return "None: one layout cannot give an interval."
        out = []
        for case, _ in CASES[1:]:
            found = [(self.labels[i], self.compare(case, i, None)) for i in self.rows]
            real = ["%s %s" % (label, c.interval()) for label, c in found if c.real]
            widest = max(c.half_width for _, c in found)
            out.append("%s against off, estimated cycles: %s; the widest interval ±%.2f%%." % (
                case, "different on " + ", ".join(real) if real else
                "no measurable effect on any workload", widest))
        return " ".join(out)

    def console(self, case):
        return self.run.console(boot_name(case, self.layouts[0]))

    def plot(self, out):
        """Estimated cycles against off: each case's mean and interval, a workload a tick."""
        dat = out / (self.stem + ".dat")
        lines = []
        for x, i in enumerate(self.rows):
            vals = []
            for case, _ in CASES[1:]:
                c = self.compare(case, i, None)
                vals += ["%.3f %.3f %.3f" % (c.pct, c.lo, c.hi)]
            lines.append("%d %s  # %s\n" % (x, " ".join(vals), self.labels[i]))
        self.data(dat, "".join(lines))
        plot_png(out / (self.stem + ".png"), "Estimated cycles against off: mean and 95%% interval over "
                 "%d layouts (-smp 1)" % len(self.layouts), "", "% against off", None, None,
                 ["'%s' using ($1+%.2f):%d:%d:%d with yerrorbars pt 7 lc %d title '%s'" % (
                     dat, 0.15 * k - 0.075, 2 + 3 * k, 3 + 3 * k, 4 + 3 * k, k + 1, case)
                  for k, (case, _) in enumerate(CASES[1:])] + ["0 with lines lc rgb 'gray' "
                                                               "notitle"],
                 ["set termoption noenhanced", "set yrange [*:*]",
                  "set xrange [-0.5:%g]" % (len(self.rows) - 0.5),
                  "set xtics rotate by -30 (%s)" % ", ".join(
                      '"%s" %d' % (self.labels[i], x) for x, i in enumerate(self.rows))])
        self.template("paired", "plot", stem=self.stem)


def colour_info(console):
    """{enabled, colours, policy} as the last colour_info lines of a console say."""
    return dict(INFO.findall(console))


def check_params(run, layouts):
    """TAP: each boot's params say colouring off (enabled 0) for off and the
    placebo, and on with more than one colour for on."""
    for case, _ in CASES:
        for lay in layouts:
            n = boot_name(case, lay)
            info = colour_info(run.console(n))
            good = info.get("enabled") == ("1" if case == "on" else "0") and \
                (case != "on" or int(info.get("colours", "0")) > 1)
            run.tap(good, "%s: colouring %s as asked (%s)" % (
                n, "on" if case == "on" else "off",
                ", ".join("%s %s" % kv for kv in info.items()) or "no params"))
    return not run.tap.failed


def page_stem(cpus, wset):
    """The page's name (and its record's): paired[-classes][-SET], SET a
    workload set of the user's (--workloads) less its "paired-"."""
    return ("paired-classes" if cpus else "paired") + (
        "-" + wset.replace("paired-", "") if wset else "")


def main(argv=None):
    p = parser(__doc__)
    p.add_argument("--layouts", type=int, metavar="N",
                   help="layouts each case boots in (default %d, --quick %d)" % (
                       LAYOUTS, QUICK_LAYOUTS))
    p.add_argument("--image", default="bench", help="the facts.tsv image (default bench; "
                   "--quick: the test image)")
    p.add_argument("--workloads", metavar="SET", help="a facts.tsv workload set (default "
                   "paired, --quick cpus-quick); the report stays in the work dir")
    p.add_argument("--publish", action="store_true", help="with --workloads: the report goes "
                   "to docs/results as paired[-classes]-SET.md (a set the project publishes, "
                   "such as make bench-paired-ring's)")
    p.add_argument("--classes", action="store_true", help="simulate a CPU of each L1D class "
                   "beside (%s; --quick %s) -> docs/results/paired-classes.md" % (
                       ", ".join(CLASS_CPUS), ", ".join(QUICK_CLASS_CPUS)))
    opts = p.parse_args(argv)
    quick = opts.quick
    try:
        cpus = [Cpu(n, s, facts.path("fixtures") / d, int(c))
                for n, s, c, d in facts.rows("benchcpu")
                if n in (QUICK_CLASS_CPUS if quick else CLASS_CPUS)] if opts.classes else []
    except (util.Error, ValueError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    layouts = list(range(1, 1 + (opts.layouts or (QUICK_LAYOUTS if quick else LAYOUTS))))
    if len(layouts) < 2:
        print("error: --layouts: at least 2 for an interval", file=sys.stderr)
        return 2
    wset = opts.workloads or ("cpus-quick" if quick else "paired")
    mine = opts.workloads is not None
    stem = page_stem(cpus, opts.workloads)
    publish = not quick and (not mine or opts.publish)
    work = work_dir(opts, stem + ("-quick" if quick else ""))
    geometry = plugin_geometry(bench_caches()) + (
        ",cpus=" + "/".join(c.hierarchy() for c in cpus) if cpus else "")
    make_args = make_vars([
        ("QUICK", 1 if quick else None), ("LAYOUTS", opts.layouts),
        ("IMAGE", opts.image if opts.image != "bench" else None),
        ("WORKLOADS", opts.workloads), ("CLASSES", 1 if cpus else None),
        ("PUBLISH", 1 if mine and opts.publish else None)])
    run = Run("bench-paired", wset, work, plugin_args=geometry, after_each=COLOUR_INFO,
              record=stem if publish else None, command="make bench-paired" + make_args,
              **run_args(opts))
    run.image("k", opts.image)
    # Layout by layout, every case in each (not layout_boots()'s case by case).
    boots = [(boot_name(c, lay), "k", "%s bench_layout=%d" % (a, lay))
             for lay in layouts for c, a in CASES]
    run.boot("cases", boots)
    ok = run.check_boots([b[0] for b in boots], extras=3 * len(cpus)) and \
        check_params(run, layouts)
    image = run.meta.get("fragments_k", opts.image)
    report = Report(run, layouts, image, opts.workloads, cpus, make_args) if ok else None
    return run.finish(report, ROOT / "docs/results" if publish else run.work)


if __name__ == "__main__":
    sys.exit(main())
