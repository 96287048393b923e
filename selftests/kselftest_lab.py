"""make check's kselftest-lab: the kstack_colour kselftests the way KernelCI and
LKFT run them, with nothing of the project's in between.  In the patched tree
(build/linux):

    make O=OBJ headers
    make O=OBJ -C tools/testing/selftests TARGETS=kstack_colour CC="gcc -static" \\
        INSTALL_PATH=DIR install

then DIR goes into the guest as /kselftest (with coreutils' timeout as
/usr/bin/timeout, which runner.sh needs to enforce the settings file's
timeout: busybox's has no --foreground), and the guest runs
`./run_kselftest.sh -c kstack_colour` on the test image, Skylake-Client,
-smp 2, kstack_colour=on.  Its output is parsed by the kernel's own
`tools/testing/kunit/kunit.py parse`.  TAP; progress on stderr.

usage: python3 -m selftests.kselftest_lab  (from the top of the tree, not by its path)
"""
import functools
import os
import re
import shutil
import subprocess
import sys

from harness import kernel, qemu, series, tap, util

OUT = util.BUILD / "kselftest-lab"
COLLECTION = "kstack_colour"
TESTS = ("kstack_colour_test", "kstack_colour_stress")
# The guest's side: run_kselftest.sh's output into a file, then that file
# with each line tagged (qemu.dump()), so that kernel messages on the
# console do not mix in.
# runner.sh opens /dev/stdout again, so the file it names is appended to,
# or the two offsets would overwrite each other.
RUN = """cd /kselftest || exit 1
./run_kselftest.sh -c %s >>/tmp/ksft.out 2>&1
echo "run_kselftest.sh rc=$?"
%s""" % (COLLECTION, qemu.dump("/tmp/ksft.out", "ksft"))
SUMMARY = re.compile(r"Testing complete\. Ran (\d+) tests: passed: (\d+)(.*)")


say = functools.partial(qemu.say, "kselftest-lab")


def install(tree):
    """make headers and the kselftest install, as the kernel documents them."""
    obj, dest, log = OUT / "obj", OUT / "install", OUT / "install.log"
    shutil.rmtree(dest, ignore_errors=True)
    obj.mkdir(parents=True, exist_ok=True)
    say("make headers; make -C tools/testing/selftests TARGETS=%s install (log %s)"
        % (COLLECTION, log))
    with open(log, "w") as f:
        jobs = "-j%d" % os.cpu_count()
        for cmd in (["make", jobs, "-C", str(tree), "ARCH=x86_64", "O=%s" % obj, "headers"],
                    ["make", jobs, "-C", str(tree / "tools/testing/selftests"), "ARCH=x86_64",
                     "O=%s" % obj, "TARGETS=" + COLLECTION, "CC=gcc -static",
                     "INSTALL_PATH=%s" % dest, "install"]):
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode:
                raise util.Error("%s failed (see %s)" % (" ".join(cmd[:4]), log))
    return dest


def main():
    t = tap.Tap()
    try:
        tree = series.Tree()
        tree.ensure()
        dest = install(tree.path)
        image = kernel.image("test")
    except util.Error as e:
        t(False, "the kselftests install and the test image builds: %s" % e)
        return t.plan()
    listed = (dest / "kselftest-list.txt").read_text().split()
    t(sorted(listed) == sorted("%s:%s" % (COLLECTION, n) for n in TESTS),
      "the install lists the collection's tests: %s" % " ".join(listed))
    (OUT / "run.sh").write_text(RUN)
    files = [(OUT / "run.sh", "/run.sh"), (dest, "/kselftest")] + \
        qemu.programs(["/usr/bin/timeout"])
    initramfs = qemu.initramfs(OUT / "initramfs.cpio.gz", files)
    say("booting the test image: run_kselftest.sh -c %s" % COLLECTION)
    r = qemu.run([qemu.Boot("kselftest-lab", image, initramfs, OUT, smp=2, timeout=900,
                            args=["kstack_colour=on"])])[0]
    m = re.search(r"^run_kselftest\.sh rc=(\d+)$", r.console.replace("\r", ""), re.M)
    output = qemu.dumped(r.console, "ksft")
    (OUT / "run_kselftest.out").write_text(output)
    t(r.ok and bool(m) and m.group(1) == "0", "run_kselftest.sh -c %s exits 0 in the guest "
      "(console: %s.log)" % (COLLECTION, r.boot.file))
    for n in TESTS:
        t(re.search(r"^ok \d+ selftests: %s: %s$" % (COLLECTION, n), output, re.M),
          "run_kselftest.sh: ok selftests: %s: %s" % (COLLECTION, n))
    timeouts = re.findall(r"^# timeout set to (\d+)$", output, re.M)
    settings = re.search(r"^timeout=(\d+)", (dest / COLLECTION / "settings").read_text(), re.M)
    t(settings and timeouts == [settings.group(1)] * len(TESTS),
      "runner.sh takes the settings file's timeout=%s for each test (%s)"
      % (settings.group(1) if settings else "?", ", ".join(timeouts) or "none"))
    parse = subprocess.run([str(tree.path / "tools/testing/kunit/kunit.py"), "parse",
                            str(OUT / "run_kselftest.out")], capture_output=True, text=True)
    s = SUMMARY.search(parse.stdout)
    t(parse.returncode == 0 and s and int(s.group(2)) == int(s.group(1)) > 0 and
      "error" not in s.group(3).lower() and "[ERROR]" not in parse.stdout,
      "kunit.py parse of its output: %s" % (s.group(0) if s else "no summary"),
      diag=[] if parse.returncode == 0 and s else parse.stdout.splitlines()[-10:])
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
