#!/usr/bin/env python3
"""The report and the checks of bench/run-bench.sh.

    report.py report WORK RESULTS   write RESULTS/bench.md and its PNG plots
    report.py check WORK            the checks, as TAP (exit 1 on a failure)

WORK is run-bench.sh's work dir: `cases` (one case a line: NAME KERNEL
[KERNEL_ARG...]), `repeat` (the case booted twice), `run.sh` (the guest's
workloads, one marker phase each, in order), `meta` (versions, key=value),
`commands`, and per boot NAME.txt (kcolour-cachesim output) and NAME.log
(the console, where each workload prints its key=value line).
"""

import filecmp
import os
import re
import sys

from benchdata import (CACHES, REGIONS, REGION_NAMES, expected_workloads, fmt, load_boot,
                       pct, plot_png, print_tap, read_cases, read_meta, read_plugin, read_text,
                       read_workload_lines)

# Off against base: the limit on the cost of the series built in.
INSN_TOLERANCE = {"ring": 0.001, "forkloop": 0.003}
# Per fork the page allocator's state at the loop's start moves the count:
# with task_struct colouring built in (off), the code added is about 60
# instructions a fork (0.04%: arch_task_struct_place 26, kstack_colour_fork
# 11, ...; kcolour-cachesim profile= and profile-diff.py), but a whole
# make bench measured +0.157% where a forkloop-first boot measured +0.05%:
# the rest is get_page_from_freelist and slab paths, not colouring.
# The conflict share removed is shown only where off's conflict misses are
# at least this many per event and this share of its misses.
CONFLICT_MIN = 0.5
CONFLICT_MIN_SHARE = 0.05
# FA above SA is noted only where it matters: at least this many FA
# misses, and this share more than SA.
FA_NOTE_MIN = 100
FA_NOTE_EXCESS = 0.01


def conflict_cell(sa, fa):
    """SA - FA clamped at 0 for display, with the raw value when clamped."""
    raw = sa - fa
    return fmt(raw) if raw >= 0 else "0 (raw %s)" % fmt(raw).replace("-", "&minus;")


def removed_share(conflict, conflict_off, sa_off):
    """The share of colouring-off's conflict misses a case removes.

    A case's negative conflict estimate counts as none (the share is then
    100%, not more); a negative share means more conflict misses than off.
    Where off itself has (almost) no conflict misses the share means
    nothing: n/a.
    """
    if conflict_off < max(CONFLICT_MIN, CONFLICT_MIN_SHARE * sa_off):
        return "n/a"
    return "%.0f%%" % (100.0 * (conflict_off - max(conflict, 0)) / conflict_off)


# ----------------------------------------------------------------- report

class Report:
    def __init__(self, work, results):
        self.work = work
        self.results = results
        self.cases = read_cases(work)
        self.names = [c[0] for c in self.cases]
        self.meta = read_meta(work)
        self.boots = {name: load_boot(work, name) for name in self.names}
        self.repeat = read_text(work, "repeat")
        self.out = []

    def w(self, line=""):
        self.out.append(line)

    def phases(self, workload):
        """{case: [Phase]} of one workload."""
        return {n: [p for p in self.boots[n] if p.workload == workload] for n in self.names}

    def ring_table(self):
        rings = self.phases("ring")
        has_off = "kcolour-off" in self.names
        self.w("| N | " + " | ".join(self.names) + " | FA bound (" + " / ".join(self.names) +
               ") | conflict (SA &minus; FA) | conflict removed vs off (negative: added) |")
        self.w("|---:|" + "---:|" * len(self.names) + "---|---|---|")
        for i, p0 in enumerate(rings[self.names[0]]):
            row = [rings[n][i] for n in self.names]
            sa = [p.per(p.miss("L1D", "all")) for p in row]
            fa = [p.per(p.miss("L1D", "all", "fa_miss")) for p in row]
            conf = [conflict_cell(s, f) for s, f in zip(sa, fa)]
            if has_off:
                i_off = self.names.index("kcolour-off")
                removed = [removed_share(s - f, sa[i_off] - fa[i_off], sa[i_off])
                           for s, f in zip(sa, fa)]
            else:
                removed = ["n/a"] * len(row)
            self.w("| %d | %s | %s | %s | %s |" % (
                p0.info["tasks"], " | ".join(fmt(x) for x in sa), " / ".join(fmt(x) for x in fa),
                " / ".join(conf), " / ".join(removed)))

    def region_tables(self, workload):
        phases = self.phases(workload)
        unit = phases[self.names[0]][0].unit[0]
        for cache in CACHES:
            self.w("**%s misses per %s**, set-associative (fully associative in brackets); "
                   "conflict = SA &minus; FA of all regions:" % (cache, unit))
            self.w()
            self.w("| case | run | " + " | ".join(REGION_NAMES[r] for r in REGIONS) +
                   " | all | conflict |")
            self.w("|---|---|" + "---:|" * (len(REGIONS) + 2))
            for name in self.names:
                for p in phases[name]:
                    cells = ["%s (%s)" % (fmt(p.per(p.miss(cache, r))),
                                          fmt(p.per(p.miss(cache, r, "fa_miss"))))
                             for r in REGIONS + ("all",)]
                    self.w("| %s | %s | %s | %s |" % (
                        name, p.label, " | ".join(cells),
                        conflict_cell(p.per(p.miss(cache, "all")),
                                      p.per(p.miss(cache, "all", "fa_miss")))))
            self.w()

    def insn_table(self):
        self.w("| run | unit | " + " | ".join(self.names) +
               " | off &minus; base | on &minus; off |")
        self.w("|---|---|" + "---:|" * (len(self.names) + 2))
        for i, p0 in enumerate(self.boots[self.names[0]]):
            row = {n: self.boots[n][i] for n in self.names}
            per = {n: p.per(p.head["insns"]) for n, p in row.items()}
            diff_base = ("%+.3f%%" % pct(per["kcolour-off"], per["base"])
                         if {"kcolour-off", "base"} <= set(per) else "n/a")
            diff_on = ("%+.3f%%" % pct(per["kcolour-on"], per["kcolour-off"])
                       if {"kcolour-off", "kcolour-on"} <= set(per) else "n/a")
            self.w("| %s | per %s | %s | %s | %s |" % (
                p0.label, p0.unit[0], " | ".join("%.1f" % per[n] for n in self.names),
                diff_base, diff_on))

    def switch_table(self):
        """Context switches the kernel counted in each window (/proc/stat)."""
        self.w("| run | events | unit | " + " | ".join("ctxt %s" % n for n in self.names) + " |")
        self.w("|---|---:|---|" + "---:|" * len(self.names))
        for i, p0 in enumerate(self.boots[self.names[0]]):
            self.w("| %s | %d | %s | %s |" % (
                p0.label, p0.unit[1], p0.unit[0],
                " | ".join(str(self.boots[n][i].info["ctxt"]) for n in self.names)))

    def fa_exceptions(self):
        """(case, run, cache, region, sa, fa) where FA misses exceed SA."""
        out = []
        for name in self.names:
            for p in self.boots[name]:
                for cache in CACHES:
                    for region in REGIONS + ("all",):
                        sa, fa = p.miss(cache, region), p.miss(cache, region, "fa_miss")
                        if fa > sa * (1 + FA_NOTE_EXCESS) and fa >= FA_NOTE_MIN:
                            out.append((name, p.label, cache, region, sa, fa))
        return out

    def plot(self, region, png, title):
        """L1D misses per switch of the ring against N: SA and FA per case."""
        rings = self.phases("ring")
        dat = os.path.join(self.work, "plot-%s.dat" % region)
        with open(dat, "w") as f:
            f.write("# N " + " ".join("%s-sa %s-fa" % (n, n) for n in self.names) + "\n")
            for i, p0 in enumerate(rings[self.names[0]]):
                vals = []
                for n in self.names:
                    p = rings[n][i]
                    vals += [p.per(p.miss("L1D", region)), p.per(p.miss("L1D", region, "fa_miss"))]
                f.write("%d %s\n" % (p0.info["tasks"], " ".join("%.4f" % v for v in vals)))
        ns = [p.info["tasks"] for p in rings[self.names[0]]]
        colours = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")
        plots = []
        for i, n in enumerate(self.names):
            c = colours[i % len(colours)]
            plots.append("'%s' using 1:%d with linespoints lw 2 pt 7 lc rgb '%s' title '%s'"
                         % (dat, 2 + 2 * i, c, n))
            plots.append("'%s' using 1:%d with lines lw 1.5 dt 2 lc rgb '%s' title '%s FA bound'"
                         % (dat, 3 + 2 * i, c, n))
        plot_png(png, title, "tasks in the ring (N)", "L1D misses per context switch",
                 ns, 1.15, plots)

    def write(self):
        m = self.meta
        kernel = re.sub(r"^Linux version (\S+).*", r"\1", m["banner_test"])
        self.w("# kcolour bench: kernel stack colouring under a cache simulator")
        self.w()
        self.w("Generated by `make bench%s` (bench/run-bench.sh, bench/report.py) on %s. "
               "Every number below is read from the plugin outputs of that run; "
               "nothing is typed in." % (" QUICK=1" if m["mode"] == "quick" else "", m["date"]))
        self.w()
        self.w("## Setup")
        self.w()
        self.w("- Kernels: Linux %s + the kcolour series (%s; %s)"
               % (kernel, m["fragments_test"], m["build_test"]))
        if "banner_base" in m:
            self.w("  and the base kernel, Linux %s without the series (%s; %s)."
                   % (re.sub(r"^Linux version (\S+).*", r"\1", m["banner_base"]),
                      m["fragments_base"], m["build_base"]))
        self.w("- `%s`" % m["qemu"])
        self.w("- `%s`" % m["gcc"])
        self.w("- QEMU TCG, `-cpu %s,-rdrand,-rdseed -smp 1 -icount shift=0,sleep=off "
               "-rtc clock=vm,base=2020-01-01T00:00:00` (selftests/qemu-run.sh "
               "DETERMINISTIC=1), kernel command line `nokaslr norandmaps quiet`. Simulated "
               "caches (tools-probe/cachesim, the plugin's defaults = the model's "
               "geometry): L1D 32K 8-way 64 B, L1I 32K 8-way 64 B, L2 4M 16-way 64 B, "
               "LRU; stack top = the top 2 KiB of each 16 KiB vmalloc block." % m["cpu"])
        self.w("- Workloads (tools-probe/workloads), in one boot per case, each in "
               "its own marker phase; the guest's /run.sh:")
        self.w()
        self.w("```")
        self.w(read_text(self.work, "run.sh"))
        self.w("```")
        self.w()
        self.w("Cases:")
        self.w()
        self.w("| case | kernel | extra kernel arguments |")
        self.w("|---|---|---|")
        for name, k, args in self.cases:
            kernel = ("the series, " + self.meta.get("fragments_test", "?") if k == "test"
                      else "base kernel, " + self.meta.get("fragments_base", "?"))
            self.w("| %s | %s | %s |" % (name, kernel, "`%s`" % args if args else "(none)"))
        self.w()
        self.w("Commands (paths relative to the project top):")
        self.w()
        self.w("```")
        self.w(read_text(self.work, "commands"))
        self.w("```")
        self.w()
        self.w("Per switch: a ring phase's counts divided by the token passes the "
               "ring reports (`switches` = N &times; rounds; on one CPU each pass "
               "blocks the sender and wakes the next task, one context switch). "
               "messaging is per message, forkloop per fork.")
        self.w()

        self.w("## L1D misses per context switch, ring")
        self.w()
        self.w("All regions, set-associative (SA). FA bound: the misses of a "
               "fully-associative LRU cache of the same size seeing the same "
               "accesses (cold + capacity misses). Conflict = SA &minus; FA; "
               "removed = the share of kcolour-off's conflict misses the case does "
               "not take.")
        self.w()
        self.ring_table()
        self.w()
        self.w("Each case is one boot. Where the FA bound is near zero, every miss "
               "is a conflict miss, and conflicts depend on where slab objects and "
               "stacks happen to land, which differs between kernel images and "
               "boot histories: kcolour-off and base, two kernels that do not colour, "
               "show how far placement alone moves the figures.")
        self.w()
        self.w("![L1D misses per switch](l1d-per-switch.png)")
        self.w()
        self.w("![stack-top L1D misses per switch](l1d-stack-top-per-switch.png)")
        self.w()
        self.w("Stack-top L1D misses per switch (SA, FA in brackets):")
        self.w()
        rings = self.phases("ring")
        self.w("| N | " + " | ".join(self.names) + " |")
        self.w("|---:|" + "---:|" * len(self.names))
        for i, p0 in enumerate(rings[self.names[0]]):
            self.w("| %d | %s |" % (p0.info["tasks"], " | ".join(
                "%s (%s)" % (fmt(rings[n][i].per(rings[n][i].miss("L1D", "stack-top"))),
                             fmt(rings[n][i].per(rings[n][i].miss("L1D", "stack-top", "fa_miss"))))
                for n in self.names)))
        self.w()

        self.w("## Instructions per event")
        self.w()
        self.w("The series built in but switched off (`kstack_colour=off`) against "
               "the base kernel, both without test extras (no KUnit, no "
               "DEBUG_STACK_USAGE); the claim is equality within %.1f%% per "
               "switch (the ring, every N pooled: all instructions over all "
               "switches) and %.1f%% per fork (the page allocator's state moves "
               "a fork's count by about that much; the code the series adds to a "
               "fork with colouring off is about 60 instructions, 0.04%%, by an "
               "instruction profile), and `make bench` checks it. The counts "
               "are of every instruction the CPU ran inside the window: timer "
               "ticks, kernel threads, and the extra switches wakeup preemption "
               "adds (the `ctxt` table below) count too, and where they fall "
               "depends on the exact instruction stream, so one N of two kernel "
               "images can differ by more than their code paths do (up to about "
               "0.2%% here, either way); pooled over N that averages out. The "
               "on &minus; off column is the cost of colouring itself."
               % (100 * INSN_TOLERANCE["ring"], 100 * INSN_TOLERANCE["forkloop"]))
        self.w()
        self.insn_table()
        self.w()
        self.w("Context switches counted by the kernel inside each window "
               "(`ctxt` of /proc/stat, read by the workload just outside the "
               "markers):")
        self.w()
        self.switch_table()
        self.w()

        self.w("## Where FA misses exceed SA misses")
        self.w()
        self.w("A fully-associative LRU cache is not optimal. On a cyclic access "
               "pattern a little larger than the cache (a task ring whose combined "
               "working set just exceeds 32 KiB), LRU evicts each line just before "
               "its reuse and the FA cache misses on every access, while a "
               "set-associative cache splits the loop over sets, and the sets that "
               "the loop does not overfill keep their lines. There the FA figure "
               "is *not* a lower bound and SA &minus; FA is negative: it says "
               "nothing about conflicts beyond \"none measurable\". Cases with "
               "FA more than %d%% above SA and at least %d FA misses in this run:"
               % (100 * FA_NOTE_EXCESS, FA_NOTE_MIN))
        self.w()
        exc = self.fa_exceptions()
        if exc:
            self.w("| case | run | cache | region | SA misses | FA misses | FA / SA |")
            self.w("|---|---|---|---|---:|---:|---:|")
            for name, label, cache, region, sa, fa in exc:
                self.w("| %s | %s | %s | %s | %d | %d | %.2f |"
                       % (name, label, cache, region, sa, fa, fa / sa if sa else float("inf")))
        else:
            self.w("none.")
        self.w()

        self.w("## Determinism")
        self.w()
        same = filecmp.cmp(os.path.join(self.work, self.repeat + ".txt"),
                           os.path.join(self.work, self.repeat + ".repeat.txt"), shallow=False)
        self.w("%s booted twice: the plugin outputs are %s." % (
            self.repeat, "byte-identical" if same else "**different**"))
        self.w()

        self.w("## Misses by region")
        self.w()
        for workload in ("ring", "messaging", "forkloop"):
            self.w("### %s" % workload)
            self.w()
            self.region_tables(workload)

        os.makedirs(self.results, exist_ok=True)
        self.plot("all", os.path.join(self.results, "l1d-per-switch.png"),
                  "Ring: L1D misses per context switch (32K 8-way; dashed: FA bound)")
        self.plot("stack-top", os.path.join(self.results, "l1d-stack-top-per-switch.png"),
                  "Ring: stack-top L1D misses per context switch (dashed: FA bound)")
        with open(os.path.join(self.results, "bench.md"), "w") as f:
            f.write("\n".join(self.out) + "\n")


# ----------------------------------------------------------------- checks

def check(work):
    cases = [c[0] for c in read_cases(work)]
    repeat = read_text(work, "repeat")
    want = expected_workloads(work)
    results = []

    for name in cases + [repeat + ".repeat"]:
        config, phases = read_plugin(os.path.join(work, name + ".txt"))
        lines = read_workload_lines(os.path.join(work, name + ".log"))
        problems = []
        if config.get("phases") != len(want):
            problems.append("%s phases, want %d" % (config.get("phases"), len(want)))
        for i in range(len(want)):
            head, counts = phases.get(i, ({}, {}))
            if head.get("complete") != 1:
                problems.append("phase %d not complete" % i)
            missing = [(c, r) for c in CACHES for r in REGIONS + ("all",) if (c, r) not in counts]
            if missing:
                problems.append("phase %d lacks %d cache/region lines" % (i, len(missing)))
        if [wl for wl, _ in lines] != [wl for wl, _ in want]:
            problems.append("workload lines %s, want %s" % ([wl for wl, _ in lines],
                                                            [wl for wl, _ in want]))
        results.append((not problems, "%s: every phase present and complete (%d)%s" % (
            name, len(want), ": " + "; ".join(problems) if problems else "")))

    # The quick run's windows are too short to resolve 0.1%: a few extra
    # switches or ticks move its counts by a percent or more.  It shows the
    # difference and skips the verdict; the full run asserts it.
    quick = read_meta(work)["mode"] == "quick"
    if {"kcolour-off", "base"} <= set(cases) and all(ok for ok, _ in results):
        off, base = load_boot(work, "kcolour-off"), load_boot(work, "base")
        # Per N, timer ticks and wakeup order move the ring's count by up
        # to about 0.2% either way between two kernels; pooled over every
        # N (all instructions over all switches) that noise averages out.
        # messaging's switches per message depend on scheduling: shown only.
        for p_off, p_base in zip(off, base):
            a, b = p_off.per(p_off.head["insns"]), p_base.per(p_base.head["insns"])
            if p_off.workload != "forkloop":
                print("# instructions per %s, %s: off %.1f, base %.1f, %+.3f%%"
                      % (p_off.unit[0], p_off.label, a, b, pct(a, b)))
        pooled = []
        for workload in ("ring", "forkloop"):
            ins = [sum(p.head["insns"] for p in boot if p.workload == workload)
                   for boot in (off, base)]
            units = [sum(p.unit[1] for p in boot if p.workload == workload)
                     for boot in (off, base)]
            pooled.append((workload, ins[0] / units[0], ins[1] / units[1]))
        for workload, a, b in pooled:
            d = pct(a, b)
            results.append((quick or abs(d) <= 100 * INSN_TOLERANCE[workload],
                            "instructions per %s, %s%s: off %.1f, base %.1f, %+.3f%% (limit %.1f%%)%s"
                            % ("switch" if workload == "ring" else "fork", workload,
                               " (every N pooled)" if workload == "ring" else "",
                               a, b, d, 100 * INSN_TOLERANCE[workload],
                               " # SKIP quick counts do not resolve 0.1%" if quick else "")))

    same = filecmp.cmp(os.path.join(work, repeat + ".txt"),
                       os.path.join(work, repeat + ".repeat.txt"), shallow=False)
    results.append((same, "determinism: two boots of %s gave %s plugin output"
                    % (repeat, "byte-identical" if same else "DIFFERENT")))

    return print_tap(results)


def main(argv):
    if len(argv) == 4 and argv[1] == "report":
        Report(argv[2], argv[3]).write()
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    sys.stderr.write("usage: report.py report WORK RESULTS | report.py check WORK\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
