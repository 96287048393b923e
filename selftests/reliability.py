"""Reliability under a syscall fuzzer and fork storms (make check: reduced,
on the test image; make check-full: full, on the KASAN + lockdep image).

  trinity  Debian's trinity as an unprivileged user, 2 children, a fixed
           seed and a fixed number of syscalls, on the KASAN + lockdep image
           at -smp 2: colouring off, the defaults, and task_struct colouring
           with the largest budget (check: that one only, fewer syscalls,
           on the test image)
  storm    stress-ng --fork --vfork --clone --exec --pthread as an
           unprivileged user in a pids cgroup whose pids.max makes forks
           fail, at -smp 4 on the same image, while the sysctl flips every
           100 ms and CPUs 1..3 go offline and online in turn
  memory   (full only) the kernel's stack and slab memory with 10,000 live
           threads, colouring off, on, and on with task_struct colouring,
           on the test image with 2 GiB

Each boot passes when its part ran to the end, the console has no BUG,
WARNING, Oops, KASAN or lockdep report, the per-colour live counts equal
the colours the task listing shows (under the balanced policy, the only
one that keeps counts; under the others debugfs shows none), and the
guest powers off.  TAP on
stdout; the figures also in build/reliability/figures.txt.

--publish (make reliability PUBLISH=1, the check set) keeps the boots'
consoles in docs/results/data/reliability/ and writes
docs/results/reliability.md from them; --report-only judges a record's
consoles again and writes the page (python3 -m bench reports does).

usage: python3 -m selftests.reliability [check|full|memory] [--publish]
           [--report-only] [--work DIR] [--out DIR]   (memory: its memory boots alone)
       (from the top of the tree, not by its path)
"""
import argparse
import functools
import re
import subprocess
import sys
import time
import types
from pathlib import Path

from bench.lib import record
from harness import facts, kernel, qemu, results, tap, util

HERE = Path(__file__).resolve().parent
OUT = util.BUILD / "reliability"
SEED = 42
# The largest stack budget (KCOLOUR_MAX_OFFSET_LIMIT) with randomize_kstack_offset
# on top: the deepest stack these boots see is the stack budget's evidence.
# KUnit stays off in them: its stack-depth case digs to 1 KiB of the end on
# purpose, and CONFIG_DEBUG_STACK_USAGE reports only a new deepest.  The
# balanced policy, the only one that counts live tasks, so that the storm's
# forks, exits and hotplug are checked against its counts.
LARGEST = "kstack_colour=on,task=on,max_offset=4096,policy=balanced randomize_kstack_offset=on"
# Where the kernel keeps live counts (debugfs "live:"): under balanced only.
COUNTED = "policy=balanced"
NO_KUNIT = "kunit.enable=0"
# (name, image, smp, mem, kernel args, part, size): the boots of each set.
FULL = [("trinity-off", "debug", 2, "1G", "kstack_colour=off", "trinity", 100000),
        ("trinity-defaults", "debug", 2, "1G", "kstack_colour=on", "trinity", 100000),
        ("trinity-largest", "debug", 2, "1G", LARGEST, "trinity", 100000),
        ("storm", "debug", 4, "1G", LARGEST, "storm", 120),
        ("memory-off", "test", 1, "2G", "kstack_colour=off", "memory", 10000),
        ("memory-on", "test", 1, "2G", "kstack_colour=on", "memory", 10000),
        ("memory-task", "test", 1, "2G", "kstack_colour=on,task=on", "memory", 10000)]
# make check's pass runs on the test image: the KASAN + lockdep build costs a
# quarter of an hour on 2 cores from an empty cache, which is full's.
CHECK = [("trinity-largest", "test", 2, "1G", LARGEST, "trinity", 3000),
         ("storm", "test", 4, "1G", LARGEST, "storm", 30)]
SETS = {"check": CHECK, "full": FULL, "memory": [c for c in FULL if c[5] == "memory"]}
SIZE_ARG = {"trinity": "n", "storm": "secs", "memory": "n"}
# The page and its record (--publish): docs/results/NAME.md, RECORDS/NAME.
NAME = "reliability"
# What the deepest stack must leave unused: the KUnit stack-depth case's margin.
STACK_MARGIN = 1024


def deepest_stack(console):
    """(bytes left, task) of the deepest stack, from CONFIG_DEBUG_STACK_USAGE's
    "TASK (PID) used greatest stack depth: N bytes left" lines (printed at a
    task's exit when it is a new deepest; the guest prints them all again at
    the end, from dmesg); None without any.  A figure whose task name does
    not parse (trinity renames its children at random) still counts, as "?"."""
    seen = [(int(n), re.sub(r"[^\w.:/-]", "?", task) or "?") for task, n in re.findall(
        r"(?:(\S*) \(\d+\) )?used greatest stack depth: (\d+) bytes left", console)]
    return min(seen) if seen else None


say = functools.partial(qemu.say, "reliability")


def initramfs():
    bindir = OUT / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    for prog in ("threads", "colour-counts"):
        subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-static", "-pthread", "-o",
                        str(bindir / prog), str(HERE / (prog + ".c"))], check=True)
    files = [(HERE / "reliability-guest.sh", "/run.sh"), (bindir, "/bin")]
    return qemu.initramfs(OUT / "initramfs.cpio.gz", files + qemu.programs(
        ["/usr/bin/trinity", "/usr/bin/stress-ng"]))


def figures(part, console):
    """What one boot's console says: its kernel reports, live counts, tasks
    after, deepest stack, and its part's own lines (TRINITY, STORM, MEM)."""
    f = {"splats": [line for line in console.replace("\r", "").splitlines()
                    if qemu.SPLAT.search(line)],
         "counts": re.findall(r"^COUNTS (\S+) (\S+)", console, re.M),
         "tasks": (re.findall(r"^TASKS (\d+)$", console, re.M) or ["?"])[-1],
         "deepest": deepest_stack(console)}
    if part == "trinity":
        m = re.search(r"^TRINITY rc=(\d+) secs=(\d+)$", console, re.M)
        f["rc"], f["secs"] = m.groups() if m else ("none", "?")
        f["ran"] = (re.findall(r"Ran (\d+) syscalls", console) or [None])[-1]
    elif part == "storm":
        m = re.search(r"^STORM rc=(\d+) secs=(\d+) failed_forks=(\d*) flips=(\d*) "
                      r"hotplugs=(\d*) cpus=(\S+)$", console, re.M)
        f.update(zip(("rc", "secs", "refused", "flips", "hotplugs", "cpus"),
                     m.groups() if m else ("?",) * 6))
        # stress-ng exits 2 ("a stressor failed") when a stressor could not
        # make its children: pids.max refuses them on purpose.  That is the
        # storm's doing where no stressor printed a "fail:" line.
        f["failed"] = re.findall(r"^# stress-ng: .*\bfail: .*$", console, re.M)
        f["cgroups"] = re.search(r"^STORM cgroups before (\w+) after (\w+)$", console, re.M)
        f["bogo"] = re.findall(r"\] (fork|vfork|clone|exec|pthread) +(\d+) +[\d.]+ +[\d.]+",
                               console)
    else:
        f["mem"] = dict(re.findall(r"^MEM (\w+) (.*)$", console, re.M))
        f["threads"] = (re.findall(r"^THREADS (\d+)$", console, re.M) or [None])[-1]
    return f


def judge(t, name, part, size, args, r):
    """TAP lines for one boot; returns its figures (figures()) and its line."""
    f = figures(part, r.console)
    t(not f["splats"], "%s: no BUG, WARNING, Oops, KASAN or lockdep report" % name,
      diag=f["splats"][:5])
    counts = f["counts"]
    shown = ", ".join("%s %s" % c for c in counts) or "no COUNTS line"
    if COUNTED in args:
        t(counts and all(c[1] == "match" for c in counts),
          "%s: the per-colour live counts equal the task listing (%s)" % (name, shown))
    else:
        t(counts and all(c[1] == "none" for c in counts),
          "%s: no live counts in debugfs, which only balanced keeps (%s)" % (name, shown))
    t(r.ok, "%s: the guest ran its part and powered off (exit %d, %ss, console %s.log)"
      % (name, r.status, r.seconds, r.boot.file))
    deepest = f["deepest"][0] if f["deepest"] else None
    t(deepest is not None and deepest >= STACK_MARGIN, "%s: the deepest stack "
      "(CONFIG_DEBUG_STACK_USAGE) left %s bytes unused, at least %d" % (name, deepest, STACK_MARGIN))
    splats = len(f["splats"])
    if part == "trinity":
        t(f["rc"] == "0" and f["ran"] and int(f["ran"]) >= size,
          "%s: trinity ran %s syscalls of %d (rc %s)" % (name, f["ran"] or "no", size, f["rc"]))
        return f, "%s: %s syscalls in %ss, %d splats, deepest stack %s bytes left" % (
            name, f["ran"] or "?", f["secs"], splats, deepest)
    if part == "storm":
        rc = f["rc"]
        t((rc == "0" or rc == "2" and not f["failed"]) and
          all(f[k].isdigit() and int(f[k]) > 0 for k in ("refused", "flips", "hotplugs")) and
          f["cpus"] == "0-3", "%s: stress-ng ran %ss (exit %s%s): %s forks refused by pids.max, "
          "the sysctl turned off and on %s times, %s CPU hotplugs, CPUs %s online after" % (
              name, f["secs"], rc, ", children refused, no fail: line" if rc == "2" else "",
              f["refused"], f["flips"], f["hotplugs"], f["cpus"]), f["failed"][:5])
        cg = f["cgroups"]
        t(cg and cg.group(1) == cg.group(2), "%s: the cgroup tree is left as found (%s)" % (
            name, "%s, %s" % cg.groups() if cg else "no state"))
        return f, "%s: %ss, %s forks refused, %s flips, %s hotplugs; bogo ops %s; %d splats, " \
            "%s tasks after, deepest stack %s bytes left" % (
                name, f["secs"], f["refused"], f["flips"], f["hotplugs"],
                " ".join("%s %s" % b for b in f["bogo"]) or "none", splats, f["tasks"], deepest)
    mem, threads = f["mem"], f["threads"]
    t(threads and int(threads) > size and "with" in mem,
      "%s: %s threads live while measured" % (name, threads or "no"))
    return f, "%s: before %s | with %s threads %s" % (name, mem.get("before"), size,
                                                       mem.get("with"))


def what_ran(part, f):
    """A page's "what ran" cell of one boot."""
    if part == "trinity":
        return "%s syscalls as nobody in %s s" % (f["ran"], f["secs"])
    if part == "storm":
        return "stress-ng for %s s: %s forks refused by pids.max, %s sysctl off/on rounds, " \
            "%s CPU hotplugs" % (f["secs"], f["refused"], f["flips"], f["hotplugs"])
    return "%s threads live" % f["threads"]


# What a page reads of a run's meta (main() writes it).
META_KEYS = ("date", "images", "built", "cpu", "qemu", "stack")


def page(which, cases, figs, meta, where):
    """docs/results/reliability.md of a set's boots, their figures, and the
    run's meta (META_KEYS, and args.NAME: each boot's kernel arguments)."""
    stack = int(meta["stack"])
    rows = []
    for (name, image, smp, mem, args, part, size), f in zip(cases, figs):
        counts = [c[1] for c in f["counts"]]
        rows.append("| %s (-smp %d) | %s | %d | %s | %s |" % (
            name, smp, what_ran(part, f), len(f["splats"]),
            "equal" if counts and set(counts) == {"match"} else ", ".join(counts) or "none",
            f["deepest"][0] if f["deepest"] else "none"))
    deepest = ["%s: `%s`, %d bytes left, %d used" % (name, f["deepest"][1], f["deepest"][0],
                                                      stack - f["deepest"][0])
               for (name, *_), f in zip(cases, figs) if f["deepest"]]
    args = sorted({meta["args." + c[0]] for c in cases})
    return "\n".join([
        "# Reliability and the stack budget", "",
        "Generated by `make reliability SET=%s PUBLISH=1` (selftests/reliability.py) on %s, "
        "on the %s image (%s), %s TCG, -cpu %s.  The boots' consoles: `%s` "
        "(`REPORT_ONLY=1` judges them again and writes this page from them).  %s: `%s` "
        "(KUnit off: its stack-depth case digs to 1 KiB of the end on purpose)." % (
            which, meta["date"], meta["images"], meta["built"], meta["qemu"], meta["cpu"],
            where, "Every boot runs with the largest stack budget, the cap, and "
            "`randomize_kstack_offset` on top" if len(args) == 1 and LARGEST in args[0]
            else "The boots' arguments", "`, `".join(args)), "",
        "| boot | what ran | splats | live counts | deepest stack: bytes left of %d |"
        % stack, "| --- | --- | --- | --- | --- |"] + rows + ["",
        "The deepest stack of each boot, with a task that reached it, the colour offset and "
        "the random offset included: %s.  The kernel prints a figure at a task's exit when "
        "it is the deepest yet (`CONFIG_DEBUG_STACK_USAGE`), and the guest prints every such "
        "line from dmesg at the end of its part, so the figure covers every task that exited "
        "during the boot (not those still running then).  The cap, 4096 bytes of colour "
        "offset plus up to 1008 of random offset, leaves the rest of the stack above that "
        "deepest path.  The make check pass fails a boot whose deepest stack leaves less "
        "than %d bytes." % (
            "; ".join(deepest) or "none printed", STACK_MARGIN), ""])


def replayed(work, name):
    """A boot's result (qemu.Result) from the files a run left: its console,
    status and seconds; util.Error names a file that is not a number."""
    for ext in (".rc", ".secs"):
        f = work / (name + ext)
        if f.exists() and not f.read_text().strip().lstrip("-").isdigit():
            raise util.Error("%s: not a number: %r" % (f, f.read_text()[:20]))
    return qemu.Result(types.SimpleNamespace(name=name, file=work / name))


def stack_size(image):
    """x86_64's THREAD_SIZE in an image: 16 KiB, doubled under KASAN
    (arch/x86/include/asm/page_64_types.h, KASAN_STACK_ORDER)."""
    return 16384 << ("CONFIG_KASAN=y" in (image.path / "config").read_text().splitlines())


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m selftests.reliability", description=__doc__,
                                parents=[record.replay_options()],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("set", nargs="?", default="check", choices=SETS,
                   help="check (make check's), full or memory (its memory boots alone)")
    p.add_argument("--publish", action="store_true",
                   help="keep the boots' consoles in docs/results/data/reliability/ and write "
                   "docs/results/reliability.md from them (make's PUBLISH=1)")
    opts = p.parse_args(argv)
    if opts.publish and opts.report_only:
        p.error("--publish boots and keeps a record; --report-only reads one: not both")
    if (opts.publish or opts.report_only) and opts.set != "check":
        p.error("--publish, --report-only: the page is of the check set, make check's")
    if opts.work and not opts.report_only:
        p.error("--work: the dir --report-only reads (a run's boots go to build/reliability)")
    if opts.out and not (opts.publish or opts.report_only):
        p.error("--out: where --publish's or --report-only's page goes")
    cases = SETS[opts.set]
    t = tap.Tap()
    names = [c[0] for c in cases]
    work = opts.work or (record.RECORDS / NAME if opts.report_only else OUT)
    if not opts.report_only:
        try:
            images = {i: kernel.image(i) for i in dict.fromkeys(c[1] for c in cases)}
            rootfs = initramfs()
        except (util.Error, subprocess.CalledProcessError) as e:
            t(False, "the images and the guest's programs build: %s" % e)
            return t.plan()
        boots = [qemu.Boot(name, images[image], rootfs, OUT, smp=smp, mem=mem, timeout=5400,
                           args=[args, NO_KUNIT, "kcolour.rel=%s" % part, "kcolour.seed=%d" % SEED,
                                 "kcolour.%s=%d" % (SIZE_ARG[part], size)])
                 for name, image, smp, mem, args, part, size in cases]
        say("%d boots: %s" % (len(boots), ", ".join(b.name for b in boots)))
        qemu.run(boots)
        (OUT / "meta").write_text("".join("%s=%s\n" % kv for kv in [
            ("date", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
            ("images", ", ".join(images)),
            ("built", "; ".join(img.how for img in images.values())),
            ("cpu", boots[0].model),
            ("qemu", util.tool_version(["qemu-system-x86_64", "--version"])),
            ("stack", min(stack_size(img) for img in images.values()))] +
            [("args." + c[0], "%s %s" % (c[4], NO_KUNIT)) for c in cases]))
    elif not all((work / (n + ".log")).exists() for n in names):
        t(False, "%s holds the consoles of set %s (%s)" % (work, opts.set, ", ".join(names)))
        return t.plan()
    try:
        judged = [judge(t, c[0], c[5], c[6], c[4], replayed(work, c[0])) for c in cases]
    except util.Error as e:
        t(False, "the boots' files: %s" % e)
        return t.plan()
    if not opts.report_only:
        (OUT / "figures.txt").write_text("".join(line + "\n" for _, line in judged))
    for _, line in judged:
        t.diag(line)
    if not (opts.publish or opts.report_only):
        return t.plan()
    if t.failed:
        say("no page: a check failed (docs/results/%s.md and its record as they were)" % NAME)
        return t.plan()
    try:
        meta = record.read_meta(work / "meta", META_KEYS + tuple("args." + n for n in names))
        if opts.publish and not opts.out:
            # What was judged is what the record keeps and the page says.
            (OUT / "commands").write_text((OUT / ("jobs-%s.txt" % names[0])).read_text())
            work = record.keep_page(NAME, OUT, [n + ext for n in names
                                                for ext in (".log", ".rc", ".secs")] +
                                    ["meta", "commands"], ["selftests.reliability", opts.set])
        md = page(opts.set, cases, [f for f, _ in judged], meta, record.where(work))
    except (util.Error, OSError, ValueError) as e:
        t(False, "the page from %s: %s" % (work, e))
        return t.plan()
    out = opts.out or facts.ROOT / "docs/results"
    out.mkdir(parents=True, exist_ok=True)
    (out / (NAME + ".md")).write_text(md)
    if opts.publish and not opts.out:
        results.record([out / (NAME + ".md")])
    say("wrote %s" % (out / (NAME + ".md")))
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
