#!/usr/bin/env python3
"""make check's perf-ab-guest: make perf-ab with a command of its own, run for
real inside a kcolour kernel.

The test image booted under QEMU (no PMU under TCG), with Debian's perf and
python3.11 in the initramfs (perf's shared libraries by the ldd rule, and
the standard library modules perfab.py imports): perfab.py must find no
hardware counters, take the software events, switch kernel.kstack_colour
between its pairs of trials of a shell fork loop, print each event's paired
interval, and leave the sysctl as it found it.  TAP; progress on stderr.
"""
import functools
import re
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP))
from harness import kernel, qemu, tap, util  # noqa: E402

OUT = util.BUILD / "perf-ab-guest"
PYTHON = "/usr/bin/python3.11"
PAIRS = 6
LOOP = "i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i + 1)); done"
RUN = """echo "SYSCTL-BEFORE $(cat /proc/sys/kernel/kstack_colour)"
%s -S /perfab/perfab.py --repeats %d --work /tmp/perf-ab -- sh -c '%s'
echo "PERFAB rc=$?"
echo "SYSCTL-AFTER $(cat /proc/sys/kernel/kstack_colour)"
""" % (PYTHON, PAIRS, LOOP)

say = functools.partial(qemu.say, "perf-ab-guest")


def python_files():
    """(SRC, DEST) of every module file perfab.py loads, found by importing it
    with the guest's interpreter (-S, no site: the guest runs it so too)."""
    probe = ("import sys; sys.path.insert(0, %r); from bench import perfab; "
             "print('\\n'.join(sorted({m.__file__ for m in list(sys.modules.values()) "
             "if getattr(m, '__file__', None)})))" % str(TOP))
    r = subprocess.run([PYTHON, "-S", "-c", probe], capture_output=True, text=True)
    if r.returncode:
        raise util.Error("%s cannot import perfab.py: %s" % (PYTHON, r.stderr.strip()))
    files = [Path(f) for f in r.stdout.split() if not f.startswith(str(TOP))]
    return [(f, f) for f in files]


def main():
    t = tap.Tap()
    try:
        image = kernel.image("test")
        files = [(TOP / "bench/perfab.py", "/perfab/perfab.py"),
                 (TOP / "bench/lib/paired.py", "/perfab/paired.py")] + python_files()
        initramfs = qemu.script_initramfs(OUT, RUN, files, ["/usr/bin/perf", PYTHON])
    except util.Error as e:
        t(False, "the test image and the initramfs with perf and python3: %s" % e)
        return t.plan()
    say("booting the test image: perf-ab, %d pairs of a shell fork loop, software events"
        % PAIRS)
    r = qemu.run([qemu.Boot("perf-ab-guest", image, initramfs, OUT, timeout=900)])[0]
    c = r.console.replace("\r", "")
    rc = re.search(r"^PERFAB rc=(\d+)$", c, re.M)
    ran = bool(rc) and rc.group(1) == "0"
    t(ran, "perf-ab ran in the guest and exited 0 (exit %s, console %s.log)"
      % (rc.group(1) if rc else "none", r.boot.file), diag=[] if ran else c.splitlines()[-15:])
    t("no hardware counters here: the software events" in c and
      "- Events: cpu-clock,task-clock,context-switches,page-faults" in c,
      "no PMU under TCG: it said so and took the software events")
    rows = re.findall(r"^\| (task-clock|cpu-clock|context-switches|page-faults) \|.*"
                      r"\| ([+-]\d+\.\d\d%) \[([+-]\d+\.\d\d%), ([+-]\d+\.\d\d%)\] \| "
                      r"(\*\*lower\*\*|\*\*higher\*\*|no measurable effect, within ±\S+%) \| "
                      r"(?:\d+|n/a) \|$",
                      c, re.M)
    t(len(rows) == 4, "a row per software event, each with its paired 95%% interval and "
      "verdict: %s" % "; ".join("%s %s [%s, %s] %s" % x for x in rows),
      diag=[] if len(rows) == 4 else [l for l in c.splitlines() if l.startswith("|")])
    pairs = len(re.findall(r"^\[perf-ab\] cmd: \d+ of %d pairs" % PAIRS, c, re.M))
    t(pairs >= 1 and "1 case(s) x %d pairs of runs, off then on" % PAIRS in c,
      "%d pairs of trials, off then on, in one boot" % PAIRS)
    before = re.search(r"^SYSCTL-BEFORE (\S+)$", c, re.M)
    after = re.search(r"^SYSCTL-AFTER (\S+)$", c, re.M)
    t(before and after and before.group(1) == after.group(1) and
      "restored /proc/sys/kernel/kstack_colour to %s" % before.group(1) in c,
      "kernel.kstack_colour restored to what it was (%s)" % (before.group(1) if before else "?"))
    splats = [line for line in c.splitlines() if qemu.SPLAT.search(line)]
    t(not splats, "no BUG, WARNING or Oops", diag=splats[:5])
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
