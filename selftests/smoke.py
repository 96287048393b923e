"""make kernel-smoke (make check's kernel-off): facts.tsv's image "off" (colouring not
built) booted under each of --cpus; prints `uname -r` and cpu0's caches from sysfs,
and a TAP line a model: it boots and shows them.  A second TAP line a model:
a guest line that a kernel record interrupts half-way is still whole on the
console (harness/qemu.py's INIT carries the guest's lines as kernel log
records).  Logs in build/smoke/.

usage: python3 -m selftests.smoke [--cpus "Skylake-Client EPYC"]
       (from the top of the tree, not by its path)
"""
import argparse
import sys

from harness import facts, kernel, qemu, tap, util

OUT = util.BUILD / "smoke"
RUN_SH = r"""echo "smoke: uname -r: $(uname -r)"
echo "smoke: cpus online: $(cat /sys/devices/system/cpu/online)"
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ -d "$d" ] && echo "smoke: ${d##*/}:" $(for f in level type size ways_of_associativity \
		coherency_line_size number_of_sets; do echo "$f=$(cat "$d/$f" 2>/dev/null || echo '?')"; done)
done
# Half a line, a kernel record, the rest: the console must show the line whole.
printf 'smoke: splice-A'
echo '<4>kcolour-smoke: a kernel record between' >/dev/kmsg
printf 'B\n'
"""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpus", metavar='"MODEL ..."', default=facts.default_model()[0] + " EPYC",
                   help="the QEMU models to boot (default %(default)s: facts.tsv's "
                   "model-default and an AMD model)")
    cpus = p.parse_args(argv).cpus.split()
    try:
        image = kernel.image("off")
        initramfs = qemu.script_initramfs(OUT, RUN_SH)
    except util.Error as e:
        print("Bail out! %s" % e)
        return 1
    t, failed = tap.Tap(), []
    for r in qemu.run([qemu.Boot(cpu.split(",")[0], image, initramfs, OUT, model=cpu, smp=2,
                                 timeout=180) for cpu in cpus]):
        print("=== kernel-smoke: -cpu %s" % r.boot.model)
        lines = [x[len("smoke: "):] for x in r.console.splitlines() if x.startswith("smoke: ")]
        print("".join("  %s\n" % x for x in lines), end="")
        caches = sum(x.startswith("index") for x in lines)
        if not t(r.ok and caches, "-cpu %s: boots (qemu-run exit %d) and shows cpu0's caches in "
                 "sysfs (%d)" % (r.boot.model, r.status, caches)):
            failed.append(r.boot.model)
        console = r.console.replace("\r", "").splitlines()
        t("smoke: splice-AB" in console and "kcolour-smoke: a kernel record between" in console,
          "-cpu %s: a guest line a kernel record interrupts is whole on the console, the "
          "record on a line of its own" % r.boot.model,
          diag=[x for x in console if "splice" in x or "kcolour-smoke" in x])
    print("kernel-smoke: failed under: %s (logs in %s/)" % (", ".join(failed), OUT) if failed
          else "kernel-smoke: passed (%s)" % ", ".join(cpus))
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
