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

usage: python3 -m selftests.reliability [check|full|memory]  (memory: its memory boots alone)
       (from the top of the tree, not by its path)
"""
import functools
import re
import subprocess
import sys
from pathlib import Path

from harness import kernel, qemu, tap, util

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
SIZE_ARG = {"trinity": "n", "storm": "secs", "memory": "n"}
# What the deepest stack must leave unused: the KUnit stack-depth case's margin.
STACK_MARGIN = 1024


def stack_left(console):
    """The fewest bytes of a stack left unused, from CONFIG_DEBUG_STACK_USAGE's
    "used greatest stack depth: N bytes left" lines; None without any."""
    left = [int(n) for n in re.findall(r"used greatest stack depth: (\d+) bytes left", console)]
    return min(left) if left else None


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


def judge(t, name, part, size, args, r):
    """TAP lines for one boot; returns its figure line."""
    lines = r.console.replace("\r", "").splitlines()
    splats = [l for l in lines if qemu.SPLAT.search(l)]
    t(not splats, "%s: no BUG, WARNING, Oops, KASAN or lockdep report" % name,
      diag=splats[:5])
    counts = re.findall(r"^COUNTS (\S+) (\S+)", r.console, re.M)
    shown = ", ".join("%s %s" % c for c in counts) or "no COUNTS line"
    if COUNTED in args:
        t(counts and all(c[1] == "match" for c in counts),
          "%s: the per-colour live counts equal the task listing (%s)" % (name, shown))
    else:
        t(counts and all(c[1] == "none" for c in counts),
          "%s: no live counts in debugfs, which only balanced keeps (%s)" % (name, shown))
    t(r.ok, "%s: the guest ran its part and powered off (exit %d, %ss, console %s.log)"
      % (name, r.status, r.seconds, r.boot.file))
    tasks = re.search(r"^TASKS (\d+)$", r.console, re.M)
    deepest = stack_left(r.console)
    t(deepest is not None and deepest >= STACK_MARGIN, "%s: the deepest stack "
      "(CONFIG_DEBUG_STACK_USAGE) left %s bytes unused, at least %d" % (name, deepest, STACK_MARGIN))
    if part == "trinity":
        m = re.search(r"^TRINITY rc=(\d+) secs=(\d+)$", r.console, re.M)
        ran = re.findall(r"Ran (\d+) syscalls", r.console)
        t(m and m.group(1) == "0" and ran and int(ran[-1]) >= size,
          "%s: trinity ran %s syscalls of %d (rc %s)" % (
              name, ran[-1] if ran else "no", size, m.group(1) if m else "none"))
        return "%s: %s syscalls in %ss, %d splats, deepest stack %s bytes left" % (
            name, ran[-1] if ran else "?", m.group(2) if m else "?", len(splats), deepest)
    if part == "storm":
        m = re.search(r"^STORM rc=(\d+) secs=(\d+) failed_forks=(\d*) flips=(\d*) "
                      r"hotplugs=(\d*) cpus=(\S+)$", r.console, re.M)
        rc, secs, refused, flips, hotplugs, cpus = m.groups() if m else ("?",) * 6
        # stress-ng exits 2 ("a stressor failed") when a stressor could not
        # make its children: pids.max refuses them on purpose.  That is the
        # storm's doing where no stressor printed a "fail:" line.
        failed = re.findall(r"^# stress-ng: .*\bfail: .*$", r.console, re.M)
        t((rc == "0" or rc == "2" and not failed) and
          all(x.isdigit() and int(x) > 0 for x in (refused, flips, hotplugs)) and
          cpus == "0-3", "%s: stress-ng ran %ss (exit %s%s): %s forks refused by pids.max, the "
          "sysctl turned off and on %s times, %s CPU hotplugs, CPUs %s online after" % (
              name, secs, rc, ", children refused, no fail: line" if rc == "2" else "",
              refused, flips, hotplugs, cpus), failed[:5])
        cg = re.search(r"^STORM cgroups before (\w+) after (\w+)$", r.console, re.M)
        t(cg and cg.group(1) == cg.group(2), "%s: the cgroup tree is left as found (%s)" % (
            name, "%s, %s" % cg.groups() if cg else "no state"))
        bogo = re.findall(r"\] (fork|vfork|clone|exec|pthread) +(\d+) +[\d.]+ +[\d.]+", r.console)
        return "%s: %ss, %s forks refused, %s flips, %s hotplugs; bogo ops %s; %d splats, %s " \
            "tasks after, deepest stack %s bytes left" % (
                name, secs, refused, flips, hotplugs, " ".join("%s %s" % b for b in bogo) or "none",
                len(splats), tasks.group(1) if tasks else "?", deepest)
    mem = dict(re.findall(r"^MEM (\w+) (.*)$", r.console, re.M))
    threads = re.search(r"^THREADS (\d+)$", r.console, re.M)
    t(threads and int(threads.group(1)) > size and "with" in mem,
      "%s: %s threads live while measured" % (name, threads.group(1) if threads else "no"))
    return "%s: before %s | with %s threads %s" % (name, mem.get("before"), size,
                                                    mem.get("with"))


def main(argv):
    # make reliability SET=memory: only the memory boots of the full set.
    sets = {"check": CHECK, "full": FULL, "memory": [c for c in FULL if c[5] == "memory"]}
    which = (argv[1:] or ["check"])[0]
    if which not in sets:
        print("error: no set %r (check, full or memory)" % which, file=sys.stderr)
        return 2
    cases = sets[which]
    t = tap.Tap()
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
    figures = [judge(t, c[0], c[5], c[6], c[4], r) for c, r in zip(cases, qemu.run(boots))]
    (OUT / "figures.txt").write_text("\n".join(figures) + "\n")
    for f in figures:
        t.diag(f)
    return t.plan()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
