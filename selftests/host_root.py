"""make host-boot: the patched kernel on this machine's own userspace, the
way virtme-ng runs a kernel: QEMU exports the host's / read-only over
virtio-9p, the guest mounts it as its root, and an init script (written to
build/host-root/init, which the guest sees at the same path) mounts proc,
sysfs, debugfs, cgroup2 and tmpfs on /tmp and /run, runs one command as
root, and reboots, which ends QEMU.  Nothing on the host is written but
build/host-root (and build/kselftest-lab, where the kselftests install).

The image is facts.tsv's hostroot: the test image's fragments and
host-root.config (PCI, virtio-pci, 9P).  The command line QEMU gets:

    -fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
    -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
    -append "root=/dev/root rootfstype=9p
             rootflags=trans=virtio,version=9p2000.L,msize=262144 ro
             init=.../build/host-root/init ..."

Without a command it runs the kstack_colour kselftests (installed by
kselftest-lab's `make headers` and `make -C tools/testing/selftests
install`) with run_kselftest.sh and prints the KUnit suites' results from
debugfs, and says ok or not ok for each (TAP).  With one (`-- CMD ARGS`,
make's CMD=), it runs that in the guest's working directory, the current
one, and exits with its status.  Progress on stderr.

usage: python3 -m selftests.host_root [--image NAME] [--cpu MODEL] [--smp N]
                                      [--append ARGS] [--timeout S] [-- CMD [ARG...]]
       (from the top of the tree, not by its path)
"""
import argparse
import functools
import gzip
import re
import shlex
import sys
from pathlib import Path

from harness import facts, kernel, qemu, series, tap, util
from selftests import kselftest_lab

OUT = util.BUILD / "host-root"
BEGIN, END = "HOST-ROOT-OUTPUT-BEGIN", "HOST-ROOT-OUTPUT-END"
# /init's job in the project's initramfs guests, here on the host's root:
# the mounts a read-only root needs, the command, its status and the marker
# qemu-run.sh waits for, then power off (the host's poweroff would ask an
# init system that is not running).
INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
cd %(cwd)s || exit 1
echo %(begin)s
(
%(cmd)s
)
rc=$?
echo %(end)s
echo "KCOLOUR-INIT-DONE rc=$rc"
# reboot(2) at once, which ends QEMU under -no-reboot (the image has no
# ACPI to power off with); SysRq where there is no python3 (asynchronous:
# wait in a builtin, not on the 9p root, which goes away under a program
# being paged in).
python3 -c 'import ctypes; ctypes.CDLL(None).reboot(0x01234567)'
echo b >/proc/sysrq-trigger
while :; do :; done
"""
# The default command: the kselftests as a test lab runs them, then KUnit's
# results as the kernel's debugfs keeps them.
KSELFTEST = """cd %(dest)s && ./run_kselftest.sh -c kstack_colour
ksft=$?
for s in /sys/kernel/debug/kunit/*/results; do cat "$s"; done
exit $ksft"""

say = functools.partial(qemu.say, "host-boot")


def empty_initramfs(out):
    """An initramfs with no /init, only /dev/console: the kernel then mounts
    root= itself."""
    data = qemu.newc("dev", 0o040755) + qemu.newc("dev/console", 0o020600, (5, 1)) + \
        qemu.newc("TRAILER!!!", 0)
    out.write_bytes(gzip.compress(data, 9, mtime=0))
    return out


def boot(image, cmd, cpu, smp, append, timeout):
    """One boot of image on the host's root running cmd (shell text); the
    qemu.Result and the command's output."""
    OUT.mkdir(parents=True, exist_ok=True)
    init = OUT / "init"
    init.write_text(INIT % {"cwd": shlex.quote(str(Path.cwd())), "cmd": cmd,
                            "begin": BEGIN, "end": END})
    init.chmod(0o755)
    b = qemu.Boot("host-root", image, empty_initramfs(OUT / "empty.cpio.gz"), OUT, model=cpu,
                  smp=smp, timeout=timeout,
                  qemu_args=["-fsdev", "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap",
                             "-device", "virtio-9p-pci,fsdev=root,mount_tag=/dev/root"],
                  args=["root=/dev/root", "rootfstype=9p",
                        "rootflags=trans=virtio,version=9p2000.L,msize=262144", "ro",
                        "init=%s" % init] + shlex.split(append))
    say("booting %s on this machine's / (read-only, 9p), -cpu %s -smp %d: %s"
        % (image.name, cpu, smp, cmd.splitlines()[0]))
    r = qemu.run([b])[0]
    m = re.search(r"%s\n(.*?)%s\n" % (BEGIN, END), r.console.replace("\r", ""), re.S)
    return r, m.group(1) if m else ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default="hostroot", help="a facts.tsv image with host-root")
    ap.add_argument("--cpu", default=facts.default_model()[0],
                    help="QEMU -cpu model (default facts.tsv's model-default, %(default)s)")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--append", default="kstack_colour=on", help="more kernel arguments")
    ap.add_argument("--timeout", type=int, default=900, help="seconds before QEMU is killed")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS: run that instead")
    opts = ap.parse_args(argv)
    cmd = opts.cmd[1:] if opts.cmd[:1] == ["--"] else opts.cmd
    try:
        if "host-root" not in kernel.resolve(opts.image)[2]:
            raise util.Error("image %s has no host-root fragment: it cannot mount a 9p root"
                             % opts.image)
        image = kernel.image(opts.image)
        if not cmd:
            tree = series.Tree()
            tree.ensure()
            dest = kselftest_lab.install(tree.path)
    except util.Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if cmd:
        r, output = boot(image, " ".join(map(shlex.quote, cmd)), opts.cpu, opts.smp,
                         opts.append, opts.timeout)
        sys.stdout.write(output)
        if not r.ok:
            print("error: the guest's command failed or the boot did not finish (console: %s.log)"
                  % r.boot.file, file=sys.stderr)
        return 0 if r.ok else 1
    t = tap.Tap()
    r, output = boot(image, KSELFTEST % {"dest": shlex.quote(str(dest))}, opts.cpu, opts.smp,
                     opts.append, opts.timeout)
    (OUT / "output.txt").write_text(output)
    t(r.ok, "the guest booted on the host's root and run_kselftest.sh exited 0 (console: %s.log)"
      % r.boot.file)
    for n in kselftest_lab.TESTS:
        t(re.search(r"^ok \d+ selftests: kstack_colour: %s$" % n, output, re.M),
          "run_kselftest.sh on the host's userspace: ok selftests: kstack_colour: %s" % n)
    suites = re.findall(r"^(ok|not ok) \d+ (\w+)$", output, re.M)
    t("kstack_colour" in [s for _, s in suites] and all(ok == "ok" for ok, _ in suites),
      "debugfs kunit results: %s" % (", ".join("%s %s" % s for s in suites) or "none"))
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
