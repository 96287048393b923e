#!/usr/bin/env python3
"""The tests of bench/colouring.py's and bench/lib/'s figures, as TAP.

    python3 bench/tests/test_bench.py

No QEMU: the median and range, the paired verdicts, the cycle model, the
placement measures and the parsing of a boot's files, on hand-made inputs
with hand-computed answers; the caches of the bench's CPU from the real
kcolour-probe on the fixture.
"""

import collections
import importlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP))
from bench import colouring as bench  # noqa: E402
from bench import cpus, paired_bench  # noqa: E402
from bench.lib.runner import boot_name  # noqa: E402
from bench.lib import data, guest, named_pairs, probe, record, report, runner  # noqa: E402
import bench.__main__ as bench_main  # noqa: E402
from harness import facts, qemu, tap, util  # noqa: E402


class FakePhase:
    def __init__(self, insns=0, rates=None, head=None):
        self.insns, self.rates, self.head = insns, rates or {}, head or {}

    def rate(self, cache, region="all", kind="sa_miss"):
        return self.rates.get((cache, kind), 0.0)


def includes(path):
    """The project headers a C file includes (#include "NAME")."""
    return set(re.findall(r'^#include "([\w.]+)"', path.read_text(), re.M))


def include_cycle(src):
    """A cycle among the #includes of src's .c and .h files (tests left out), or None."""
    graph = {f.name: includes(f) for f in src.glob("*.[ch]") if not f.name.startswith("test-")}
    state = {}

    def visit(n, path):
        if state.get(n) == "open":
            return path[path.index(n):] + [n]
        if state.get(n) == "done" or n not in graph:
            return None
        state[n] = "open"
        for m in sorted(graph[n]):
            found = visit(m, path + [n])
            if found:
                return found
        state[n] = "done"
        return None
    return next(filter(None, (visit(n, []) for n in sorted(graph))), None)


def bench_imports(path):
    """The bench modules a Python file imports, as "lib.runner", "off_cost"..."""
    text = path.read_text()
    out = set(re.findall(r"^\s*from bench\.([\w.]+) import", text, re.M)) - {"lib"}
    for lib, names in re.findall(r"^\s*from bench(\.lib)? import ([\w, ]+)", text, re.M):
        out |= {("lib." if lib else "") + n.strip() for n in names.split(",")}
    return out


def main():
    t = tap.Tap()

    s = bench.Spread([3.0, 1.0, 2.0])
    t(s.median == 2.0 and (s.lo, s.hi) == (1.0, 3.0), "Spread: median 2, range 1..3 of 3 1 2")
    t(str(bench.Spread([5.0, 5.0])) == "5.00", "Spread: one value prints without a range")
    t(bench.Spread([1.0, 4.0]).median == 2.5, "Spread: median of two is their mean")


    lat = {"cpi": 1.0, "L2": 12.0, "L3": 42.0}
    p = FakePhase(1000.0, {("L1D", "sa_miss"): 10.0, ("L1I", "sa_miss"): 5.0,
                           ("L2", "sa_miss"): 2.0, ("L1D", "plru_miss"): 1.0})
    t(bench.cycles(p, lat) == 1000 + 15 * 12 + 2 * 42, "cycles: insns x CPI + L1 misses x L2 "
      "latency + L2 misses x L3 latency (1264)")
    t(bench.cycles(p, lat, cpi_scale=0.5, lat_scale=1.5) == 500 + 1.5 * (180 + 84),
      "cycles: the CPI and the latencies scale separately")
    t(bench.cycles(p, lat, kind="plru_miss") == 1000 + 12, "cycles: under PLRU the PLRU counts")

    a = FakePhase(head={"stack_l2_sets": "1,2,3,4", "direct_sketch": "01,02,03,04"})
    b = FakePhase(head={"stack_l2_sets": "1,9,3,8,7", "direct_sketch": "01,02,05,06"})
    t(bench.stacks_moved(a, b) == 0.5, "stacks_moved: 2 of the 4 stacks both touch moved")
    t(bench.stacks_moved(a, a) == 0 and bench.lines_shared(a, a) == 1,
      "placement: a boot against itself: nothing moved, every line shared")
    t(bench.lines_shared(a, b) == 0.5, "lines_shared: bottom-4 of the union 01 02 03 04 (05 06 "
      "larger), both hold 01 02: 1/2")
    t(bench.stacks_moved(a, FakePhase(head={"stack_l2_sets": "-"})) is None and
      bench.lines_shared(a, FakePhase()) is None, "placement: no stacks or sketch: n/a, not 0")
    t(bench.stacks_moved(FakePhase(head={"stack_l2_sets": 5}), FakePhase(
        head={"stack_l2_sets": 5})) == 0, "stacks_moved: a single set (parsed as a number)")

    caches = probe.probe_caches(facts.path("bench-dump"))
    t(caches == {"L1D": (32768, 8, 64), "L1I": (32768, 8, 64), "L2": (262144, 4, 64)},
      "probe_caches: the Skylake dump decodes to 32K 8-way L1s and a 256K 4-way L2", [caches])
    t(probe.plugin_geometry({"L2": (262144, 4, 64), "L1D": (49152, 12, 64)}) ==
      "l1d=49152:12:64,l2=262144:4:64",
      "plugin_geometry: the plugin's keys, each cache SIZE:WAYS:LINE")
    try:
        probe.probe_caches(TOP / "facts.tsv")
        t(False, "probe_caches: a file that is no CPUID dump is an error")
    except RuntimeError as e:
        t("kcolour-probe" in str(e), "probe_caches: a file that is no CPUID dump is an error",
          [str(e)])

    for dump in ("facts.tsv", "no-such-dump"):
        bad = subprocess.run([sys.executable, "-m", "bench", "run", "cpus", "--dump",
                              str(TOP / dump)], capture_output=True, text=True, cwd=TOP)
        t(bad.returncode == 2 and "error: kcolour-probe" in bad.stderr and not bad.stdout,
          "make bench-cpu DUMP=%s: exit 2 with the probe's message, nothing booted" % dump,
          [bad.stderr.strip()])

    t(cpus.derived_key("kstack_colour=on,level=1,shift=15,colours=3,step=1024,max_offset=2048,"
                       "policy=balanced") == (3, 1024, "balanced") and
      cpus.derived_key("kstack_colour=off") is None and
      cpus.derived_key("kstack_colour=on,colours=1,step=64,policy=rr") is None,
      "derived_key: colours, step and policy of a line; off and one colour are None")

    class FakeCpu:
        def __init__(self, name, derived):
            self.name, self.derived = name, derived
    line = "kstack_colour=on,level=1,shift=%d,colours=%d,step=1024,max_offset=2048,policy=balanced"
    fake = [FakeCpu("a", line % (12, 3)), FakeCpu("b", line % (15, 3)),
            FakeCpu("c", line % (12, 3)), FakeCpu("d", "kstack_colour=off"),
            FakeCpu("e", line % (12, 1)), FakeCpu("f", line % (11, 1))]
    grid = [(3, 1024, "balanced"), (4, 512, "balanced")]
    got, smoke = cpus.settings(fake, grid), cpus.settings(fake, grid, placebo=False)
    t([n for n, _ in got] == ["off", "placebo", "c3-s1024-balanced-shift12",
                              "placebo-c3-s1024-balanced-shift12", "c3-s1024-balanced-shift15",
                              "placebo-c3-s1024-balanced-shift15", "c1-derived-shift12",
                              "c1-derived-shift11", "c4-s512-balanced"]
      and got[8][1] == "kstack_colour=on,colours=4,step=512,max_offset=1536,policy=balanced"
      and got[6][1] == line % (12, 1) and smoke == [got[i] for i in (0, 2, 4, 6, 7, 8)]
      and got[1][1].startswith("kstack_colour=off,")
      and abs(len(got[1][1]) - len(cpus.setting_args(3, 1024, "balanced"))) <= 1
      and got[3][1] == (line % (12, 3)).replace("=on,", "=off,", 1)
      and len(got[5][1]) == len(line % (15, 3)) + 1,
      "settings: off once, the placebo (colouring off, as long as a grid line; not in the "
      "smoke run), each distinct derived line exactly (one-colour lines by their shift) and, "
      "where it colours, its own placebo (its fields, colouring off), the grid points no "
      "derived line already is", got)

    # make bench-cpus' targets, paired on the scoring layouts: the layouts
    # spread the figures by 20%, a setting moves them by 2% in every one.
    rep = cpus.Cpus.__new__(cpus.Cpus)
    rep.score, rep.pick = (5, 6, 7), (1,)
    rep.cpus = [FakeCpu("a", "derived-a"), FakeCpu("b", "derived-b")]
    rep.cases = [("off", "kstack_colour=off"), ("da", "derived-a"), ("db", "derived-b"),
                 ("fixed", "fixed-args")]
    spread = {5: 1.0, 6: 1.2, 7: 0.9, 1: 1.0}
    effect = {("off", 0): (1, 1), ("da", 0): (0.98, 0.98), ("fixed", 0): (1, 1.001),
              ("off", 1): (1, 1), ("db", 1): (0.97, 1.02), ("fixed", 1): (0.985, 0.985)}
    rep.cyc = {(c, i, lay): {"w1": 100 * spread[lay] * e[0] * (1 + 0.001 * lay * (c != "off")),
                             "w2": 50 * spread[lay] * e[1]}
               for (c, i), e in effect.items() for lay in rep.score}
    rep.workloads, rep.opt, rep.fixed = ["w1", "w2"], ["da", "fixed"], "fixed"
    rep.case_names = [c for c, _ in rep.cases]
    got = [rep.targets(0), rep.targets(1)]
    # CPU a's derived line with its own placebo, which lowers w2 by 4%: the
    # line, 2% below off, is 2% above its placebo there.
    rep.cases.append(("placebo-da", "kstack_colour=off"))
    rep.case_names.append("placebo-da")
    rep.cyc.update({("placebo-da", 0, lay): {"w1": 100 * spread[lay],
                                             "w2": 50 * spread[lay] * 0.96}
                    for lay in rep.score})
    own = [rep.own_placebo(0), rep.own_placebo(1), rep.targets(0)]
    # The placebo, lowest of all on the pick layout, is never chosen.
    rep.cases.append(cpus.PLACEBO)
    for i, e in ((0, 0.9), (1, 0.9)):
        rep.cyc[("placebo", i, 1)] = {"w1": 90 * e, "w2": 45 * e}
    for (c, i), e in effect.items():
        rep.cyc[(c, i, 1)] = {"w1": 100 * e[0], "w2": 50 * e[1]}
    rep.cyc.update({(c, i, 1): {"w1": 100.0, "w2": 50.0}
                    for c in ("da", "db", "fixed", "off") for i in (0, 1)
                    if (c, i, 1) not in rep.cyc})
    t("placebo" not in rep.choose()[0] and rep.choose()[1] != "placebo",
      "bench-cpus: the placebo, though lowest on the pick layouts, is no CPU's optimum and "
      "not the fixed setting", [str(rep.choose())])
    t(got == [(True, True, [], []), (True, False, ["w2"], [])],
      "bench-cpus targets, paired: a derived setting 2% lower in every layout is within the "
      "optimum and beats the fixed one; one 2% higher on a workload is worse than off there, "
      "and 1% above the optimum is within its 3%", [str(got)])
    t(own == ["placebo-da", None, (True, True, [], ["w2"])],
      "bench-cpus: a derived line below off but above its own placebo on a workload is worse "
      "than its placebo there; a CPU whose line has no placebo booted has none", [str(own)])
    # The page's table and summary with an own placebo for CPU a only.
    rep.opt, rep.has_placebo, rep.has_own_placebo = ["da", "db"], False, True
    for c in rep.cpus:
        c.set = "fit"
    table = rep.results_table([rep.targets(0), rep.targets(1)])
    by = rep.by_workload(rep.derived, rep.own_placebo)
    t(len([x for x in table if x]) == 4 and "derived's own placebo" in table[0] and
      table[0].count("|") == table[2].count("|") == table[3].count("|") and
      table[2].split(" | ")[5] == rep.rel("placebo-da", 0) and
      table[2].rstrip(" |").endswith("w2") and
      table[3].split(" | ")[5] == "-" and table[3].rstrip(" |").endswith("-") and
      by == "; ".join("%s %s on 1 of 1 CPUs (%+.2f%%)" % (w, what, rep.pair(
          "da", 0, rep.score, w, control="placebo-da").pct)
          for w, what in (("w1", "lower"), ("w2", "higher"))),
      "bench-cpus' page: a column for the derived line's own placebo and one for the "
      "workloads it is worse than it on, '-' for a CPU without one; the summary counts only "
      "CPUs with a placebo", table + [by])

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        run = runner.Run.__new__(runner.Run)
        run.work = work
        boot = qemu.Boot("c.L5", work / "bzImage", work / "initramfs", work,
                         args=["bench_layout=5"])
        (work / "c.L5.rc").write_text("0\n")
        (work / "c.L5.txt").write_text("")
        kept = []
        for booted, rc in ((boot.command(), "0"), (boot.command().replace("=5", "=6"), "0"),
                           (boot.command(), "1")):
            run.booted = {booted}
            (work / "c.L5.rc").write_text(rc + "\n")
            kept.append(run.kept(boot))
        run.booted = {boot.command()}
        (work / "c.L5.rc").write_text("0\n")
        (work / "c.L5.txt").unlink()
        kept.append(run.kept(boot))
        t(kept == [True, False, False, False], "RESUME keeps a boot of the same command line "
          "that exited 0 and left its output, and no other", kept)

    with tempfile.TemporaryDirectory() as tmp:
        stem = Path(tmp) / "b"
        lines = ["cachesim config vcpus=1 phases=2"]
        for ph in (0, 1, 2):
            lines.append("cachesim phase=%d complete=1 insns=%d" % (ph, 1000 * (ph + 1)))
            lines += ["cachesim phase=%d cache=%s region=%s accesses=10 sa_miss=4 fa_miss=3 "
                      "plru_miss=4 min_miss=2 inval=0%s" % (ph, c, r, " min_bound=1"
                                                             if r == "all" else "")
                      for c in data.CACHES for r in data.REGIONS]
            lines.append("cachesim phase=%d stacks=2 stack_l2_sets=5,6 direct_sketch=-" % ph)
        Path(str(stem) + ".txt").write_text("\n".join(lines) + "\n")
        Path(str(stem) + ".log").write_text(
            "\x1b[2Jlayout seed=2 children=3 pipes=1 files=0 sockets=4 eventfds=0 pages=1\n"
            "web concurrency=4 keepalive=1 requests=200 complete=200 failed=0 size=4096 ctxt=9 "
            "status=0\nhackbench threads=1 pipes=0 groups=2 fds=10 loops=5 messages=1000 ctxt=7 "
            "status=0\ncmd name=tar-tmpfs runs=1 ctxt=4 status=0\n")
        boot = data.Boot(stem)
        t([p.label for p in boot] == ["web c=4 keep-alive", "hackbench thread socket g=2",
                                      "tar-tmpfs"],
          "Boot: the web, hackbench and cmd lines are phases 0, 1 and 2, labelled (a cmd "
          "line by its name)", [p.label for p in boot])
        t(boot[2].unit == ("run", 1) and boot[2].insns == 3000.0,
          "Boot: a cmd phase counts per run", [boot[2].unit, boot[2].insns])
        t(boot.layout.get("children") == 3 and len(boot) == 3,
          "Boot: the layout line is read apart, not as a phase")
        t([(p.unit, p.insns) for p in boot][:2] == [(("request", 200), 5.0), (("message", 1000), 2.0)],
          "Boot: per request and per message", [(p.unit, p.insns) for p in boot])
        t(boot[0].counts[("L2", "all")]["min_bound"] == 1 and boot[0].head["stacks"] == 2,
          "Boot: the MIN bound and the placement line are read")
    # facts.tsv's cmd workload lines: the program found here, at its host path.
    line, progs = guest.cmd_workload("cmd tar -- tar -cf /tmp/u.tar '/usr/a b'")
    tar = str(Path(shutil.which("tar")).resolve())
    t(progs == [tar] and line == "cmd tar -- %s -cf /tmp/u.tar '/usr/a b'" % tar,
      "cmd_workload: PROGRAM resolved on PATH, the arguments quoted as given", [line, progs])
    line, progs = guest.cmd_workload("cmd both +gzip +tar -- sh -c 'tar -c /x | gzip'")
    sh, gzip = (str(Path(shutil.which(p)).resolve()) for p in ("sh", "gzip"))
    t(progs == [sh, gzip, tar] and line == "cmd both -- %s -c 'tar -c /x | gzip'" % sh,
      "cmd_workload: +PROG programs are copied too, and left out of the guest's line",
      [line, progs])
    t(guest.cmd_workload("ring 8 600") == ("ring 8 600", []),
      "cmd_workload: other workload lines pass through")
    for bad, why in (("cmd tar tar -cf x", "no --"), ("cmd 9x -- tar", "a name not a word"),
                     ("cmd tar --", "no program"), ("cmd t -- no-such-prog-kc", "not here"),
                     ("cmd t gzip -- tar", "an extra without +"),
                     ("cmd t +no-such-prog-kc -- tar", "an extra not here")):
        try:
            guest.cmd_workload(bad)
            t(False, "cmd_workload: '%s' (%s) is an error" % (bad, why))
        except util.Error as e:
            t("workload" in str(e), "cmd_workload: '%s' (%s) is an error: %s" % (bad, why, e))
    # make bench-paired: what the kernel chose, and a case against off layout by layout.
    info = paired_bench.colour_info("x\ncolour_info enabled: 1\ncolour_info colours: 3\n"
                                    "colour_info policy: balanced\nweb ...\n")
    t(info == {"enabled": "1", "colours": "3", "policy": "balanced"},
      "bench-paired: the colour_info lines read (%s)" % info)
    rep = paired_bench.Report.__new__(paired_bench.Report)
    rep.layouts, rep.lat = [1, 2, 3], lat
    off = [1000.0, 1100.0, 1200.0]
    rep.net = {boot_name(c, lay): [FakePhase(x * f)]
               for c, f in (("off", 1.0), ("on", 0.98), ("placebo", 1.0))
               for lay, x in zip(rep.layouts, off)}
    on, placebo = rep.compare("on", 0, None), rep.compare("placebo", 0, None)
    t(abs(on.pct + 2.0) < 1e-9 and on.verdict == "lower" and placebo.verdict == "no measurable "
      "effect" and placebo.half_width == 0, "bench-paired: a case 2%% below off in every layout "
      "is lower (%s); an identical placebo holds 0 (%s)" % (on.interval(), placebo.interval()))
    # --classes: the same boots on another CPU's caches (cpus= hierarchy 1).
    rep.net = {boot_name(c, lay): [FakePhase(x, {("cpu1-L1D", "sa_miss"): m * f})]
               for c, f in (("off", 1.0), ("on", 1.1), ("placebo", 1.0))
               for lay, x, m in zip(rep.layouts, off, (10.0, 20.0, 30.0))}
    on, mine = rep.compare("on", 0, None), rep.compare("on", 0, None, 0)
    t(on.half_width == 0 and abs(on.pct) < 1e-9 and mine.verdict == "higher",
      "bench-paired --classes: a case that adds L1D misses only on another CPU's caches is "
      "higher there (%s), unchanged on the bench CPU's (%s)" % (mine.interval(), on.interval()))

    # make bench: the -smp 4 note, the base kernel against off beside the deterministic -smp 1.
    class Label:
        label = "w"
    rep = bench.Report.__new__(bench.Report)
    report.Doc.__init__(rep)
    rep.names, rep.smps, rep.layouts, rep.lat = ["off", "base", "rko"], [1, 4], [1, 2], lat
    rep.boots = {bench.name("off", 1, 1): [Label()]}
    scale = {("off", 1): 1.0, ("base", 1): 1.0, ("rko", 1): 1.0,
             ("off", 4): 1.0, ("base", 4): 1.1, ("rko", 4): 0.97}
    rep.net = {bench.name(c, smp, lay): [FakePhase(1000.0 * lay * f)]
               for (c, smp), f in scale.items() for lay in rep.layouts}
    rep.host_time_note(4)
    note = " ".join(rep.out)
    t("cycles +10.0%, instructions +10.0% at -smp 4; +0.0% and +0.0% at -smp 1" in note and
      "(rko) -3.0%" in note, "bench: the -smp 4 note gives the base against off at -smp 4 and 1, "
      "and rko", [note])
    rep.out = []
    rep.host_time_note(1)
    t(rep.out == [], "bench: no host-time note under -smp 1 itself")

    # make bench's verdicts: each case paired with off, layout by layout, the
    # layouts' own placement shared by the pair.
    rep.names, rep.smps, rep.layouts = ["off", "placebo", "on"], [1], [1, 2, 3]
    rep.boots = {bench.name("off", 1, 1): [Label()]}
    base = {1: 1000.0, 2: 1100.0, 3: 1200.0}
    scale = {"off": {1: 1.0, 2: 1.0, 3: 1.0}, "placebo": {1: 1.001, 2: 0.999, 3: 1.0},
             "on": {1: 0.98, 2: 0.981, 3: 0.979}}
    rep.net = {bench.name(c, 1, lay): [FakePhase(base[lay] * f[lay])]
               for c, f in scale.items() for lay in rep.layouts}
    on, placebo = rep.stable(1, 0, "on"), rep.stable(1, 0, "placebo")
    t(on.startswith("-2.00% [") and on.endswith("] **lower**") and "**" not in placebo,
      "bench: 2%% below off in every layout is lower, though the layouts spread 20%% (%s); "
      "a placebo within 0.1%% is no effect (%s)" % (on, placebo))
    lines = rep.verdicts(1)
    t(lines[0].startswith("- placebo: no measurable effect on any of the 1 workloads") and
      lines[1].startswith("- on: different on 1 of 1 workloads: w -2.00% ["),
      "bench: the verdict lines say which cases differ from off", lines)
    # python3 -m bench run NAME: what follows NAME reaches the experiment
    # untouched, "--" and all (make perf-ab CMD="..." needs it).
    t(bench_main.split(["run", "perf-ab", "--", "hackbench", "-g", "4"]) ==
      (["run", "perf-ab"], ["--", "hackbench", "-g", "4"]) and
      bench_main.split(["run", "off-cost", "--quick"]) == (["run", "off-cost"], ["--quick"]) and
      bench_main.split(["list"]) == (["list"], []),
      "python3 -m bench run NAME passes what follows NAME on untouched, -- included")
    t(all(hasattr(importlib.import_module("bench." + m), "main")
          for m, _, _ in bench_main.EXPERIMENTS.values()),
      "every experiment python3 -m bench list names has a main()")
    # A conflict table's pairs named, as a record keeps them: written and read
    # back in order, and what does not add up named.
    named = {0: (5, collections.Counter({("task_struct", "(stack-top)"): 3, ("f", "g"): 2})),
             1: (0, collections.Counter())}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b.named"
        named_pairs.write(path, named)
        back = named_pairs.read(path)
        path.write_text(path.read_text().replace("\t2\n", "\t1\n"))
        short = named_pairs.read(path)
    t(back == named and list(back[0][1]) == list(named[0][1]) and
      named_pairs.problems(back, 2) == [] and
      named_pairs.problems(back, 3) == ["phase 2: 0 named against None"] and
      named_pairs.problems(short, 2) == ["phase 0: 4 named against 5"],
      "named pairs: written and read back in order; a missing phase and pairs that do not "
      "add up are named", [back, named_pairs.problems(short, 3)])
    # A page's prose from its template: sections, wrapped paragraphs joined,
    # {fields} filled, a {field} alone replaced by its table.
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "t.md.in").write_text(
            "@@ one\n# Title {n}\n\nA paragraph\n  wrapped, {n:.1f} a run.\n\n{tab}\n"
            "@@ two\nOther.\n\n- an item\n  wrapped\n- {n} items\n")
        old, report.TEMPLATES = report.TEMPLATES, Path(tmp)
        try:
            d = report.Doc()
            d.template("t", "one", n=2, tab=report.table_lines(["a", "b"], [[1, 2]]))
            d.template("t", "two", n=2, name="a field may be called name")
        finally:
            report.TEMPLATES = old
    t(d.out == ["# Title 2", "", "A paragraph wrapped, 2.0 a run.", "", "| a | b |",
                "|---|---:|", "| 1 | 2 |", "", "Other.", "", "- an item wrapped", "- 2 items", ""],
      "Doc.template: a section's paragraphs joined and filled, a list an item a line, a table "
      "field as it is",
      d.out)
    # Layers: the plugin's includes have no cycle and hierarchy never
    # includes run.h (run.c calls down); in Python, bench/lib imports no
    # experiment, data and report import no runner, and no experiment
    # imports another.
    t(not include_cycle(TOP / "bench/cachesim") and "run.h" not in
      includes(TOP / "bench/cachesim/hierarchy.h") | includes(TOP / "bench/cachesim/hierarchy.c"),
      "the plugin's #includes have no cycle, and hierarchy.[ch] include no run.h")
    with tempfile.TemporaryDirectory() as tmp:
        for name, inc in (("a.h", "b.h"), ("b.h", "a.h"), ("c.c", "a.h")):
            (Path(tmp) / name).write_text('#include "%s"\n' % inc)
        (Path(tmp) / "m.py").write_text("from bench.lib import runner, data\n"
                                         "from bench import off_cost\n")
        t(include_cycle(Path(tmp)) == ["a.h", "b.h", "a.h"] and
          bench_imports(Path(tmp) / "m.py") == {"lib.runner", "lib.data", "off_cost"},
          "the layer checks find a cycle of includes and a module's bench imports")
    experiments = {f.stem for f in (TOP / "bench").glob("*.py")} - {"__init__", "__main__"}
    up = ["%s imports bench.%s" % (f.relative_to(TOP), m)
          for f in sorted((TOP / "bench").glob("**/*.py")) if "tests" not in f.parts
          for m in bench_imports(f)
          if (f.parent.name == "lib" and (m in experiments or
                                          (f.stem in ("data", "report") and
                                           m in ("lib.runner", "lib.experiment")))) or
          (f.parent.name == "bench" and f.stem in experiments and m in experiments)]
    t(not up, "no arrow back up in bench/: lib imports no experiment, data and report no "
      "runner, no experiment another", up)
    # The plugin's default caches are facts.tsv's model-default, the one home
    # of that geometry: options.c's initializer, and bench/cpus.py's PRIMARY.
    src = (TOP / "bench/cachesim/options.c").read_text()
    defaults = {name: tuple(int(x) for x in m) for name, m in (
        (name, re.search(r"\[C_%s\] = \{ (\d+), (\d+), (\d+) \}" % name, src).groups())
        for name in ("L1D", "L1I", "L2"))}
    model, caches = facts.default_model()
    t(defaults == caches and runner.CPU == model,
      "the plugin's default caches (options.c) are facts.tsv's model-default, %s's" % model,
      ["options.c %s, facts.tsv %s" % (defaults, caches)])
    t(cpus.PRIMARY == "32768:8:64-32768:8:64-4194304:16:64" and
      cpus.PRIMARY == "-".join("%d:%d:%d" % caches[c] for c in ("L1D", "L1I", "L2")),
      "bench-cpus' primary hierarchy is the plugin's default caches (%s)" % cpus.PRIMARY)
    records(t)
    writers(t)
    return t.plan()


def records(t):
    """A run's record: the arguments it keeps, where --report-only reads."""
    t(record.own_argv(["paired", "--classes", "--jobs", "1", "--image", "test", "--resume",
                       "--work", "/w", "--layouts", "5", "--out=/o"], runner.options()) ==
      ["paired", "--classes", "--image", "test", "--layouts", "5"],
      "a record keeps NAME and the experiment's own flags, not the run's (--jobs, --work...)")
    record.ARGV[:] = ["paired", "--classes", "--resume"]
    t(record.record_argv(runner.options()) == ["bench", "run", "paired", "--classes"],
      "a bench run's record names python3 -m bench run NAME and its own flags")
    record.ARGV[:] = []
    saved = record.RECORDS
    with tempfile.TemporaryDirectory() as d:
        record.RECORDS = Path(d)
        (Path(d) / "x").mkdir()
        (Path(d) / "x/argv").write_text("bench\nrun\nx\n")

        def where(*argv):
            return record.work_dir(runner.parser("").parse_args(list(argv)), "x")
        got = [where("--report-only"), where("--report-only", "--quick"), where(),
               where("--report-only", "--work", "/w")]
        record.RECORDS = saved
    t(got == [Path(d) / "x", TOP / "build/bench/x", TOP / "build/bench/x", Path("/w")],
      "work_dir: a full --report-only reads the committed record; a quick one, a run and "
      "--work do not", got)
    # quick=: a run's own flag, not its workload set's name (a user's set of
    # bench-paired may end in -quick); without it, the name decides.
    with tempfile.TemporaryDirectory() as d:
        for f, text in (("commands", "make x\n"), ("meta", "date=now\n")):
            (Path(d) / f).write_text(text)

        def mode(**kw):
            r = runner.Run("bench-x", "cpus-quick", d, resume=True, record="x", **kw)
            return r.quick, r.smoke, r.timeout, r.record_dir is not None
        got = [mode(quick=False), mode()] + [
            runner.run_args(runner.parser("", quick=q).parse_args(a))["quick"]
            for q, a in ((True, ["--quick"]), (True, []), (False, []))]
    t(got == [(False, False, runner.TIMEOUT, True), (True, True, runner.QUICK_TIMEOUT, False),
              True, False, False],
      "Run(quick=False) over a -quick set is a full run; without quick=, the set's name "
      "decides; run_args() hands on --quick (False for a tool without it)", got)
    # The commands file's first line: the make command, then the command
    # line: python3 -m bench run NAME, a module's or a script's.
    with tempfile.TemporaryDirectory() as d:
        for f, text in (("commands", "make x\n"), ("meta", "date=now\n")):
            (Path(d) / f).write_text(text)

        def first(**kw):
            return runner.Run("bench-x", "cpus", d, resume=True, **kw).commands[0]
        main, argv, saved = sys.modules["__main__"], sys.argv, list(record.ARGV)
        try:
            record.ARGV[:] = ["x", "--layouts", "1 2"]
            got = [first(), first(quick=True), first(command="make y Z=1")]
            record.ARGV[:] = []
            sys.argv = ["/p/layouts.py", "--page", "p"]
            sys.modules["__main__"] = types.SimpleNamespace(
                __spec__=types.SimpleNamespace(name="falign.layouts"))
            got.append(first())
            sys.modules["__main__"] = types.SimpleNamespace(__spec__=None)
            got.append(first())
        finally:
            sys.modules["__main__"], sys.argv = main, argv
            record.ARGV[:] = saved
    t(got == ["make bench-x   # python3 -m bench run x --layouts '1 2', which runs:",
              "make bench-x QUICK=1   # python3 -m bench run x --layouts '1 2', which runs:",
              "make y Z=1   # python3 -m bench run x --layouts '1 2', which runs:",
              "make bench-x   # python3 -m falign.layouts --page p, which runs:",
              "make bench-x   # python3 /p/layouts.py --page p, which runs:"],
      "Run's commands begin with its make command (command=, or make PROG) and its "
      "command line (bench run NAME, a module's, a script's)", got)
    # keep(): the run's files and argv into the record; a file missing
    # leaves the record before as it was.
    with tempfile.TemporaryDirectory() as d:
        work, rec = Path(d) / "work", Path(d) / "data/x"
        work.mkdir()
        for f in ("cases", "meta", "commands", "run.sh", "a.txt", "a.log", "a.conflicts"):
            (work / f).write_text(f + "\n")
        run = object.__new__(runner.Run)
        run.prog, run.work, run.record_dir, run.kept_record = "bench-x", work, rec, False
        run.cases, run.tables, run.record_tables, run.record_files = \
            [("a", "k", "")], ("conflicts",), True, []
        record.ARGV[:] = ["attribution", "--jobs", "1"]
        run.keep()
        first = sorted(f.name for f in rec.iterdir())
        (work / "a.log").unlink()
        try:
            run.keep()
            raised = False
        except OSError:
            raised = True
        record.ARGV[:] = []
        t(first == ["a.conflicts", "a.log", "a.txt", "argv", "cases", "commands", "meta",
                    "run.sh"] and (rec / "argv").read_text() == "bench\nrun\nattribution\n" and
          raised and sorted(f.name for f in rec.iterdir()) == first and
          not rec.with_name("x.new").exists() and not rec.with_name("x.old").exists(),
          "keep(): the run's files, its tables and argv; a file missing fails and leaves the "
          "record before as it was", first)
    # The page is the record's: an evictor renamed in a copy of the
    # attribution's record (its counts still adding up) changes the page.
    kept = record.RECORDS / "attribution"
    if not (kept / "argv").exists():
        t.skip("a changed record changes its page", "no attribution record")
        return
    with tempfile.TemporaryDirectory() as d:
        shutil.copytree(kept, Path(d) / "r")
        table = Path(d) / "r/defaults.L1.conflicts"
        table.write_text(table.read_text().replace("evictor=stack-top", "evictor=stack-rest"))
        r = subprocess.run([sys.executable, "-m", "bench", "run", "attribution",
                            "--report-only", "--work", str(Path(d) / "r"), "--out",
                            str(Path(d) / "out")], cwd=TOP, capture_output=True, text=True)
        differ = bench_main.differing(sorted((Path(d) / "out").glob("*")))
    t(r.returncode == 0 and "attribution.md" in differ,
      "a record with the stack top's evictions renamed in a boot gives another page (%s "
      "differ)" % " ".join(differ),
      r.stderr.splitlines()[-5:])


def replay(module, work, out, *args):
    """python3 -m MODULE ARGS --report-only --work WORK --out OUT, as bench
    reports runs a record's writer."""
    return subprocess.run([sys.executable, "-m", module, *args, "--report-only", "--work",
                           str(work), "--out", str(out)], cwd=TOP, capture_output=True,
                          text=True)


def writers(t):
    """The writers that keep a record outside bench run (gcc-cold-parts,
    falign, reliability): a page from hand-made files, and a damaged record
    refused with the file it names."""
    with tempfile.TemporaryDirectory() as d:
        work, out = Path(d) / "w", Path(d) / "out"
        work.mkdir()
        (work / "text-functions").write_text("10 f\n5 f.cold\n7 g\n")
        (work / "probe-symbols").write_text("branch_a\nbranch_a.cold\nbranch_b\nother\n")
        (work / "meta").write_text("date=D\ngcc=gcc 12\nimage=test\n")
        r = replay("falign.cold_parts", work, out)
        md = (out / "gcc-cold-parts.md").read_text() if r.returncode == 0 else ""
        ok = "| functions in the text | 2 | 17 |" in md and \
            "| their .cold parts (in .text.unlikely) | 1 | 5 |" in md and \
            "f.cold (5 bytes)" in md and "branch_a yes, branch_b no" in md
        t(ok, "gcc-cold-parts: the page from hand-made symbols (2 functions of 17 bytes, one "
          ".cold part, the probe's split)", [] if ok else (r.stdout + r.stderr).splitlines()[-5:])
        (work / "text-functions").write_text("10 f\nzz g\n")
        r = replay("falign.cold_parts", work, out)
        t(r.returncode == 2 and "text-functions line 2: not SIZE NAME" in r.stderr,
          "gcc-cold-parts: a malformed symbol line is refused, by file and line",
          r.stderr.splitlines()[-3:])
    t(qemu_console_deepest(), "reliability: the deepest stack is the fewest bytes left, "
      "with the task that left them; a name that does not parse still counts")
    falign_report(t)
    reliability(t)


def qemu_console_deepest():
    from selftests import reliability
    console = ("[    1.0] mount (52) used greatest stack depth: 12472 bytes left\n"
               "STACK [    2.0] ln (59) used greatest stack depth: 10936 bytes left\n"
               "[    3.0]  (61) used greatest stack depth: 10000 bytes left\n")
    return reliability.deepest_stack(console) == (10000, "?") and \
        reliability.deepest_stack(console.splitlines()[1]) == (10936, "ln") and \
        reliability.deepest_stack("no figure") is None


def falign_report(t):
    """falign.report's page from two hand-made choices, and a report that
    lacks a field refused by name."""
    def report(text, padding, lines):
        return {"config": {"CONFIG_FUNCTION_ALIGNMENT": "16", "CONFIG_CC_VERSION_TEXT": "gcc 12"},
                "files": [{"function_bytes": text - padding, "small_padding_bytes": padding,
                           "crossing": 3, "short_functions": 9, "aligned": {"64": 4},
                           "functions": 20, "lines_touched": lines, "lines_lower_bound": 100,
                           "minimal_lines_layout": {"bytes": 1100, "lines_touched": 100},
                           "packed_layout": {"bytes": 900, "lines_touched": 120}}]}
    with tempfile.TemporaryDirectory() as d:
        work, out = Path(d) / "w", Path(d) / "out"
        work.mkdir()
        (work / "choices").write_text("a\t16 (default)\nb\t64\n")
        (work / "meta").write_text("date=D\n")
        (work / "a.falign.json").write_text(json.dumps(report(1000, 100, 110)))
        (work / "b.falign.json").write_text(json.dumps(report(1200, 300, 100)))
        r = replay("falign.report", work, out)
        md = (out / "falign.md").read_text() if r.returncode == 0 else ""
        ok = "| 64 | 16 | 1200 | +20.0% | 300 | 3 / 9 | 4 of 20 | 100 | +0.0% |" in md and \
            "| minimal-lines layout | 1100 | +10.0% | 100 |" in md
        t(ok, "falign: the page from two hand-made choices (64: +20.0% text, at the bound)",
          [] if ok else (r.stdout + r.stderr).splitlines()[-5:])
        broken = report(1200, 300, 100)
        del broken["files"][0]["aligned"]["64"]
        (work / "b.falign.json").write_text(json.dumps(broken))
        r = replay("falign.report", work, out)
        t(r.returncode == 2 and "no files[0].aligned.64" in r.stderr,
          "falign: a report without a field the page reads is refused, by file and field",
          r.stderr.splitlines()[-3:])


def reliability(t):
    """reliability's page from hand-made consoles, judged again; a status
    that is not a number refused by file."""
    consoles = {
        "trinity-largest": "COUNTS live match\nTASKS 40\n# trinity: Ran 3000 syscalls.\n"
        "TRINITY rc=0 secs=7\nSTACK mount (43) used greatest stack depth: 10376 bytes left\n",
        "storm": "STORM rc=0 secs=30 failed_forks=5 flips=3 hotplugs=2 cpus=0-3\n"
        "STORM cgroups before a1 after a1\nCOUNTS live match\nTASKS 58\n"
        "STACK ln (59) used greatest stack depth: 10936 bytes left\n"}
    with tempfile.TemporaryDirectory() as d:
        work, out = Path(d) / "w", Path(d) / "out"
        work.mkdir()
        for name, console in consoles.items():
            (work / (name + ".log")).write_text(console)
            (work / (name + ".rc")).write_text("0\n")
            (work / (name + ".secs")).write_text("12\n")
        (work / "meta").write_text("date=D\nimages=test\nbuilt=B\ncpu=C\nqemu=Q\nstack=16384\n"
                                   "args.trinity-largest=A\nargs.storm=A\n")
        r = replay("selftests.reliability", work, out, "check")
        md = (out / "reliability.md").read_text() if r.returncode == 0 else ""
        ok = "| trinity-largest (-smp 2) | 3000 syscalls as nobody in 7 s | 0 | equal | 10376 |" \
            in md and "storm: `ln`, 10936 bytes left, 5448 used" in md and "1..11" in r.stdout
        t(ok, "reliability: the page from hand-made consoles, every check of both boots passed",
          [] if ok else (r.stdout + r.stderr).splitlines()[-5:])
        (work / "storm.rc").write_text("x\n")
        r = replay("selftests.reliability", work, Path(d) / "out2", "check")
        t(r.returncode != 0 and "storm.rc: not a number" in r.stdout and
          not (Path(d) / "out2/reliability.md").exists(),
          "reliability: a status that is not a number is refused by file, and no page written",
          r.stdout.splitlines()[-3:])


if __name__ == "__main__":
    sys.exit(main())
