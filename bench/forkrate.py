#!/usr/bin/env python3
"""make bench-fork: fork+exit throughput, kernel stack colouring off against
on, within one boot (bench/workloads/forkrate.c).

One boot at -smp 2 under multi-threaded TCG runs `forkrate FORKS ROUNDS JOBS`,
which switches the kernel.kstack_colour sysctl between timed rounds (ABBA
order).  TCG on host time is noisy and drifts, so each on round is paired
with the off round beside it (the k-th of each: ABBA keeps them adjacent),
and on against off is the mean ratio with its 95% t interval over the pairs
(bench/lib/paired.py): a difference only where it excludes 0.  Each setting's
median and range are shown too.  Writes WORK/results.md
(default build/bench/fork) and prints its summary; progress on stderr.

Flags (make's FORKS=2000 ROUNDS=8 JOBS=2 IMAGE= APPEND= TIMEOUT= WORK=): --help.
"""

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from bench.lib import paired
from bench.lib.data import parse_kv
from bench.lib.report import Doc, Spread, table_lines
from bench.lib.runner import CPU, KARGS, ROOT
from harness import kernel, qemu, util

PROG = "bench-fork"
LINE_RE = re.compile(r"forkrate( done)?((?: [a-z_]+=[0-9.]+)+)\s*$")


def say(msg):
    qemu.say(PROG, msg)


class Failure(util.Error):
    """The run cannot go on: the message, and the lines that show why."""

    def __init__(self, msg, lines=()):
        super().__init__(msg)
        self.lines = list(lines)


def fail(msg, lines=()):
    raise Failure(msg, lines)


def span(s):
    return "%.1f [%.1f-%.1f]" % (s.median, s.lo, s.hi)


def setting(name, value):
    if not re.fullmatch(r"[1-9][0-9]*", value):
        fail("--%s %s: want a positive integer" % (name, value))
    return value


def parser():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--forks", metavar="N", default="2000",
                   help="forks per worker and round (default 2000)")
    p.add_argument("--rounds", metavar="N", default="8", help="timed rounds (default 8)")
    p.add_argument("--jobs", metavar="N", default="2", help="workers (default 2)")
    p.add_argument("--image", metavar="IMAGE", default="bench",
                   help="a bzImage file or a facts.tsv image (default bench)")
    p.add_argument("--append", metavar='"ARGS"', default="",
                   help="more kernel arguments (kstack_colour=task, kstack_colour=policy=rr, ...)")
    p.add_argument("--timeout", metavar="SECONDS", default="600",
                   help="the boot's timeout (default 600)")
    p.add_argument("--work", metavar="DIR", type=Path, default=ROOT / "build/bench/fork",
                   help="the work dir and results.md (default build/bench/fork)")
    return p


def main(argv=None):
    opts = parser().parse_args(argv)
    try:
        run(opts)
    except Failure as e:
        for line in e.lines:
            print("  " + line, file=sys.stderr)
        say("error: %s" % e)
        return 1
    return 0


def run(opts):
    start = time.time()
    forks, rounds, jobs = (setting(n, getattr(opts, n)) for n in ("forks", "rounds", "jobs"))
    work = opts.work
    spec = opts.image
    args = KARGS + opts.append.split()

    if Path(spec).is_file():
        image, label = Path(spec).resolve(), spec
    else:
        try:
            image = kernel.image(spec)
        except util.Error as e:
            fail("image %s: %s (--image takes a bzImage file or a facts.tsv image)" % (spec, e))
        label = "facts.tsv image %s (%s)" % (spec, image.how)
    say("kernel: %s" % image)

    (work / "bin").mkdir(parents=True, exist_ok=True)
    prog = work / "bin/forkrate"
    if subprocess.run(["make", "-s", "-C", str(ROOT / "bench/cachesim"), "OUT=%s" % prog.parent,
                       str(prog)], stdout=sys.stderr).returncode:
        fail("building forkrate failed")
    # The kernel's own account first (quiet hides it from the console); the
    # first line may follow the firmware's escape codes on the console.
    run_sh = "dmesg | grep -e 'Linux version' -e kstack_colour: | sed 's/^/guest: /'\n" \
        "forkrate %s %s %s\n" % (forks, rounds, jobs)
    (work / "run.sh").write_text(run_sh)
    try:
        initrd = qemu.initramfs(work / "initramfs.cpio.gz", [(prog, "/bin/forkrate"),
                                                            (work / "run.sh", "/run.sh")])
    except util.Error as e:
        fail(str(e))

    boot = qemu.Boot("forkrate", image, initrd, work, model=CPU, smp=2, args=args,
                     timeout=int(setting("timeout", opts.timeout)), deterministic=False,
                     single_thread=False)
    say("booting: %s FORKS=%s ROUNDS=%s JOBS=%s, -smp 2, multi-threaded TCG, %s"
        % (label, forks, rounds, jobs, " ".join(args)))
    r, = qemu.run([boot], jobs=1)
    if not r.ok:
        fail("the boot failed (status %d, log %s.log)" % (r.status, boot.file),
             [line for line in r.console.splitlines()[-8:] + r.errors.splitlines()
              if line.isprintable() and "TCG doesn't support" not in line])

    found = [("done" if m.group(1) else "round", parse_kv(m.group(2)))
             for m in map(LINE_RE.search, r.console.splitlines()) if m]
    rows = [kv for kind, kv in found if kind == "round"]
    done = bool(found) and found[-1][0] == "done"
    if len(rows) != int(rounds) or not done:
        fail("forkrate's lines are missing: %d of %s rounds%s (log %s.log)" % (
            len(rows), rounds, "" if done else ", no end line", boot.file))
    rates = [[float(kv["rate"]) for kv in rows if kv["colour"] == c] for c in (0, 1)]
    off, on = map(Spread, rates)
    # The k-th off round with the k-th on round: adjacent in ABBA order.
    n = min(map(len, rates))
    pair = paired.Paired(rates[0][:n], rates[1][:n])
    summary = "forks/s, median [min-max]: off %s, on %s; on against off, paired over %d " \
        "pairs of rounds: %s, %s" % (span(off), span(on), n, pair.interval(), pair.described())

    doc = Doc()
    doc.template("forkrate", "intro", date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 qemu=util.tool_version(["qemu-system-x86_64", "--version"]), forks=forks,
                 rounds=rounds, jobs=jobs, kernel=label.replace(str(ROOT) + "/", ""),
                 args=" ".join(args))
    doc.code("\n".join(re.findall(r"guest: (.*)", r.console)))
    doc.template("forkrate", "results",
                 rounds_table=table_lines(["round", "colour", "forks", "secs", "forks/s"],
                                          [(kv["round"], "on" if kv["colour"] else "off",
                                            kv["forks"], kv["secs"], kv["rate"]) for kv in rows],
                                          "rlrrr"),
                 spread=table_lines(["colouring", "rounds", "median forks/s", "min", "max"],
                                    [(n, len(s.values), "%.1f" % s.median, "%.1f" % s.lo,
                                      "%.1f" % s.hi) for n, s in (("off", off), ("on", on))],
                                    "lrrrr"),
                 pairs=n, interval=pair.interval(), verdict=pair.described(), seconds=r.seconds,
                 again=boot.command())
    doc.write_md(work / "results.md")
    print(summary)
    say("results: %s (%ds in all)" % (str(work / "results.md").replace(str(ROOT) + "/", ""),
                                     time.time() - start))


if __name__ == "__main__":
    sys.exit(main())
