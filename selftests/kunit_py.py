"""make check's kunit-py: the kstack_colour KUnit suite run the kernel's own
way, by `tools/testing/kunit/kunit.py exec --arch=x86_64` in the patched
tree (build/linux), on the test image make check has built anyway: kunit.py
boots it under QEMU with its own command line and parses the KTAP itself,
nothing of the project's in between.  `kunit.py run` would first build a
second kernel from the suite's .kunitconfig (11 minutes from an empty
cache); the test image holds every line of that .kunitconfig, which is
checked here as kunit.py's own build step would check it.  TAP: the
.kunitconfig is satisfied, kunit.py exits 0, and its summary counts the
suite's cases, none failed.

`python3 -m selftests.kunit_py run` (make check-full) runs `kunit.py run
--kunitconfig=arch/x86/kernel` instead: kunit.py configures and builds its
own kernel from the .kunitconfig (in build/obj/kunit, with ccache), as a
developer with nothing built would.

usage: python3 -m selftests.kunit_py [run]  (from the top of the tree, not by its path)
"""
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness import kernel, series, tap, util

KUNITCONFIG = "arch/x86/kernel/.kunitconfig"
SUMMARY = re.compile(r"Testing complete\. Ran (\d+) tests: passed: (\d+)(?:, failed: (\d+))?"
                     r"(?:, skipped: (\d+))?")
OPTION = re.compile(r"^(CONFIG_\w+=\S+|# CONFIG_\w+ is not set)$")


def kconfig_lines(path):
    """The option lines of a .config or .kunitconfig, as a set."""
    return {l.strip() for l in path.read_text().splitlines() if OPTION.match(l.strip())}


def exec_cmd(t, tree):
    """kunit.py exec on a build dir holding the test image (.config and
    arch/x86/boot/bzImage are what exec reads)."""
    image = kernel.image("test")
    missing = sorted(kconfig_lines(tree.path / KUNITCONFIG) - kconfig_lines(image.path / "config"))
    t(not missing, "the test image's .config holds every line of %s" % KUNITCONFIG,
      diag=["missing: " + m for m in missing])
    build_dir = util.BUILD / "kunit-exec"
    shutil.rmtree(build_dir, ignore_errors=True)
    (build_dir / "arch/x86/boot").mkdir(parents=True)
    shutil.copy(image.path / "config", build_dir / ".config")
    shutil.copy(image.bzimage, build_dir / "arch/x86/boot/bzImage")
    return ["exec", "--arch=x86_64", "--build_dir=%s" % build_dir, "--timeout=900",
            "kstack_colour*"], None


def run_cmd(tree):
    """kunit.py run: its own kernel from the suite's .kunitconfig."""
    build_dir = util.BUILD / "obj" / "kunit"
    build_dir.mkdir(parents=True, exist_ok=True)  # kunit.py makes only the last level
    return (["run", "--arch=x86_64", "--kunitconfig=" + str(Path(KUNITCONFIG).parent),
             "--build_dir=%s" % build_dir, "--jobs=2", "--make_options=CC=ccache gcc",
             "--timeout=900"], kernel.Kmake(tree.path, build_dir).env)


def main(mode):
    t = tap.Tap()
    tree = series.Tree()
    try:
        tree.ensure()
        args, env = run_cmd(tree) if mode == "run" else exec_cmd(t, tree)
    except util.Error as e:
        t(False, "the patched tree and the test image are there: %s" % e)
        return t.plan()
    cmd = [str(tree.path / "tools/testing/kunit/kunit.py")] + args
    log = util.BUILD / "kunit-py.log"
    start = time.time()
    print("[kunit-py] %s (log %s)" % (" ".join(cmd[1:]), log), file=sys.stderr, flush=True)
    with open(log, "w") as out:
        rc = subprocess.run(cmd, cwd=tree.path, env=env, stdout=out, stdin=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT).returncode
    text = log.read_text(errors="replace")
    print("[kunit-py] done in %ds" % (time.time() - start), file=sys.stderr)
    t(rc == 0, "kunit.py %s exits 0 (%d)" % (" ".join(args[:2]), rc),
      diag=[] if rc == 0 else text.splitlines()[-15:])
    m = SUMMARY.search(text)
    ran, passed, failed = (int(m.group(i) or 0) for i in (1, 2, 3)) if m else (0, 0, 0)
    t(bool(m) and "kstack_colour" in text and ran > 0 and failed == 0 and passed > 0,
      "kunit.py's summary: the kstack_colour suites ran %d cases, %d passed, %d failed"
      % (ran, passed, failed))
    return t.plan()


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["run"]):
        sys.exit("usage: python3 -m selftests.kunit_py [run]")
    sys.exit(main(sys.argv[1] if sys.argv[1:] else "exec"))
