"""make selftests: the cases of cases.tsv, --jobs boots at a time, of the test image (or
its KASAN + lockdep twin) and one initramfs; kcolour.tests= picks what guest-run.sh runs.
A nested subtest a boot (parse_results.py) and one a differential (compare_upstream.py:
"X/off" against "X" and each "X+variant"), a summary table; TAP also in build/selftests/.

usage: python3 -m selftests.matrix [--cases REGEX] [--jobs N] [check|full]
       (from the top of the tree, not by its path)
(make selftests SET=check|full CASES=regex JOBS=N)
"""
import argparse
import functools
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness import kernel, qemu, series, util
from harness.tap import Tap
from selftests import compare_upstream, demo, parse_results

HERE = Path(__file__).resolve().parent
OUT = util.BUILD / "selftests"
say = functools.partial(qemu.say, "selftests")


def select(cset, pick):
    """The cases of cases.tsv in the set whose name matches pick ("-": empty)."""
    rows = [x.split("\t") for x in (HERE / "cases.tsv").read_text().splitlines() if x[:1] != "#"]
    return [dict(zip("name model smp image append tests expect".split(),
                     ("" if v == "-" else v for v in f[1:8])))
            for f in rows if len(f) >= 8 and cset in ("full", f[0]) and re.search(pick, f[1])]


def guest(tree):
    """The initramfs of every case: kselftests, upstream selftests, probe."""
    bindir, up, hdr, log = OUT / "bin", OUT / "upstream", OUT / "usr", OUT / "guest-build.log"
    for d in (bindir, up):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    say("guest programs: uapi headers, kselftests, upstream selftests, probe, static")
    src = tree / "tools/testing/selftests"
    flags = ["CC=gcc -static", "KHDR_INCLUDES=-isystem %s/include" % hdr]
    steps = [[tree, "O=%s" % (OUT / "hdr-obj"), "headers_install", "INSTALL_HDR_PATH=%s" % hdr],
             [src / "kstack_colour", "OUTPUT=%s" % bindir] + flags]
    steps += [[src / d, "OUTPUT=%s" % up] + flags + targets for d, targets in
              (("x86", ["all_32", "all_64"]), ("ptrace", []), ("breakpoints", []), ("clone3", []))]
    with open(log, "w") as f:
        for args in steps:
            cmd = ["make", "-s", "-j%d" % os.cpu_count(), "-C"] + [str(a) for a in args]
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode:
                raise util.Error("building the guest programs failed: make -C %s (see %s)"
                                   % (args[0], log))
        demo.guest_tools(bindir, demo=False, log=f)
    initramfs = qemu.initramfs(OUT / "initramfs.cpio.gz", [
        (HERE / "guest-run.sh", "/run.sh"), (HERE / "upstream-known.tsv", "/upstream-known.tsv"),
        (up, "/upstream"), (bindir, "/bin")])  # kstack_colour_test, _stress, kcolour-probe
    say("initramfs: %d upstream programs" % sum(p.is_file() for p in up.rglob("*")))
    return initramfs


def main(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("set", nargs="?", choices=("check", "full"), default="check",
                   help="make check's cases, or all of them (default check)")
    p.add_argument("--cases", metavar="REGEX", default="",
                   help="only the cases whose name matches")
    p.add_argument("--jobs", metavar="N", type=int, default=2, help="boots at a time (default 2)")
    opts = p.parse_args(argv[1:])
    cset, pick = opts.set, opts.cases
    cases = select(cset, pick)
    if not cases:
        print("Bail out! no case of set '%s' matches --cases '%s'" % (cset, pick))
        return 1
    shutil.rmtree(OUT / "cases", ignore_errors=True)
    try:
        images = {name: kernel.image(name) for name in dict.fromkeys(c["image"] for c in cases)}
        tree = series.Tree()
        # An image cache hit needs no tree; the selftest sources do.
        if not (tree.path / "tools/testing/selftests/kstack_colour").is_dir():
            say("tree: base + series (for the selftest sources)")
            tree.ensure()
        initramfs = guest(tree.path)
    except util.Error as e:
        print("Bail out! %s" % e)
        return 1
    boots = [qemu.Boot(c["name"], images[c["image"]], initramfs, OUT / "cases", model=c["model"],
                       smp=int(c["smp"]), mem="1G" if c["image"] == "debug" else "512M",
                       timeout=900 if c["image"] == "debug" else 600,
                       args=c["append"].split() + ["kcolour.tests=" + c["tests"]]) for c in cases]
    say("%d boots, %s at a time" % (len(boots), opts.jobs))
    buf = io.StringIO()
    top, rows, upstream = Tap(buf), [], {}
    for c, r in zip(cases, qemu.run(boots, jobs=opts.jobs)):
        with top.sub(c["name"]) as t:
            t(r.ok, "boots and runs the tests to the end (qemu-run exit %d)" % r.status)
            try:
                upstream[c["name"]] = parse_results.check(
                    t, r.console.splitlines(), "kstack_colour=off" in c["append"], c["expect"])
            except (ValueError, KeyError, IndexError) as e:
                t(False, "parse_results.py read the console (%r)" % e)
                upstream[c["name"]] = {}
        rows.append("%-32s %6d %6d %5ss" % (c["name"], t.n - t.failed, t.failed, r.seconds))
    # The differential: X/off against X, and against each X+variant (X+task).
    pairs = [(off, on) for off in upstream for on in upstream if off.endswith("/off") and
             upstream[off] and upstream[on] and (on == off[:-4] or on.startswith(off[:-4] + "+"))]
    for off, on in pairs:
        with top.sub("%s: upstream off vs on" % on) as t:
            compare_upstream.compare(t, on, upstream[off], upstream[on])
        rows.append("%-32s %6d %6d" % (on + ": upstream off vs on", t.n - t.failed, t.failed))
    for row in ["%-32s %6s %6s %6s" % ("case", "passed", "failed", "time")] + rows:
        top.diag(row)
    rc = top.plan()
    sys.stdout.write(buf.getvalue())
    (OUT / "selftests.tap").write_text(buf.getvalue())
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
