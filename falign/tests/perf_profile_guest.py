#!/usr/bin/env python3
"""make check's perf-profile-guest: make hot-text-profile FROM=FILE on a real
`perf record` of a kcolour kernel.

The test image booted under QEMU (no PMU under TCG: cpu-clock, the software
event a VM has), Debian's perf in the initramfs by the ldd rule: perf
records the kernel with call graphs while a shell runs a fork and exec
loop, then writes the same samples three ways, perf script's default
format (call graphs included), -F ip,sym and -F ip.  Each goes through
falign/hot_text.py perf as a user's file would: every one must give a
profile that reads back; the default format and -F ip,sym must count the
same samples per function (a call graph's frames are not samples); -F ip
needs the image's System.map, and must name the same functions as perf
did for nearly all samples (aliases aside); a quarter of the samples at
least must be the loop's kernel work (fork, exec, page faults, exit).
The first samples of the default and -F ip,sym dumps are kept as
falign/tests/perf-script-*.txt, hot-text-unit's canned files.  TAP;
progress on stderr.
"""
import contextlib
import functools
import re
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP))
from falign import hot_text  # noqa: E402
from harness import kernel, qemu, tap, util  # noqa: E402

OUT = util.BUILD / "perf-profile-guest"
LOOP = "i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done"
FORMATS = {"default": "", "ip,sym": "-G -F ip,sym", "ip": "-G -F ip"}
RUN = ("perf record -q -e cpu-clock:k -F 1000 -a -g -o /tmp/perf.data -- sh -c '%s'\n"
       'echo "RECORD rc=$?"\n' % LOOP + "".join(
           "perf script -i /tmp/perf.data %s > /tmp/%s.txt; echo \"SCRIPT %s rc=$?\"\n"
           "%s" % (flags, name, name, qemu.dump("/tmp/%s.txt" % name, name))
           for name, flags in FORMATS.items()))
# What a fork and exec loop runs in the kernel: at least LOOP_SHARE of the
# samples (46% here; idle, had perf sampled the wrong thing, matches none).
LOOP_WORK = re.compile(r"fault|clear_page|copy_page|copy_process|exec|fork|mmap|unmap|pte|"
                       r"vma|folio|elf|exit")
LOOP_SHARE = 0.25

say = functools.partial(qemu.say, "perf-profile-guest")


def dumps(console):
    """{format: its perf script output}, of the formats the guest printed."""
    return {f: out for f in FORMATS for out in [qemu.dumped(console, f)] if out}


def main():
    t = tap.Tap()
    try:
        image = kernel.image("test")
        initramfs = qemu.script_initramfs(OUT, RUN, progs=["/usr/bin/perf"])
    except util.Error as e:
        t(False, "the test image and an initramfs with perf: %s" % e)
        return t.plan()
    say("booting the test image: perf record -e cpu-clock:k -g of a fork and exec loop")
    r = qemu.run([qemu.Boot("perf-profile-guest", image, initramfs, OUT, timeout=600,
                            args=["nokaslr"])])[0]
    c = r.console.replace("\r", "")
    out = dumps(c)
    ran = "RECORD rc=0" in c and all("SCRIPT %s rc=0" % f in c for f in FORMATS) and \
        set(out) == set(FORMATS)
    t(ran, "perf record and perf script ran in the guest, three formats (console %s.log)"
      % r.boot.file, diag=[] if ran else c.splitlines()[-15:])
    if not ran:
        return t.plan()
    counts, profiles = {}, {}
    with tempfile.TemporaryDirectory() as d:
        for name in FORMATS:
            f = Path(d) / ("perf-%s.txt" % name)
            f.write_text(out[name])
            (OUT / f.name).write_text(out[name])  # kept, for a look at a failure
            args = ["perf", str(f), "--out", str(Path(d) / (name + ".profile"))]
            if name == "ip":
                args += ["--system-map", str(image.path / "System.map")]
            with contextlib.redirect_stdout(sys.stderr):
                rc = hot_text.main(args)
            ok = rc == 0 and (Path(d) / (name + ".profile")).exists()
            t(ok, "perf script %s: hot_text.py perf writes a profile" % (
                FORMATS[name] or "(default format, call graphs)"))
            if ok:
                profiles[name] = hot_text.read(Path(d) / (name + ".profile"))
                counts[name] = hot_text.from_perf(
                    f, image.path / "System.map" if name == "ip" else None)[0]
    if len(counts) != len(FORMATS):
        return t.plan()
    samples = sum(counts["ip,sym"].values())
    t(samples >= 50, "%d kernel samples of the loop" % samples)
    same = counts["default"] == counts["ip,sym"]
    t(same, "the default format with call graphs counts what -F ip,sym counts: the leaf "
      "of each sample, not its callers' frames", diag=[] if same else [
          "%s: %s against %s" % (f, counts["default"][f], counts["ip,sym"][f])
          for f in set(counts["default"]) | set(counts["ip,sym"])
          if counts["default"][f] != counts["ip,sym"][f]][:10])
    agree = sum((counts["ip"] & counts["ip,sym"]).values())
    t(agree >= 0.9 * samples, "-F ip with the System.map names what perf named for %d of %d "
      "samples" % (agree, samples))
    loop = sum(n for f, n in counts["ip,sym"].items() if LOOP_WORK.search(f))
    top = [f for _, f, _ in profiles["ip,sym"][:5]]
    t(loop >= LOOP_SHARE * samples, "%d of the %d samples in the loop's kernel work (fork, "
      "exec, page faults, exit); the hottest: %s" % (loop, samples, ", ".join(top)))
    splats = [line for line in c.splitlines() if qemu.SPLAT.search(line)]
    t(not splats, "no BUG, WARNING or Oops", diag=splats[:5])
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
