#!/usr/bin/env python3
"""The cache benchmark of kernel stack colouring: make bench [QUICK=1] (README.md).

Boots each case of CASES once under the kcolour-cachesim plugin (benchdata.py),
then kcolour-on (QUICK: every case) again by the other job pool: the plugin
outputs must be byte-identical.  The series' image is "bench", not the test
image: that adds KUnit and DEBUG_STACK_USAGE (a stack scan at every exit, +6.7%
instructions per fork), which the base kernel does not have.  Writes
docs/results/bench.md and its plots (QUICK: the test image, two cases, the
bench-quick workloads, into build/bench/quick); the checks are TAP on stdout.
Environment: QUICK=1, JOBS=2, WORK=DIR, KCOLOUR_POOL, REPORT_ONLY=1.
"""

import os
import re
import shutil
import sys

from benchdata import CACHES, REGIONS, ROOT, Doc, Run, fmt, pct

# Off against base: the limit on the cost of the series built in.  Per
# fork the page allocator's state moves the count: a whole make bench measured
# +0.157%, a forkloop-first boot +0.05%, for 60 instructions of code (0.04%).
INSN_TOLERANCE = {"ring": 0.001, "forkloop": 0.003}
# The conflict share removed is shown only where off's conflict misses are
# at least this many per event and this share of its misses.
CONFLICT_MIN = 0.5
CONFLICT_MIN_SHARE = 0.05
# FA above SA is noted only where it matters: at least this many FA
# misses, and this share more than SA.
FA_NOTE_MIN = 100
FA_NOTE_EXCESS = 0.01
# NAME IMAGE-KEY KERNEL-ARGS, in report order; QUICK takes the first two.
CASES = [("kcolour-off", "test", "kstack_colour=off"), ("kcolour-on", "test", ""),
         ("base", "base", ""), ("base-rko", "base", "randomize_kstack_offset=on")]
COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")


def conflict_cell(sa, fa):
    """SA - FA clamped at 0 for display, with the raw value when clamped."""
    raw = sa - fa
    return fmt(raw) if raw >= 0 else "0 (raw %s)" % fmt(raw).replace("-", "&minus;")


def removed_share(conflict, conflict_off, sa_off):
    """The share of colouring-off's conflict misses a case removes: none
    where its conflict estimate is negative, n/a where off has (almost) none."""
    if conflict_off < max(CONFLICT_MIN, CONFLICT_MIN_SHARE * sa_off):
        return "n/a"
    return "%.0f%%" % (100.0 * (conflict_off - max(conflict, 0)) / conflict_off)


class Report(Doc):
    def __init__(self, run, cases, repeats):
        super().__init__(run)
        self.cases, self.repeats = cases, repeats
        self.names = [c[0] for c in cases]

    def ring_table(self):
        rows, off = [], self.names.index("kcolour-off")
        for n in self.ring_ns():
            sa = [self.miss(c, n) for c in self.names]
            fa = [self.miss(c, n, kind="fa_miss") for c in self.names]
            rows.append([n] + [fmt(x) for x in sa] + [
                " / ".join(fmt(x) for x in fa),
                " / ".join(conflict_cell(s, f) for s, f in zip(sa, fa)),
                " / ".join(removed_share(s - f, sa[off] - fa[off], sa[off])
                           for s, f in zip(sa, fa))])
        self.table(["N"] + self.names + ["FA bound (%s)" % " / ".join(self.names),
                                         "conflict (SA &minus; FA)",
                                         "conflict removed vs off (negative: added)"],
                   rows, "r" * (len(self.names) + 1) + "lll")

    def region_tables(self, workload):
        unit = self.boots[self.names[0]].of(workload)[0].unit[0]
        for cache in CACHES:
            self.md("""**%s misses per %s**, set-associative (fully associative in brackets);
                conflict = SA &minus; FA of all regions:""", cache, unit)
            self.table(["case", "run"] + list(REGIONS.values()) + ["conflict"],
                       [[name, p.label] + [p.sa_fa(cache, r) for r in REGIONS] +
                        [conflict_cell(p.rate(cache), p.rate(cache, kind="fa_miss"))]
                        for name in self.names for p in self.boots[name].of(workload)],
                       "ll" + "r" * (len(REGIONS) + 1))

    def by_phase(self):
        """(the first case's Phase, [every case's Phase]) of each phase."""
        return [(p0, [self.boots[n][i] for n in self.names])
                for i, p0 in enumerate(self.boots[self.names[0]])]

    def insn_table(self):
        rows = []
        for p0, phases in self.by_phase():
            per = dict(zip(self.names, (p.insns for p in phases)))
            diff = ["%+.3f%%" % pct(per[a], per[b]) if {a, b} <= set(per) else "n/a"
                    for a, b in (("kcolour-off", "base"), ("kcolour-on", "kcolour-off"))]
            rows.append([p0.label, "per " + p0.unit[0]] + ["%.1f" % x for x in per.values()] +
                        diff)
        self.table(["run", "unit"] + self.names + ["off &minus; base", "on &minus; off"], rows,
                   "ll" + "r" * (len(self.names) + 2))

    def fa_exceptions(self):
        """(case, run, cache, region, sa, fa) where FA misses exceed SA."""
        return [(name, p.label, cache, region, c["sa_miss"], c["fa_miss"])
                for name in self.names for p in self.boots[name]
                for cache in CACHES for region in REGIONS for c in [p.counts[(cache, region)]]
                if c["fa_miss"] > c["sa_miss"] * (1 + FA_NOTE_EXCESS)
                and c["fa_miss"] >= FA_NOTE_MIN]

    def plot(self, region, png, title):
        """L1D misses per switch of the ring against N: SA and FA per case."""
        ns = self.ring_ns()
        series = [s for i, n in enumerate(self.names) for s in (
            (n, "linespoints lw 2 pt 7 lc rgb '%s'" % COLOURS[i % len(COLOURS)],
             [self.miss(n, x, region=region) for x in ns]),
            (n + " FA bound", "lines lw 1.5 dt 2 lc rgb '%s'" % COLOURS[i % len(COLOURS)],
             [self.miss(n, x, region=region, kind="fa_miss") for x in ns]))]
        self.ring_plot(png, self.work / ("plot-%s.dat" % region), title,
                       "L1D misses per context switch", series,
                       "# N " + " ".join("%s-sa %s-fa" % (n, n) for n in self.names) + "\n")

    def save(self, results):
        m, w, md = self.meta, self.w, self.md
        version = lambda k: re.sub(r"^Linux version (\S+).*", r"\1", m["banner_" + k])
        md("""# kcolour bench: kernel stack colouring under a cache simulator

            Generated by `make bench%s` (bench/bench.py) on %s. Every number below is read from
            the plugin outputs of that run; nothing is typed in.

            ## Setup""", " QUICK=1" if m["mode"] == "quick" else "", m["date"])
        w("- Kernels: Linux %s + the kcolour series (%s; %s)"
          % (version("test"), m["fragments_test"], m["build_test"]))
        if "banner_base" in m:
            w("  and the base kernel, Linux %s without the series (%s; %s)."
              % (version("base"), m["fragments_base"], m["build_base"]))
        w("- `%s`" % m["qemu"])
        w("- `%s`" % m["gcc"])
        w("""- QEMU TCG, `-cpu %s,-rdrand,-rdseed -smp 1 -icount shift=0,sleep=off
          -rtc clock=vm,base=2020-01-01T00:00:00` (harness/qemu-run.sh DETERMINISTIC=1), kernel
          command line `nokaslr norandmaps quiet`. Simulated caches (bench/cachesim, the plugin's
          defaults = the model's geometry): L1D 32K 8-way 64 B, L1I 32K 8-way 64 B, L2 4M 16-way
          64 B, LRU; stack top = the top 2 KiB of each 16 KiB vmalloc block.""" % m["cpu"])
        md("""- Workloads (bench/workloads), in one boot per case, each in its own marker phase;
           the guest's /run.sh:""")
        self.code((self.work / "run.sh").read_text())
        md("Cases:")
        self.table(["case", "kernel", "extra kernel arguments"],
                   [[name, ("the series, " if k == "test" else "base kernel, ") +
                     m.get("fragments_" + k, "?"), "`%s`" % args if args else "(none)"]
                    for name, k, args in self.cases], "lll")
        md("Commands (paths relative to the project top):")
        self.code("\n".join(self.run.commands))
        md("""Per switch: a ring phase's counts divided by the token passes the ring reports
            (`switches` = N &times; rounds; on one CPU each pass blocks the sender and wakes the
            next task, one context switch). messaging is per message, forkloop per fork.

            ## L1D misses per context switch, ring

            All regions, set-associative (SA). FA bound: the misses of a fully-associative LRU
            cache of the same size seeing the same accesses (cold + capacity misses). Conflict =
            SA &minus; FA; removed = the share of kcolour-off's conflict misses the case does not
            take.""")
        self.ring_table()
        md("""Each case is one boot. Where the FA bound is near zero, every miss is a conflict
            miss, and conflicts depend on where slab objects and stacks happen to land, which
            differs between kernel images and boot histories: kcolour-off and base, two kernels
            that do not colour, show how far placement alone moves the figures.

            ![L1D misses per switch](l1d-per-switch.png)

            ![stack-top L1D misses per switch](l1d-stack-top-per-switch.png)

            Stack-top L1D misses per switch (SA, FA in brackets):""")
        self.table(["N"] + self.names,
                   [[n] + [self.boots[c].event(n).sa_fa("L1D", "stack-top") for c in self.names]
                    for n in self.ring_ns()], "r" * (len(self.names) + 1))
        md("""## Instructions per event

            The series built in but switched off (`kstack_colour=off`) against the base kernel,
            both without test extras (no KUnit, no DEBUG_STACK_USAGE); the claim is equality
            within %.1f%% per switch (the ring, every N pooled: all instructions over all
            switches) and %.1f%% per fork (the page allocator's state moves a fork's count by
            about that much; the code the series adds to a fork with colouring off is about 60
            instructions, 0.04%%, by an instruction profile), and `make bench` checks it. The
            counts are of every instruction the CPU ran inside the window: timer ticks, kernel
            threads, and the extra switches wakeup preemption adds (the `ctxt` table below) count
            too, and where they fall depends on the exact instruction stream, so one N of two
            kernel images can differ by more than their code paths do (up to about 0.2%% here,
            either way); pooled over N that averages out. The on &minus; off column is the cost
            of colouring itself.""", 100 * INSN_TOLERANCE["ring"], 100 * INSN_TOLERANCE["forkloop"])
        self.insn_table()
        md("""Context switches counted by the kernel inside each window (`ctxt` of /proc/stat,
            read by the workload just outside the markers):""")
        self.table(["run", "events", "unit"] + ["ctxt %s" % n for n in self.names],
                   [[p0.label, p0.unit[1], p0.unit[0]] + [p.info["ctxt"] for p in phases]
                    for p0, phases in self.by_phase()], "lrl" + "r" * len(self.names))
        md("""## Where FA misses exceed SA misses

            A fully-associative LRU cache is not optimal. On a cyclic access pattern a little
            larger than the cache (a task ring whose combined working set just exceeds 32 KiB),
            LRU evicts each line just before its reuse and the FA cache misses on every access,
            while a set-associative cache splits the loop over sets, and the sets that the loop
            does not overfill keep their lines. There the FA figure is *not* a lower bound and SA
            &minus; FA is negative: it says nothing about conflicts beyond "none measurable".
            Cases with FA more than %d%% above SA and at least %d FA misses in this run:""",
           100 * FA_NOTE_EXCESS, FA_NOTE_MIN)
        exc = self.fa_exceptions()
        if exc:
            self.table(["case", "run", "cache", "region", "SA misses", "FA misses", "FA / SA"],
                       [e + ("%.2f" % (e[5] / e[4] if e[4] else float("inf")),)
                        for e in exc], "llllrrr")
        else:
            md("none.")
        md("## Determinism")
        for name in self.repeats:
            w("%s booted twice: the plugin outputs are %s." % (
                name, "byte-identical" if same(self.boots, name) else "**different**"))
        w()
        md("## Misses by region")
        for workload in ("ring", "messaging", "forkloop"):
            md("### %s" % workload)
            self.region_tables(workload)

        self.plot("all", results / "l1d-per-switch.png",
                  "Ring: L1D misses per context switch (32K 8-way; dashed: FA bound)")
        self.plot("stack-top", results / "l1d-stack-top-per-switch.png",
                  "Ring: stack-top L1D misses per context switch (dashed: FA bound)")
        self.write_md(results / "bench.md")


def same(boots, name):
    return boots[name].raw == boots[name + ".repeat"].raw and bool(boots[name].raw)


def check_insns(run):
    """Off against base, instructions per switch (every N pooled) and per fork;
    per N and per message shown only.  A quick run's counts do not resolve
    0.1% (a few extra switches or ticks move them by a percent): skipped."""
    off, base = run.boots["kcolour-off"], run.boots["base"]
    for p_off, p_base in zip(off, base):
        if p_off.workload != "forkloop":
            run.tap.diag("instructions per %s, %s: off %.1f, base %.1f, %+.3f%%" % (
                p_off.unit[0], p_off.label, p_off.insns, p_base.insns,
                pct(p_off.insns, p_base.insns)))
    for workload, unit, pooled in (("ring", "switch", " (every N pooled)"),
                                   ("forkloop", "fork", "")):
        a, b = off.insns(workload), base.insns(workload)
        d, limit = pct(a, b), 100 * INSN_TOLERANCE[workload]
        run.tap(abs(d) <= limit, "instructions per %s, %s%s: off %.1f, base %.1f, %+.3f%% "
                "(limit %.1f%%)" % (unit, workload, pooled, a, b, d, limit),
                skip="quick counts do not resolve 0.1%" if run.quick else None)


def main():
    quick = bool(os.environ.get("QUICK"))
    run = Run("bench", "bench-quick" if quick else "full",
              ROOT / "build/bench" / ("quick" if quick else "full"), 600 if quick else 2400)
    cases = CASES[:2] if quick else CASES
    run.image("test", "test" if quick else "bench")
    if not quick:
        run.image("base", "base")
    # The repeat boots the same cases again by the other pool where there is one.
    first = os.environ.get("KCOLOUR_POOL") or "builtin"
    pools = [first, "parallel" if first != "parallel" and shutil.which("parallel") else "builtin"]
    run.boot("cases (%s pool)" % pools[0], cases, pools[0])
    repeats = [n for n, _, _ in cases if quick or n == "kcolour-on"]
    run.boot("repeat (%s pool)" % pools[1],
             [(n + ".repeat", k, a) for n, k, a in cases if n in repeats], pools[1])
    ok = run.check_boots([n for n, _, _ in cases] + [n + ".repeat" for n in repeats])
    if ok and not quick:
        check_insns(run)
    on = same(run.boots, "kcolour-on")
    run.tap(on, "determinism: two boots of kcolour-on gave %s plugin output"
            % ("byte-identical" if on else "DIFFERENT"))
    run.tap(all(same(run.boots, n) for n in repeats), "pools: %s booted by the built-in pool and "
            "by GNU parallel gave byte-identical plugin outputs" % ", ".join(repeats),
            ["%s differs" % n for n in repeats if not same(run.boots, n)],
            skip="GNU parallel not installed (apt-get install parallel)"
            if pools[0] == pools[1] else None)
    return run.finish(Report(run, cases, repeats) if ok else None,
                      run.work if quick else ROOT / "docs/results")


if __name__ == "__main__":
    sys.exit(main())
