"""A bench run and its data, shared by every experiment (python3 -m bench
list), over harness/: the plugin and the guest
workloads (bench/cachesim), one initramfs whose /run.sh is a facts.tsv workload
set (a marker phase a line), deterministic boots.  The work dir keeps, per boot,
NAME.txt (the plugin's output), NAME.log (the console: each workload's key=value
line), NAME.err, NAME.rc, and run.sh, cases, commands and meta for people.
--report-only boots nothing: it reads a work dir and writes the checks and the
report again.  --resume continues the run in the work dir with its own tools
and initramfs, and boots only what it lacks: a boot is kept when that run booted
it with the same command line (image key, plugin and kernel arguments) and it
exited 0.  A changed simulator or workload is picked up by a run without
--resume.  options() is every bench tool's flags (make's QUICK=1, RESUME=1,
REPORT_ONLY=1, WORK=DIR, JOBS=N turn into them: mk/bench.mk).
"""

import argparse

import json
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from harness import facts, kernel, qemu, tap, util
from harness import results as results_mod

ROOT = facts.ROOT
# The pages a report wrote (Doc.write_md), for Run.finish to record new runs of.
WRITTEN: list = []
# The QEMU model every bench boot runs; the plugin's default caches are its
# (facts.tsv's model-default, which bench-unit holds options.c to).
CPU = facts.default_model()[0]
# norandmaps: with user ASLR the page-table pages a fork allocates (and clears,
# 4,100 instructions a page) vary with the layout the guest's random stream
# draws, and colouring changes that stream: on against off was -3.1%
# instructions per fork with ASLR, +0.24% without, +0.20% of it the balanced
# scan (kcolour-cachesim profile=, bench/cachesim/profile_diff.py).
KARGS = ["nokaslr", "norandmaps", "quiet"]
# A smoke run's boots do not calibrate the local APIC timer (the PIT ticks
# instead): its busy-waits take 10 of a 15 s boot under -icount, where
# every PAUSE leaves QEMU's translated code.
SMOKE_KARGS = KARGS + ["noapictimer"]
# A smoke run (QUICK=1, make check's) boots the test image where a full run
# boots the bench image: the test image carries the bench's fragments too
# (facts.tsv), so make check builds no second kernel configuration for it.
QUICK_IMAGE = "test"
# Each boot's first step: the seeded allocations of layout.c, the seed read
# from the kernel command line (bench_layout=S; unknown to the kernel, which
# hands it on to init).
LAYOUT_STEP = "seed=$(sed -n 's/.*bench_layout=\\([0-9]*\\).*/\\1/p' /proc/cmdline)\n" \
    "layout \"${seed:-0}\""
CACHES = ("L1D", "L1I", "L2")
# The plugin's regions, then their sum: the report's names.
REGIONS = {"stack-top": "stack top", "stack-rest": "stack rest", "direct": "direct map",
           "ktext": "kernel text", "kdata": "kernel data", "user": "user", "other": "other",
           "all": "all"}
# Searched, not matched: the first line follows the firmware's escape codes
# on the same console line ("...\x1b[2Jring tasks=2 ...").
# Each workload's event: (its name, the key of its count in the workload's line).
UNITS = {"ring": ("switch", "switches"), "forkloop": ("fork", "forks"),
         "messaging": ("message", "messages"), "hackbench": ("message", "messages"),
         "web": ("request", "requests"), "cmd": ("run", "runs")}
# A workload's key=value line: numbers, and the name of a cmd workload.
CMD_NAME = r"[A-Za-z][\w-]*"
WORKLOAD_RE = re.compile(r"(%s)((?: (?:name=%s|[a-z]+=-?[0-9]+))+)\s*$"
                         % ("|".join(list(UNITS) + ["layout"]), CMD_NAME))


def guest_programs():
    """The static guest programs bench/cachesim builds (bench/workloads)."""
    return subprocess.run(["make", "-s", "-C", str(ROOT / "bench/cachesim"), "list-workloads"],
                          capture_output=True, text=True, check=True).stdout.split()


def probe(dump: Path | None, *args: str) -> str:
    """kcolour-probe's output on a CPUID dump (None: this machine's CPU);
    util.Error with its message."""
    where = ["--cpuid-file", str(dump)] if dump is not None else []
    out = subprocess.run([str(ROOT / "tools-probe/kcolour-probe")] + where + ["--no-sysfs"] +
                         list(args), capture_output=True, text=True)
    if out.returncode:
        raise util.Error("kcolour-probe %s: %s" % (" ".join(where) or "on this CPU",
                                                    out.stderr.strip()))
    return out.stdout


def probe_cmdline(dump: Path | None, cpu: int = 0) -> str:
    """The kstack_colour= line the probe derives for a dump's CPU (its
    logical-CPU block cpu)."""
    return probe(dump, "--cpu", str(cpu), "--cmdline").strip()


def probe_caches(dump: Path | None, cpu: int = 0) -> dict[str, tuple[int, int, int]]:
    """{"L1D": (size, ways, line), "L1I": ..., "L2": ...} of a CPUID dump
    (its logical-CPU block cpu; None: this machine's CPU cpu), as
    kcolour-probe decodes it (the simulator models that CPU's caches)."""
    names = {(1, "data"): "L1D", (1, "instruction"): "L1I", (2, "unified"): "L2"}
    caches = json.loads(probe(dump, "--cpu", str(cpu), "--json"))["caches"]
    return {names[(c["level"], c["type"])]: (c["size"], c["ways"], c["line"])
            for c in caches if (c["level"], c["type"]) in names}


def bench_caches():
    """probe_caches() of facts.tsv's bench-dump, the CPU the bench simulates;
    kcolour-probe's error and exit 2 where it cannot decode it."""
    try:
        return probe_caches(facts.path("bench-dump"))
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)


def plugin_geometry(caches):
    """The plugin arguments that simulate caches (probe_caches())."""
    return ",".join("%s=%d:%d:%d" % ((c.lower(),) + tuple(g)) for c, g in sorted(caches.items()))


def cmd_workload(line):
    """A facts.tsv "cmd NAME [+PROG...] -- PROGRAM ARG..." workload line: the
    line the guest runs (cmd NAME -- PROGRAM ARG...), PROGRAM resolved to the
    host path that goes into the initramfs (with its libraries, by ldd) at the
    same path, and the host paths to copy: PROGRAM's, and those of the +PROG
    programs a script PROGRAM runs.  Other lines: (line, [])."""
    words = shlex.split(line)
    if words[:1] != ["cmd"]:
        return line, []
    if "--" not in words[2:] or not re.fullmatch(CMD_NAME, words[1]):
        raise util.Error("workload line '%s': want cmd NAME [+PROG...] -- PROGRAM [ARG...], "
                         "NAME of letters, digits, - and _" % line)
    dash = words.index("--", 2)
    extras, argv = words[2:dash], words[dash + 1:]
    if not argv or any(not x.startswith("+") or len(x) < 2 for x in extras):
        raise util.Error("workload line '%s': want cmd NAME [+PROG...] -- PROGRAM [ARG...]"
                         % line)
    progs = []
    for name in [argv[0]] + [x[1:] for x in extras]:
        prog = shutil.which(name)
        if not prog:
            raise util.Error("workload %s: no program %s on this machine" % (words[1], name))
        progs.append(str(Path(prog).resolve()) if not Path(name).is_absolute() else name)
    return shlex.join(words[:2] + ["--", progs[0]] + argv[1:]), progs


def make_vars(pairs):
    """' NAME=value' for each (NAME, value) with a value: the make variables of
    a run, for its page's first line."""
    return "".join(" %s=%s" % kv for kv in pairs if kv[1])


def parse_kv(text):
    return {k: int(v) if re.fullmatch(r"-?[0-9]+", v) else v
            for k, v in (item.split("=", 1) for item in text.split())}


# The plugin's conflict tables (bench/cachesim/README.md, conflicts=): its
# option, and the cache and region whose conflict pairs it keeps.
CONFLICTS = {"conflicts": ("L1D", "direct"), "text_conflicts": ("L1I", "ktext"),
             "l2_conflicts": ("L2", "watched")}


def table_path(work: Path, name: str, option: str) -> Path:
    """Where a boot's plugin writes the file of one of its PATH options
    (conflicts, text_conflicts, l2_conflicts, profile)."""
    return work / ("%s.%s" % (name, option.replace("_", "-")))


# A phase's conflict table: (head {all, REGION, unknown, pairs}, [(victim, evictor, n, ...)]).
Conflicts = tuple[dict[str, int], list[tuple[Any, ...]]]


def read_conflicts(path: Path | str, regions: bool = False) -> dict[int, Conflicts]:
    """{phase: (head {all, REGION, unknown, pairs}, [(victim, evictor, n)])}
    of a conflicts=, text_conflicts= or l2_conflicts= file; victim an int,
    evictor as written (an address, a region or ?).  regions: each pair also
    has an l2_conflicts= file's victim_region and evictor_region."""
    out: dict[int, Conflicts] = {}
    for line in Path(path).read_text().splitlines():
        words = line.split()
        kv = dict(w.split("=", 1) for w in words[1:])
        head, pairs = out.setdefault(int(kv["phase"]), ({}, []))
        if words[0].endswith("conflicts"):
            head.update((k, int(v)) for k, v in kv.items() if k != "phase")
        else:
            pairs.append((int(kv["victim"], 16), kv["evictor"], int(kv["n"])) + (
                (kv.get("victim_region", "?"), kv.get("evictor_region", "?"))
                if regions else ()))
    return out


def conflict_problems(kind: str, phase: "Phase", conflicts: Conflicts) -> list[str]:
    """What does not add up in one phase's conflict table against the
    phase's own counts (a list, empty if all does)."""
    cache, region = CONFLICTS[kind]
    head, pairs = conflicts
    if not head:
        return ["no %s line" % kind.replace("_", "-")]
    out = []
    if sum(x[2] for x in pairs) != head[region] or len(pairs) != head["pairs"]:
        out.append("the pairs do not add up to %s=%d" % (region, head[region]))
    if sum(x[2] for x in pairs if x[1] == "?") != head["unknown"]:
        out.append("unknown evictors do not add up")
    # Per access, SA miss and FA hit; sa - fa nets out the reverse.
    c = phase.counts[(cache, "all")]
    if not head[region] <= head["all"] or head["all"] < c["sa_miss"] - c["fa_miss"]:
        out.append("all=%d %s=%d against sa-fa %d" % (head["all"], region, head[region],
                                                      c["sa_miss"] - c["fa_miss"]))
    return out


class Phase:
    """One workload run: its plugin counts and what the workload printed."""

    def __init__(self, workload: str, info: dict[str, Any], head: dict[str, Any],
                 counts: dict[tuple[str, str], dict[str, Any]]) -> None:
        self.workload = workload
        self.info = info        # the workload's key=value line
        self.head = head        # the plugin's phase line (insns, complete)
        self.counts = counts    # (cache, region) -> {accesses, sa_miss, fa_miss}
        # The denominator of per-event figures: (name, count), the count an int
        # of the workload line (Any: info.get() is None where a line lacks it).
        self.unit: tuple[str, Any] = (UNITS[workload][0], info.get(UNITS[workload][1]))

    @property
    def start_up(self) -> bool:
        """ab's start-up alone: the one-request web run, which every other web
        phase is net of (net())."""
        return self.workload == "web" and self.info["requests"] == 1

    @property
    def label(self) -> str:
        i = self.info
        if self.workload == "ring":
            return "ring N=%d" % i["tasks"]
        if self.start_up:
            return "web start-up (1 request)"
        if self.workload == "web":
            return "web c=%d %s" % (i["concurrency"], "keep-alive" if i["keepalive"] else "close")
        if self.workload == "hackbench":
            return "hackbench %s %s g=%d" % ("thread" if i["threads"] else "process",
                                            "pipe" if i["pipes"] else "socket", i["groups"])
        if self.workload == "cmd":
            return i["name"]
        return self.workload

    def minus(self, other: "Phase") -> "Phase":
        """This phase less another of the same workload: every count and the
        events (web: less the one-request run, ab's start-up)."""
        key = UNITS[self.workload][1]
        info = dict(self.info, **{key: self.info[key] - other.info[key]})
        head = dict(self.head, insns=self.head["insns"] - other.head["insns"])
        counts = {cr: {k: v - other.counts[cr].get(k, 0) if isinstance(v, int) else v
                       for k, v in c.items()} for cr, c in self.counts.items()}
        return Phase(self.workload, info, head, counts)

    def per(self, value: float) -> float:
        return value / self.unit[1]

    @property
    def insns(self) -> float:
        return self.per(self.head["insns"])

    def rate(self, cache: str, region: str = "all", kind: str = "sa_miss") -> float:
        """Misses per event."""
        return self.per(self.counts[(cache, region)][kind])

    def sa_fa(self, cache: str, region: str) -> str:
        """Misses per event, set-associative (fully associative in brackets)."""
        return "%s (%s)" % (fmt(self.rate(cache, region)), fmt(self.rate(cache, region, "fa_miss")))


class Boot(list):
    """One boot's Phases, paired in order with the workload lines of its
    console STEM.log; .config and .phases ({n: (head, counts)}) as the plugin
    wrote them to STEM.txt, .raw that file's bytes."""

    def __init__(self, stem):
        txt = Path(str(stem) + ".txt")
        self.raw = txt.read_bytes() if txt.exists() else b""
        self.config: dict[str, Any] = {}
        self.phases: dict[int, tuple[dict[str, Any], dict[tuple[str, str], dict[str, Any]]]] = {}
        for words in (line.split() for line in self.raw.decode().splitlines()):
            kv = parse_kv(" ".join(words[2 if words[1] == "config" else 1:]))
            if words[1] == "config":
                self.config = kv
                continue
            head, counts = self.phases.setdefault(kv["phase"], ({}, {}))
            if "cache" in kv:
                counts[(kv["cache"], kv["region"])] = kv
            else:
                head.update(kv)
        console = Path(str(stem) + ".log").read_text(errors="replace")
        self.lines = [(m.group(1), parse_kv(m.group(2))) for m in
                      map(WORKLOAD_RE.search, console.splitlines()) if m]
        self.layout: dict[str, Any] = next((kv for wl, kv in self.lines if wl == "layout"), {})
        self.lines = [(wl, kv) for wl, kv in self.lines if wl != "layout"]
        super().__init__(Phase(wl, info, *self.phases[i])
                         for i, (wl, info) in enumerate(self.lines) if i in self.phases)

    def of(self, workload):
        return [p for p in self if p.workload == workload]

    def event(self, e):
        """The Phase of ring N (an int) or of a workload (a name)."""
        return next(p for p in self if
                    (p.info.get("tasks") == e if isinstance(e, int) else p.workload == e))

    def insns(self, workload):
        """Instructions per event, every phase of the workload pooled."""
        phases = self.of(workload)
        return sum(p.head["insns"] for p in phases) / sum(p.unit[1] for p in phases)


def options(quick=True):
    """The flags every bench tool shares, an argparse parent parser: its
    parse gives Run's replay=, resume=, work= and jobs= (run_args())."""
    p = argparse.ArgumentParser(add_help=False)
    if quick:
        p.add_argument("--quick", action="store_true",
                       help="the smoke run (make check's): fewer cases and layouts, results "
                       "in build/bench/NAME-quick, docs/ not touched")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in the work dir: boot only what it lacks")
    p.add_argument("--report-only", action="store_true",
                   help="boot nothing: read the work dir, write the checks and the report again")
    # Absolute: the tools make -C other dirs with OUT= inside it.
    p.add_argument("--work", metavar="DIR", type=lambda d: Path(d).resolve(),
                   help="the work dir (default build/bench/NAME)")
    p.add_argument("--jobs", metavar="N", type=int, default=2,
                   help="boots at a time (default 2)")
    p.add_argument("--pool", choices=("builtin", "parallel"), default="builtin",
                   help="the job pool that runs the boots: builtin threads, or GNU parallel "
                   "(PARALLEL_ARGS, docs/harness.md); default builtin")
    return p


def parser(doc, *parents, quick=True):
    """A bench tool's parser: its docstring for --help, options() and PARENTS."""
    return argparse.ArgumentParser(description=doc, parents=[options(quick)] + list(parents),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def run_args(a):
    """Run's keyword arguments from options()' parse."""
    return {"replay": a.report_only, "resume": a.resume, "jobs": a.jobs, "pool": a.pool}


class Run:
    """One run: the tools, the initramfs, the images, the boots, the TAP."""

    def __init__(self, prog, wset, work, timeout, plugin_args="", after_each="",
                 tables=(), replay=False, resume=False, jobs=2, pool="builtin", smoke=None):
        """after_each: a guest command run after every workload (outside its
        window); tables: the plugin's PATH options each boot writes a file of
        (table_path(): conflicts, text_conflicts, profile); replay: the work
        dir's boots, no new ones (--report-only); resume: boot only what the
        work dir lacks (--resume); jobs: boots at a time (--jobs); pool: the job
        pool that runs them (--pool); smoke: boot fast (default: a quick run),
        False to keep a quick run on the full runs' path."""
        self.prog, self.quick, self.timeout, self.plugin_args = \
            prog, wset.endswith("-quick"), timeout, plugin_args
        self.tables, self.jobs, self.pool = tables, jobs, pool
        # A smoke boot takes a third of the time, every check the same: the
        # caches stand still between phases (bench/cachesim/README.md), and
        # the kernel arguments are SMOKE_KARGS.
        self.smoke = self.quick if smoke is None else smoke
        self.kargs = SMOKE_KARGS if self.smoke else KARGS
        self.replay = bool(replay)
        self.resume = bool(resume) and not self.replay
        self.work = Path(work)
        self.tap, self.start, self.want = tap.Tap(), time.time(), facts.workloads(wset)
        if not self.want:
            self.bail("no workload lines of set %s in facts.tsv" % wset)
        self.images, self.layout, self.cases, self.boots = {}, {}, [], {}
        self.kunit_off = {}
        if not shutil.which("gnuplot"):
            self.bail("gnuplot not found (apt-get install gnuplot-nox)")
        if self.replay:
            self.meta = dict(line.split("=", 1)
                             for line in (self.work / "meta").read_text().splitlines())
            self.commands = (self.work / "commands").read_text().splitlines()
            return
        self.meta = {"mode": "quick" if self.quick else "full",
                     "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "qemu": util.tool_version(["qemu-system-x86_64", "--version"]),
                     "gcc": util.tool_version(["gcc", "--version"]), "cpu": CPU}
        self.commands = ["make %s%s   # bench/%s.py, which runs:" % (
            prog, " QUICK=1" if self.quick else "", prog.replace("bench-", ""))]
        self.booted = set()  # the command lines whose boots --resume keeps
        if self.resume and (self.work / "commands").exists():
            self.booted = set((self.work / "commands").read_text().splitlines())
            old = dict(line.split("=", 1)
                       for line in (self.work / "meta").read_text().splitlines())
            self.meta["started"] = old.get("started", old["date"])
            return
        try:
            lists: Iterator[list[Any]] = map(list, zip(*map(cmd_workload, self.want)))
            self.want, cmd_programs = lists
            cmd_programs = [p for progs in cmd_programs for p in progs]
        except util.Error as e:
            self.bail(str(e))
        shutil.rmtree(self.work, ignore_errors=True)
        self.tools(self.work / "bin")
        (self.work / "run.sh").write_text("set -e\n. /bin/phases.sh\n%s\n" % LAYOUT_STEP +
                                          "".join(c + "\n" + (after_each and after_each + "\n")
                                                  for c in self.want))
        try:
            qemu.initramfs(self.work / "initramfs.cpio.gz",
                           [(self.work / "bin" / w, "/bin/" + w) for w in guest_programs()] +
                           [(ROOT / "bench/workloads/phases.sh", "/bin/phases.sh"),
                            (self.work / "run.sh", "/run.sh")] +
                           qemu.programs([p for p, in facts.rows("guest")] +
                                         [p for p in cmd_programs if p]))
        except util.Error as e:
            self.bail(str(e))

    def say(self, msg):
        print("[%s] %s" % (self.prog, msg), file=sys.stderr, flush=True)

    def bail(self, msg, diag=()):
        """A failure that ends the run: one failed test, the plan, exit 1."""
        self.tap(False, msg, diag)
        self.tap.plan()
        sys.exit(1)

    def tools(self, bin_dir):
        """The plugin and the guest programs, copied into bin_dir (a work dir
        keeps the binaries its boots ran) from build/cachesim, where make
        builds them once for every run (make check's cachesim-unit first)."""
        shared = ROOT / "build/cachesim"
        with util.locked(str(shared) + ".lock", "build in %s" % shared):
            self.make("bench/cachesim", "OUT=%s" % shared, "plugin", "workloads")
            bin_dir.mkdir(parents=True)
            for name in ["kcolour-cachesim.so"] + guest_programs():
                shutil.copy2(shared / name, bin_dir / name)

    def make(self, *args):
        if subprocess.run(["make", "-s", "-C", str(ROOT / args[0])] + list(args[1:]),
                          stdout=sys.stderr).returncode:
            self.bail("make -C %s failed" % " ".join(args))

    def image(self, key, name, fragments=None, like=None):
        """kernel.image(name), or of an ad hoc fragment list built in name's
        object dir, known to the report as KEY (test, base, sweep...); like:
        kernel.image()'s.  A smoke run takes QUICK_IMAGE for the bench image."""
        if self.replay:
            return None
        if self.quick and name == "bench" and fragments is None:
            name = QUICK_IMAGE
        self.commands.append("python3 -m harness image " + name + (
            " --fragments '%s'" % " ".join(fragments) if fragments else ""))
        try:
            img = self.images[key] = kernel.image(name, fragments, like=like)
        except util.Error as e:
            self.bail("image %s: %s" % (name, e))
        banner = re.search(rb"Linux version [ -~]+", (img.path / "vmlinux").read_bytes())
        assert banner is not None  # every vmlinux holds its "Linux version" banner
        self.meta.update({"banner_" + key: banner.group().decode(), "build_" + key: img.how,
                          "fragments_" + key: " ".join(
                              f + ".config" for f in fragments or facts.image_spec(name)[1])})
        # The report names addresses from it, a replay too.
        self.work.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(img.path / "System.map", self.system_map(key))
        # An image with KUnit built in (the test image) would run its suites
        # at every boot, under the simulator: kunit.enable=0.
        self.kunit_off[key] = "CONFIG_KUNIT=y" in (img.path / "config").read_text().split("\n")
        sym = {w[2]: w[0] for w in map(str.split, open(img.path / "System.map")) if len(w) == 3}
        self.layout[key] = "text=%s-%s,data=%s-%s" % (sym["_text"], sym["_etext"], sym["_etext"],
                                                      sym["_end"])
        return img

    def system_map(self, key):
        """Image KEY's System.map, as this run's work dir keeps it."""
        return self.work / (key + ".System.map")

    def boot(self, stage, cases, engine=None):
        """Boot every case (NAME, IMAGE KEY, KERNEL ARGS), --jobs at a time, and
        read each; a boot that fails ends the run."""
        if not self.replay:
            self.run_boots(stage, cases, engine)
        self.boots.update((c[0], Boot(self.work / c[0])) for c in cases)
        self.cases += cases

    def run_boots(self, stage, cases, engine):
        # Several vCPUs hang under -icount (bench/cachesim/README.md, SMP):
        # one TCG thread without it, on host time, so not repeatable.
        boots = [qemu.Boot(n, self.images[k], self.work / "initramfs.cpio.gz", self.work,
                           model=CPU if smp == 1 else CPU + ",-rdrand,-rdseed", smp=smp,
                           timeout=self.timeout,
                           args=self.kargs + ["kunit.enable=0"] * self.kunit_off[k] + a.split(),
                           deterministic=smp == 1, single_thread=smp > 1, plugin=",".join(
                               filter(None, [str(self.work / "bin/kcolour-cachesim.so"),
                                             self.layout[k], self.plugin_args,
                                             "between_phases=skip" if self.smoke else "",
                                             "out=%s" % (self.work / (n + ".txt"))] + [
                                             "%s=%s" % (t, table_path(self.work, n, t))
                                             for t in self.tables])))
                 for n, k, a, smp in (tuple(c) + (1,) * (4 - len(c)) for c in cases)]
        self.commands += [b.command() for b in boots]
        # Before the boots: a boot that fails ends the run, and --resume
        # then keeps the ones that finished.
        self.save(cases)
        kept = [b for b in boots if self.kept(b)]
        if self.booted and not kept and any(Path(str(b.file) + ".txt").exists() for b in boots):
            # Booting them again would delete the outputs the run before left.
            self.bail("%s: --resume (RESUME=1) matches none of the run before's boots (another "
                      "image, plugin or kernel arguments): run without it to boot them all" % stage)
        if kept:
            self.say("%s: --resume keeps %d boots of the run before" % (stage, len(kept)))
            boots = [b for b in boots if b not in kept]
        start = time.time()
        self.say("%s: %d boots: %s" % (stage, len(boots), ", ".join(b.name for b in boots)))
        for r in qemu.run(boots, jobs=self.jobs, engine=engine or self.pool):
            if not r.ok:
                self.bail("%s: boot %s failed (status %d, log %s.log)" % (
                    stage, r.boot.name, r.status, r.boot.file),
                          [line for line in r.errors.splitlines() if line.isprintable()][-10:])
        self.say("%s: %d boots in %ds" % (stage, len(boots), time.time() - start))

    def kept(self, boot):
        rc = Path(str(boot.file) + ".rc")
        return (boot.command() in self.booted and rc.exists() and
                rc.read_text().strip() == "0" and Path(str(boot.file) + ".txt").exists())

    def check_boots(self, names, extras=0):
        """Every phase of each boot present, complete, every cache/region line
        there (and the extra geometries), the workload lines in order."""
        for name in names:
            b, problems = self.boots[name], []
            if b.config.get("phases") != len(self.want):
                problems.append("%s phases, want %d" % (b.config.get("phases"), len(self.want)))
            for i in range(len(self.want)):
                head, counts = b.phases.get(i, ({}, {}))
                if head.get("complete") != 1:
                    problems.append("phase %d not complete" % i)
                missing = [(c, r) for c in CACHES for r in REGIONS if (c, r) not in counts]
                if missing:
                    problems.append("phase %d lacks %d cache/region lines" % (i, len(missing)))
            got, want = [wl for wl, _ in b.lines], [c.split()[0] for c in self.want]
            if got != want:
                problems.append("workload lines %s, want %s" % (got, want))
            geoms = {c for i in b.phases for c, _ in b.phases[i][1]} - set(CACHES)
            if len(geoms) != extras:
                problems.append("%d extra geometries, want %d" % (len(geoms), extras))
            self.tap(not problems, "%s: every phase present and complete (%d)%s%s" % (
                name, len(self.want), ", %d extra geometries" % extras if extras else "",
                ": " + "; ".join(problems) if problems else ""))
        return not self.tap.failed

    def save(self, cases=()):
        """cases, commands and meta into the work dir: what --resume and
        --report-only read (cases: the boots about to run, not yet in self.cases)."""
        for f, text in (("cases", "".join(" ".join(map(str, c)) + "\n"
                                          for c in list(self.cases) + list(cases))),
                        ("commands", "\n".join(self.commands) + "\n"),
                        ("meta", "".join("%s=%s\n" % kv for kv in self.meta.items()))):
            (self.work / f).write_text(text)

    def finish(self, report, results):
        """cases, commands and meta into the work dir, the report, the plan."""
        self.save()
        if report:
            Path(results).mkdir(parents=True, exist_ok=True)
            del WRITTEN[:]
            report.save(Path(results))
            if not self.replay and not self.quick:
                pages = [p for p in WRITTEN if p.parent.resolve() == results_mod.RESULTS]
                for page in results_mod.record(pages):
                    self.say("docs/results/runs.tsv: %s is a new run" % page)
            self.say("report: %s (%ds in all)" % (str(results).replace(str(ROOT) + "/", ""),
                                                  time.time() - self.start))
        return self.tap.plan()


class Doc:
    """A markdown report, of a Run's boots if given; a subclass gives .names,
    the cases (the first one's phases are the layout of every boot's)."""

    names: list[str]  # set by each subclass

    def __init__(self, run=None):
        self.run, self.out = run, []
        self.work, self.meta, self.boots = (run.work, run.meta, run.boots) if run else \
            (None, {}, {})

    def w(self, line=""):
        """One line; a line wrapped in the source joins with single spaces."""
        self.out.append(re.sub(r"\s*\n\s*", " ", line))

    def md(self, text, *args):
        """Paragraphs (headings too) written in the source, split by blank lines,
        each a line and a blank line; text % args where there are args."""
        for par in re.split(r"\n\s*\n", (text % args if args else text).strip()):
            self.w(par.strip())
            self.w()

    def table(self, head, rows, align=None):
        """align: a letter a column, l or r (default: the first l, the rest r)."""
        align = align or "l" + "r" * (len(head) - 1)
        self.w("| " + " | ".join(head) + " |")
        self.w("|" + "".join("---:|" if a == "r" else "---|" for a in align))
        for r in rows:
            self.w("| " + " | ".join(str(x) for x in r) + " |")
        self.w()

    def code(self, text):
        self.out += ["```", text.rstrip("\n"), "```", ""]

    def commands(self, lines):
        """The run's command lines, last, where they do not stand between a
        reader and the results."""
        self.md("""## Appendix: the commands

            Paths relative to the project top:""")
        self.code("\n".join(lines).replace(str(ROOT) + "/", ""))

    def ring_ns(self):
        return [p.info["tasks"] for p in self.boots[self.names[0]].of("ring")]

    def miss(self, name, event, cache="L1D", region="all", kind="sa_miss"):
        """A case's misses per event at ring N (an int) or of a workload."""
        return self.boots[name].event(event).rate(cache, region, kind)

    def ring_plot(self, png, dat, title, ylabel, series, head=""):
        """A plot against the ring's N of series (title, gnuplot style, [value an N])."""
        ns = self.ring_ns()
        Path(dat).write_text(head + "".join("%d %s\n" % (n, " ".join("%.4f" % s[2][i]
                                                                    for s in series))
                                            for i, n in enumerate(ns)))
        plot_png(png, title, "tasks in the ring (N)", ylabel, ns, 1.15,
                 ["'%s' using 1:%d with %s title '%s'" % (dat, 2 + i, style, t)
                  for i, (t, style, _) in enumerate(series)])

    def write_md(self, path):
        Path(path).write_text("\n".join(self.out) + "\n")
        WRITTEN.append(Path(path))


def gnuplot_str(text):
    """TEXT as a gnuplot '' string, whose quote is written twice."""
    return "'%s'" % str(text).replace("'", "''")


def plot_png(png, title, xlabel, ylabel, xs, pad, plots, extra=()):
    """A PNG plot (gnuplot): on a log2 x axis with a tick at each of xs, or
    where xs is None on the axis that the extra set commands give."""
    axis = ["set logscale x 2", "set xrange [%g:%g]" % (min(xs) / pad, max(xs) * pad),
            "set xtics (%s)" % ", ".join(str(x) for x in xs)] if xs else []
    script = "\n".join([
        "set terminal pngcairo size 900,560 font ',11'", "set output %s" % gnuplot_str(png),
        "set title " + gnuplot_str(title), "set xlabel " + gnuplot_str(xlabel),
        "set ylabel " + gnuplot_str(ylabel)] +
        axis + ["set yrange [0:*]", "set grid", "set key outside right top"] + list(extra) +
        ["plot " + ", ".join(plots)])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


class Spread:
    """The median and the range of one figure over a case's layouts."""

    def __init__(self, values):
        self.values = sorted(values)
        self.median, self.lo, self.hi = statistics.median(values), self.values[0], \
            self.values[-1]

    def __str__(self):
        if self.lo == self.hi:
            return fmt(self.median)
        return "%s [%s&ndash;%s]" % (fmt(self.median), fmt(self.lo), fmt(self.hi))


def net(boot):
    """A boot's Phases, each web phase less the boot's one-request web phase
    (ab's exec and start-up, inside every web window) where there is one."""
    start = [q for q in boot if q.start_up]
    return [p.minus(start[0]) if p.workload == "web" and start and p is not start[0] else p
            for p in boot]


def pct(new, old):
    return 100.0 * (new - old) / old if old else float("nan")


def fmt(x):
    """Per-event figures: 3 significant digits, at least 2 decimals below 10."""
    return "%.0f" % x if abs(x) >= 1000 else "%.1f" % x if abs(x) >= 10 else "%.2f" % x
