#!/usr/bin/env python3
"""make check's kunit-py: the kstack_colour KUnit suite run the kernel's own
way, `tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=arch/x86/kernel`
in the patched tree (build/linux), nothing of the project's in between.  kunit.py
builds its own kernel from the suite's .kunitconfig (in build/obj/kunit, beside
the harness's object dirs, so that ccache hits across clones), boots it under
QEMU and parses the KTAP itself.  TAP: kunit.py
exits 0, and its summary counts the suite's cases, none failed.
"""
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import kernel, tap  # noqa: E402

KUNITCONFIG = "arch/x86/kernel"
SUMMARY = re.compile(r"Testing complete\. Ran (\d+) tests: passed: (\d+)(?:, failed: (\d+))?"
                     r"(?:, skipped: (\d+))?")


def main():
    t = tap.Tap()
    tree = kernel.Tree()
    try:
        tree.ensure()
    except kernel.Error as e:
        t(False, "the patched tree is there: %s" % e)
        return t.plan()
    build_dir = kernel.BUILD / "obj" / "kunit"
    build_dir.mkdir(parents=True, exist_ok=True)  # kunit.py makes only the last level
    cmd = [str(tree.path / "tools/testing/kunit/kunit.py"), "run", "--arch=x86_64",
           "--kunitconfig=" + KUNITCONFIG, "--build_dir=%s" % build_dir, "--jobs=2",
           "--make_options=CC=ccache gcc", "--timeout=900"]
    env = kernel.Kmake(tree.path, build_dir).env
    log = kernel.BUILD / "kunit-py.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.time()
    print("[kunit-py] %s (log %s)" % (" ".join(cmd[1:]), log), file=sys.stderr, flush=True)
    with open(log, "w") as out:
        rc = subprocess.run(cmd, cwd=tree.path, env=env, stdout=out,
                            stderr=subprocess.STDOUT).returncode
    text = log.read_text(errors="replace")
    print("[kunit-py] done in %ds" % (time.time() - start), file=sys.stderr)
    t(rc == 0, "kunit.py run --arch=x86_64 --kunitconfig=%s exits 0 (%d)" % (KUNITCONFIG, rc),
      diag=[] if rc == 0 else text.splitlines()[-15:])
    m = SUMMARY.search(text)
    ran, passed, failed = (int(m.group(i) or 0) for i in (1, 2, 3)) if m else (0, 0, 0)
    t(bool(m) and "kstack_colour" in text and ran > 0 and failed == 0 and passed > 0,
      "kunit.py's summary: the kstack_colour suite ran %d cases, %d passed, %d failed"
      % (ran, passed, failed))
    return t.plan()


if __name__ == "__main__":
    sys.exit(main())
