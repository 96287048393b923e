"""A bench run, shared by every experiment (python3 -m bench
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
REPORT_ONLY=1, WORK=DIR, JOBS=N turn into them: mk/bench.mk).  The boots'
files are read back as data by data.py; the page is report.py's.

A run of an experiment that keeps a record (Run(record=NAME)) copies, when
it is whole and full, what its page is computed from into
docs/results/data/NAME/ (keep(), bench/lib/record.py): a work dir of its
own, which --report-only reads and python3 -m bench reports holds each
committed page to.
"""

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from bench.lib import record as record_mod
from bench.lib.data import CACHES, REGIONS, Boot
from bench.lib.guest import cmd_workload, guest_programs
from bench.lib.report import WRITTEN, make_vars
from harness import facts, kernel, qemu, tap, util
from harness import results as results_mod

ROOT = facts.ROOT
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
# A boot's timeout: a smoke run's boots end in a minute or two, a full run's
# in under half an hour (TCG, -icount); past it the boot failed.
TIMEOUT, QUICK_TIMEOUT = 3600, 900
# Each boot's first step: the seeded allocations of layout.c, the seed read
# from the kernel command line (bench_layout=S; unknown to the kernel, which
# hands it on to init).
LAYOUT_STEP = "seed=$(sed -n 's/.*bench_layout=\\([0-9]*\\).*/\\1/p' /proc/cmdline)\n" \
    "layout \"${seed:-0}\""


def rel(path) -> str:
    """A path as a page or a progress line names it: from the top of the tree."""
    return str(path).replace(str(ROOT) + "/", "")


def table_path(work: Path, name: str, option: str) -> Path:
    """Where a boot's plugin writes the file of one of its PATH options
    (conflicts, text_conflicts, l2_conflicts, profile)."""
    return work / ("%s.%s" % (name, option.replace("_", "-")))


def options(quick=True):
    """The flags every bench tool shares, an argparse parent parser: its
    parse gives Run's replay=, resume=, work= and jobs= (run_args())."""
    p = argparse.ArgumentParser(add_help=False, parents=[record_mod.replay_options()])
    if quick:
        p.add_argument("--quick", action="store_true",
                       help="the smoke run (make check's): fewer cases and layouts, results "
                       "in build/bench/NAME-quick, docs/ not touched")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in the work dir: boot only what it lacks")
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


def boot_name(case, layout):
    """A case's boot in user-space layout N (bench_layout=N): CASE.LN."""
    return "%s.L%d" % (case, layout)


def layout_boots(cases, layouts, image):
    """(NAME.LN, IMAGE, kernel arguments) of each case (NAME, ARGS) in each
    user-space layout N (bench_layout=N): a case's boots, layout by layout."""
    return [(boot_name(c, lay), image, ("%s bench_layout=%d" % (a, lay)).strip())
            for c, a in cases for lay in layouts]


def run_args(a):
    """Run's keyword arguments from options()' parse (quick= False where the
    tool has no --quick)."""
    return {"quick": getattr(a, "quick", False), "replay": a.report_only, "resume": a.resume,
            "jobs": a.jobs, "pool": a.pool, "out": a.out}


class Run:
    """One run: the tools, the initramfs, the images, the boots, the TAP."""

    def __init__(self, prog, wset, work, timeout=None, plugin_args="", after_each="",
                 tables=(), replay=False, resume=False, jobs=2, pool="builtin", smoke=None,
                 out=None, record=None, record_tables=True, series="colour", quick=None,
                 command=None):
        """quick: the smoke run (--quick: no record, the page in the work
        dir; default: WSET is a quick subset, facts.tsv's NAME-quick, for
        callers without run_args(), the frozen falign/decision.py);
        timeout: a boot's (default TIMEOUT, a smoke run's QUICK_TIMEOUT);
        after_each: a guest command run after every workload (outside its
        window); tables: the plugin's PATH options each boot writes a file of
        (table_path(): conflicts, text_conflicts, profile); replay: the work
        dir's boots, no new ones (--report-only); resume: boot only what the
        work dir lacks (--resume); jobs: boots at a time (--jobs); pool: the job
        pool that runs them (--pool); smoke: boot fast (default: a quick run),
        False to keep a quick run on the full runs' path; out: where the
        page goes (--out) instead of finish()'s results; record: the name of
        the record a whole full run keeps (RECORDS/NAME, keep()), with the
        tables' files unless record_tables is False (the experiment keeps
        what it reads of them in record_files); series: the series the run
        measures (its pages' rows in runs.tsv name its version first);
        command: the make command the commands file begins with, before
        the command line it ran (default make PROG, QUICK=1 for a quick
        run).  A replay of a record writes nothing into it."""
        self.prog, self.plugin_args = prog, plugin_args
        self.quick = wset.endswith("-quick") if quick is None else bool(quick)
        self.timeout = (QUICK_TIMEOUT if self.quick else TIMEOUT) if timeout is None else timeout
        self.tables, self.jobs, self.pool, self.out = tables, jobs, pool, out
        # Where this run's files are kept for good: a full run's record.
        self.record_dir = record_mod.RECORDS / record if record and not self.quick else None
        self.kept_record = False    # keep() wrote the record
        self.record_files: list[str] = []   # an experiment's own files a record keeps
        self.record_tables = record_tables
        self.series = series
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
            self.say("--report-only: reading %s" % rel(self.work))
            argv = self.work / "argv"
            if argv.exists() and record_mod.ARGV and argv.read_text().splitlines() != \
                    record_mod.record_argv(options()):
                self.say("warning: the record was written by python3 -m %s; these flags "
                         "differ" % " ".join(argv.read_text().split()))
            self.meta = dict(line.split("=", 1)
                             for line in (self.work / "meta").read_text().splitlines())
            self.commands = (self.work / "commands").read_text().splitlines()
            return
        self.meta = {"mode": "quick" if self.quick else "full",
                     "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "qemu": util.tool_version(["qemu-system-x86_64", "--version"]),
                     "gcc": util.tool_version(["gcc", "--version"]), "cpu": CPU}
        command = command or "make " + prog + make_vars([("QUICK", 1 if self.quick else None)])
        self.commands = ["%s   # %s, which runs:" % (command, record_mod.command_line())]
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

    def console(self, name: str) -> str:
        """Boot NAME's console, as this run's work dir keeps it."""
        return (self.work / (name + ".log")).read_text(errors="replace")

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

    def booted_cases(self, cases, layout, optional):
        """Of cases (NAME, ARGS), those this run boots: every one, but in a
        replay only those its record booted (in layout N), so that a page
        written again from an older record shows what that run booted.  Only
        a case optional(NAME) allows may be missing from the record."""
        if not self.replay:
            return cases
        held = {line.split(" ", 1)[0] for line in (self.work / "cases").read_text().splitlines()}
        missing = [c for c, _ in cases if boot_name(c, layout) not in held]
        if not all(map(optional, missing)):
            self.bail("the record has no boot of %s" % ", ".join(
                c for c in missing if not optional(c)))
        return [c for c in cases if c[0] not in missing]

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

    def finish(self, report, results=None, whole=True):
        """cases, commands and meta into the work dir (not a replay's), the
        report into results (default: docs/results, a smoke run's its work
        dir), the plan; a whole run (not whole: it booted only part of
        what its page shows) keeps its record (keep()), and its pages in
        docs/results/runs.tsv as new runs (results.record())."""
        if not self.replay:
            self.save()
        results = self.out or results or (self.work if self.quick else results_mod.RESULTS)
        # The record first: a report that fails leaves it, for --report-only.
        if report and whole and self.record_dir and not self.replay and not self.out:
            self.keep()
        if report:
            Path(results).mkdir(parents=True, exist_ok=True)
            del WRITTEN[:]
            report.save(Path(results))
            written = sorted({p.name for p in WRITTEN
                              if p.parent.resolve() == Path(results).resolve()})
            if self.kept_record:
                # What the page is: the files it wrote, which reports holds.
                (self.record_dir / "pages").write_text("".join(f + "\n" for f in written))
            pages = [p for p in WRITTEN if p.suffix == ".md" and
                     p.parent.resolve() == results_mod.RESULTS]
            if pages and not whole:
                self.say("docs/results/runs.tsv: not recorded, a partial run (its page mixes "
                         "this run's boots with earlier ones): run every layout, or record "
                         "it with python3 -m scripts.check_figures --record")
            elif not self.replay and not self.quick:
                for page in results_mod.record(pages, first=self.series):
                    self.say("docs/results/runs.tsv: %s is a new run" % page)
            self.say("report: %s (%ds in all)" % (rel(results), time.time() - self.start))
        return self.tap.plan()

    def keep(self):
        """The run's record (bench/lib/record.py: RECORDS/NAME), what
        --report-only reads: cases, meta, commands, run.sh, each boot's plugin
        output, console and tables (record.write(), with argv: what writes the
        page); then, from finish(), pages (the files the page is)."""
        assert self.record_dir is not None
        names = [c[0] for c in self.cases]
        files = ["cases", "meta", "commands", "run.sh"] + [
            n + s for n in names for s in (".txt", ".log")] + [
            table_path(self.work, n, t).name for n in names for t in self.tables
            if self.record_tables] + self.record_files
        record_mod.write(self.record_dir, self.work, files, record_mod.record_argv(options()))
        self.kept_record = True
        self.say("record: %s (%d files)" % (rel(self.record_dir), len(files)))

    def where(self):
        """Where a page says this run's files are: its record, relative to
        docs/results (data/NAME/), when this run kept it or reads it; else
        the work dir, relative to the top."""
        return record_mod.where(self.record_dir if self.kept_record else self.work)
